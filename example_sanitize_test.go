package saidex_test

import (
	"context"
	"fmt"

	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A model sent one call whose arguments do not parse and one that carries
// a password. Invoke answers both and replaces the AI message with a copy
// that every provider client can send again: the broken arguments become
// {} (the feedback message tells the model what was wrong) and the
// password is masked. The tool still received the real password.
func ExampleWithSanitizeMessages() {
	type loginArgs struct {
		User     string        `json:"user"`
		Password saidex.Secret `json:"password"`
	}
	login := saidex.NewTool("login", "Log a user in.", func(_ context.Context, a loginArgs) (string, error) {
		return fmt.Sprintf("logged in %s (password of %d characters)", a.User, len(string(a.Password))), nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		panic(err)
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "log in as ann, password hunter2"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunt`}},
			llms.ToolCall{ID: "call_2", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunter2"}`}},
		}},
	}
	out, err := node.Invoke(context.Background(), conversation)
	if err != nil {
		panic(err)
	}
	for _, p := range out[1].Parts {
		tc := p.(llms.ToolCall)
		fmt.Println(tc.ID, tc.FunctionCall.Arguments)
	}
	fmt.Println(out[3].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// call_1 {}
	// call_2 {"password":"**********","user":"ann"}
	// logged in ann (password of 7 characters)
}

// A Secret prints as a mask; convert it to read the value.
func ExampleSecret() {
	s := saidex.Secret("hunter2")
	fmt.Println(s, len(string(s)))
	// Output: ********** 7
}
