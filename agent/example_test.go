package agent_test

import (
	"context"
	"fmt"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/agent"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// An agents.Executor runs an [agent.Agent] like any langchaingo agent. The
// model's first turn holds a valid call and one whose arguments miss the
// required city: the valid call runs, the other is answered with feedback,
// and the run goes on instead of aborting.
func ExampleNew() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A scripted model (package saidextest): two calls, then the answer.
	model := saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(
			saidextest.Call("call_1", "get_weather", `{"city":"Paris"}`),
			saidextest.Call("call_2", "get_weather", `{"town":"Rome"}`),
		),
		saidextest.Text("It is sunny in Paris."),
	))

	a, err := agent.New(model, node)
	if err != nil {
		fmt.Println(err)
		return
	}
	executor := agents.NewExecutor(a, agents.WithReturnIntermediateSteps())
	out, err := executor.Call(context.Background(), map[string]any{"input": "Weather in Paris and Rome?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, step := range out["intermediateSteps"].([]schema.AgentStep) {
		fmt.Printf("%s %s -> feedback: %t\n", step.Action.ToolID, step.Action.ToolInput, step.Observation != "sunny in Paris")
	}
	fmt.Println(out["output"])
	// Output:
	// call_1 {"city":"Paris"} -> feedback: false
	// call_2 {"town":"Rome"} -> feedback: true
	// It is sunny in Paris.
}
