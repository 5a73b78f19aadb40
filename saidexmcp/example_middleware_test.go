package saidexmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcp"
)

// An MCP server guarded by saidex: one call is coerced before its handler
// sees it, another is answered with field-level feedback the model can act
// on, and the handler never sees it. Without the middleware, the SDK's
// generic tool answers the same call with a bare schema error.
func ExampleMiddleware() {
	type repeatArgs struct {
		Word  string `json:"word"`
		Times int    `json:"times"`
	}
	newServer := func() *mcp.Server {
		server := mcp.NewServer(&mcp.Implementation{Name: "words", Version: "v1.0.0"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "repeat", Description: "Repeats a word."},
			func(ctx context.Context, req *mcp.CallToolRequest, a repeatArgs) (*mcp.CallToolResult, any, error) {
				fmt.Printf("handler received %s\n", req.Params.Arguments)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.Times, " times ", a.Word)}}}, nil, nil
			})
		return server
	}
	ctx := context.Background()
	call := func(server *mcp.Server, args string) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer ss.Wait()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "repeat", Arguments: json.RawMessage(args)})
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("IsError=%v: %s\n", res.IsError, saidexmcp.ResultText(res))
	}

	fmt.Println("stock server:")
	call(newServer(), `{"word": "hi", "times": "two"}`)

	guarded := newServer()
	mw, err := saidexmcp.MiddlewareConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}.Middleware(
		saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		fmt.Println(err)
		return
	}
	guarded.AddReceivingMiddleware(mw)
	fmt.Println("guarded by saidex:")
	call(guarded, `{"word": "hi", "times": "two"}`)
	call(guarded, `{"word": "hi", "times": "2"}`)
	// Output:
	// stock server:
	// IsError=true: validating "arguments": validating root: validating /properties/times: type: two has type "string", want "integer"
	// guarded by saidex:
	// IsError=true: Error: repeat was not executed because its arguments do not match the tool's schema:
	// - times: expected an integer, got a string
	// Call repeat again with these fields corrected.
	// handler received {"times":2,"word":"hi"}
	// IsError=false: 2 times hi
}
