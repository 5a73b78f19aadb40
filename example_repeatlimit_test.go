package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// WithRepeatLimit stops a model that sends the same valid call again: the
// node reads the conversation, sees that the same call already ran, and
// answers with the call that holds the result instead of running it again.
func ExampleWithRepeatLimit() {
	type emailArgs struct {
		To      string `json:"to"`
		Subject string `json:"subject"`
	}
	sent := 0
	send := saidex.NewTool("send_email", "Send an email.",
		func(ctx context.Context, a emailArgs) (string, error) {
			sent++
			return "sent to " + a.To, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{send}, saidex.WithRepeatLimit(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Tell Ada the build is green."),
		saidextest.AIMessage(saidextest.Call("call_1", "send_email", `{"to":"ada@example.com","subject":"Build green"}`)),
		saidextest.ToolMessage("call_1", "send_email", "sent to ada@example.com"),
		// The model loops: the same call again, keys in another order.
		saidextest.AIMessage(saidextest.Call("call_2", "send_email", `{"subject":"Build green","to":"ada@example.com"}`)),
	}
	res, err := node.Run(context.Background(), conv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Calls[0].Outcome, "emails sent:", sent)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// repeat_limit emails sent: 0
	// Error: send_email was not executed because the same call, with the same arguments, already ran once in this conversation: its result is in the tool message answering call call_1. Use that result instead of calling send_email again; change the arguments if you need something else, or answer the user.
}
