package saidextest_test

import (
	"context"
	"fmt"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A scripted model answers in order: a tool call with broken arguments,
// then text. The test then runs the model's call through a ToolNode and
// reads back what the model was sent.
func ExampleSequence() {
	ctx := context.Background()
	model := saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(saidextest.Call("call_1", "get_weather", `{"city": "Paris",}`)),
		saidextest.Text("It is sunny in Paris."),
	))
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) { return "sunny in " + a.City, nil })
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}

	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
	if err != nil {
		fmt.Println(err)
		return
	}
	messages, err = node.Invoke(ctx, append(messages, saidextest.AIMessage(resp.Choices[0].ToolCalls...)))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err = model.GenerateContent(ctx, messages)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Choices[0].Content)

	second := model.Requests()[1]
	fmt.Printf("the model was called %d times; its second request answered %+v\n", model.CallCount(), second.ToolResults())
	// Output:
	// It is sunny in Paris.
	// the model was called 2 times; its second request answered [{ToolCallID:call_1 Name:get_weather Content:sunny in Paris}]
}

// Match chooses the reply from the request, so concurrent callers get the
// answer their conversation calls for: here text once the tools have
// answered, a tool call before.
func ExampleMatch() {
	afterTools := func(r saidextest.Request) bool { return len(r.ToolResults()) > 0 }
	model := saidextest.NewModel(saidextest.Match(
		saidextest.When(afterTools, saidextest.Text("done")),
		saidextest.When(nil, saidextest.ToolCalls(saidextest.Call("call_1", "search", `{"q": "go"}`))),
	))
	ctx := context.Background()
	first := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "search go")}
	later := append(first,
		saidextest.AIMessage(saidextest.Call("call_1", "search", `{"q": "go"}`)),
		saidextest.ToolMessage("call_1", "search", "3 results"),
	)
	for _, messages := range [][]llms.MessageContent{first, later} {
		resp, err := model.GenerateContent(ctx, messages)
		if err != nil {
			fmt.Println(err)
			return
		}
		if c := resp.Choices[0]; len(c.ToolCalls) > 0 {
			fmt.Println("call", c.ToolCalls[0].FunctionCall.Name, c.ToolCalls[0].FunctionCall.Arguments)
		} else {
			fmt.Println("text", c.Content)
		}
	}
	// Output:
	// call search {"q": "go"}
	// text done
}

// WithUsage adds token usage to every choice, as a provider reports it; an
// error reply stands for a provider failure.
func ExampleWithUsage() {
	model := saidextest.NewModel(saidextest.Sequence(
		saidextest.WithUsage(saidextest.Usage(120, 8), saidextest.ForcedToolCall(`{"city": "Oslo"}`)),
		saidextest.Fail(fmt.Errorf("429 too many requests")),
	))
	ctx := context.Background()
	resp, err := model.GenerateContent(ctx, nil,
		llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := resp.Choices[0]
	fmt.Println(c.ToolCalls[0].FunctionCall.Name, c.ToolCalls[0].FunctionCall.Arguments, c.GenerationInfo["TotalTokens"])
	_, err = model.GenerateContent(ctx, nil)
	fmt.Println("error:", err)
	// Output:
	// get_weather {"city": "Oslo"} 128
	// error: 429 too many requests
}
