// Command anthropic runs a tool loop written with
// github.com/anthropics/anthropic-sdk-go/v2 against a local server that
// speaks Anthropic's Messages API and enforces its tool-use rules, so it
// needs no API key. Claude's scripted reply holds three get_weather calls:
// a valid one, one whose days is the string "3", and one whose days is
// out of range.
//
// The stock loop, written as the SDK's examples write it,
// json.Unmarshals each input: the string "3" is a bare unmarshal error, the
// call is skipped, its id goes unanswered and the next request fails with
// HTTP 400; the out-of-range call runs unchecked. The loop guarded by
// saidexanthropic runs the valid call, runs the other with days 3 (and
// sends that input back), answers the out-of-range call with feedback,
// and the conversation goes on. A last part streams a reply that
// max_tokens cut inside a call: Message.Accumulate reads its input as {},
// which the stock loop runs; the guard never runs it.
//
//	cd examples/anthropic && go run .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"github.com/tmc/langchaingo/tools"
)

// WeatherArgs are the arguments of the weather tool.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

func weather(a WeatherArgs) string { return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days) }

// brokenTurn is Claude's scripted reply.
var brokenTurn = anthropictest.Reply{Content: []anthropictest.Block{
	anthropictest.Text("Let me check the weather."),
	anthropictest.ToolUse("toolu_01", "get_weather", `{"city":"Paris","days":2}`),
	anthropictest.ToolUse("toolu_02", "get_weather", `{"city":"Oslo","days":"3"}`),
	anthropictest.ToolUse("toolu_03", "get_weather", `{"city":"Rome","days":30}`),
}}

var answer = anthropictest.Reply{Content: []anthropictest.Block{anthropictest.Text("Sunny in Paris and Oslo.")}}

// cutTurn is a streamed reply that max_tokens cut inside its call.
var cutTurn = anthropictest.Reply{StopReason: "max_tokens", Content: []anthropictest.Block{
	anthropictest.ToolUse("toolu_04", "get_weather", `{"days": 2, "city": "Par`),
}}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	tool := saidex.NewTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) {
			fmt.Fprintf(w, "  tool ran: city=%q days=%d\n", a.City, a.Days)
			return weather(a), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{tool}, saidex.WithCoercion(saidex.CoercionLax),
		saidex.WithMaxConcurrency(1)) // one call at a time, for a stable output
	if err != nil {
		return err
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "stock loop (json.Unmarshal each input, as the SDK's examples do):")
	if err := stockLoop(ctx, w, g.Tools()); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nguarded loop (saidexanthropic.Guard.Run):")
	if err := guardedLoop(ctx, w, g); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nstreamed reply cut by max_tokens inside a call:")
	return cutStream(ctx, w, g)
}

func client(url string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("no-key-needed"), option.WithMaxRetries(0))
}

func firstParams(toolDefs []anthropic.ToolUnionParam) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 1024, Tools: toolDefs,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris, Oslo and Rome?"))},
	}
}

// apiError renders the error of a request: the API's status and message.
func apiError(err error) string {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return fmt.Sprintf("HTTP %d: %s", apiErr.StatusCode, apiErr.Message)
	}
	return err.Error()
}

func stockLoop(ctx context.Context, w io.Writer, toolDefs []anthropic.ToolUnionParam) error {
	srv := anthropictest.NewServer(brokenTurn, answer)
	defer srv.Close()
	c := client(srv.URL)
	params := firstParams(toolDefs)
	msg, err := c.Messages.New(ctx, params)
	if err != nil {
		return err
	}
	var results []anthropic.ContentBlockParamUnion
	for _, block := range msg.Content {
		if block.Type != "tool_use" {
			continue
		}
		var args WeatherArgs
		if err := json.Unmarshal(block.Input, &args); err != nil {
			fmt.Fprintf(w, "  %s %s: %v\n", block.ID, block.Input, err)
			continue
		}
		fmt.Fprintf(w, "  %s %s: ran unchecked: %s\n", block.ID, block.Input, weather(args))
		results = append(results, anthropic.NewToolResultBlock(block.ID, weather(args), false))
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	if _, err := c.Messages.New(ctx, params); err != nil {
		fmt.Fprintf(w, "  next request: %s\n", apiError(err))
		return nil
	}
	fmt.Fprintln(w, "  next request: accepted")
	return nil
}

func guardedLoop(ctx context.Context, w io.Writer, g *saidexanthropic.Guard) error {
	srv := anthropictest.NewServer(brokenTurn, answer)
	defer srv.Close()
	c := client(srv.URL)
	params := firstParams(g.Tools())
	for {
		msg, err := c.Messages.New(ctx, params)
		if err != nil {
			fmt.Fprintf(w, "  next request: %s\n", apiError(err))
			return nil
		}
		turn, err := g.Run(ctx, params.Messages, msg)
		if err != nil {
			return err
		}
		params.Messages = append(params.Messages, turn.Messages()...)
		if len(turn.Calls) == 0 {
			fmt.Fprintf(w, "  the model answers: %s\n", msg.Content[0].Text)
			return nil
		}
		printTurn(w, turn)
	}
}

// printTurn prints, per call, the input sent back to the API and the
// tool_result that answers it.
func printTurn(w io.Writer, turn *saidexanthropic.Turn) {
	var sent []anthropic.ToolUseBlockParam
	for _, b := range turn.Assistant.OfAssistant.Content {
		if b.OfToolUse != nil {
			sent = append(sent, *b.OfToolUse)
		}
	}
	for i, r := range turn.Results.OfUser.Content {
		res := r.OfToolResult
		text := ""
		for _, c := range res.Content {
			text += c.OfText.Text
		}
		input, _ := json.Marshal(sent[i].Input)
		fmt.Fprintf(w, "  %s %s: %s, sent back as %s, is_error=%v: %s\n", res.ToolUseID, turn.Calls[i].RawArguments,
			turn.Calls[i].Outcome, input, res.IsError.Value, strings.ReplaceAll(text, "\n", " "))
	}
}

func cutStream(ctx context.Context, w io.Writer, g *saidexanthropic.Guard) error {
	srv := anthropictest.NewServer(cutTurn, answer)
	defer srv.Close()
	c := client(srv.URL)
	params := firstParams(g.Tools())
	stream := c.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var stock anthropic.Message
	var acc saidexanthropic.Accumulator
	for stream.Next() {
		if err := stock.Accumulate(stream.Current()); err != nil {
			return err
		}
		if err := acc.Accumulate(stream.Current()); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	in, _ := acc.Input(0)
	fmt.Fprintf(w, "  streamed input %s, stop_reason %s\n", in, stock.StopReason)
	var args WeatherArgs
	err := json.Unmarshal(stock.Content[0].Input, &args)
	fmt.Fprintf(w, "  stock: Message.Accumulate gives input %s; json.Unmarshal error: %v; the loop would run get_weather(%+v)\n",
		stock.Content[0].Input, err, args)
	turn, err := g.RunStream(ctx, params.Messages, &acc)
	if err != nil {
		return err
	}
	printTurn(w, turn)
	params.Messages = append(params.Messages, turn.Messages()...)
	if _, err := c.Messages.New(ctx, params); err != nil {
		fmt.Fprintf(w, "  next request: %s\n", apiError(err))
		return nil
	}
	fmt.Fprintln(w, "  next request: accepted")
	return nil
}
