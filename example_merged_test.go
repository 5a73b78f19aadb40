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

// A streaming accumulator that ignores the call index (langchaingo's does)
// can merge two parallel calls into one whose arguments are two objects.
// Such a call never runs, not even as one of the calls it holds: its
// feedback asks for separate calls.
func Example_mergedCalls() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("call_1", "get_weather", `{"city":"Paris"}{"city":"Rome"}`))})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := res.Calls[0]
	fmt.Println(rep.Outcome, errors.Is(rep.Err, saidex.ErrMergedCalls))
	fmt.Println(rep.Output)
	// Output:
	// feedback true
	// Error: the arguments of get_weather could not be read as one JSON object (they are 2 different JSON objects one after another: several tool calls were merged into this one), so nothing was executed. It received: {"city":"Paris"}{"city":"Rome"}
	// The arguments must be one JSON object matching the tool's schema, with these fields:
	// - city: string, required
	// Send each of the merged calls as a separate tool call, each with its arguments as one JSON object.
}
