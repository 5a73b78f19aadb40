// Command openai runs one model turn holding a broken tool call through the
// stock openai-go tool loop, and then through saidexopenai, against a local
// server that speaks OpenAI's Chat Completions wire format and enforces its
// tool-call rules (github.com/saidex/saidex-go/saidexopenai/openaitest). It
// needs no API key.
//
// The model asks for the weather three times: once with valid arguments,
// once with a trailing comma (invalid JSON), and once of a tool the program
// does not have. The stock loop, as openai-go's own example writes it,
// panics on the json.Unmarshal error; the same loop logging the error
// instead leaves two call ids unanswered, and the next request fails with
// HTTP 400. With saidexopenai the broken call is repaired and runs, the
// unknown tool is answered with an error naming the tools, and the next
// request goes through.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
	"github.com/tmc/langchaingo/tools"
)

// brokenTurn is the model turn every loop below receives.
var brokenTurn = openaitest.Reply{Calls: []openaitest.Call{
	{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Paris"}`},
	{ID: "call_2", Name: "get_weather", Arguments: `{"location": "New York City",}`},
	{ID: "call_3", Name: "get_time", Arguments: `{"timezone":"America/New_York"}`},
}}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func getWeather(location string) string { return "sunny, 24°C in " + location }

type weatherArgs struct {
	Location string `json:"location" jsonschema:"description=the city"`
}

func run(ctx context.Context, w io.Writer) error {
	srv := openaitest.NewServer(brokenTurn, brokenTurn, brokenTurn, openaitest.Reply{Text: "Paris and New York City: sunny."})
	defer srv.Close()
	client := srv.Client()

	fmt.Fprintln(w, "stock loop (openai-go's example):")
	if err := stockLoop(ctx, w, client, true); err != nil {
		return err
	}
	fmt.Fprintln(w, "stock loop, logging the error instead of panicking:")
	if err := stockLoop(ctx, w, client, false); err != nil {
		return err
	}

	fmt.Fprintln(w, "with saidexopenai:")
	weather := saidex.NewTool("get_weather", "Get weather at the given location",
		func(_ context.Context, a weatherArgs) (string, error) {
			fmt.Fprintf(w, "  tool ran: get_weather location=%s\n", a.Location)
			return getWeather(a.Location), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather},
		saidex.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), saidex.WithMaxConcurrency(1))
	if err != nil {
		return err
	}
	g, err := saidexopenai.New(node)
	if err != nil {
		return err
	}
	params := openai.ChatCompletionNewParams{Model: "gpt-4.1", Tools: g.ChatTools(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris and New York City?")}}
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return err
	}
	turn, err := g.RunChat(ctx, params.Messages, completion.Choices[0])
	if err != nil {
		return err
	}
	for _, rep := range turn.Calls {
		fmt.Fprintf(w, "  %s %s %s -> %s\n", rep.ID, rep.Name, rep.RawArguments, rep.Outcome)
	}
	for _, m := range turn.Messages {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  sends: %s\n", b)
	}
	params.Messages = append(params.Messages, turn.Messages...)
	completion, err = client.Chat.Completions.New(ctx, params)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  the model answers: %s\n", completion.Choices[0].Message.Content)
	return nil
}

// stockLoop is the tool loop of openai-go's example
// (examples/chat-completion-tool-calling): it panics when the arguments do
// not unmarshal, or, with panics false, logs the error and goes on.
func stockLoop(ctx context.Context, w io.Writer, client openai.Client, panics bool) (err error) {
	params := openai.ChatCompletionNewParams{Model: "gpt-4.1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris and New York City?")}}
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(w, "  panic: %v\n", v)
		}
	}()
	toolCalls := completion.Choices[0].Message.ToolCalls
	params.Messages = append(params.Messages, completion.Choices[0].Message.ToParam())
	for _, toolCall := range toolCalls {
		if toolCall.Function.Name == "get_weather" {
			var args map[string]any
			if err := json.Unmarshal([]byte(toolCall.Function.Arguments), &args); err != nil {
				if panics {
					panic(err)
				}
				fmt.Fprintf(w, "  %s: %v\n", toolCall.ID, err)
				continue
			}
			location := args["location"].(string)
			fmt.Fprintf(w, "  tool ran: get_weather location=%s\n", location)
			params.Messages = append(params.Messages, openai.ToolMessage(getWeather(location), toolCall.ID))
		}
	}
	_, err = client.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		fmt.Fprintf(w, "  next request: HTTP %d: %s\n", apiErr.StatusCode, strings.TrimSpace(apiErr.Message))
		return nil
	}
	return err
}
