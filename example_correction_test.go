package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Who fixes an invalid call: without a correction model the agent gets
// feedback and corrects the call in its next turn; with one, saidex
// corrects it inside the node and only the corrected call and its result
// reach the conversation. Here a scripted model stands in for a small, cheap
// correction model.
func Example_correction() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	forecast := saidex.NewTool("forecast", "Weather forecast for a city.",
		func(_ context.Context, a forecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})

	// The agent sent "days" as a word.
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris for the next three days?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "forecast", Arguments: `{"city": "Paris", "days": "three"}`},
		}}},
	}

	// The agent corrects (default): the call is answered with feedback.
	agentFixes, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := agentFixes.Run(context.Background(), conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("agent corrects:", res.Calls[0].Outcome, "error:", res.Calls[0].IsError)

	// saidex corrects: the correction model answers with valid arguments.
	correctionModel := saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Paris", "days": 3}`))
	saidexFixes, err := saidex.NewToolNode([]tools.Tool{forecast},
		saidex.WithCorrectionModel(correctionModel),
		saidex.WithMaxCorrectionRetries(2),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err = saidexFixes.Run(context.Background(), conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Calls[0]
	fmt.Println("saidex corrects:", c.Outcome, string(c.Arguments))
	fmt.Println("tool message:", c.Output)
	// Output:
	// agent corrects: feedback error: true
	// saidex corrects: corrected {"city":"Paris","days":3}
	// tool message: Paris: sunny for 3 days
}
