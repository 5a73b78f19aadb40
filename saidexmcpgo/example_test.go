package saidexmcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcpgo"
)

// An mcp-go server guarded by saidex, without WithInputSchemaValidation:
// a call sending "contents" for "content" is answered with feedback naming
// both and never reaches the handler; a call sending "2" for an integer
// reaches it as 2.
func ExampleMiddleware() {
	s := server.NewMCPServer("files", "1.0.0")
	s.AddTool(mcp.NewTool("write_file",
		mcp.WithString("path", mcp.Required()),
		mcp.WithString("content", mcp.Required()),
		mcp.WithInteger("retries"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Printf("handler received %s\n", req.Params.RawArguments)
		return mcp.NewToolResultText("written"), nil
	})
	mw, err := saidexmcpgo.Middleware(s, saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Use(mw)

	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer hs.Close()
	ctx := context.Background()
	c, err := client.NewStreamableHttpClient(hs.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, args := range []string{`{"path": "a.txt", "contents": "hi"}`, `{"path": "a.txt", "content": "hi", "retries": "2"}`} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "write_file"
		req.Params.Arguments = json.RawMessage(args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("isError=%v: %s\n", res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// isError=true: Error: write_file was not executed because its arguments do not match the tool's schema:
	// - content: required field is missing; expected a string (the arguments have "contents" instead, which the tool does not define)
	// Call write_file again with these fields corrected.
	// handler received {"content":"hi","path":"a.txt","retries":2}
	// isError=false: written
}
