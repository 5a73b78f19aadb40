package saidexmcp

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/internal/guardcore"
)

// TestSessionStateIsDroppedWithTheSession: what a session's refused calls
// left is forgotten once the session is garbage, so that a long-running
// server does not keep every session it ever served.
func TestSessionStateIsDroppedWithTheSession(t *testing.T) {
	g := &guard{keys: map[weakKey]bool{}}
	core, err := guardcore.New(nil, g.log)
	if err != nil {
		t.Fatal(err)
	}
	g.core = core
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","required":["x"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddReceivingMiddleware(g.middleware)

	func() {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{}`)})
		if err != nil || !res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
		_ = cs.Close()
		_ = ss.Wait()
	}()
	if n := core.Sessions(); n != 1 {
		t.Fatalf("%d sessions remembered, want 1", n)
	}
	for range 500 {
		runtime.GC()
		if core.Sessions() == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the closed session is still remembered")
}
