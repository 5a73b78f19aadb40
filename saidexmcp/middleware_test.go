package saidexmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcp"
)

// fileSchema is published as most servers publish theirs: without
// "additionalProperties": false.
var fileSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"path": {"type": "string"},
		"content": {"type": "string"},
		"mode": {"type": "string", "enum": ["overwrite", "append"]},
		"retries": {"type": "integer"}
	},
	"required": ["path", "content"]
}`)

// loginSchema has a secret: a write-only password.
var loginSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"user": {"type": "string"},
		"password": {"type": "string", "writeOnly": true},
		"pin": {"type": "integer", "writeOnly": true}
	},
	"required": ["user", "password"]
}`)

// guardedServer is a go-sdk server with two low-level tools (which the SDK
// does not validate) and one generic tool (which it does), guarded by mw;
// rec records what each handler received.
func guardedServer(rec *server, mw mcp.Middleware) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1.0.0"}, nil)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec.record(req)
		return text("done"), nil
	}
	srv.AddTool(&mcp.Tool{Name: "write_file", InputSchema: fileSchema}, handler)
	srv.AddTool(&mcp.Tool{Name: "login", InputSchema: loginSchema}, handler)
	type countArgs struct {
		Word  string `json:"word"`
		Times int    `json:"times"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "repeat"}, func(ctx context.Context, req *mcp.CallToolRequest, a countArgs) (*mcp.CallToolResult, any, error) {
		rec.record(req)
		return text(strings.Repeat(a.Word, a.Times)), nil, nil
	})
	if mw != nil {
		srv.AddReceivingMiddleware(mw)
	}
	return srv
}

func call(t *testing.T, cs *mcp.ClientSession, name, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	return cs.CallTool(context.Background(), p)
}

func mustMiddleware(t *testing.T, c saidexmcp.MiddlewareConfig, opts ...saidex.Option) mcp.Middleware {
	t.Helper()
	mw, err := c.Middleware(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return mw
}

// TestMiddlewareGuardsToolsCall: a call saidex repairs reaches the handler
// repaired, a call it refuses never reaches it and the client gets an
// IsError result with field-level feedback, and a valid call passes
// byte for byte.
func TestMiddlewareGuardsToolsCall(t *testing.T) {
	cases := []struct {
		name, tool, args string
		wantReceived     string   // "" when the handler must not be called
		wantFeedback     []string // substrings of the IsError text
	}{
		{
			name: "valid call passes as sent", tool: "write_file",
			args:         `{"path":"a.txt","content":"hi"}`,
			wantReceived: `{"path":"a.txt","content":"hi"}`,
		},
		{
			name: "string for an integer is coerced", tool: "write_file",
			args:         `{"path":"a.txt","content":"hi","retries":"3"}`,
			wantReceived: `{"content":"hi","path":"a.txt","retries":3}`,
		},
		{
			name: "double-encoded object is decoded", tool: "write_file",
			args:         `"{\"path\":\"a.txt\",\"content\":\"hi\"}"`,
			wantReceived: `{"path":"a.txt","content":"hi"}`,
		},
		{
			name: "absent arguments of a tool with required fields", tool: "write_file",
			wantFeedback: []string{"write_file was not executed", "content: required field is missing", "path: required field is missing"},
		},
		{
			name: "misnamed key is named in the feedback", tool: "write_file",
			args:         `{"path":"a.txt","contents":"hi"}`,
			wantFeedback: []string{"content: required field is missing", `(the arguments have "contents" instead`},
		},
		{
			name: "enum in the wrong case", tool: "write_file",
			args:         `{"path":"a.txt","content":"hi","mode":"Append"}`,
			wantFeedback: []string{`mode: must be one of "overwrite", "append"`},
		},
		{
			name: "null arguments", tool: "write_file", args: `null`,
			wantFeedback: []string{"expected an object, got null"},
		},
		{
			name: "generic tool: the SDK would answer a bare schema error", tool: "repeat",
			args:         `{"word":"ab","times":"two"}`,
			wantFeedback: []string{"repeat was not executed", "times"},
		},
		{
			name: "generic tool: coerced before the SDK's own validation", tool: "repeat",
			args:         `{"word":"ab","times":"2"}`,
			wantReceived: `{"times":2,"word":"ab"}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &server{}
			cs := start(t, guardedServer(rec, mustMiddleware(t, saidexmcp.MiddlewareConfig{}, saidex.WithCoercion(saidex.CoercionLax))))
			res, err := call(t, cs, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			got := rec.received()
			if tc.wantReceived != "" {
				if res.IsError {
					t.Fatalf("IsError result: %s", saidexmcp.ResultText(res))
				}
				if len(got) != 1 || !jsonEqual(t, got[0], tc.wantReceived) {
					t.Fatalf("handler received %q, want %s", got, tc.wantReceived)
				}
				return
			}
			if len(got) != 0 {
				t.Fatalf("an invalid call reached the handler: %q", got)
			}
			if !res.IsError {
				t.Fatalf("result not marked IsError: %s", saidexmcp.ResultText(res))
			}
			txt := saidexmcp.ResultText(res)
			for _, w := range tc.wantFeedback {
				if !strings.Contains(txt, w) {
					t.Errorf("feedback lacks %q:\n%s", w, txt)
				}
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// TestMiddlewareUnknownTool: by default the server's protocol error;
// with UnknownToolFeedback an IsError result naming the tools.
func TestMiddlewareUnknownTool(t *testing.T) {
	t.Run("default: the server's error", func(t *testing.T) {
		cs := start(t, guardedServer(&server{}, saidexmcp.Middleware()))
		_, err := call(t, cs, "write_fil", `{}`)
		if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Fatalf("err = %v, want the server's unknown tool error", err)
		}
	})
	t.Run("UnknownToolFeedback: did you mean", func(t *testing.T) {
		cs := start(t, guardedServer(&server{}, mustMiddleware(t, saidexmcp.MiddlewareConfig{UnknownToolFeedback: true})))
		res, err := call(t, cs, "write_fil", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		txt := saidexmcp.ResultText(res)
		if !res.IsError || !strings.Contains(txt, `"write_fil" is not a valid tool`) || !strings.Contains(txt, "write_file") {
			t.Fatalf("IsError=%v text=%q", res.IsError, txt)
		}
	})
}

// TestMiddlewareFeedbackLimitIsPerSession: the limit counts the feedback
// of one session; another session starts at zero, and a call that runs
// ends the count.
func TestMiddlewareFeedbackLimitIsPerSession(t *testing.T) {
	rec := &server{}
	srv := guardedServer(rec, mustMiddleware(t, saidexmcp.MiddlewareConfig{}, saidex.WithFeedbackLimit(2)))
	a, b := start(t, srv), start(t, srv)
	bad := []string{`{"path":"a"}`, `{"path":"b"}`, `{"path":"c"}`}
	var texts []string
	for _, args := range bad {
		res, err := call(t, a, "write_file", args)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, saidexmcp.ResultText(res))
	}
	limit := texts[2]
	if strings.Contains(texts[0], "not executed because its arguments") == false || texts[1] == limit {
		t.Fatalf("first two answers are not plain feedback: %q", texts[:2])
	}
	if !strings.Contains(strings.ToLower(limit), "stop") {
		t.Fatalf("third answer is not the limit message: %q", limit)
	}
	// Session b has its own count.
	res, err := call(t, b, "write_file", bad[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := saidexmcp.ResultText(res); got != texts[0] {
		t.Fatalf("session b's first answer = %q, want plain feedback %q", got, texts[0])
	}
	// A call that runs ends a's count.
	if res, err := call(t, a, "write_file", `{"path":"a","content":"x"}`); err != nil || res.IsError {
		t.Fatalf("valid call: %v %v", err, res)
	}
	res, err = call(t, a, "write_file", bad[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := saidexmcp.ResultText(res); got != texts[0] {
		t.Fatalf("after a run the answer = %q, want plain feedback", got)
	}
	if n := len(rec.received()); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}

// TestMiddlewareRepeatedCall: a call identical to one refused in the same
// session is told so.
func TestMiddlewareRepeatedCall(t *testing.T) {
	cs := start(t, guardedServer(&server{}, saidexmcp.Middleware()))
	first, err := call(t, cs, "write_file", `{"path":"a"}`)
	if err != nil {
		t.Fatal(err)
	}
	again, err := call(t, cs, "write_file", `{"path": "a"}`)
	if err != nil {
		t.Fatal(err)
	}
	if saidexmcp.ResultText(first) == saidexmcp.ResultText(again) || !strings.Contains(saidexmcp.ResultText(again), "identical") {
		t.Fatalf("repeated call answered %q", saidexmcp.ResultText(again))
	}
}

// syncBuffer is a bytes.Buffer for a logger written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMiddlewareMasksSecrets: neither the feedback the client reads nor
// the log line shows a secret value, while the handler of a valid call
// receives it.
func TestMiddlewareMasksSecrets(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	rec := &server{}
	cs := start(t, guardedServer(rec, mustMiddleware(t, saidexmcp.MiddlewareConfig{Logger: logger}, saidex.WithLogger(logger))))
	cases := []struct{ args, secret string }{
		{`{"user":"ada","password":7319624}`, "7319624"},
		{`{"user":"ada","passwd":"hunter2-xyzzy"}`, "hunter2-xyzzy"},
		{`{"user":"ada","password":"s3cr3t-pw","pin":"not-a-pin-4242"}`, "4242"},
	}
	for _, tc := range cases {
		res, err := call(t, cs, "login", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		txt := saidexmcp.ResultText(res)
		if !res.IsError {
			t.Fatalf("%s: not refused: %s", tc.args, txt)
		}
		if strings.Contains(txt, tc.secret) {
			t.Errorf("feedback shows the secret %q:\n%s", tc.secret, txt)
		}
	}
	if strings.Contains(logs.String(), "7319624") || strings.Contains(logs.String(), "hunter2") || strings.Contains(logs.String(), "4242") {
		t.Errorf("log shows a secret:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "refused a tool call") {
		t.Errorf("no log line per refused call:\n%s", logs.String())
	}
	if len(rec.received()) != 0 {
		t.Fatalf("a refused call reached the handler")
	}
	res, err := call(t, cs, "login", `{"user":"ada","password":"s3cr3t-pw"}`)
	if err != nil || res.IsError {
		t.Fatalf("valid call: %v %v", err, res)
	}
	if got := rec.received(); len(got) != 1 || !strings.Contains(got[0], "s3cr3t-pw") {
		t.Fatalf("handler received %q, want the real password", got)
	}
}

// TestMiddlewareSeesToolsAddedLater: the schema is read from the server's
// list at each call, so a tool added, or replaced, after the session
// started is guarded by its current schema.
func TestMiddlewareSeesToolsAddedLater(t *testing.T) {
	rec := &server{}
	srv := guardedServer(rec, saidexmcp.Middleware())
	cs := start(t, srv)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec.record(req)
		return text("ok"), nil
	}
	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}, handler)
	if res, _ := call(t, cs, "late", `{}`); res == nil || !res.IsError {
		t.Fatalf("late tool's invalid call not refused: %v", res)
	}
	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`)}, handler)
	if res, _ := call(t, cs, "late", `{"n":1}`); res == nil || !res.IsError || !strings.Contains(saidexmcp.ResultText(res), "s: required field is missing") {
		t.Fatalf("replaced tool not checked by its new schema: %v", saidexmcp.ResultText(res))
	}
	if res, err := call(t, cs, "late", `{"s":"x"}`); err != nil || res.IsError {
		t.Fatalf("valid call: %v %v", err, res)
	}
}

// TestMiddlewarePassesUnusableSchemas: a tool whose schema saidex cannot
// compile is passed through unguarded and logged once.
func TestMiddlewarePassesUnusableSchemas(t *testing.T) {
	var logs syncBuffer
	rec := &server{}
	mw := mustMiddleware(t, saidexmcp.MiddlewareConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv := guardedServer(rec, mw)
	srv.AddTool(&mcp.Tool{Name: "odd", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/nowhere"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			return text("ok"), nil
		})
	cs := start(t, srv)
	for range 2 {
		if res, err := call(t, cs, "odd", `{"x":1}`); err != nil || res.IsError {
			t.Fatalf("unguarded call: %v %v", err, res)
		}
	}
	if n := strings.Count(logs.String(), "is not guarded"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logs.String())
	}
	if len(rec.received()) != 2 {
		t.Fatalf("handler received %d calls, want 2", len(rec.received()))
	}
}

// TestMiddlewareRefusesInvalidOptions: the error wraps ErrInvalidConfig,
// and Middleware's calls fail with it.
func TestMiddlewareRefusesInvalidOptions(t *testing.T) {
	_, err := saidexmcp.MiddlewareConfig{}.Middleware(saidex.WithFeedbackLimit(-1))
	if !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
	cs := start(t, guardedServer(&server{}, saidexmcp.Middleware(saidex.WithFeedbackLimit(-1))))
	if _, err := call(t, cs, "write_file", `{"path":"a","content":"b"}`); err == nil {
		t.Fatal("call succeeded with an invalid configuration")
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("other methods fail too: %v", err)
	}
}

// TestMiddlewareArgumentSizeLimit: arguments over saidex.WithMaxArgumentBytes
// are refused with feedback and never reach the handler.
func TestMiddlewareArgumentSizeLimit(t *testing.T) {
	rec := &server{}
	cs := start(t, guardedServer(rec, mustMiddleware(t, saidexmcp.MiddlewareConfig{}, saidex.WithMaxArgumentBytes(64))))
	res, err := call(t, cs, "write_file", `{"path":"a","content":"`+strings.Repeat("x", 100)+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	if txt := saidexmcp.ResultText(res); !res.IsError || !strings.Contains(txt, "write_file") || len(rec.received()) != 0 {
		t.Fatalf("IsError=%v received=%d %s", res.IsError, len(rec.received()), txt)
	}
	if res, err := call(t, cs, "write_file", `{"path":"a","content":"x"}`); err != nil || res.IsError {
		t.Fatalf("small call: %v %v", err, res)
	}
}
