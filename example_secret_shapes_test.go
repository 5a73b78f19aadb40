package saidex_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Secrets are masked whatever shape the arguments arrive in. The schema
// keeps the password under auth, but the model renamed the parent,
// wrapped it in an array, double-encoded it, or called the tool by the
// name its MCP server uses. Every text the node writes masks the password;
// the tool that ran received it and echoes its input, and even that is
// scrubbed.
func ExampleSecret_shapes() {
	schema := `{"type":"object","properties":{
		"user":{"type":"string"},
		"auth":{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}}}`
	echo := saidex.ToolWithSchema(echoTool{}, schema)
	node, err := saidex.NewToolNode([]tools.Tool{echo}, saidex.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	shapes := []struct{ name, args string }{
		{"auth_login", `{"user":"bob","Auth":{"password":"hunter22"}}`},       // parent renamed
		{"auth_login", `{"user":"bob","auth":[{"password":"hunter22"}]}`},     // parent wrapped in an array
		{"auth_login", `{"user":"bob","auth":"{\"password\":\"hunter22\"}"}`}, // parent double-encoded
		{"auth.login", `{"user":"bob","auth":{"password":"hunter22"}}`},       // the MCP server's name
	}
	for _, sh := range shapes {
		res, err := node.Run(context.Background(), []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "log in"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: sh.name, Arguments: sh.args}},
			}},
		})
		if err != nil {
			panic(err)
		}
		c := res.Calls[0]
		fmt.Printf("%s: %s\n  %s\n", c.Outcome, c.RawArguments, strings.SplitN(c.Output, "\n", 2)[0])
	}
	// Output:
	// executed: {"user":"bob","Auth":{"password":"**********"}}
	//   echo: {"user":"bob","Auth":{"password":"**********"}}
	// feedback: {"user":"bob","auth":[{"password":"**********"}]}
	//   Error: auth_login was not executed because its arguments do not match the tool's schema:
	// feedback: {"user":"bob","auth":"**********"}
	//   Error: auth_login was not executed because its arguments do not match the tool's schema:
	// unknown_tool: {"user":"bob","auth":{"password":"**********"}}
	//   Error: auth.login is not a valid tool, try one of [auth_login].
}

// echoTool answers with its input.
type echoTool struct{}

func (echoTool) Name() string { return "auth_login" }

func (echoTool) Description() string { return "Log in." }

func (echoTool) Call(_ context.Context, in string) (string, error) {
	return "echo: " + in, nil
}
