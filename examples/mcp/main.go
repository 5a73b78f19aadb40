// Command mcp runs an agent loop whose tools come from an MCP server, with
// no API key: the server runs in this process on the MCP SDK's in-memory
// transport, and the model is a scripted saidextest.Model.
//
// saidexmcp.Tools lists the server's tools with their inputSchema, and a
// saidex.ToolNode checks every call against that schema before it reaches
// the server. What to notice:
//
//   - the model's first call holds broken JSON (reasoning text, single
//     quotes, a trailing comma): the node repairs it, and the server
//     receives valid arguments;
//   - its second call sends "three" for an integer: it never reaches the
//     server, and the model reads field-level feedback instead;
//   - the model fixes that call in its next turn, then answers.
//
// This directory is a Go module of its own, so that neither the saidex
// library nor the saidexmcp module depends on it; its go.mod points at both
// in the parent directories. Run it from this directory:
//
//	cd examples/mcp && go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcp"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// ForecastArgs is the input of the server's get_forecast tool; the MCP SDK
// infers the tool's inputSchema from it. Its jsonschema tag is the MCP
// SDK's (the description as free text), not the keyword list that
// saidex.NewTool reads (jsonschema:"description=...,minimum=1"): see
// docs/mcp.md, "Two struct-tag vocabularies".
type ForecastArgs struct {
	City string `json:"city" jsonschema:"the city name"`
	Days int    `json:"days" jsonschema:"number of days"`
}

// newServer returns an MCP server with one tool, get_forecast, which
// prints the arguments it receives.
func newServer(w io.Writer) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_forecast", Description: "Weather forecast for a city."},
		func(ctx context.Context, req *mcp.CallToolRequest, a ForecastArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(w, "  (server received %s)\n", req.Params.Arguments)
			text := fmt.Sprintf("%s: sunny, 21 degrees, for %d days", a.City, a.Days)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return server
}

// newModel returns the scripted agent model: two calls (one broken, one
// invalid), then the fixed call, then the answer.
func newModel() *saidextest.Model {
	return saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(
			saidextest.Call("call_1", "get_forecast", `<think>Paris first.</think>{'city': 'Paris', 'days': 2,}`),
			saidextest.Call("call_2", "get_forecast", `{"city": "Oslo", "days": "three"}`),
		),
		saidextest.ToolCalls(saidextest.Call("call_3", "get_forecast", `{"city": "Oslo", "days": 3}`)),
		saidextest.Text("Paris: sunny for 2 days. Oslo: sunny for 3 days."),
	))
}

func run(ctx context.Context, w io.Writer) (err error) {
	// Connect a client to the server over the in-memory transport; a real
	// program would use mcp.CommandTransport or mcp.StreamableClientTransport.
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := newServer(w).Connect(ctx, serverTransport, nil)
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "saidex-example", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, session.Close(), serverSession.Wait()) }()

	// The server's tools, with their inputSchema, as saidex tools.
	mcpTools, err := saidexmcp.Tools(ctx, session)
	if err != nil {
		return err
	}
	node, err := saidex.NewToolNode(mcpTools, saidex.WithHandleToolErrors(true))
	if err != nil {
		return err
	}

	model := newModel()
	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?")}
	for turn := 1; turn <= 5; turn++ {
		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
		if err != nil {
			return err
		}
		ai := saidex.AIMessageFromResponse(resp) // the text and tool calls of every choice
		if !saidex.MessageHasToolCalls(ai) {
			fmt.Fprintf(w, "turn %d: the model answers: %s\n", turn, resp.Choices[0].Content)
			return nil
		}
		fmt.Fprintf(w, "turn %d: the model calls\n", turn)
		for _, p := range ai.Parts {
			if tc, ok := p.(llms.ToolCall); ok {
				fmt.Fprintf(w, "  %s %s %s\n", tc.ID, tc.FunctionCall.Name, tc.FunctionCall.Arguments)
			}
		}
		messages = append(messages, ai)

		res, err := node.Run(ctx, messages) // the server prints what reaches it
		if err != nil {
			return err
		}
		for _, c := range res.Calls {
			fmt.Fprintf(w, "  %s %s: %s\n", c.ID, c.Outcome, indent(c.Output)) // Output: the call's tool message
		}
		// The history keeps the repaired arguments and one answer per call.
		messages[res.AIMessageIndex] = res.AIMessage
		messages = append(messages, res.ToolMessages...)
	}
	return errors.New("no answer after 5 turns")
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }
