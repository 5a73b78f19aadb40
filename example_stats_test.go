package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

type statsExampleArgs struct {
	City string `json:"city"`
}

func statsExampleNode(opts ...saidex.Option) *saidex.ToolNode {
	weather := saidex.NewTool("weather", "Weather in a city.", func(_ context.Context, a statsExampleArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, opts...)
	if err != nil {
		panic(err)
	}
	return node
}

func statsExampleCalls(args ...string) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for i, a := range args {
		ai.Parts = append(ai.Parts, llms.ToolCall{
			ID:           fmt.Sprintf("call_%d", i+1),
			FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: a},
		})
	}
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "weather?"), ai}
}

// An observer sees the event of every Run of its node, for example to
// export metrics (examples/otel exports them to OpenTelemetry).
func ExampleWithObserver() {
	node := statsExampleNode(saidex.WithObserver(func(ev saidex.ToolNodeEvent) {
		fmt.Printf("executed %d, feedback %d\n", ev.Count(saidex.OutcomeExecuted), ev.Count(saidex.OutcomeFeedback))
		for _, c := range ev.Calls {
			fmt.Println(c.ID, c.Name, c.Outcome, c.IsError)
		}
	}))
	if _, err := node.Invoke(context.Background(), statsExampleCalls(`{"city":"Paris"}`, `{"town":"Rome"}`)); err != nil {
		panic(err)
	}
	// Output:
	// executed 1, feedback 1
	// call_1 weather executed false
	// call_2 weather feedback true
}

// CollectStats gathers the events of the Runs given its context, such as
// all tool-node runs of one graph run, and nothing from other runs.
func ExampleCollectStats() {
	node := statsExampleNode()
	ctx, sink := saidex.CollectStats(context.Background())
	for _, args := range []string{`{"city":"Paris"}`, `{"city": "Ro`} {
		if _, err := node.Invoke(ctx, statsExampleCalls(args)); err != nil {
			panic(err)
		}
	}
	// Not collected: a different context.
	if _, err := node.Invoke(context.Background(), statsExampleCalls(`{"city":"Oslo"}`)); err != nil {
		panic(err)
	}
	fmt.Println("runs:", len(sink.Events()))
	fmt.Println("executed:", sink.Count(saidex.OutcomeExecuted))
	fmt.Println("feedback:", sink.Count(saidex.OutcomeFeedback))
	// Output:
	// runs: 2
	// executed: 1
	// feedback: 1
}
