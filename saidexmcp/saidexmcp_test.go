package saidexmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexmcp"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them, such
// as a session's reader left running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// forecastSchema is the inputSchema of the test server's get_forecast tool.
var forecastSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"city": {"type": "string", "description": "City name"},
		"days": {"type": "integer", "minimum": 1, "maximum": 14}
	},
	"required": ["city", "days"],
	"additionalProperties": false
}`)

// server is an MCP server in the test process that records the arguments
// every tools/call request carried, as received.
type server struct {
	mu   sync.Mutex
	seen []string
}

func (s *server) record(req *mcp.CallToolRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, string(req.Params.Arguments))
}

func (s *server) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// start runs srv on an in-memory transport and returns a client session
// connected to it; both are closed when the test ends.
func start(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// slowTool reports on a server's "slow" tool, which waits for its context.
type slowTool struct {
	started chan struct{} // receives when a call starts
	done    chan error    // receives the handler context's error
}

// weatherServer returns a server with get_forecast (it answers unknown
// cities with an IsError result) and slow (it waits for its context and
// reports to slow, if not nil).
func weatherServer(rec *server, slow *slowTool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v0.0.1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "get_forecast", Description: "Weather forecast for a city.", InputSchema: forecastSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			var a struct {
				City string `json:"city"`
				Days int    `json:"days"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			if a.City == "Atlantis" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unknown city Atlantis"}}}, nil
			}
			return text(fmt.Sprintf("%s: sunny for %d days", a.City, a.Days)), nil
		})
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			if slow != nil {
				slow.started <- struct{}{}
			}
			<-ctx.Done()
			if slow != nil {
				slow.done <- ctx.Err()
			}
			return nil, ctx.Err()
		})
	return srv
}

// runTurn runs node on one AI message holding calls.
func runTurn(t *testing.T, node *saidex.ToolNode, calls ...llms.ToolCall) (*saidex.Result, error) {
	t.Helper()
	return node.Run(context.Background(), []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "weather?"),
		saidextest.AIMessage(calls...),
	})
}

func newNode(t *testing.T, cs *mcp.ClientSession, opts ...saidex.Option) *saidex.ToolNode {
	t.Helper()
	ts, err := saidexmcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	node, err := saidex.NewToolNode(ts, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

func TestToolsFollowsThePaginationCursor(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "v0.0.1"}, &mcp.ServerOptions{PageSize: 2})
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("tool_%d", i)
		want = append(want, name)
		srv.AddTool(&mcp.Tool{Name: name, Description: "tool number " + name, InputSchema: forecastSchema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	}
	ts, err := saidexmcp.Tools(context.Background(), start(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range ts {
		got = append(got, tool.Name())
		st, ok := tool.(saidex.Tool)
		if !ok {
			t.Fatalf("%s is not a saidex.Tool", tool.Name())
		}
		schema, _ := st.Schema().(map[string]any)
		if req, _ := schema["required"].([]any); len(req) != 2 {
			t.Errorf("%s: schema = %v, want the server's inputSchema", tool.Name(), st.Schema())
		}
		if tool.Description() != "tool number "+tool.Name() {
			t.Errorf("%s: description %q", tool.Name(), tool.Description())
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tools = %v, want %v (all pages, in order)", got, want)
	}
}

func TestNodeChecksCallsBeforeTheServer(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		wantOutcome saidex.Outcome
		wantServer  []string // arguments the server received
		wantContent []string // substrings of the tool message
	}{
		{
			name:        "valid call reaches the server",
			args:        `{"city": "Paris", "days": 2}`,
			wantOutcome: saidex.OutcomeExecuted,
			wantServer:  []string{`{"city":"Paris","days":2}`}, // compacted on the wire
			wantContent: []string{"Paris: sunny for 2 days"},
		},
		{
			name:        "broken argument string is repaired first",
			args:        `<think>Paris</think>{'city': 'Paris', days: 2,}`,
			wantOutcome: saidex.OutcomeExecuted,
			wantServer:  []string{`{"city":"Paris","days":2}`},
			wantContent: []string{"Paris: sunny for 2 days"},
		},
		{
			name:        "schema-invalid call never reaches the server",
			args:        `{"city": "Paris", "days": 40}`,
			wantOutcome: saidex.OutcomeFeedback,
			wantContent: []string{"get_forecast was not executed", "days:", "14"},
		},
		{
			name:        "missing field gets field-level feedback",
			args:        `{"days": 3}`,
			wantOutcome: saidex.OutcomeFeedback,
			wantContent: []string{"city: required field is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &server{}
			node := newNode(t, start(t, weatherServer(rec, nil)))
			res, err := runTurn(t, node, saidextest.Call("call_1", "get_forecast", tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Calls[0].Outcome; got != tt.wantOutcome {
				t.Errorf("outcome = %s, want %s", got, tt.wantOutcome)
			}
			if got := rec.received(); strings.Join(got, "|") != strings.Join(tt.wantServer, "|") {
				t.Errorf("the server received %q, want %q", got, tt.wantServer)
			}
			content := res.ToolMessages[0].Parts[0].(llms.ToolCallResponse).Content
			for _, want := range tt.wantContent {
				if !strings.Contains(content, want) {
					t.Errorf("tool message %q lacks %q", content, want)
				}
			}
		})
	}
}

func TestServerErrorIsAToolError(t *testing.T) {
	call := saidextest.Call("call_1", "get_forecast", `{"city": "Atlantis", "days": 1}`)

	_, err := runTurn(t, newNode(t, start(t, weatherServer(&server{}, nil))), call)
	var toolErr *saidex.ToolError
	var resErr *saidexmcp.ResultError
	if !errors.As(err, &toolErr) || !errors.As(err, &resErr) || resErr.Text != "unknown city Atlantis" {
		t.Fatalf("default node: err = %v, want a *saidex.ToolError wrapping a *saidexmcp.ResultError", err)
	}

	res, err := runTurn(t, newNode(t, start(t, weatherServer(&server{}, nil)), saidex.WithHandleToolErrors(true)), call)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ToolMessages[0].Parts[0].(llms.ToolCallResponse).Content; got != "Error: get_forecast: unknown city Atlantis" {
		t.Errorf("WithHandleToolErrors(true): tool message %q", got)
	}
}

func TestCancellationReachesTheServer(t *testing.T) {
	slow := &slowTool{started: make(chan struct{}, 1), done: make(chan error, 1)}
	node := newNode(t, start(t, weatherServer(&server{}, slow)), saidex.WithHandleToolErrors(true))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-slow.started // the call reached the server
		cancel()
	}()
	_, err := node.Run(ctx, []llms.MessageContent{saidextest.AIMessage(saidextest.Call("call_1", "slow", `{}`))})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	select {
	case err := <-slow.done:
		if err == nil {
			t.Error("the server handler's context ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server handler's context was not cancelled")
	}
}

func TestCallRefusesArgumentsThatAreNotAnObject(t *testing.T) {
	rec := &server{}
	ts, err := saidexmcp.Tools(context.Background(), start(t, weatherServer(rec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{``, `[1]`, `{"city":`, `"x"`, `{} {}`} {
		if _, err := ts[0].Call(context.Background(), input); !errors.Is(err, saidex.ErrInvalidArguments) {
			t.Errorf("Call(%q) = %v, want ErrInvalidArguments", input, err)
		}
	}
	if got := rec.received(); len(got) != 0 {
		t.Errorf("the server received %q", got)
	}
}

func TestResultText(t *testing.T) {
	size := int64(10)
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"nil", nil, ""},
		{"empty", &mcp.CallToolResult{}, ""},
		{"text blocks joined", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb"},
		{"image described", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "chart:"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}},
			"chart:\n[image: image/png, 5 bytes, not shown]"},
		{"audio described", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: []byte("1")}}}, "[audio: unknown type, 1 bytes, not shown]"},
		{"resource link described", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///r.txt", Name: "r", MIMEType: "text/plain", Size: &size}}},
			"[resource link: file:///r.txt (r), text/plain]"},
		{"embedded text resource", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://a", Text: "hello"}}}},
			"[resource mem://a]\nhello"},
		{"embedded blob described", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://b", MIMEType: "application/pdf", Blob: []byte("pdf")}}}},
			"[resource mem://b: application/pdf, 3 bytes, not shown]"},
		{"structured content only", &mcp.CallToolResult{StructuredContent: map[string]any{"t": 21}}, `{"t":21}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := saidexmcp.ResultText(tt.res); got != tt.want {
				t.Errorf("ResultText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestManyCallsLeakNoGoroutine runs 1,000 calls, ten per message, through
// a node to an in-memory server and checks, once the session is closed,
// that no goroutine is left behind.
func TestManyCallsLeakNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	rec := &server{}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := weatherServer(rec, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := saidexmcp.Tools(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	node, err := saidex.NewToolNode(ts)
	if err != nil {
		t.Fatal(err)
	}
	for turn := range 100 {
		calls := make([]llms.ToolCall, 10)
		for i := range calls {
			calls[i] = saidextest.Call(fmt.Sprintf("call_%d_%d", turn, i), "get_forecast", fmt.Sprintf(`{"city": "C%d", "days": %d,}`, i, i%14+1))
		}
		res, err := node.Run(ctx, []llms.MessageContent{saidextest.AIMessage(calls...)})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range res.Calls {
			if c.Outcome != saidex.OutcomeExecuted {
				t.Fatalf("turn %d call %d: outcome %s", turn, i, c.Outcome)
			}
		}
	}
	if n := len(rec.received()); n != 1000 {
		t.Errorf("the server received %d calls, want 1000", n)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ss.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestDraft07SchemaWithDefinitions checks a schema in the shape many
// TypeScript servers send (draft-07, definitions and $ref): a nested value
// the schema refuses gets feedback at its path, a valid call runs.
func TestDraft07SchemaWithDefinitions(t *testing.T) {
	rec := &server{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "v0.0.1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "create_issue", InputSchema: json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {
			"title": {"type": "string"},
			"labels": {"type": "array", "items": {"$ref": "#/definitions/label"}}
		},
		"required": ["title"],
		"additionalProperties": false,
		"definitions": {"label": {"type": "string", "enum": ["bug", "feature"]}}
	}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec.record(req)
		return text("created"), nil
	})
	res, err := runTurn(t, newNode(t, start(t, srv)),
		saidextest.Call("call_1", "create_issue", `{"title": "crash", "labels": ["bug", "urgent"]}`),
		saidextest.Call("call_2", "create_issue", `{"title": "crash", "labels": ["bug"]}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Calls[0]; c.Outcome != saidex.OutcomeFeedback || len(c.Issues) != 1 || c.Issues[0].Path != "/labels/1" {
		t.Errorf("call_1: outcome %s, issues %+v; want feedback on /labels/1", c.Outcome, c.Issues)
	}
	if c := res.Calls[1]; c.Outcome != saidex.OutcomeExecuted {
		t.Errorf("call_2: outcome %s, want executed", c.Outcome)
	}
	if got := rec.received(); len(got) != 1 || got[0] != `{"title":"crash","labels":["bug"]}` {
		t.Errorf("the server received %q, want only call_2", got)
	}
}

// TestToolsRefusesACursorThatDoesNotAdvance checks that a server returning
// the same cursor again ends the listing with an error, not a loop.
func TestToolsRefusesACursorThatDoesNotAdvance(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stuck", Version: "v0.0.1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: forecastSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			return &mcp.ListToolsResult{
				Tools:      []*mcp.Tool{{Name: "t", InputSchema: map[string]any{"type": "object"}}},
				NextCursor: "page-2",
			}, nil
		}
	})
	ts, err := saidexmcp.Tools(context.Background(), start(t, srv))
	if err == nil || !strings.Contains(err.Error(), `cursor "page-2" again`) {
		t.Errorf("Tools = %d tools, %v; want an error about the repeated cursor", len(ts), err)
	}
}

func TestCallWithoutSessionFails(t *testing.T) {
	tool := saidexmcp.NewTool(nil, &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}})
	if _, err := tool.Call(context.Background(), `{}`); err == nil {
		t.Error("Call without a session succeeded")
	}
	if tool.Name() != "t" || tool.Description() != "" {
		t.Errorf("Name, Description = %q, %q", tool.Name(), tool.Description())
	}
}

// TestInputRequiredIsAnError checks a session whose multi round-trip
// handling is disabled: a result asking for client input is an error, not
// an empty tool output.
func TestInputRequiredIsAnError(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "v0.0.1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}}}}, nil
		})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0.0.1"},
		&mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cs.Close()
		_ = ss.Wait()
	}()
	ts, err := saidexmcp.Tools(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ts[0].Call(ctx, `{}`)
	if err == nil || !strings.Contains(err.Error(), "asks for client input") {
		t.Errorf("Call = %q, %v; want an error about the input request", out, err)
	}
}

// MCP allows '.' in tool names; the providers do not. The node advertises
// and answers the provider-valid name, and the call reaches the server
// under the server's name.
func TestDottedServerNameIsCalledByAProviderValidName(t *testing.T) {
	rec := &server{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ns", Version: "v0.0.1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "weather.get_forecast", InputSchema: forecastSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			if strings.Contains(string(req.Params.Arguments), "Atlantis") {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unknown city"}}}, nil
			}
			return text(req.Params.Name + " ran"), nil
		})
	cs := start(t, srv)
	ts, err := saidexmcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := ts[0].Name(); got != "weather_get_forecast" {
		t.Fatalf("Name() = %q, want weather_get_forecast", got)
	}
	if got := ts[0].(*saidexmcp.Tool).ServerName(); got != "weather.get_forecast" {
		t.Fatalf("ServerName() = %q", got)
	}
	node, err := saidex.NewToolNode(ts)
	if err != nil {
		t.Fatalf("NewToolNode refused the mapped name: %v", err)
	}
	if got := node.Definitions()[0].Function.Name; got != "weather_get_forecast" {
		t.Errorf("advertised as %q", got)
	}
	res, err := runTurn(t, node, saidextest.Call("c1", "weather_get_forecast", `{"city":"Paris","days":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep := res.Calls[0]; rep.Outcome != saidex.OutcomeExecuted || rep.Output != "weather.get_forecast ran" {
		t.Fatalf("call: %s %q", rep.Outcome, rep.Output)
	}
	if got := rec.received(); len(got) != 1 {
		t.Fatalf("server received %d calls", len(got))
	}
	// The model reads a failed call's error under the name it called.
	hnode, err := saidex.NewToolNode(ts, saidex.WithHandleToolErrors(true))
	if err != nil {
		t.Fatal(err)
	}
	res, err = runTurn(t, hnode, saidextest.Call("c2", "weather_get_forecast", `{"city":"Atlantis","days":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ToolMessages[0].Parts[0].(llms.ToolCallResponse).Content; got != "Error: weather_get_forecast: unknown city" {
		t.Errorf("failed call answered %q, want the name the model called", got)
	}
}

func TestToolsSkipsAToolSaidexRefusesAndKeepsTheOthers(t *testing.T) {
	// A schema nested past saidex.MaxSchemaDepth: the compiler's cost grows
	// with the cube of the depth, so saidex refuses it at setup.
	deep := map[string]any{"type": "object"}
	for range saidex.MaxSchemaDepth + 10 {
		deep = map[string]any{"type": "object", "properties": map[string]any{"x": deep}}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mixed", Version: "v0.0.1"}, nil)
	for _, tool := range []*mcp.Tool{
		{Name: "get_forecast", InputSchema: forecastSchema},
		{Name: "hostile", InputSchema: deep},
		{Name: "ping", InputSchema: map[string]any{"type": "object"}},
	} {
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	}
	var logs strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	ts, err := saidexmcp.Tools(context.Background(), start(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range ts {
		got = append(got, tool.Name())
	}
	if strings.Join(got, ",") != "get_forecast,ping" {
		t.Errorf("tools = %v, want the hostile one left out", got)
	}
	if !strings.Contains(logs.String(), "tool=hostile") {
		t.Errorf("the skipped tool is not logged: %q", logs.String())
	}
	if _, err := saidex.NewToolNode(ts); err != nil {
		t.Errorf("NewToolNode on the tools left: %v", err)
	}
}
