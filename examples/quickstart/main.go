// Command quickstart runs one agent turn through a saidex ToolNode with no
// API key: a scripted agent model emits three broken tool calls, and saidex
//
//   - repairs the first (reasoning text and a trailing comma around the JSON)
//     and executes it,
//   - corrects the second with a (scripted) correction model and executes it,
//   - answers the third, which lacks a required field, with field-level
//     feedback so the agent can fix it in its next turn.
//
// Run it with:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// ForecastArgs is the weather tool's argument object; its JSON Schema is
// reflected from the struct.
type ForecastArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(_ context.Context, a ForecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny, 21 degrees, for %d days", a.City, a.Days), nil
		})

	// The agent model: a scripted stand-in that emits broken calls.
	agent := saidextest.NewModel(saidextest.Sequence(
		func(context.Context, saidextest.Request) (*llms.ContentResponse, error) {
			return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
				call("call_1", `<think>The user wants Paris.</think>{"city": "Paris", "days": 2,}`),
				call("call_2", `{"city": "Oslo", "days": "three"}`),
				call("call_3", `{"days": 5}`),
			}}}}, nil
		},
	))
	// The correction model: a scripted stand-in for a small, cheap model.
	corrector := saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Oslo", "days": 3}`))

	node, err := saidex.NewToolNode([]tools.Tool{forecast}, saidex.WithCorrectionModel(corrector))
	if err != nil {
		return err
	}

	messages := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Oslo and Rome?"),
	}
	resp, err := agent.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
	if err != nil {
		return err
	}
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, tc := range resp.Choices[0].ToolCalls {
		ai.Parts = append(ai.Parts, tc)
	}
	messages = append(messages, ai)

	res, err := node.Run(ctx, messages)
	if err != nil {
		return err
	}
	for _, c := range res.Calls {
		fmt.Fprintf(w, "%s  %-9s repaired=%-5v args=%s\n", c.ID, c.Outcome, c.Repaired, orNone(string(c.Arguments)))
		if c.Repaired {
			fmt.Fprintf(w, "        repair steps: %v\n", c.RepairSteps)
		}
		fmt.Fprintf(w, "        answer: %s\n\n", c.Output)
	}
	fmt.Fprintln(w, "The AI message as stored in the conversation (sanitized):")
	for _, p := range res.AIMessage.Parts {
		if tc, ok := p.(llms.ToolCall); ok {
			fmt.Fprintf(w, "  %s %s\n", tc.ID, tc.FunctionCall.Arguments)
		}
	}
	fmt.Fprintln(w, "\nnode.Invoke(ctx, messages) returns the conversation with the sanitized AI message and these answers.")
	return nil
}

func call(id, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_forecast", Arguments: args}}
}

func orNone(s string) string {
	if s == "" {
		return "(not executed)"
	}
	return s
}
