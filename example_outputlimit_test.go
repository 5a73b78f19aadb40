package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A reply cut by the output-token limit runs no call: pass the finish
// reason the provider reported, and every call of the reply is answered
// with feedback that says so, whatever its arguments look like.
func ExampleWithFinishReason() {
	type weatherArgs struct {
		City string `json:"city"`
		Unit string `json:"unit,omitempty"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			fmt.Println("ran for", a.City) // never printed
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the provider returned: a call cut after "celsius", and
	// StopReason "length" (OpenAI's; Anthropic says "max_tokens").
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason: "length",
		ToolCalls:  []llms.ToolCall{saidextest.Call("call_1", "get_weather", `{"city": "Paris", "unit": "celsius"`)},
	}}}
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		saidex.AIMessageFromResponse(resp),
	}
	res, err := node.Run(context.Background(), conv, saidex.WithFinishReason(resp.Choices[0].StopReason))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Calls[0].Outcome)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// output_limit
	// Error: get_weather was not executed because the reply that holds it was cut off by the output-token limit: its arguments are incomplete, and no tool call of that reply was executed. Send the call again, complete: keep its arguments shorter, or split the content over several smaller calls.
}
