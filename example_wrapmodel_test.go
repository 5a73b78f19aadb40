package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// WrapModel checks tool calls right after the model call, for code that
// dispatches each call on its own: a call reported ready may run; a call
// whose report is an error (feedback, an unknown tool) must not, and the
// report's Output is the tool message to answer it with.
func ExampleWrapModel() {
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
	inner := saidextest.NewModel(saidextest.ToolCalls(
		saidextest.Call("call_1", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("call_2", "get_weather", `{"city":["Rome"]}`),
		saidextest.Call("call_3", "get_wether", `{"city":"Oslo"}`),
	))

	model := saidex.WrapModel(inner, node)
	resp, err := model.GenerateContent(context.Background(), []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
	}, llms.WithTools(node.Definitions()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, choice := range resp.Choices {
		reports, _ := saidex.CheckedCalls(choice)
		for i, tc := range choice.ToolCalls {
			fmt.Printf("%s %s: %s\n", tc.ID, tc.FunctionCall.Arguments, reports[i].Outcome)
			if reports[i].IsError {
				fmt.Printf("  answer it with: %s\n", reports[i].Output)
			}
		}
	}
	// Output:
	// call_1 {"city":"Paris"}: ready
	// call_2 {"city":["Rome"]}: feedback
	//   answer it with: Error: get_weather was not executed because its arguments do not match the tool's schema:
	// - city: expected a string, got an array
	// Call get_weather again with these fields corrected.
	// call_3 {"city":"Oslo"}: unknown_tool
	//   answer it with: Error: get_wether is not a valid tool, try one of [get_weather].
}
