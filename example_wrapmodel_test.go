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
	call := func(id, args string) llms.ToolCall {
		return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: args}}
	}
	inner := saidextest.NewModel(func(context.Context, saidextest.Request) (*llms.ContentResponse, error) {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
			call("call_1", `{"city":"Paris"}`),
			call("call_2", `{"city":["Rome"]}`),
		}}}}, nil
	})

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
