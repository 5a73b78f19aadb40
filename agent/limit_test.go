package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The feedback limit reads the conversation, so it works in an executor
// too, whose conversation the agent rebuilds from the steps: a model that
// keeps sending the same invalid call gets the final message after the
// limit and answers, long before the executor's iteration bound.
func TestFeedbackLimitEndsAStubbornModelInAnExecutor(t *testing.T) {
	const limit = 2
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, saidex.WithFeedbackLimit(limit))
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "Stop calling get_weather") {
				return saidextest.TextResponse("I cannot get that forecast."), nil
			}
		}
		return saidextest.ToolCallResponse(saidextest.Call(fmt.Sprintf("call_%d", req.Seq), "get_weather", `{"city": "Paris", "days": 30}`)), nil
	})
	ctx, stats := saidex.CollectStats(context.Background())
	executor := agents.NewExecutor(mustAgent(t, model, node), agents.WithMaxIterations(10))
	out, err := executor.Call(ctx, map[string]any{"input": "Weather in Paris for a month?"})
	if err != nil {
		t.Fatal(err)
	}
	if out["output"] != "I cannot get that forecast." {
		t.Errorf("output %q", out["output"])
	}
	if got, want := model.CallCount(), limit+2; got != want {
		t.Errorf("model called %d times, want %d", got, want)
	}
	if stats.Count(saidex.OutcomeFeedback) != limit || stats.Count(saidex.OutcomeFeedbackLimit) != 1 || runs.Load() != 0 {
		t.Errorf("feedback %d, feedback_limit %d, runs %d; want %d, 1, 0",
			stats.Count(saidex.OutcomeFeedback), stats.Count(saidex.OutcomeFeedbackLimit), runs.Load(), limit)
	}
}
