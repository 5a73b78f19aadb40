package main

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSubscriptionReachesTheUpstreamFirst: an update the upstream sends
// after the client's subscription was answered (by its response, or under
// MCP 2026-07-28 by the acknowledgement of its listen stream) reaches the
// client, even when the upstream is slow to record the guard's own
// subscription: the guard answers once the upstream has.
func TestSubscriptionReachesTheUpstreamFirst(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} { // "": the SDK's latest
		t.Run("client protocol "+cmp.Or(version, "latest"), func(t *testing.T) {
			ctx := context.Background()
			const uri = "file:///notes.txt"
			upstream := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1.0.0"}, &mcp.ServerOptions{
				SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
				UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			})
			upstream.AddResource(&mcp.Resource{URI: uri, Name: "notes"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "the notes"}}}, nil
			})
			upstream.AddTool(&mcp.Tool{Name: "touch", InputSchema: emptySchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, upstream.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			})
			// The upstream records a subscription only after a while.
			upstream.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "subscriptions/listen" || method == "resources/subscribe" {
						time.Sleep(300 * time.Millisecond)
					}
					return next(ctx, method, req)
				}
			})
			c, cs := inMemory(t, upstream, io.Discard, 10*time.Second, &mcp.ClientSessionOptions{ProtocolVersion: version})

			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if version == "" {
				if uris := receive(t, "the subscription is acknowledged", c.acked); !slices.Equal(uris, []string{uri}) {
					t.Fatalf("acknowledged %v", uris)
				}
			}
			callTool(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: json.RawMessage(`{}`)})
			select {
			case got := <-c.updated:
				if got != uri {
					t.Fatalf("updated %q", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the update sent after the subscription was answered never reached the client")
			}
		})
	}
}
