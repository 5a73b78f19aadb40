package saidex_test

import (
	"context"
	"fmt"
	"strings"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A model that keeps sending the same invalid call: the first answer is
// the feedback, the second says the call is identical to the rejected one,
// and with WithFeedbackLimit(2) the third is the final message, after which
// the (scripted) model answers without the tool. Every call id is answered.
func ExampleWithFeedbackLimit() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
	}
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(ctx context.Context, a forecastArgs) (string, error) { return "sunny", nil })
	node, err := saidex.NewToolNode([]tools.Tool{forecast}, saidex.WithFeedbackLimit(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The scripted model sends the same call until it is told to stop.
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "Stop calling get_forecast") {
				return saidextest.TextResponse("I can only forecast up to 14 days; shall I do that?"), nil
			}
		}
		id := fmt.Sprintf("call_%d", req.Seq+1)
		return saidextest.ToolCallResponse(saidextest.Call(id, "get_forecast", `{"city": "Oslo", "days": 30}`)), nil
	})

	ctx := context.Background()
	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo for 30 days?")}
	for range 10 { // bound the turns
		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
		if err != nil {
			fmt.Println(err)
			return
		}
		ai := saidex.AIMessageFromResponse(resp)
		if !saidex.MessageHasToolCalls(ai) {
			fmt.Println("answer:", resp.Choices[0].Content)
			return
		}
		res, err := node.Run(ctx, append(messages, ai))
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range res.Calls {
			first, _, _ := strings.Cut(c.Output, "\n")
			fmt.Printf("%s %s (repeated: %v): %s\n", c.ID, c.Outcome, c.Repeated, first)
		}
		messages = append(append(messages, res.AIMessage), res.ToolMessages...)
	}
	// Output:
	// call_1 feedback (repeated: false): Error: get_forecast was not executed because its arguments do not match the tool's schema:
	// call_2 feedback (repeated: true): Error: get_forecast was not executed because this call is identical to an earlier get_forecast call that was already rejected, and it has the same problems:
	// call_3 feedback_limit (repeated: true): Error: get_forecast was not executed because its calls were rejected in each of the previous 2 turns and this call is still invalid. Stop calling get_forecast this way: answer the user without get_forecast, or ask the user for the information the call needs.
	// answer: I can only forecast up to 14 days; shall I do that?
}
