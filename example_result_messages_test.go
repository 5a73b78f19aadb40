package saidex_test

import (
	"context"
	"errors"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// One run gives both the report on every call and the next conversation:
// Run, then Messages (which is what Invoke returns). With
// WithHandleToolErrors(true) a tool that returns an error is answered with
// an "Error: ..." tool message and the run goes on, so the valid sibling
// call's result is in the conversation too.
func ExampleResult_Messages() {
	ctx := context.Background()
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			if a.City == "Oslo" {
				return "", errors.New("weather service down")
			}
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithHandleToolErrors(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Oslo and Rome?"),
		saidextest.AIMessage(
			saidextest.Call("call_1", "get_weather", `{'city': 'Paris',}`),
			saidextest.Call("call_2", "get_weather", `{"city": "Oslo"}`),
			saidextest.Call("call_3", "get_weather", `{"town": "Rome"}`),
		),
	}
	res, err := node.Run(ctx, conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Calls {
		fmt.Println(c.ID, c.Outcome, c.RepairSteps, c.IsError)
	}
	printHistory(res.Messages()) // the next conversation, as Invoke returns it
	// Output:
	// call_1 executed [json_repair] false
	// call_2 executed [] true
	// call_3 feedback [] true
	// human: Weather in Paris, Oslo and Rome?
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city": "Oslo"}
	// ai: get_weather {"town": "Rome"}
	// tool: sunny in Paris
	// tool: Error: weather service down
	// tool: Error: get_weather was not executed because its arguments do not match the tool's schema:
	// - city: required field is missing; expected a string (the arguments have "town" instead, which the tool does not define)
	// - town: unknown field; remove it; it may be a misspelling of the missing field city
	// Call get_weather again with these fields corrected.
}
