package saidex_test

import (
	"context"
	"fmt"
	"strings"

	saidex "github.com/saidex/saidex-go"
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

// Arguments cut off after a password cannot be parsed, so the call is
// answered with feedback quoting what was received: the password shows as
// the mask, in the feedback as in the call's report.
func ExampleSecret_feedback() {
	type loginArgs struct {
		User     string        `json:"user"`
		Password saidex.Secret `json:"password"`
		Note     string        `json:"note,omitempty"`
	}
	login := saidex.NewTool("login", "Log a user in.", func(_ context.Context, a loginArgs) (string, error) {
		return "logged in", nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		panic(err)
	}
	res, err := node.Run(context.Background(), []llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunter2", "note": "lat`}},
		}},
	})
	if err != nil {
		panic(err)
	}
	feedback, _, _ := strings.Cut(res.Calls[0].Output, "\n")
	fmt.Println(feedback)
	fmt.Println(res.Calls[0].RawArguments)
	// Output:
	// Error: the arguments of login could not be read as one JSON object (the argument string was cut off inside a string value), so nothing was executed. It received (secret values masked): {"user": "ann", "password": "**********", "note": "lat
	// {"user": "ann", "password": "**********", "note": "lat
}
