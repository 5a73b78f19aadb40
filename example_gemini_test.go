package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// With langchaingo's Google AI client, the node's history stays as it is
// (one tool message per call) and GroupToolResponses runs just before each
// model call, so Gemini receives the responses to a turn of calls in one
// turn. Gemini's calls have no ids: the node answers them by name, in
// order.
func ExampleGroupToolResponses() {
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
	call := func(args string) llms.ToolCall {
		return llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: args}}
	}
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call(`{"city":"Paris"}`), call(`{"city":"Rome"}`)}},
	}
	history, err = node.Invoke(context.Background(), history)
	if err != nil {
		fmt.Println(err)
		return
	}
	request := saidex.GroupToolResponses(history) // then gemini.GenerateContent(ctx, request, …)

	fmt.Println("history:", len(history), "messages; request:", len(request), "messages")
	last := request[len(request)-1]
	for _, p := range last.Parts {
		r := p.(llms.ToolCallResponse)
		fmt.Printf("%s: %s\n", r.Name, r.Content)
	}
	// Output:
	// history: 4 messages; request: 3 messages
	// get_weather: sunny in Paris
	// get_weather: sunny in Rome
}
