package saidex

// The correction model through langchaingo's real anthropic and openai
// clients, against local servers (internal/fakeprovider). The anthropic
// client ignores the forced tool choice (FACTS.md), so a correction can come
// back as a call of the right tool, as text, or as a call of another tool:
// only a call of the tool being corrected, or text holding the arguments,
// is taken, and text goes through the same repair and validation.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// correctionTurn is one scripted answer of the correction model, in a
// provider-neutral form: text, and calls as (name, arguments).
type correctionTurn struct {
	text  string
	calls [][2]string
}

func anthropicTurn(c correctionTurn) []map[string]any {
	var blocks []map[string]any
	if c.text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": c.text})
	}
	for i, call := range c.calls {
		var input map[string]any
		_ = json.Unmarshal([]byte(call[1]), &input)
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_fix" + string(rune('a'+i)), "name": call[0], "input": input})
	}
	return blocks
}

func openAITurn(c correctionTurn) fakeprovider.OpenAIReply {
	r := fakeprovider.OpenAIReply{Text: c.text}
	for i, call := range c.calls {
		r.Calls = append(r.Calls, [3]string{"call_fix" + string(rune('a'+i)), call[0], call[1]})
	}
	return r
}

// correctionProvider starts a fake provider answering turns and returns
// its real langchaingo client and a function returning the text of each
// prompt it received.
type correctionProvider func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string)

var correctionProviders = map[string]correctionProvider{
	"anthropic": func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string) {
		var replies [][]map[string]any
		for _, c := range turns {
			replies = append(replies, anthropicTurn(c))
		}
		srv, llm := fakeprovider.NewAnthropic(t, replies...)
		return llm, func() []string {
			var out []string
			for _, req := range srv.Requests() {
				var b strings.Builder
				for _, m := range req {
					for _, blk := range m.Content {
						b.WriteString(blk.Text)
					}
				}
				out = append(out, b.String())
			}
			return out
		}
	},
	"openai": func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string) {
		var replies []fakeprovider.OpenAIReply
		for _, c := range turns {
			replies = append(replies, openAITurn(c))
		}
		srv, llm := fakeprovider.NewOpenAI(t, replies...)
		return llm, func() []string {
			var out []string
			for _, req := range srv.Requests() {
				var b strings.Builder
				for _, m := range req {
					var s string
					if json.Unmarshal(m.Content, &s) == nil {
						b.WriteString(s)
						continue
					}
					var parts []struct {
						Text string `json:"text"`
					}
					_ = json.Unmarshal(m.Content, &parts)
					for _, p := range parts {
						b.WriteString(p.Text)
					}
				}
				out = append(out, b.String())
			}
			return out
		}
	},
}

func TestCorrectionModelAnswerShapes(t *testing.T) {
	fixed := `{"city": "Paris", "days": 3}`
	sameTool := correctionTurn{calls: [][2]string{{"forecast", fixed}}}
	otherTool := correctionTurn{calls: [][2]string{{"teleport", fixed}}}
	tests := []struct {
		name      string
		providers []string
		turns     []correctionTurn
		want      Outcome
		wantReqs  int
		wantRetry string // text the second prompt must contain
	}{
		{
			name: "a call of the tool being corrected", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{sameTool}, want: OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "text holding the object in a fence is repaired and validated", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: "Here are the corrected arguments:\n```json\n" + fixed + "\n```"}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "text with single quotes and a trailing comma is repaired", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: `{'city': 'Paris', 'days': 3,}`}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "a call of another tool with arguments that would validate is never taken", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{otherTool, otherTool}, want: OutcomeFeedback, wantReqs: 2,
			wantRetry: "teleport",
		},
		{
			name: "a call of another tool, then of the right one", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{otherTool, sameTool}, want: OutcomeCorrected, wantReqs: 2,
			wantRetry: "teleport",
		},
		{
			name: "text and a call of another tool: the text is the answer", providers: []string{"anthropic"},
			turns: []correctionTurn{{text: fixed, calls: [][2]string{{"teleport", `{"to": "Mars"}`}}}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "prose only is a failed attempt", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: "I cannot help with that."}, {text: "Sorry."}}, want: OutcomeFeedback, wantReqs: 2,
			wantRetry: "I cannot help with that.",
		},
		{
			name: "text whose object still breaks the schema is a failed attempt", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: `{"city": "Paris", "days": "three"}`}, {text: `{"city": "Paris", "days": "3 days"}`}},
			want:  OutcomeFeedback, wantReqs: 2, wantRetry: "days",
		},
	}
	for _, tt := range tests {
		for _, p := range tt.providers {
			t.Run(p+"/"+tt.name, func(t *testing.T) {
				llm, prompts := correctionProviders[p](t, tt.turns)
				rec := &correctionRecorder{}
				var teleports atomic.Int64
				teleport := plainTool{name: "teleport", fn: func(context.Context, string) (string, error) {
					teleports.Add(1)
					return "teleported", nil
				}}
				node := mustNode(t, []tools.Tool{rec.tool(), teleport},
					WithCorrectionModel(llm), WithMaxCorrectionRetries(2))

				conv := conversation(tc("call_1", "forecast", `{"city": "Paris", "days": "three"}`))
				res, err := node.Run(context.Background(), conv)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				rep := res.Calls[0]
				if rep.Outcome != tt.want {
					t.Errorf("outcome = %v, want %v (report %+v)", rep.Outcome, tt.want, rep)
				}
				if n := teleports.Load(); n != 0 {
					t.Errorf("teleport ran %d times; a correction must never execute another tool", n)
				}
				ran := rec.ran()
				if tt.want == OutcomeCorrected && (len(ran) != 1 || ran[0] != (correctionArgs{"Paris", 3})) {
					t.Errorf("forecast ran with %+v, want once with Paris, 3", ran)
				}
				if tt.want != OutcomeCorrected && len(ran) != 0 {
					t.Errorf("forecast ran with %+v, want not at all", ran)
				}
				got := prompts()
				if len(got) != tt.wantReqs {
					t.Fatalf("%d correction requests, want %d", len(got), tt.wantReqs)
				}
				if tt.wantRetry != "" && !strings.Contains(got[1], tt.wantRetry) {
					t.Errorf("retry prompt does not mention %q:\n%s", tt.wantRetry, got[1])
				}
			})
		}
	}
}

type correctionArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// correctionRecorder is a forecast tool that records the arguments it ran
// with.
type correctionRecorder struct {
	mu   sync.Mutex
	args []correctionArgs
}

func (rec *correctionRecorder) tool() Tool {
	return NewTool("forecast", "Weather forecast for a city.", func(_ context.Context, a correctionArgs) (string, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.args = append(rec.args, a)
		return "sunny", nil
	})
}

func (rec *correctionRecorder) ran() []correctionArgs {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]correctionArgs(nil), rec.args...)
}
