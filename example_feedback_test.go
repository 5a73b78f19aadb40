package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A call with a misnamed key and a value outside an enum is not executed;
// the agent gets field-level feedback instead, naming what to change.
func ExampleToolNode_feedback() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
		Unit string `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
	}
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(ctx context.Context, a forecastArgs) (string, error) {
			return fmt.Sprintf("%d days of sun in %s", a.Days, a.City), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		panic(err)
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo for the next 3 days?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "get_forecast", Arguments: `{"town": "Oslo", "days": "3", "unit": "C"}`},
		}}},
	}
	res, err := node.Run(context.Background(), conversation)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Calls[0].Outcome)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// feedback
	// Error: get_forecast was not executed because its arguments do not match the tool's schema:
	// - city: required field is missing; expected a string (the arguments have "town" instead, which the tool does not define)
	// - days: expected an integer, got a string
	// - town: unknown field; remove it; it may be a misspelling of the missing field city
	// - unit: must be one of "celsius", "fahrenheit"
	// Call get_forecast again with these fields corrected.
}
