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
// dispatches each call on its own: a call whose outcome is feedback must
// not run; answer it with the report's Output instead.
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
		}
	}
	// Output:
	// call_1 {"city":"Paris"}: executed
	// call_2 {"city":["Rome"]}: feedback
}
