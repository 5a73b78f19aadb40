package main

//lint:file-ignore SA1019 sampling and logging are deprecated in MCP 2026-07-28 but clients and servers of earlier versions use them: the guard forwards them.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/saidexmcp"
	"go.uber.org/goleak"
)

// guardBin is the guard, built by TestMain.
var guardBin string

// TestMain builds the guard binary, or, when the test binary was launched
// as the upstream server, runs it.
func TestMain(m *testing.M) {
	if os.Getenv("SAIDEX_TEST_UPSTREAM") != "" {
		os.Exit(upstreamMain())
	}
	dir, err := os.MkdirTemp("", "saidex-mcp-guard")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	guardBin = filepath.Join(dir, "saidex-mcp-guard")
	if out, err := exec.Command("go", "build", "-o", guardBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
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

// eventually polls cond until it holds; the test's own deadline bounds it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 3000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never happened: %s", what)
}

// receive returns the next value of ch; a value that never comes fails
// the test instead of hanging it.
func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("never happened: %s", what)
		var zero T
		return zero
	}
}

// upstreamLog reads what the stdio upstream received.
func upstreamLog(t *testing.T, path string) []received {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	var out []received
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r received
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// toolCalls returns the params of the tools/call requests of tool name in
// log.
func toolCalls(log []received, name string) []mcp.CallToolParamsRaw {
	var out []mcp.CallToolParamsRaw
	for _, r := range log {
		if r.Method != "tools/call" {
			continue
		}
		var p mcp.CallToolParamsRaw
		if json.Unmarshal(r.Params, &p) == nil && p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// client is the downstream client of the tests, with what the guard
// passed on to it.
type client struct {
	session        *mcp.ClientSession
	listChanged    chan struct{}
	promptsChanged chan struct{}
	updated        chan string
	acked          chan []string // the URIs of each subscriptions/acknowledged
	mu             sync.Mutex
	progress       []string
}

func (c *client) progressMessages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.progress)
}

func newClient() (*mcp.Client, *client) {
	c := &client{listChanged: make(chan struct{}, 16), promptsChanged: make(chan struct{}, 16), updated: make(chan string, 16), acked: make(chan []string, 16)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "v1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.listChanged <- struct{}{}
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			c.promptsChanged <- struct{}{}
		},
		ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.updated <- req.Params.URI
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params.Message)
			c.mu.Unlock()
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "hi there"}}, nil
		},
	})
	// Under MCP 2026-07-28 the SDK's Subscribe opens a listen stream and
	// returns before the server has recorded it: the acknowledgement says
	// it has.
	mc.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ack, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && ack != nil && len(ack.Notifications.ResourceSubscriptions) > 0 {
				c.acked <- ack.Notifications.ResourceSubscriptions
			}
			return next(ctx, method, req)
		}
	})
	return mc, c
}

// inMemory connects upstream to a guard (a proxy with callTimeout, which
// logs to log) and a downstream client to the guard, over in-memory
// transports (the client session with opts); the test's cleanups close
// them in turn.
func inMemory(t *testing.T, upstream *mcp.Server, log io.Writer, callTimeout time.Duration, opts *mcp.ClientSessionOptions) (*client, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	ust, uct := mcp.NewInMemoryTransports()
	uss, err := upstream.Connect(ctx, ust, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = uss.Wait() })
	logger := slog.New(slog.NewTextHandler(log, nil))
	guard, err := saidexmcp.MiddlewareConfig{Logger: logger}.Middleware()
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(logger, callTimeout)
	if err := p.connect(ctx, uct, guard); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.close() })
	dst, dct := mcp.NewInMemoryTransports()
	dss, err := p.server.Connect(ctx, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dss.Wait() })
	mc, c := newClient()
	cs, err := mc.Connect(ctx, dct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return c, cs
}

// startStdio runs the guard binary over stdio in front of the test binary
// as upstream, and connects a client to it.
func startStdio(t *testing.T, flags ...string) (*client, string, *syncBuffer) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "upstream.jsonl")
	args := append(slices.Clone(flags), "--", os.Args[0])
	cmd := exec.Command(guardBin, args...)
	cmd.Env = append(os.Environ(), "SAIDEX_TEST_UPSTREAM=stdio", "SAIDEX_TEST_UPSTREAM_LOG="+logPath)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	mc, c := newClient()
	cs, err := mc.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	c.session = cs
	t.Cleanup(func() { _ = cs.Close() })
	return c, logPath, stderr
}

func callTool(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	return res
}

// TestStdioEndToEnd drives the built guard, in front of a real upstream
// over stdio, with a real client, and checks what the upstream received.
func TestStdioEndToEnd(t *testing.T) {
	c, logPath, stderr := startStdio(t, "--call-timeout=1s")
	cs := c.session
	ctx := context.Background()

	t.Run("the upstream's tools, every page, and its instructions", func(t *testing.T) {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		want := []string{"add_tool", "ask", "crash", "fail", "stall", "touch", "write_file"}
		if !slices.Equal(names, want) {
			t.Fatalf("tools %v, want %v", names, want)
		}
		if got := cs.InitializeResult().Instructions; got != "Upstream instructions." {
			t.Errorf("instructions %q", got)
		}
	})

	t.Run("a repaired call arrives repaired, with its _meta", func(t *testing.T) {
		res := callTool(t, cs, &mcp.CallToolParams{Name: "write_file", Meta: mcp.Meta{"trace": "t-1"},
			Arguments: json.RawMessage(`{"path": "a.txt", "content": "hello", "retries": "3"}`)})
		if res.IsError || !strings.HasPrefix(saidexmcp.ResultText(res), "wrote 5 bytes;") {
			t.Fatalf("result %+v", res)
		}
		if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"bytes":5}` {
			t.Errorf("structuredContent %s", sc)
		}
		if res.Meta["upstream"] != "yes" {
			t.Errorf("result _meta %v", res.Meta)
		}
		calls := toolCalls(upstreamLog(t, logPath), "write_file")
		if len(calls) != 1 {
			t.Fatalf("upstream received %d calls", len(calls))
		}
		if got := string(calls[0].Arguments); got != `{"content":"hello","path":"a.txt","retries":3}` {
			t.Errorf("upstream received arguments %s", got)
		}
		if calls[0].Meta["trace"] != "t-1" {
			t.Errorf("upstream received _meta %v", calls[0].Meta)
		}
	})

	t.Run("an invalid call never arrives and gets field-level feedback", func(t *testing.T) {
		res := callTool(t, cs, &mcp.CallToolParams{Name: "write_file", Arguments: json.RawMessage(`{"path": "a.txt", "contents": "hello"}`)})
		txt := saidexmcp.ResultText(res)
		if !res.IsError || !strings.Contains(txt, "content: required field is missing") || !strings.Contains(txt, `"contents" instead`) {
			t.Fatalf("IsError=%v %s", res.IsError, txt)
		}
		if n := len(toolCalls(upstreamLog(t, logPath), "write_file")); n != 1 {
			t.Fatalf("upstream received %d write_file calls, want the 1 valid one", n)
		}
		// The guard logs before it answers, but its stderr reaches the
		// buffer through os/exec's copying goroutine: wait for the line.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "refused a tool call") && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.Contains(stderr.String(), "refused a tool call") || strings.Contains(stderr.String(), "hello") {
			t.Errorf("stderr lacks the refusal line, or shows a value:\n%s", stderr)
		}
	})

	t.Run("an unknown tool gets did-you-mean", func(t *testing.T) {
		res := callTool(t, cs, &mcp.CallToolParams{Name: "write_fil", Arguments: json.RawMessage(`{}`)})
		if txt := saidexmcp.ResultText(res); !res.IsError || !strings.Contains(txt, "write_file") {
			t.Fatalf("IsError=%v %s", res.IsError, txt)
		}
	})

	t.Run("isError and progress pass through", func(t *testing.T) {
		res := callTool(t, cs, &mcp.CallToolParams{Name: "fail", Meta: mcp.Meta{"progressToken": "p-1"}, Arguments: json.RawMessage(`{}`)})
		if !res.IsError || saidexmcp.ResultText(res) != "the disk is full" {
			t.Fatalf("result %+v", res)
		}
		eventually(t, "the progress notification reaches the client", func() bool {
			return slices.Contains(c.progressMessages(), "half way")
		})
	})

	t.Run("the upstream's input requests reach the client", func(t *testing.T) {
		res := callTool(t, cs, &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{}`)})
		if res.IsError || saidexmcp.ResultText(res) != "the model said: hi there" {
			t.Fatalf("result IsError=%v %q", res.IsError, saidexmcp.ResultText(res))
		}
		calls := toolCalls(upstreamLog(t, logPath), "ask")
		if len(calls) != 2 || calls[1].RequestState != "state-1" || calls[1].InputResponses == nil {
			t.Fatalf("upstream received %+v", calls)
		}
	})

	t.Run("prompts pass through", func(t *testing.T) {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greeting", Arguments: map[string]string{"who": "Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Hello, Ada" {
			t.Fatalf("prompt %+v", res.Messages[0].Content)
		}
	})

	t.Run("resources, their updates, and prompt list changes pass through", func(t *testing.T) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///notes.txt"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "the notes" {
			t.Fatalf("read: %v %+v", err, res)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///notes.txt"}); err != nil {
			t.Fatal(err)
		}
		if uris := receive(t, "the subscription is acknowledged", c.acked); !slices.Equal(uris, []string{"file:///notes.txt"}) {
			t.Fatalf("acknowledged %v", uris)
		}
		callTool(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: json.RawMessage(`{}`)})
		if uri := receive(t, "the resource update reaches the client", c.updated); uri != "file:///notes.txt" {
			t.Fatalf("updated %q", uri)
		}
		receive(t, "the prompt list change reaches the client", c.promptsChanged)
		var names []string
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, p.Name)
		}
		if !slices.Equal(names, []string{"greeting", "late_prompt"}) {
			t.Fatalf("prompts %v", names)
		}
	})

	t.Run("a tool added upstream is announced and guarded", func(t *testing.T) {
		callTool(t, cs, &mcp.CallToolParams{Name: "add_tool", Arguments: json.RawMessage(`{}`)})
		receive(t, "the tool list change reaches the client", c.listChanged)
		eventually(t, "the late tool is listed", func() bool {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return false
			}
			for {
				if slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "late" }) {
					return true
				}
				if res.NextCursor == "" {
					return false
				}
				if res, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: res.NextCursor}); err != nil {
					return false
				}
			}
		})
		res := callTool(t, cs, &mcp.CallToolParams{Name: "late", Arguments: json.RawMessage(`{"n": "seven"}`)})
		if !res.IsError || !strings.Contains(saidexmcp.ResultText(res), "n: expected an integer") {
			t.Fatalf("late tool not guarded: %s", saidexmcp.ResultText(res))
		}
		if n := len(toolCalls(upstreamLog(t, logPath), "late")); n != 0 {
			t.Fatalf("upstream received %d late calls", n)
		}
	})

	t.Run("cancellation reaches the upstream", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "stall", Arguments: json.RawMessage(`{}`)})
			errc <- err
		}()
		eventually(t, "the stall call reaches the upstream", func() bool { return len(toolCalls(upstreamLog(t, logPath), "stall")) == 1 })
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("a cancelled call succeeded")
		}
		eventually(t, "the upstream receives notifications/cancelled", func() bool {
			return slices.ContainsFunc(upstreamLog(t, logPath), func(r received) bool { return r.Method == "notifications/cancelled" })
		})
	})

	t.Run("a stalled upstream is a clear error", func(t *testing.T) {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stall", Arguments: json.RawMessage(`{}`)})
		if err == nil || !strings.Contains(err.Error(), "did not answer tools/call within 1s") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("a crashed upstream is a clear error, at once, for every call after", func(t *testing.T) {
		for _, name := range []string{"crash", "write_file"} {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{"path": "a", "content": "b"}`)})
			if err == nil || !strings.Contains(err.Error(), "upstream server is gone") {
				t.Fatalf("%s: err = %v", name, err)
			}
		}
	})
}

// upstreamPID returns the pid the stdio upstream logged at its start.
func upstreamPID(t *testing.T, logPath string) int {
	t.Helper()
	for _, r := range upstreamLog(t, logPath) {
		if r.Method == "started" {
			return r.PID
		}
	}
	t.Fatal("the upstream never started")
	return 0
}

// TestShutdownStopsTheUpstream: the client closing the guard's stdin, or
// a signal, stops the guard and the upstream it launched.
func TestShutdownStopsTheUpstream(t *testing.T) {
	t.Run("client gone", func(t *testing.T) {
		c, logPath, _ := startStdio(t)
		pid := upstreamPID(t, logPath)
		if err := c.session.Close(); err != nil { // closes stdin, waits for the guard
			t.Logf("close: %v", err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("upstream %d still exists after the guard exited: %v", pid, err)
		}
	})
	t.Run("signal", func(t *testing.T) {
		logPath := filepath.Join(t.TempDir(), "upstream.jsonl")
		cmd := exec.Command(guardBin, "--", os.Args[0])
		cmd.Env = append(os.Environ(), "SAIDEX_TEST_UPSTREAM=stdio", "SAIDEX_TEST_UPSTREAM_LOG="+logPath)
		var stderr syncBuffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the upstream starts", func() bool {
			return slices.ContainsFunc(upstreamLog(t, logPath), func(r received) bool { return r.Method == "started" })
		})
		pid := upstreamPID(t, logPath)
		eventually(t, "the guard's handshake with the upstream", func() bool {
			return slices.ContainsFunc(upstreamLog(t, logPath), func(r received) bool { return r.Method == "tools/list" })
		})
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("guard exited with %v:\n%s", err, stderr.String())
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("upstream %d still exists after the guard exited: %v", pid, err)
		}
	})
}

// TestUpstreamThatNeverAnswersTheHandshake: the guard gives up with a
// clear error instead of hanging.
func TestUpstreamThatNeverAnswersTheHandshake(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "upstream.jsonl")
	cmd := exec.Command(guardBin, "--init-timeout=500ms", "--", os.Args[0])
	cmd.Env = append(os.Environ(), "SAIDEX_TEST_UPSTREAM=stall", "SAIDEX_TEST_UPSTREAM_LOG="+logPath)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("guard exited with %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "did not complete the MCP handshake within 500ms") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
}

// TestHTTPEndToEnd runs the built guard in front of a real upstream over
// streamable HTTP (httptest) and checks what the upstream received.
func TestHTTPEndToEnd(t *testing.T) {
	var log syncBuffer
	rec := &recorder{w: &log}
	upstream := upstreamServer(rec, func(int) {})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upstream }, nil))
	defer hs.Close()

	cmd := exec.Command(guardBin, "--upstream", hs.URL, "--listen", "127.0.0.1:0")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("guard exited with %v:\n%s", err, stderr)
		}
	}()
	var addr string
	eventually(t, "the guard listens", func() bool {
		_, rest, ok := strings.Cut(stderr.String(), "listening on ")
		if ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
		return ok
	})

	mc, _ := newClient()
	cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: addr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	logOf := func() []received {
		var out []received
		for _, line := range strings.Split(log.String(), "\n") {
			var r received
			if json.Unmarshal([]byte(line), &r) == nil {
				out = append(out, r)
			}
		}
		return out
	}

	res := callTool(t, cs, &mcp.CallToolParams{Name: "write_file", Meta: mcp.Meta{"trace": "h-1"},
		Arguments: json.RawMessage(`"{\"path\": \"b.txt\", \"content\": \"abc\", \"retries\": \"2\"}"`)})
	if res.IsError || !strings.HasPrefix(saidexmcp.ResultText(res), "wrote 3 bytes;") {
		t.Fatalf("result %+v", res)
	}
	res = callTool(t, cs, &mcp.CallToolParams{Name: "write_file", Arguments: json.RawMessage(`{"path": "b.txt"}`)})
	if !res.IsError || !strings.Contains(saidexmcp.ResultText(res), "content: required field is missing") {
		t.Fatalf("invalid call: IsError=%v %s", res.IsError, saidexmcp.ResultText(res))
	}
	calls := toolCalls(logOf(), "write_file")
	if len(calls) != 1 || string(calls[0].Arguments) != `{"content":"abc","path":"b.txt","retries":2}` || calls[0].Meta["trace"] != "h-1" {
		t.Fatalf("upstream received %+v", calls)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greeting", Arguments: map[string]string{"who": "Bo"}}); err != nil {
		t.Fatal(err)
	}
}
