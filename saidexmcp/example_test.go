package saidexmcp_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcp"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

// The tools of an MCP server, here one in this process on the SDK's
// in-memory transport, handed to a ToolNode: a call with broken JSON is
// repaired before the server sees it, a call whose arguments break the
// server's inputSchema is answered with feedback and never sent.
func ExampleTools() {
	type greetArgs struct {
		Name string `json:"name"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.CallToolRequest, a greetArgs) (*mcp.CallToolResult, any, error) {
			fmt.Printf("server received %s\n", req.Params.Arguments)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + a.Name}}}, nil, nil
		})
	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer serverSession.Wait()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, clientTransport, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	mcpTools, err := saidexmcp.Tools(ctx, session)
	if err != nil {
		fmt.Println(err)
		return
	}
	node, err := saidex.NewToolNode(mcpTools, saidex.WithMaxConcurrency(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := node.Run(ctx, []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("call_1", "greet", `{'name': 'Ada',}`),
		saidextest.Call("call_2", "greet", `{"name": 42}`),
	)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Calls {
		if c.Outcome == saidex.OutcomeFeedback {
			fmt.Printf("%s %s: %s breaks %q\n", c.ID, c.Outcome, c.Issues[0].Path, c.Issues[0].Kind)
			continue
		}
		fmt.Printf("%s %s: %s\n", c.ID, c.Outcome, c.Output)
	}
	// Output:
	// server received {"name":"Ada"}
	// call_1 executed: Hello, Ada
	// call_2 feedback: /name breaks "type"
}
