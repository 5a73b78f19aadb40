package saidexmcpgo

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/saidex/saidex-go"
)

// TestUnregisteredSessionsAreForgotten: when mcp-go unregisters a session
// (here the client closes it, which sends DELETE), the guard drops what
// the session left, and the hooks the server already had still run.
func TestUnregisteredSessionsAreForgotten(t *testing.T) {
	tests := []struct {
		name  string
		hooks bool // the server was built with hooks of its own
	}{
		{"a server without hooks", false},
		{"a server with hooks of its own", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var own atomic.Int32 // the server's own unregister hook ran
			var opts []server.ServerOption
			if tt.hooks {
				h := &server.Hooks{}
				h.AddOnUnregisterSession(func(context.Context, server.ClientSession) { own.Add(1) })
				opts = append(opts, server.WithHooks(h))
			}
			s := server.NewMCPServer("files", "1.0.0", opts...)
			s.AddTool(mcp.NewTool("write_file", mcp.WithString("path", mcp.Required())),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("wrote it"), nil
				})
			g, err := newGuard(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, s, []saidex.Option{saidex.WithFeedbackLimit(1)})
			if err != nil {
				t.Fatal(err)
			}
			s.Use(g.middleware)
			hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
			defer hs.Close()

			ctx := context.Background()
			open := func() *client.Client {
				c, err := client.NewStreamableHttpClient(hs.URL)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Start(ctx); err != nil {
					t.Fatal(err)
				}
				req := mcp.InitializeRequest{}
				req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1.0.0"}
				req.Params.ProtocolVersion = "2025-06-18" // a protocol with sessions
				if _, err := c.Initialize(ctx, req); err != nil {
					t.Fatal(err)
				}
				return c
			}
			refuse := func(c *client.Client) {
				req := mcp.CallToolRequest{}
				req.Params.Name = "write_file"
				req.Params.Arguments = json.RawMessage(`{}`)
				res, err := c.CallTool(ctx, req)
				if err != nil || !res.IsError {
					t.Fatalf("call: %v %+v", err, res)
				}
			}
			a, b := open(), open()
			defer b.Close()
			refuse(a)
			refuse(b)
			if n := g.core.Sessions(); n != 2 {
				t.Fatalf("%d sessions remembered, want 2", n)
			}
			if err := a.Close(); err != nil { // DELETE: mcp-go unregisters the session before it answers
				t.Fatal(err)
			}
			if n := g.core.Sessions(); n != 1 {
				t.Fatalf("%d sessions remembered after a closed its session, want 1 (b)", n)
			}
			g.mu.Lock()
			tracked := g.order.Len()
			g.mu.Unlock()
			if tracked != 1 {
				t.Fatalf("%d session IDs tracked, want 1", tracked)
			}
			if tt.hooks && own.Load() != 1 {
				t.Fatalf("the server's own hook ran %d times, want 1", own.Load())
			}
		})
	}
}
