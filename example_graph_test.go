package saidex_test

import (
	"context"
	"fmt"
	"strings"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// messageNode is the node type of github.com/tmc/langgraphgo's
// MessageGraph: a node receives the conversation and returns the whole new
// conversation.
type messageNode func(ctx context.Context, messages []llms.MessageContent) ([]llms.MessageContent, error)

// A ToolNode's Invoke is a MessageGraph node as it is:
// graph.AddNode("tools", node.Invoke). This example runs the tools node the
// way a MessageGraph would, on an AI message whose second call does not
// parse: both calls are answered, so the next model turn is accepted.
func ExampleToolNode_Invoke_messageGraph() {
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

	var toolsNode messageNode = node.Invoke // graph.AddNode("tools", node.Invoke)

	state := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			llms.ToolCall{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `city = Rome`}},
		}},
	}
	state, err = toolsNode(context.Background(), state)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range state[2:] {
		r := m.Parts[0].(llms.ToolCallResponse)
		fmt.Printf("%s answered (error: %t)\n", r.ToolCallID, strings.HasPrefix(r.Content, "Error:"))
	}
	// Output:
	// call_1 answered (error: false)
	// call_2 answered (error: true)
}
