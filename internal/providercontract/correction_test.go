package providercontract

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// answer is one scripted answer of the correction model: text, and calls
// as (name, arguments object).
type answer struct {
	text  string
	calls [][2]string
}

func argsObject(s string) map[string]any {
	var m map[string]any
	_ = json.Unmarshal([]byte(s), &m)
	return m
}

// correctionClients start a fake provider answering with answers and
// return its real langchaingo client and the number of requests received.
var correctionClients = map[string]func(t *testing.T, answers []answer) (llms.Model, func() int){
	// llms/googleai sends no tool config: Gemini is free to answer with text
	// or another function.
	"googleai": func(t *testing.T, answers []answer) (llms.Model, func() int) {
		var replies []geminiReply
		for _, a := range answers {
			r := geminiReply{Text: a.text}
			for _, c := range a.calls {
				r.Calls = append(r.Calls, geminiCall{Name: c[0], Args: argsObject(c[1])})
			}
			replies = append(replies, r)
		}
		f, llm := newFakeGemini(t, replies...)
		return llm, func() int { return len(f.Requests()) }
	},
	// llms/bedrock forwards the forced tool choice as Claude's
	// {"type": "tool", "name": …}; checked here on every request.
	"bedrock": func(t *testing.T, answers []answer) (llms.Model, func() int) {
		var replies [][]map[string]any
		for _, a := range answers {
			var blocks []map[string]any
			if a.text != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": a.text})
			}
			for _, c := range a.calls {
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_fix", "name": c[0], "input": argsObject(c[1])})
			}
			replies = append(replies, blocks)
		}
		_, llm, bodies := newBedrockAnthropicBodies(t, replies...)
		t.Cleanup(func() {
			for i, b := range bodies() {
				var req struct {
					ToolChoice map[string]any `json:"tool_choice"`
				}
				_ = json.Unmarshal(b, &req)
				if req.ToolChoice["type"] != "tool" || req.ToolChoice["name"] != "forecast" {
					t.Errorf("request %d: tool_choice = %v, want forecast forced", i, req.ToolChoice)
				}
			}
		})
		return llm, func() int { return len(bodies()) }
	},
}

type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// TestCorrectionModelThroughClients: Gemini and Bedrock as the correction
// model. Only a call of the tool being corrected, or text holding the
// object, is taken; a call of another tool is a failed attempt and never
// runs anything.
func TestCorrectionModelThroughClients(t *testing.T) {
	fixed := `{"city": "Paris", "days": 3}`
	tests := []struct {
		name     string
		answers  []answer
		want     saidex.Outcome
		wantReqs int
	}{
		{name: "a call of the tool", answers: []answer{{calls: [][2]string{{"forecast", fixed}}}}, want: saidex.OutcomeCorrected, wantReqs: 1},
		{name: "text holding the object", answers: []answer{{text: "```json\n" + fixed + "\n```"}}, want: saidex.OutcomeCorrected, wantReqs: 1},
		{
			name:    "a call of another tool, twice",
			answers: []answer{{calls: [][2]string{{"teleport", fixed}}}, {calls: [][2]string{{"teleport", fixed}}}},
			want:    saidex.OutcomeFeedback, wantReqs: 2,
		},
	}
	for client, start := range correctionClients {
		for _, tt := range tests {
			t.Run(client+"/"+tt.name, func(t *testing.T) {
				llm, requests := start(t, tt.answers)
				var ran []forecastArgs
				forecast := saidex.NewTool("forecast", "Weather forecast for a city.", func(_ context.Context, a forecastArgs) (string, error) {
					ran = append(ran, a)
					return "sunny", nil
				})
				var teleports atomic.Int64
				teleport := saidex.NewTool("teleport", "Moves you.", func(context.Context, forecastArgs) (string, error) {
					teleports.Add(1)
					return "moved", nil
				})
				node := mustNode(t, []tools.Tool{forecast, teleport}, saidex.WithCorrectionModel(llm), saidex.WithMaxCorrectionRetries(2))
				conv := []llms.MessageContent{
					llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris for 3 days?"),
					{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "c1", Type: "function",
						FunctionCall: &llms.FunctionCall{Name: "forecast", Arguments: `{"city": "Paris", "days": "three"}`}}}},
				}
				res, err := node.Run(context.Background(), conv)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Calls[0].Outcome; got != tt.want {
					t.Errorf("outcome = %v, want %v", got, tt.want)
				}
				if tt.want == saidex.OutcomeCorrected && (len(ran) != 1 || ran[0] != (forecastArgs{"Paris", 3})) {
					t.Errorf("forecast ran with %+v, want once with Paris, 3", ran)
				}
				if teleports.Load() != 0 || (tt.want != saidex.OutcomeCorrected && len(ran) != 0) {
					t.Errorf("teleport ran %d times, forecast %d; a failed correction runs nothing", teleports.Load(), len(ran))
				}
				if n := requests(); n != tt.wantReqs {
					t.Errorf("%d correction requests, want %d", n, tt.wantReqs)
				}
			})
		}
	}
}
