package saidex

// Points of the Python SaidexToolNode spec (shared/spec/
// saidex-toolnode-python.md) asserted end to end: the correction model is
// langchaingo's real openai client talking to a local server, so what is
// checked is what the provider receives. The points where the Go node
// differs are listed in docs/python-differences.md.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func forecastTurn(args string) correctionTurn {
	return correctionTurn{calls: [][2]string{{"forecast", args}}}
}

// TestSpecCorrectionContextLimits: "the last correction_context_messages
// (default 10) messages before the AIMessage, without system messages,
// each cut to 2,000 characters, plus the AIMessage's own text" — the AI
// text is cut to 2,000 characters too.
func TestSpecCorrectionContextLimits(t *testing.T) {
	var history []llms.MessageContent
	for i := 1; i <= 12; i++ {
		history = append(history, llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprintf("ctx-%02d", i)))
		if i == 6 {
			history = append(history, llms.TextParts(llms.ChatMessageTypeSystem, "SYSTEM-NOTE"))
		}
	}
	invalid := tc("c1", "forecast", `{"city": "Paris", "days": "three"}`)
	tests := []struct {
		name    string
		ai      llms.MessageContent
		want    []string
		notWant []string
	}{
		{
			name:    "the default keeps the last ten non-system messages",
			ai:      llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart("AI-TEXT"), invalid}},
			want:    []string{"ctx-03", "ctx-12", "AI-TEXT"},
			notWant: []string{"ctx-01", "ctx-02", "SYSTEM-NOTE"},
		},
		{
			name:    "the AI message's own text is cut to 2,000 characters",
			ai:      llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart(strings.Repeat("y", 3000)), invalid}},
			want:    []string{strings.Repeat("y", 2000)},
			notWant: []string{strings.Repeat("y", 2001)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm, prompts := correctionProviders["openai"](t, []correctionTurn{forecastTurn(`{"city": "Paris", "days": 3}`)})
			node := mustNode(t, []tools.Tool{(&correctionRecorder{}).tool()}, WithCorrectionModel(llm))
			conv := append(append([]llms.MessageContent(nil), history...), tt.ai)
			if _, err := node.Run(context.Background(), conv); err != nil {
				t.Fatal(err)
			}
			got := prompts()
			if len(got) != 1 {
				t.Fatalf("%d correction requests, want 1", len(got))
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("prompt lacks %.40q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got[0], w) {
					t.Errorf("prompt contains %.40q", w)
				}
			}
		})
	}
}

// TestSpecRaiseAfterFailedCorrection: with on_unresolved "raise",
// "correction (if enabled) has already been tried", nothing executes, and
// "no ToolNodeEvent is emitted on the raise path".
func TestSpecRaiseAfterFailedCorrection(t *testing.T) {
	still := forecastTurn(`{"city": "Paris", "days": "three"}`)
	llm, prompts := correctionProviders["openai"](t, []correctionTurn{still, still})
	rec := &correctionRecorder{}
	var mu sync.Mutex
	var observed []ToolNodeEvent
	node := mustNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(llm), WithMaxCorrectionRetries(2),
		WithOnUnresolved(UnresolvedRaise), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithObserver(func(ev ToolNodeEvent) { mu.Lock(); observed = append(observed, ev); mu.Unlock() }))
	ctx, sink := CollectStats(context.Background())

	out, err := node.Invoke(ctx, conversation(tc("c1", "forecast", `{"city": "Paris", "days": "three"}`)))
	var ve *ToolCallValidationError
	if !errors.As(err, &ve) || out != nil {
		t.Fatalf("Invoke = %v, %v; want a *ToolCallValidationError", out, err)
	}
	if len(ve.Calls) != 1 || ve.Calls[0].CallID != "c1" {
		t.Errorf("listed calls = %+v, want c1", ve.Calls)
	}
	if n := len(prompts()); n != 2 {
		t.Errorf("%d correction requests, want 2: correction is tried before raising", n)
	}
	if ran := rec.ran(); len(ran) != 0 {
		t.Errorf("forecast ran with %+v", ran)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(observed) != 0 || len(sink.Events()) != 0 {
		t.Errorf("events on the raise path: observer %d, sink %d; want none", len(observed), len(sink.Events()))
	}
}

// TestSpecIsFinalEndToEnd: a validator sees each correction attempt, with
// is_final on the last one, and a correction it accepts is executed.
func TestSpecIsFinalEndToEnd(t *testing.T) {
	llm, _ := correctionProviders["openai"](t, []correctionTurn{
		forecastTurn(`{"city": "Paris", "days": 9}`),
		forecastTurn(`{"city": "Paris", "days": 3}`),
	})
	rec := &correctionRecorder{}
	var seen []string
	node := mustNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(llm), WithMaxCorrectionRetries(2),
		WithValidator("forecast", func(_ context.Context, args map[string]any, vc ValidatorContext) error {
			seen = append(seen, fmt.Sprintf("%v %d/%d final=%v", vc.Phase, vc.Attempt, vc.MaxAttempts, vc.IsFinal))
			if d, _ := args["days"].(json.Number).Int64(); d > 5 {
				return &ValidationIssue{Path: "/days", Message: "at most 5 days"}
			}
			return nil
		}))
	res, err := node.Run(context.Background(), conversation(tc("c1", "forecast", `{"city": "Paris", "days": "three"}`)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("%v 1/2 final=false", PhaseCorrection),
		fmt.Sprintf("%v 2/2 final=true", PhaseCorrection),
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("validator saw %q, want %q", seen, want)
	}
	if res.Calls[0].Outcome != OutcomeCorrected || fmt.Sprint(rec.ran()) != "[{Paris 3}]" {
		t.Errorf("outcome %v, ran %+v; want corrected with Paris, 3", res.Calls[0].Outcome, rec.ran())
	}
}

// TestSpecWrapModelCorrects: WrapModel applies the node's correction model
// to the wrapped model's response, so the agent receives the corrected
// arguments; nothing is executed.
func TestSpecWrapModelCorrects(t *testing.T) {
	ctx := context.Background()
	_, agentLLM := fakeprovider.NewOpenAI(t, fakeprovider.OpenAIReply{Calls: [][3]string{{"call_1", "forecast", `{"city": "Paris", "days": "three"}`}}})
	correction, prompts := correctionProviders["openai"](t, []correctionTurn{forecastTurn(`{"city": "Paris", "days": 3}`)})
	rec := &correctionRecorder{}
	node := mustNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(correction))

	resp, err := WrapModel(agentLLM, node).GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")},
		llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].ToolCalls
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	var args correctionArgs
	if err := json.Unmarshal([]byte(calls[0].FunctionCall.Arguments), &args); err != nil || args != (correctionArgs{"Paris", 3}) {
		t.Errorf("arguments = %s, want the corrected ones", calls[0].FunctionCall.Arguments)
	}
	if _, ok := CheckedCalls(resp.Choices[0]); !ok {
		t.Error("CheckedCalls reports nothing")
	}
	if len(prompts()) != 1 || len(rec.ran()) != 0 {
		t.Errorf("%d correction requests and %d runs, want 1 and 0", len(prompts()), len(rec.ran()))
	}
}
