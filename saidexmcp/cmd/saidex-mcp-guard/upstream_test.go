package main

//lint:file-ignore SA1019 sampling and logging are deprecated in MCP 2026-07-28 but clients and servers of earlier versions use them: the guard forwards them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary is also the upstream server the guard launches: with
// SAIDEX_TEST_UPSTREAM set, TestMain runs upstreamMain instead of the
// tests. It records every message it receives, one JSON line each, in
// the file SAIDEX_TEST_UPSTREAM_LOG names.

// received is one message the upstream received.
type received struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	PID    int             `json:"pid,omitempty"`
}

// recorder appends what the upstream receives to w.
type recorder struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *recorder) write(m received) {
	b, _ := json.Marshal(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}

// middleware records every request and notification the server receives.
func (r *recorder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		params, _ := json.Marshal(req.GetParams())
		r.write(received{Method: method, Params: params})
		return next(ctx, method, req)
	}
}

// upstreamFileSchema is published as most servers publish theirs: unknown
// members allowed.
var upstreamFileSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"path": {"type": "string"},
		"content": {"type": "string"},
		"retries": {"type": "integer"}
	},
	"required": ["path", "content"]
}`)

var emptySchema = json.RawMessage(`{"type": "object"}`)

// upstreamServer is the upstream MCP server of the tests: a page size of
// 2, so that its tool list has several pages, and tools that exercise
// what the guard forwards.
func upstreamServer(rec *recorder, exit func(code int)) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1.0.0"}, &mcp.ServerOptions{
		PageSize:           2,
		Instructions:       "Upstream instructions.",
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "the notes"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "touch", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "file:///notes.txt"}); err != nil {
				return nil, err
			}
			srv.AddPrompt(&mcp.Prompt{Name: "late_prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "touched"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "write_file", Description: "Writes a file.", InputSchema: upstreamFileSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Content string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("wrote %d bytes; received %s", len(a.Content), req.Params.Arguments)}},
				StructuredContent: map[string]any{"bytes": len(a.Content)},
				Meta:              mcp.Meta{"upstream": "yes"},
			}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "stall", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddTool(&mcp.Tool{Name: "crash", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			exit(3)
			return nil, nil
		})
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the client's model.", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if resp, ok := req.Params.InputResponses["q"]; ok {
				if r, ok := resp.(*mcp.CreateMessageWithToolsResult); ok && len(r.Content) > 0 {
					if tc, ok := r.Content[0].(*mcp.TextContent); ok {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the model said: " + tc.Text}}}, nil
					}
				}
				if r, ok := resp.(*mcp.CreateMessageResult); ok {
					if tc, ok := r.Content.(*mcp.TextContent); ok {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the model said: " + tc.Text}}}, nil
					}
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("unexpected response %T", resp)}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.CreateMessageParams{
				MaxTokens: 10,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hi."}}},
			}}, RequestState: "state-1"}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "add_tool", InputSchema: emptySchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late ran"}}}, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greeting", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"]}}}}, nil
		})
	srv.AddReceivingMiddleware(rec.middleware)
	return srv
}

// upstreamMain serves upstreamServer on stdin and stdout. With
// SAIDEX_TEST_UPSTREAM=stall it reads its input and never answers.
func upstreamMain() int {
	f, err := os.OpenFile(os.Getenv("SAIDEX_TEST_UPSTREAM_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	rec := &recorder{w: f}
	rec.write(received{Method: "started", PID: os.Getpid()})
	if os.Getenv("SAIDEX_TEST_UPSTREAM") == "stall" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
	srv := upstreamServer(rec, os.Exit)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		rec.write(received{Method: "exited: " + err.Error()})
	}
	return 0
}
