package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/saidexmcp"
)

// TestStalledToolListAfterAChange: when the upstream says its tools
// changed and then does not answer tools/list, its later notifications
// still reach the client (the list is not taken on the SDK's notification
// path); with a call timeout the stalled list gives up, is logged, and the
// next change is mirrored; without one, the tools are mirrored once the
// list comes.
func TestStalledToolListAfterAChange(t *testing.T) {
	tests := []struct {
		name        string
		callTimeout time.Duration
	}{
		{"no call timeout: the list comes late", 0},
		{"a call timeout: the list is given up", 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			upstream := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1.0.0"}, nil)
			upstream.AddTool(&mcp.Tool{Name: "first", InputSchema: emptySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
			// A prompt from the start: the upstream then has the prompts
			// capability, and announces changes of its prompts.
			upstream.AddPrompt(&mcp.Prompt{Name: "greeting"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			var stall atomic.Bool
			listing := make(chan struct{}, 16) // a stalled tools/list began
			release := make(chan struct{})     // ends the stalled lists
			var releaseOnce sync.Once
			end := func() { releaseOnce.Do(func() { close(release) }) }
			upstream.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "tools/list" && stall.Load() {
						listing <- struct{}{}
						select {
						case <-release:
						case <-ctx.Done():
							return nil, ctx.Err()
						}
					}
					return next(ctx, method, req)
				}
			})
			var guardLog syncBuffer
			c, cs := inMemory(t, upstream, &guardLog, tt.callTimeout, nil)
			defer end() // first, on any failure: a stalled list holds up the closes
			listed := func(name string) bool {
				for tool, err := range cs.Tools(ctx, nil) {
					if err == nil && tool.Name == name {
						return true
					}
				}
				return false
			}
			addTool := func(name string) {
				upstream.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ran"}}}, nil
					})
			}

			stall.Store(true)
			addTool("second")
			receive(t, "the guard lists the upstream's tools after the change", listing)
			// A later notification of the upstream, while its tools/list
			// stalls: the prompt list changed.
			upstream.AddPrompt(&mcp.Prompt{Name: "late_prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			receive(t, "the upstream's later notification reaches the client while its tools/list stalls", c.promptsChanged)
			// And a request through the guard still works.
			if res := callTool(t, cs, &mcp.CallToolParams{Name: "first", Arguments: json.RawMessage(`{}`)}); res.IsError {
				t.Fatalf("call while the list stalls: %s", saidexmcp.ResultText(res))
			}

			want := "second"
			if tt.callTimeout > 0 {
				eventually(t, "the stalled list is given up and logged", func() bool {
					return strings.Contains(guardLog.String(), "did not answer tools/list within")
				})
				stall.Store(false)
				addTool("third") // the next change is mirrored: the loop is not stuck
				want = "third"
			} else {
				stall.Store(false)
				end()
			}
			receive(t, "the tool list change reaches the client", c.listChanged)
			eventually(t, want+" is listed", func() bool { return listed(want) })
			res := callTool(t, cs, &mcp.CallToolParams{Name: want, Arguments: json.RawMessage(`{"n": "seven"}`)})
			if !res.IsError || !strings.Contains(saidexmcp.ResultText(res), "n: expected an integer") {
				t.Fatalf("%s not guarded: %s", want, saidexmcp.ResultText(res))
			}
			if tt.callTimeout > 0 && !listed("second") {
				t.Error("second (added before the stalled list) is not listed after the next sync")
			}
		})
	}
}
