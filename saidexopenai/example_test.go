package saidexopenai_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
	"github.com/tmc/langchaingo/tools"
)

type cityArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// exampleGuard is a Guard of one tool, get_weather.
func exampleGuard() *saidexopenai.Guard {
	weather := saidex.NewTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a cityArgs) (string, error) {
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		panic(err)
	}
	g, err := saidexopenai.New(node)
	if err != nil {
		panic(err)
	}
	return g
}

// A chat completion whose calls are repairable, invalid and of an unknown
// tool: RunChat answers every call id, and the next request carries the
// repaired arguments.
func ExampleGuard_RunChat() {
	ctx := context.Background()
	srv := openaitest.NewServer(openaitest.Reply{Calls: []openaitest.Call{
		{ID: "call_1", Name: "get_weather", Arguments: `{'city': 'Paris', 'days': 2,}`},
		{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Rome","days":"two"}`},
		{ID: "call_3", Name: "get_time", Arguments: `{}`},
	}}, openaitest.Reply{Text: "Paris: sunny."})
	defer srv.Close()
	client := srv.Client()
	g := exampleGuard()

	params := openai.ChatCompletionNewParams{Model: "gpt-4.1", Tools: g.ChatTools(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris and Rome?")}}
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		panic(err)
	}
	turn, err := g.RunChat(ctx, params.Messages, completion.Choices[0])
	if err != nil {
		panic(err)
	}
	for i, rep := range turn.Calls {
		args := turn.Messages[0].OfAssistant.ToolCalls[i].OfFunction.Function.Arguments
		fmt.Printf("%s %s: sent back as %s\n", rep.ID, rep.Outcome, args)
	}
	for _, m := range turn.Messages[1:] {
		first, _, _ := strings.Cut(m.OfTool.Content.OfString.Value, "\n")
		fmt.Printf("%s: %s\n", m.OfTool.ToolCallID, first)
	}
	params.Messages = append(params.Messages, turn.Messages...)
	completion, err = client.Chat.Completions.New(ctx, params)
	if err != nil {
		panic(err)
	}
	fmt.Println(completion.Choices[0].Message.Content)
	// Output:
	// call_1 executed: sent back as {"city":"Paris","days":2}
	// call_2 feedback: sent back as {"city":"Rome","days":"two"}
	// call_3 unknown_tool: sent back as {}
	// call_1: Paris: sunny for 2 days
	// call_2: Error: get_weather was not executed because its arguments do not match the tool's schema:
	// call_3: Error: get_time is not a valid tool, try one of [get_weather].
	// Paris: sunny.
}

// A Response with function calls: RunResponse gives the output items with
// the repaired arguments and one function_call_output per call_id.
func ExampleGuard_RunResponse() {
	ctx := context.Background()
	srv := openaitest.NewServer(openaitest.Reply{Calls: []openaitest.Call{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city": "Oslo", "days": 1,}`},
	}}, openaitest.Reply{Text: "Oslo: sunny."})
	defer srv.Close()
	client := srv.Client()
	g := exampleGuard()

	input := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("Weather in Oslo?", responses.EasyInputMessageRoleUser)}
	params := responses.ResponseNewParams{Model: "gpt-4.1", Tools: g.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}}
	resp, err := client.Responses.New(ctx, params)
	if err != nil {
		panic(err)
	}
	turn, err := g.RunResponse(ctx, input, resp)
	if err != nil {
		panic(err)
	}
	fmt.Println(turn.Items[0].OfFunctionCall.CallID, turn.Items[0].OfFunctionCall.Arguments)
	fmt.Println(turn.Calls[0].Outcome, turn.Calls[0].Output)
	params.Input.OfInputItemList = append(input, turn.Input()...)
	resp, err = client.Responses.New(ctx, params)
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.OutputText())
	// Output:
	// call_1 {"city":"Oslo","days":1}
	// executed Oslo: sunny for 1 days
	// Oslo: sunny.
}
