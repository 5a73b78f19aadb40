package stategraph_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/saidex/saidex-go/stategraph"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The tools node and the edge after the model node of a state graph over
// map[string]any: the edge routes to the tools while the last message has
// tool calls, and the node returns the key's update.
func ExampleNode() {
	type cityArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.", func(_ context.Context, a cityArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	toolsNode := stategraph.Node(node, "messages")
	route := stategraph.HasToolCalls("messages", "tools", "end")

	state := map[string]any{"user": "u1", "messages": []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		saidextest.AIMessage(saidextest.Call("call_1", "get_weather", `{'city': 'Paris'}`)),
	}}
	fmt.Println("route:", route(context.Background(), state))
	update, err := toolsNode(context.Background(), state)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := update.(map[string]any)["messages"].([]llms.MessageContent)
	fmt.Println("tool message:", msgs[len(msgs)-1].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// route: tools
	// tool message: sunny in Paris
}
