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

// Without WithHandleToolErrors, a tool error stops the run, but what ran
// is not lost: the error's partial result holds the tool messages of the
// calls answered before it, and its Messages the conversation with them.
// Keep that as the history; the next run executes only the calls left
// unanswered, here once the failing service is back.
func ExampleToolError() {
	ctx := context.Background()
	down := true
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			if a.City == "Oslo" && down {
				return "", errors.New("weather service down")
			}
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithMaxConcurrency(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
		saidextest.AIMessage(
			saidextest.Call("call_1", "get_weather", `{"city":"Paris"}`),
			saidextest.Call("call_2", "get_weather", `{"city":"Oslo"}`),
		),
	}
	_, err = node.Invoke(ctx, history)
	var toolErr *saidex.ToolError
	if !errors.As(err, &toolErr) {
		fmt.Println("unexpected:", err)
		return
	}
	fmt.Println("stopped:", toolErr.Err)
	kept := toolErr.Partial.Messages() // call_1 answered, call_2 not

	down = false
	history, err = node.Invoke(ctx, kept) // runs call_2 only
	if err != nil {
		fmt.Println(err)
		return
	}
	printHistory(history)
	// Output:
	// stopped: weather service down
	// human: Weather in Paris and Oslo?
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city":"Oslo"}
	// tool: sunny in Paris
	// tool: sunny in Oslo
}
