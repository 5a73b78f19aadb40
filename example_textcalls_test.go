package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A model behind a server without the right tool parser writes its call
// into the text. With WithTextToolCalls, WrapModel turns it into a real
// tool call with a fresh id, which then goes through the pipeline.
func ExampleWithTextToolCalls() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithTextToolCalls(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	inner := saidextest.NewModel(saidextest.Text(
		"Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"))
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := saidex.WrapModel(inner, node).GenerateContent(ctx, conv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("text %q, %d tool call\n", resp.Choices[0].Content, len(resp.Choices[0].ToolCalls))
	out, err := node.Invoke(ctx, append(conv, saidex.AIMessageFromResponse(resp)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[len(out)-1].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// text "Let me check.", 1 tool call
	// sunny in Paris
}
