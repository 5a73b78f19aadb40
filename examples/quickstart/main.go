// Command quickstart runs one agent turn through a saidex ToolNode with no
// API key, and prints the turn before and after the node: what the model
// sent, what saidex did and what each tool received, and what the history
// now holds. A scripted agent model (package saidextest) emits three broken
// tool calls, and saidex
//
//   - repairs the first (reasoning text and a trailing comma around the JSON)
//     and executes it,
//   - corrects the second with a (scripted) correction model and executes it,
//   - answers the third, which lacks a required field, with field-level
//     feedback so the agent can fix it in its next turn.
//
// The history keeps the repaired and corrected arguments, so no later
// request carries the broken JSON, and one tool message per call.
//
// Run it from the repository root or from this directory:
//
//	go run ./examples/quickstart
//	cd examples/quickstart && go run .
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

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

	// The agent model: a scripted stand-in that emits three broken calls.
	agent := saidextest.NewModel(saidextest.ToolCalls(
		saidextest.Call("call_1", "get_forecast", `<think>The user wants Paris.</think>{"city": "Paris", "days": 2,}`),
		saidextest.Call("call_2", "get_forecast", `{"city": "Oslo", "days": "three"}`),
		saidextest.Call("call_3", "get_forecast", `{"days": 5}`),
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
	fmt.Fprintln(w, "BEFORE: the model sent")
	for _, tc := range resp.Choices[0].ToolCalls {
		ai.Parts = append(ai.Parts, tc)
		fmt.Fprintf(w, "  %s %s %s\n", tc.ID, tc.FunctionCall.Name, tc.FunctionCall.Arguments)
	}
	messages = append(messages, ai)

	res, err := node.Run(ctx, messages)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWHAT SAIDEX DID")
	for _, c := range res.Calls {
		switch c.Outcome {
		case saidex.OutcomeExecuted:
			fmt.Fprintf(w, "  %s executed; repair steps %v; the tool got %s\n", c.ID, c.RepairSteps, c.Arguments)
		case saidex.OutcomeCorrected:
			fmt.Fprintf(w, "  %s corrected by the correction model; the tool got %s\n", c.ID, c.Arguments)
		default:
			fmt.Fprintf(w, "  %s %s: not executed; the model will read the feedback\n", c.ID, c.Outcome)
		}
	}

	// node.Invoke(ctx, messages) returns this conversation in one call.
	messages[res.AIMessageIndex] = res.AIMessage
	messages = append(messages, res.ToolMessages...)
	fmt.Fprintln(w, "\nAFTER: the history now holds")
	for _, m := range messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				fmt.Fprintf(w, "  %-5s %s\n", m.Role, p.Text)
			case llms.ToolCall:
				fmt.Fprintf(w, "  %-5s %s %s %s\n", m.Role, p.ID, p.FunctionCall.Name, p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				fmt.Fprintf(w, "  %-5s %s %s\n", m.Role, p.ToolCallID, strings.ReplaceAll(p.Content, "\n", "\n               "))
			}
		}
	}
	return nil
}
