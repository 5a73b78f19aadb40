package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/saidexmcp"
)

// TestToolTheSDKRefusesPassesUnguarded: an upstream tool whose schema the
// Go SDK refuses to register (here one without "type": "object", which
// servers in other languages publish) is still listed, its calls reach
// the upstream as sent, and the guard logs that once.
func TestToolTheSDKRefusesPassesUnguarded(t *testing.T) {
	var log syncBuffer
	rec := &recorder{w: &log}
	upstream := upstreamServer(rec, func(int) {})
	// The upstream publishes the schema of "fail" without its type, as a
	// server written with another SDK may.
	upstream.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				cp := *list
				cp.Tools = nil
				for _, tool := range list.Tools {
					if tool.Name == "fail" {
						odd := *tool
						odd.InputSchema = json.RawMessage(`{"properties": {"n": {"type": "integer"}}, "required": ["n"]}`)
						tool = &odd
					}
					cp.Tools = append(cp.Tools, tool)
				}
				return &cp, nil
			}
			return res, err
		}
	})
	ctx := context.Background()
	var guardLog syncBuffer
	_, cs := inMemory(t, upstream, &guardLog, 0, nil)

	listed := false
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = listed || tool.Name == "fail"
	}
	if !listed {
		t.Fatal("the refused tool is not listed")
	}
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: json.RawMessage(`{"n": "x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if saidexmcp.ResultText(res) != "the disk is full" {
			t.Fatalf("the call did not reach the upstream: %s", saidexmcp.ResultText(res))
		}
	}
	var got []string
	for _, line := range strings.Split(log.String(), "\n") {
		var r received
		if json.Unmarshal([]byte(line), &r) == nil && r.Method == "tools/call" {
			got = append(got, string(r.Params))
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], `"arguments":{"n":"x"}`) {
		t.Fatalf("upstream received %q", got)
	}
	if n := strings.Count(guardLog.String(), "the SDK refuses the tool's schema"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, guardLog.String())
	}
}
