package saidex_test

import (
	"context"
	"errors"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A model wrapped its arguments in reasoning and a code fence, and wrote them
// as a Python dict. The node repairs them before the tool runs and reports
// how; arguments that would need a guess are answered with feedback instead.
func Example_repair() {
	weather := saidex.NewTool("weather", "Current weather for a city.",
		func(ctx context.Context, args struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + args.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		panic(err)
	}
	messages := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo? And in Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "weather", Arguments: "<think>The user wants Oslo.</think>\n```json\n{'city': 'Oslo'}\n```",
			}},
			llms.ToolCall{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "weather", Arguments: `{"city": "Ro`,
			}},
		}},
	}
	res, err := node.Run(context.Background(), messages)
	if err != nil {
		panic(err)
	}
	for _, c := range res.Calls {
		var malformed *saidex.MalformedArgumentsError
		if errors.As(c.Err, &malformed) {
			fmt.Printf("%s %s: %s\n", c.ID, c.Outcome, malformed.Reason)
			continue
		}
		fmt.Printf("%s %s %v %s: %s\n", c.ID, c.Outcome, c.RepairSteps, c.Arguments, c.Output)
	}
	// Output:
	// c1 executed [strip_thinking code_fence json_repair] {"city":"Oslo"}: sunny in Oslo
	// c2 feedback: the argument string was cut off inside a string value
}
