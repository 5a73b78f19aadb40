package saidexmcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcpgo"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorder records the arguments the tool's handler received.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, _ := json.Marshal(req.GetArguments())
	r.mu.Lock()
	r.seen = append(r.seen, string(b))
	r.mu.Unlock()
	return mcp.NewToolResultText("wrote it"), nil
}

func (r *recorder) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

var writeFile = mcp.NewTool("write_file",
	mcp.WithDescription("Writes a file."),
	mcp.WithString("path", mcp.Required()),
	mcp.WithString("content", mcp.Required()),
	mcp.WithString("mode", mcp.Enum("overwrite", "append")),
	mcp.WithInteger("retries"),
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newServer returns an mcp-go server with write_file, guarded by saidex
// with opts unless guard is false, behind a streamable HTTP test server.
func newServer(t *testing.T, rec *recorder, guard bool, serverOpts []server.ServerOption, opts ...saidex.Option) (*httptest.Server, *int) {
	t.Helper()
	s := server.NewMCPServer("files", "1.0.0", serverOpts...)
	s.AddTool(writeFile, rec.handle)
	var seen int // calls the saidex middleware saw
	var mu sync.Mutex
	if guard {
		mw, err := saidexmcpgo.Config{Logger: quiet}.Middleware(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		s.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
			inner := mw(next)
			return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				seen++
				mu.Unlock()
				return inner(ctx, req)
			}
		})
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	return hs, &seen
}

// connect returns a client session with the server at url, on the
// protocol version mcp-go's client negotiates by default (the stateless
// 2026-07-28), or on version when it is not "".
func connect(t *testing.T, url string) *client.Client {
	return connectVersion(t, url, "")
}

func connectVersion(t *testing.T, url, version string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1.0.0"}
	req.Params.ProtocolVersion = version
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(t *testing.T, c *client.Client, args string) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "write_file"
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMiddlewareGuardsToolCalls: over HTTP, a repaired call reaches the
// handler repaired, an invalid one never does and the client gets isError
// with field-level feedback.
func TestMiddlewareGuardsToolCalls(t *testing.T) {
	cases := []struct {
		name, args   string
		wantReceived string
		wantFeedback []string
	}{
		{"valid as sent", `{"path":"a","content":"x"}`, `{"content":"x","path":"a"}`, nil},
		{"coerced integer", `{"path":"a","content":"x","retries":"2"}`, `{"content":"x","path":"a","retries":2}`, nil},
		{"double-encoded object", `"{\"path\":\"a\",\"content\":\"x\"}"`, `{"content":"x","path":"a"}`, nil},
		{"misnamed key", `{"path":"a","contents":"x"}`, "", []string{"write_file was not executed", "content: required field is missing", `"contents" instead`}},
		{"enum", `{"path":"a","content":"x","mode":"Append"}`, "", []string{`mode: must be one of "overwrite", "append"`}},
		{"empty object", `{}`, "", []string{"path: required field is missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			hs, _ := newServer(t, rec, true, nil, saidex.WithCoercion(saidex.CoercionLax))
			res := call(t, connect(t, hs.URL), tc.args)
			got := rec.received()
			if tc.wantReceived != "" {
				if res.IsError || len(got) != 1 || got[0] != tc.wantReceived {
					t.Fatalf("IsError=%v %q; handler received %q, want %s", res.IsError, text(res), got, tc.wantReceived)
				}
				return
			}
			if !res.IsError || len(got) != 0 {
				t.Fatalf("IsError=%v; handler received %q", res.IsError, got)
			}
			for _, w := range tc.wantFeedback {
				if !strings.Contains(text(res), w) {
					t.Errorf("feedback lacks %q:\n%s", w, text(res))
				}
			}
		})
	}
}

// TestInputSchemaValidationHidesInvalidCalls: mcp-go validates before the
// tool middlewares, so with WithInputSchemaValidation on saidex never sees
// an invalid call (mcp-go answers it); with it off saidex sees it, and
// answers with its feedback.
func TestInputSchemaValidationHidesInvalidCalls(t *testing.T) {
	const invalid = `{"path":"a","contents":"x"}`
	t.Run("validation on: saidex does not see the call", func(t *testing.T) {
		hs, seen := newServer(t, &recorder{}, true, []server.ServerOption{server.WithInputSchemaValidation()})
		res := call(t, connect(t, hs.URL), invalid)
		if *seen != 0 {
			t.Fatalf("the saidex middleware saw %d calls", *seen)
		}
		if !res.IsError || strings.Contains(text(res), "was not executed") {
			t.Fatalf("answer %q is not mcp-go's", text(res))
		}
		t.Logf("mcp-go WithInputSchemaValidation answers: %s", text(res))
	})
	t.Run("validation off: saidex sees and answers it", func(t *testing.T) {
		hs, seen := newServer(t, &recorder{}, true, nil)
		res := call(t, connect(t, hs.URL), invalid)
		if *seen != 1 || !res.IsError || !strings.Contains(text(res), "was not executed") {
			t.Fatalf("seen=%d IsError=%v %q", *seen, res.IsError, text(res))
		}
		t.Logf("saidex answers: %s", text(res))
	})
	t.Run("stock server without validation: the handler runs with bad arguments", func(t *testing.T) {
		rec := &recorder{}
		hs, _ := newServer(t, rec, false, nil)
		res := call(t, connect(t, hs.URL), invalid)
		if res.IsError || len(rec.received()) != 1 {
			t.Fatalf("IsError=%v received=%q", res.IsError, rec.received())
		}
		t.Logf("stock mcp-go runs the handler with %s and answers %q", rec.received()[0], text(res))
	})
}

// TestFeedbackLimitIsPerSession: the limit counts one session's refusals
// (sessions of protocol 2025-06-18: the stateless protocol has none, and
// there each call is checked on its own).
func TestFeedbackLimitIsPerSession(t *testing.T) {
	hs, _ := newServer(t, &recorder{}, true, nil, saidex.WithFeedbackLimit(1))
	a, b := connectVersion(t, hs.URL, "2025-06-18"), connectVersion(t, hs.URL, "2025-06-18")
	first := text(call(t, a, `{"path":"a"}`))
	second := text(call(t, a, `{"path":"b"}`))
	if first == second || !strings.Contains(strings.ToLower(second), "stop") {
		t.Fatalf("second answer is not the limit message: %q", second)
	}
	if got := text(call(t, b, `{"path":"a"}`)); got != first {
		t.Fatalf("session b's first answer %q, want %q", got, first)
	}
}

// TestStatelessCallsAreCheckedAlone: without a session ID nothing is
// counted, so the limit never trips and one client's refusals never reach
// another's calls.
func TestStatelessCallsAreCheckedAlone(t *testing.T) {
	hs, _ := newServer(t, &recorder{}, true, nil, saidex.WithFeedbackLimit(1))
	c := connect(t, hs.URL)
	first := text(call(t, c, `{"path":"a"}`))
	for range 3 {
		if got := text(call(t, c, `{"path":"b"}`)); got != first {
			t.Fatalf("answer %q, want plain feedback %q", got, first)
		}
	}
}

// TestSecretsAreMasked: the feedback shows no secret value.
func TestSecretsAreMasked(t *testing.T) {
	s := server.NewMCPServer("auth", "1.0.0")
	rec := &recorder{}
	s.AddTool(mcp.NewToolWithRawSchema("login", "Logs in.", json.RawMessage(
		`{"type":"object","properties":{"user":{"type":"string"},"pin":{"type":"integer","writeOnly":true}},"required":["user","pin"]}`)), rec.handle)
	var logs bytes.Buffer
	var mu sync.Mutex
	mw, err := saidexmcpgo.Config{Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))}.Middleware(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Use(mw)
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer hs.Close()
	c := connect(t, hs.URL)
	req := mcp.CallToolRequest{}
	req.Params.Name = "login"
	req.Params.Arguments = json.RawMessage(`{"user":"ada","pin":"secret-7731"}`)
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !res.IsError || strings.Contains(text(res), "7731") || strings.Contains(logs.String(), "7731") {
		t.Fatalf("IsError=%v feedback %q log %q", res.IsError, text(res), logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestMiddlewareRefusesInvalidOptions: the error wraps ErrInvalidConfig.
func TestMiddlewareRefusesInvalidOptions(t *testing.T) {
	_, err := saidexmcpgo.Middleware(server.NewMCPServer("x", "1"), saidex.WithFeedbackLimit(-1))
	if err == nil || !strings.Contains(err.Error(), "invalid configuration") {
		t.Fatalf("err = %v", err)
	}
	if _, err := saidexmcpgo.Middleware(nil); err == nil {
		t.Fatal("nil server accepted")
	}
}
