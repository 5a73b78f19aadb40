// Command quickstart runs one agent turn through a saidex ToolNode with no
// API key, and prints the turn before and after the node: what the model
// sent; call by call, what a stock executor does with it and what saidex
// does; and what the history now holds. A scripted agent model (package
// saidextest) emits three broken tool calls, and saidex
//
//   - repairs the first (reasoning text and a trailing comma around the JSON)
//     and executes it,
//   - corrects the second with a correction model (scripted too) and
//     executes it,
//   - answers the third, which lacks a required field, with field-level
//     feedback so the agent can fix it in its next turn.
//
// The stock executor is the one most hand-written agent loops have: decode
// the arguments with encoding/json, then call the tool. It fails on the
// first two calls and runs the third with an empty city.
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
	"encoding/json"
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

// forecastFor is the weather tool's work, shared by saidex's tool and the
// stock executor.
func forecastFor(a ForecastArgs) string {
	return fmt.Sprintf("%s: sunny, 21 degrees, for %d days", a.City, a.Days)
}

func run(ctx context.Context, w io.Writer) error {
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(_ context.Context, a ForecastArgs) (string, error) { return forecastFor(a), nil })

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

	fmt.Fprintln(w, "The agent model and the correction model are scripted (package saidextest): no API key, the same output every run.")
	messages := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Oslo and Rome?"),
	}
	resp, err := agent.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
	if err != nil {
		return err
	}
	ai := saidex.AIMessageFromResponse(resp) // the text and tool calls of every choice
	if !saidex.MessageHasToolCalls(ai) {
		return fmt.Errorf("the model answered without tool calls: %s", resp.Choices[0].Content)
	}
	fmt.Fprintln(w, "\nBEFORE: the model sent")
	for _, p := range ai.Parts {
		if tc, ok := p.(llms.ToolCall); ok {
			fmt.Fprintf(w, "  %s %s %s\n", tc.ID, tc.FunctionCall.Name, tc.FunctionCall.Arguments)
		}
	}
	messages = append(messages, ai)

	res, err := node.Run(ctx, messages)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nCALL BY CALL: a stock executor (json.Unmarshal, then the tool) vs saidex")
	k := 0 // the index of the next call's report
	for _, p := range ai.Parts {
		tc, ok := p.(llms.ToolCall)
		if !ok {
			continue
		}
		c := res.Calls[k]
		k++
		fmt.Fprintf(w, "  %s stock:  %s\n", c.ID, stock(tc))
		switch c.Outcome {
		case saidex.OutcomeExecuted:
			fmt.Fprintf(w, "         saidex: repaired %v and executed; the tool got %s\n", c.RepairSteps, c.Arguments)
		case saidex.OutcomeCorrected:
			fmt.Fprintf(w, "         saidex: corrected by the (scripted) correction model and executed; the tool got %s\n", c.Arguments)
		default:
			fmt.Fprintf(w, "         saidex: %s, not executed; the model reads which field to fix (below) and calls again\n", c.Outcome)
		}
	}
	fmt.Fprintln(w, "  A stock executor that returns such an error ends the turn; one that skips the call leaves its id")
	fmt.Fprintln(w, "  unanswered, and the provider rejects the next request (HTTP 400); one that answers with the")
	fmt.Fprintln(w, "  error shows the model a parser message, not what to change.")

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

// stock is what a stock executor makes of a call: it decodes the arguments
// with encoding/json and calls the tool, or stops at the decoding error.
func stock(tc llms.ToolCall) string {
	var a ForecastArgs
	if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &a); err != nil {
		return fmt.Sprintf("error %q", err.Error())
	}
	if a.City == "" {
		return fmt.Sprintf("ran the tool without a city (the field is missing): %q", forecastFor(a))
	}
	return fmt.Sprintf("ran the tool: %q", forecastFor(a))
}
