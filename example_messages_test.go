package saidex_test

import (
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// A response as langchaingo's Anthropic client returns it, one choice per
// content block, becomes the one AI message to append to the conversation.
func ExampleAIMessageFromResponse() {
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me check."},
		{ToolCalls: []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{ToolCalls: []llms.ToolCall{{ID: "toolu_2", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}}}},
	}}
	ai := saidex.AIMessageFromResponse(resp)
	printHistory([]llms.MessageContent{ai})
	// Output:
	// ai: Let me check.
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city":"Rome"}
}

// MessageHasToolCalls decides, after a model turn, whether the tool node
// runs or the loop stops with the model's answer.
func ExampleMessageHasToolCalls() {
	answer := llms.TextParts(llms.ChatMessageTypeAI, "It is sunny.")
	calls := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
		llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
	}}
	fmt.Println(saidex.MessageHasToolCalls(answer), saidex.MessageHasToolCalls(calls))
	// Output: false true
}
