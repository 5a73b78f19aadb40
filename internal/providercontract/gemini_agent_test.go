package providercontract

import (
	"context"
	"strings"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/agent"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/tools"
)

// TestContractGeminiExecutor runs langchaingo's agents.Executor with the
// saidex agent on the googleai client: a turn of three calls (valid,
// invalid, unknown tool) reaches the final answer when the agent groups
// the tool responses before each model call, and is rejected otherwise.
func TestContractGeminiExecutor(t *testing.T) {
	turn := geminiReply{Text: "Checking.", Calls: []geminiCall{
		{Name: "get_weather", Args: map[string]any{"city": "Paris", "days": 2}},
		{Name: "get_weather", Args: map[string]any{"city": "Rome", "days": "three"}},
		{Name: "teleport", Args: map[string]any{"to": "Mars"}},
	}}
	tests := []struct {
		name    string
		opts    []agent.Option
		wantErr string
	}{
		{name: "with GroupToolResponses", opts: []agent.Option{agent.WithMessageTransform(saidex.GroupToolResponses)}},
		{name: "without", wantErr: geminiCountError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather})
			srv, llm := newFakeGemini(t, turn, geminiReply{Text: "Paris is sunny."})
			a, err := agent.New(llm, node, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := agents.NewExecutor(a).Call(context.Background(), map[string]any{"input": "Weather in Paris and Rome?"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("executor: err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("executor: %v", err)
			}
			if out["output"] != "Paris is sunny." || runs.Load() != 1 {
				t.Errorf("output %v, %d runs; want the answer and 1 run", out["output"], runs.Load())
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if n := len(last[len(last)-1].Parts); n != 3 {
				t.Errorf("the last request's final turn has %d parts, want the 3 function responses", n)
			}
		})
	}
}
