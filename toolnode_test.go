package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestInvokeAnswersEveryCallInOrder(t *testing.T) {
	weather, runs := countingWeather()
	echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) { return "echo:" + in, nil }}
	n := mustNode(t, []tools.Tool{weather, echo})
	msgs := conversation(
		llms.TextPart("Let me check."),
		tc("a", "get_weather", `{"city":"Paris","days":2}`),
		tc("b", "get_weather", `this is not json`),
		tc("c", "get_weather", `{"days":3}`),
		tc("d", "teleport", `{"to":"Mars"}`),
		tc("e", "echo", `{"__arg1":"hi"}`),
		tc("f", "echo", `2+2`),
	)
	before := deepCopy(msgs)

	out, err := n.Invoke(context.Background(), msgs)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Fatal("Invoke modified its input")
	}
	if len(out) != len(msgs)+6 {
		t.Fatalf("got %d messages, want %d", len(out), len(msgs)+6)
	}
	want := []struct {
		id, contains string
	}{
		{"a", "Paris: sunny for 2 days"},
		{"b", "get_weather"},
		{"c", "city"},
		{"d", "Error: teleport is not a valid tool, try one of [get_weather, echo]."},
		{"e", "echo:hi"},
		{"f", "echo:2+2"},
	}
	for i, w := range want {
		r := response(t, out[len(msgs)+i])
		if r.ToolCallID != w.id {
			t.Errorf("message %d answers %q, want %q", i, r.ToolCallID, w.id)
		}
		if !strings.Contains(r.Content, w.contains) {
			t.Errorf("answer to %q = %q, want it to contain %q", w.id, r.Content, w.contains)
		}
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("weather tool ran %d times, want 1 (only the valid call)", got)
	}
}

func TestRunReportsOutcomes(t *testing.T) {
	weather, _ := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	res, err := n.Run(context.Background(), conversation(
		tc("a", "get_weather", `{"city":"Oslo"}`),
		tc("b", "get_weather", `{"city":"Oslo","unit":"kelvin"}`),
		tc("a", "get_weather", `{"city":"Rome"}`),
		tc("c", "nope", `{}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	if res.AIMessageIndex != 1 {
		t.Errorf("AIMessageIndex = %d, want 1", res.AIMessageIndex)
	}
	outcomes := []Outcome{OutcomeExecuted, OutcomeFeedback, OutcomeDropped, OutcomeUnknownTool}
	isErr := []bool{false, true, false, true}
	for i, c := range res.Calls {
		if c.Index != i || c.Outcome != outcomes[i] || c.IsError != isErr[i] {
			t.Errorf("call %d: index %d outcome %q isError %v, want %d %q %v", i, c.Index, c.Outcome, c.IsError, i, outcomes[i], isErr[i])
		}
	}
	if got := string(res.Calls[0].Arguments); got != `{"city":"Oslo"}` {
		t.Errorf("executed call arguments = %s", got)
	}
	if res.Calls[1].Arguments != nil {
		t.Errorf("feedback call has arguments %s, want nil", res.Calls[1].Arguments)
	}
	if len(res.Calls[1].Issues) == 0 {
		t.Error("invalid call has no issues")
	}
	if len(res.ToolMessages) != 3 {
		t.Errorf("got %d tool messages, want 3 (the duplicate id is dropped)", len(res.ToolMessages))
	}
}

func TestCallIDs(t *testing.T) {
	weather, runs := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	t.Run("empty ids are answered by name", func(t *testing.T) {
		res, err := n.Run(context.Background(), conversation(
			tc("", "get_weather", `{"city":"A"}`),
			tc("", "get_weather", `{"city":"B"}`),
		))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ToolMessages) != 2 {
			t.Fatalf("got %d tool messages, want 2", len(res.ToolMessages))
		}
		for i, m := range res.ToolMessages {
			r := response(t, m)
			if r.ToolCallID != "" || r.Name != "get_weather" {
				t.Errorf("message %d: id %q name %q", i, r.ToolCallID, r.Name)
			}
		}
	})
	t.Run("a repeated id is dropped and not executed", func(t *testing.T) {
		runs.Store(0)
		res, err := n.Run(context.Background(), conversation(
			tc("x", "get_weather", `{"city":"A"}`),
			tc("x", "get_weather", `{"city":"B"}`),
		))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ToolMessages) != 1 || runs.Load() != 1 {
			t.Fatalf("got %d messages and %d runs, want 1 and 1", len(res.ToolMessages), runs.Load())
		}
		if res.Calls[1].Outcome != OutcomeDropped {
			t.Errorf("second call outcome %q, want dropped", res.Calls[1].Outcome)
		}
	})
	t.Run("a nil FunctionCall gets feedback", func(t *testing.T) {
		res, err := n.Run(context.Background(), conversation(llms.ToolCall{ID: "n", Type: "function"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ToolMessages) != 1 || res.Calls[0].Outcome != OutcomeFeedback {
			t.Fatalf("got %d messages, outcome %q", len(res.ToolMessages), res.Calls[0].Outcome)
		}
		if r := response(t, res.ToolMessages[0]); r.ToolCallID != "n" {
			t.Errorf("answer id %q, want n", r.ToolCallID)
		}
	})
}

func TestConversationShapes(t *testing.T) {
	weather, _ := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	if _, err := n.Invoke(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}); !errors.Is(err, ErrNoAIMessage) {
		t.Errorf("no AI message: err = %v, want ErrNoAIMessage", err)
	}
	msgs := conversation(llms.TextPart("Just text."))
	out, err := n.Invoke(context.Background(), msgs)
	if err != nil || !reflect.DeepEqual(out, msgs) {
		t.Errorf("AI message without calls: got %v, %v; want the conversation unchanged", out, err)
	}
	// Only the last AI message's calls are handled.
	msgs = []llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{tc("old", "get_weather", `{"city":"A"}`)}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "old", Name: "get_weather", Content: "ok"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{tc("new", "get_weather", `{"city":"B"}`)}},
	}
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.AIMessageIndex != 2 || len(res.ToolMessages) != 1 || response(t, res.ToolMessages[0]).ToolCallID != "new" {
		t.Errorf("handled AI message %d with %d answers", res.AIMessageIndex, len(res.ToolMessages))
	}
}

func TestToolErrors(t *testing.T) {
	boom := errors.New("boom")
	failing := func(err error) tools.Tool {
		return plainTool{name: "fail", fn: func(context.Context, string) (string, error) { return "", err }}
	}
	panicking := plainTool{name: "fail", fn: func(context.Context, string) (string, error) { panic("kaput") }}
	decodeFail := NewTool("fail", "", func(context.Context, weatherArgs) (string, error) { return "", nil })

	tests := []struct {
		name        string
		tool        tools.Tool
		args        string
		opts        []Option
		wantErrIs   error // Run's error; nil when the call must be answered
		wantPanic   bool
		wantContent string
	}{
		{name: "other errors stop the run by default", tool: failing(boom), wantErrIs: boom},
		{name: "argument errors are answered by default", tool: failing(ErrInvalidArguments), wantContent: "Error: saidex: invalid tool arguments"},
		{name: "handled errors are answered", tool: failing(boom), opts: []Option{WithHandleToolErrors(true)}, wantContent: "Error: boom"},
		{name: "a formatter formats every error", tool: failing(boom), opts: []Option{WithToolErrorFormatter(func(err error) string { return "custom " + err.Error() })}, wantContent: "custom boom"},
		{name: "a panic stops the run by default", tool: panicking, wantPanic: true},
		{name: "a handled panic is answered", tool: panicking, opts: []Option{WithHandleToolErrors(true)}, wantContent: "Error: panic: kaput"},
		{name: "a plain tool's decode error is answered", tool: ToolWithSchema(decodeFail, map[string]any{"type": "object"}), args: `{"city":5}`, wantContent: "invalid tool arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNode(t, []tools.Tool{tt.tool}, tt.opts...)
			args := tt.args
			if args == "" {
				args = `{}`
			}
			res, err := n.Run(context.Background(), conversation(tc("id1", "fail", args)))
			if tt.wantErrIs != nil || tt.wantPanic {
				var te *ToolError
				if !errors.As(err, &te) || te.Tool != "fail" || te.CallID != "id1" {
					t.Fatalf("err = %v, want a *ToolError for fail/id1", err)
				}
				if tt.wantErrIs != nil && !errors.Is(err, tt.wantErrIs) {
					t.Errorf("err = %v, want it to wrap %v", err, tt.wantErrIs)
				}
				var pe *PanicError
				if tt.wantPanic && (!errors.As(err, &pe) || pe.Value != "kaput" || len(pe.Stack) == 0) {
					t.Errorf("err = %v, want a *PanicError with value and stack", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			r := response(t, res.ToolMessages[0])
			if !strings.Contains(r.Content, tt.wantContent) {
				t.Errorf("content %q, want it to contain %q", r.Content, tt.wantContent)
			}
			if !res.Calls[0].IsError || res.Calls[0].Err == nil {
				t.Errorf("report IsError=%v Err=%v, want an error answer", res.Calls[0].IsError, res.Calls[0].Err)
			}
		})
	}
}

func TestNewToolNodeRejectsBadConfig(t *testing.T) {
	weather, _ := countingWeather()
	tests := []struct {
		name  string
		tools []tools.Tool
		opts  []Option
	}{
		{"duplicate names", []tools.Tool{weather, weather}, nil},
		{"nil tool", []tools.Tool{nil}, nil},
		{"empty name", []tools.Tool{plainTool{}}, nil},
		{"schema that does not compile", []tools.Tool{ToolWithSchema(plainTool{name: "x"}, `{"type": 5}`)}, nil},
		{"schema that is not JSON", []tools.Tool{ToolWithSchema(plainTool{name: "x"}, `{`)}, nil},
		{"negative concurrency", []tools.Tool{weather}, []Option{WithMaxConcurrency(-1)}},
		{"zero argument cap", []tools.Tool{weather}, []Option{WithMaxArgumentBytes(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewToolNode(tt.tools, tt.opts...); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// Tool names follow OpenAI's and Anthropic's rule, ^[a-zA-Z0-9_-]{1,64}$:
// any other name is refused at construction, naming the rule, instead of
// by the provider at the first request.
func TestNewToolNodeEnforcesTheProviderToolNameRule(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"get_weather", true},
		{"Get-Weather_2", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"get weather", false},
		{"files/read", false},
		{"get\nweather", false},
		{"get\x00weather", false},
		{"github.create_issue", false}, // MCP allows dots; the providers do not
		{"wetter_für_stadt", false},
		{"get_weather ", false},
		{"tool:call", false},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.name), func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{plainTool{name: tt.name}}, WithLogger(sanDiscard))
			if tt.ok {
				if err != nil {
					t.Fatalf("NewToolNode(%q) = %v, want no error", tt.name, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("NewToolNode(%q) = %v, want ErrInvalidConfig", tt.name, err)
			}
			if msg := err.Error(); !strings.Contains(msg, "^[a-zA-Z0-9_-]{1,64}$") || strings.ContainsAny(msg, "\n\x00") {
				t.Errorf("error %q does not name the rule on one clean line", msg)
			}
		})
	}
}

// inflight tracks how many tool calls run at once.
type inflight struct {
	mu       sync.Mutex
	cur, max int
}

func (f *inflight) enter() {
	f.mu.Lock()
	f.cur++
	f.max = max(f.max, f.cur)
	f.mu.Unlock()
}

func (f *inflight) leave() {
	f.mu.Lock()
	f.cur--
	f.mu.Unlock()
}

func TestMaxConcurrency(t *testing.T) {
	const calls = 8
	for _, tt := range []struct {
		limit, want int
	}{{0, calls}, {1, 1}, {3, 3}} {
		var f inflight
		barrier := make(chan struct{})
		var arrived atomic.Int64
		tool := plainTool{name: "slow", fn: func(ctx context.Context, _ string) (string, error) {
			f.enter()
			defer f.leave()
			// Wait until as many calls as the limit allows are in flight,
			// so the maximum is reached deterministically.
			if arrived.Add(1) == int64(tt.want) {
				close(barrier)
			}
			<-barrier
			return "ok", nil
		}}
		n := mustNode(t, []tools.Tool{tool}, WithMaxConcurrency(tt.limit))
		var parts []llms.ContentPart
		for i := range calls {
			parts = append(parts, tc(string(rune('a'+i)), "slow", "x"))
		}
		res, err := n.Run(context.Background(), conversation(parts...))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ToolMessages) != calls {
			t.Fatalf("limit %d: got %d messages", tt.limit, len(res.ToolMessages))
		}
		if f.max != tt.want {
			t.Errorf("limit %d: at most %d calls ran at once, want %d", tt.limit, f.max, tt.want)
		}
	}
}

func TestCancellationReturnsPromptlyWithoutPartialResult(t *testing.T) {
	started := make(chan struct{})
	blocking := plainTool{name: "block", fn: func(ctx context.Context, _ string) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}}
	quick := plainTool{name: "quick", fn: func(context.Context, string) (string, error) { return "done", nil }}
	n := mustNode(t, []tools.Tool{blocking, quick}, WithHandleToolErrors(true))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	out, err := n.Invoke(ctx, conversation(tc("1", "quick", ""), tc("2", "block", "")))
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("got %d messages, err %v; want nil and context.Canceled", len(out), err)
	}
	if _, err := n.Run(ctx, conversation(tc("1", "quick", ""))); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a done ctx: err = %v", err)
	}
}

func TestToolsSeeTheirCall(t *testing.T) {
	var got CallInfo
	var ok bool
	tool := plainTool{name: "who", fn: func(ctx context.Context, _ string) (string, error) {
		got, ok = CallFromContext(ctx)
		return "", nil
	}}
	n := mustNode(t, []tools.Tool{tool})
	msgs := conversation(tc("id7", "who", "{}"))
	if _, err := n.Run(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	if !ok || got.ID != "id7" || got.Name != "who" || len(got.Messages) != len(msgs) {
		t.Errorf("CallFromContext = %+v, %v", got, ok)
	}
	if _, ok := CallFromContext(context.Background()); ok {
		t.Error("CallFromContext on a plain context reports ok")
	}
}

func TestDefinitions(t *testing.T) {
	weather, _ := countingWeather()
	n := mustNode(t, []tools.Tool{weather, plainTool{name: "echo"}})
	defs := n.Definitions()
	if len(defs) != 2 || defs[0].Type != "function" || defs[0].Function.Name != "get_weather" || defs[1].Function.Name != "echo" {
		t.Fatalf("definitions = %+v", defs)
	}
	p, ok := defs[0].Function.Parameters.(map[string]any)
	if !ok {
		t.Fatalf("parameters are %T, want map[string]any", defs[0].Function.Parameters)
	}
	if p["type"] != "object" || p["additionalProperties"] != false {
		t.Errorf("parameters = %v", p)
	}
	if req, _ := p["required"].([]any); len(req) != 1 || req[0] != "city" {
		t.Errorf("required = %v, want [city]", p["required"])
	}
	// Definitions returns fresh maps: changing one does not change the node.
	p["type"] = "changed"
	if n.Definitions()[0].Function.Parameters.(map[string]any)["type"] != "object" {
		t.Error("Definitions shares its maps with the node")
	}
	pp := defs[1].Function.Parameters.(map[string]any)
	if _, ok := pp["properties"].(map[string]any)["__arg1"]; !ok {
		t.Errorf("plain tool parameters = %v, want __arg1", pp)
	}
}

type treeNode struct {
	Name     string     `json:"name"`
	Children []treeNode `json:"children,omitempty"`
}

func TestNewToolReflectsSchema(t *testing.T) {
	tool := NewTool("tree", "", func(_ context.Context, a treeNode) (string, error) { return a.Name, nil })
	s, ok := tool.Schema().(map[string]any)
	if !ok {
		t.Fatalf("schema is %T", tool.Schema())
	}
	if _, has := s["$defs"]; !has {
		t.Errorf("recursive type schema has no $defs: %v", s)
	}
	n := mustNode(t, []tools.Tool{tool})
	res, err := n.Run(context.Background(), conversation(
		tc("1", "tree", `{"name":"root","children":[{"name":"leaf"}]}`),
		tc("2", "tree", `{"name":"root","children":[{"nam":"leaf"}]}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Output != "root" || res.Calls[1].Outcome != OutcomeFeedback {
		t.Errorf("calls = %+v", res.Calls)
	}
	flat, _ := countingWeather()
	fs := flat.Schema().(map[string]any)
	for _, k := range []string{"$ref", "$defs", "$schema", "$id"} {
		if _, has := fs[k]; has {
			t.Errorf("flat schema has %s: %v", k, fs)
		}
	}
}

func deepCopy(msgs []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, len(msgs))
	for i, m := range msgs {
		out[i] = llms.MessageContent{Role: m.Role, Parts: make([]llms.ContentPart, len(m.Parts))}
		for j, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok && c.FunctionCall != nil {
				fc := *c.FunctionCall
				c.FunctionCall = &fc
				p = c
			}
			out[i].Parts[j] = p
		}
	}
	return out
}

// In a concurrent run, the first tool error stops the others and is the
// error returned, whichever call (the one on the calling goroutine or one
// on its own goroutine) fails first.
func TestConcurrentRunReturnsTheFirstToolError(t *testing.T) {
	boom := errors.New("boom")
	blockUntilDone := func(ctx context.Context, _ string) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	fail := func(context.Context, string) (string, error) { return "", boom }
	for _, tt := range []struct {
		name         string
		first, other func(context.Context, string) (string, error)
		wantCallID   string
	}{
		{"the first call fails", fail, blockUntilDone, "c1"},
		{"another call fails", blockUntilDone, fail, "c2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNode(t, []tools.Tool{plainTool{name: "first", fn: tt.first}, plainTool{name: "other", fn: tt.other}})
			_, err := n.Run(context.Background(), conversation(tc("c1", "first", ""), tc("c2", "other", "")))
			var te *ToolError
			if !errors.As(err, &te) || !errors.Is(err, boom) || te.CallID != tt.wantCallID {
				t.Fatalf("err = %v, want the *ToolError of %s wrapping boom", err, tt.wantCallID)
			}
		})
	}
}

func TestNewToolDecodesStrictlyOutsideANode(t *testing.T) {
	weather, runs := countingWeather()
	// Called directly (by another executor), unknown fields are rejected.
	if _, err := weather.Call(context.Background(), `{"city":"Oslo","town":"Oslo"}`); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("direct Call with an unknown field: err = %v, want ErrInvalidArguments", err)
	}
	if _, err := weather.Call(context.Background(), `{"city":"Oslo"} {}`); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("direct Call with trailing data: err = %v, want ErrInvalidArguments", err)
	}
	// Through a node the schema rejects the unknown field before the tool runs.
	n := mustNode(t, []tools.Tool{weather})
	res, err := n.Run(context.Background(), conversation(tc("1", "get_weather", `{"city":"Oslo","town":"Oslo"}`), tc("2", "get_weather", `{"city":"Oslo","days":3}`)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback || res.Calls[1].Output != "Oslo: sunny for 3 days" || runs.Load() != 1 {
		t.Errorf("calls = %+v, tool ran %d times", res.Calls, runs.Load())
	}
}

// A run whose calls all finished stands, even when ctx is done by the time
// the last one returns: the tools ran and their answers are not thrown away.
// A tool that cancels the run's ctx and then returns races with Run's
// watch on ctx: Run either keeps the answer (every call finished: the run
// stands) or returns at once with the call reported running. Either way
// nothing that finished is lost: the run's answers, or its Partial's, hold
// every call that returned before Run did.
func TestFinishedRunStandsAfterCancellation(t *testing.T) {
	for _, limit := range []int{0, 1} {
		ctx, cancel := context.WithCancel(context.Background())
		var started sync.WaitGroup
		started.Add(2)
		returned := make(chan string, 2)
		finishing := plainTool{name: "finish", fn: func(_ context.Context, in string) (string, error) {
			if limit == 0 {
				started.Done()
				started.Wait() // both calls are running
			}
			if in == "last" {
				cancel() // the caller gives up while the tools complete their work
			}
			defer func() { returned <- in }()
			return "done " + in, nil
		}}
		n := mustNode(t, []tools.Tool{finishing}, WithMaxConcurrency(limit))
		res, err := n.Run(ctx, conversation(tc("a", "finish", "first"), tc("b", "finish", "last")))
		if err != nil {
			var ce *CanceledError
			if !errors.As(err, &ce) || ce.Partial == nil || !errors.Is(err, context.Canceled) {
				t.Fatalf("limit %d: err %v, want a *CanceledError with a partial result", limit, err)
			}
			res = ce.Partial
		}
		<-returned
		<-returned // both tools have returned by now
		for _, c := range res.Calls {
			switch c.Outcome {
			case OutcomeExecuted:
				if c.Output != "done "+c.RawArguments {
					t.Errorf("limit %d: call %s answered %q", limit, c.ID, c.Output)
				}
			case OutcomeRunning: // it returned after Run did
				if err == nil {
					t.Errorf("limit %d: call %s reported running in a run that stands", limit, c.ID)
				}
			default:
				t.Errorf("limit %d: call %s: outcome %s", limit, c.ID, c.Outcome)
			}
		}
		if err == nil && len(res.ToolMessages) != 2 {
			t.Errorf("limit %d: a run that stands answers %d calls, want 2", limit, len(res.ToolMessages))
		}
		cancel()
	}
}

func TestReportsMarshalAsJSON(t *testing.T) {
	echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) { return in, nil }}
	weather, _ := countingWeather()
	n := mustNode(t, []tools.Tool{echo, weather})
	res, err := n.Run(context.Background(), conversation(
		tc("1", "echo", "golang generics"), tc("2", "nope", "{oops"), tc("3", "echo", `{"__arg1":"x"}`), tc("4", "get_weather", `{"city":"Oslo"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(res.Calls); err != nil {
		t.Fatalf("json.Marshal(res.Calls): %v", err)
	}
	if res.Calls[0].Arguments != nil || res.Calls[1].Arguments != nil || string(res.Calls[3].Arguments) != `{"city":"Oslo"}` {
		t.Errorf("arguments = %q %q %q", res.Calls[0].Arguments, res.Calls[1].Arguments, res.Calls[3].Arguments)
	}
	if res.Calls[2].Output != "x" || string(res.Calls[2].Arguments) != `{"__arg1":"x"}` {
		t.Errorf("plain JSON call: output %q arguments %q", res.Calls[2].Output, res.Calls[2].Arguments)
	}
}

// A panic in the caller's error formatter stops the run with an error in
// every execution mode, instead of crashing a goroutine.
func TestPanickingFormatterStopsTheRun(t *testing.T) {
	failing := plainTool{name: "fail", fn: func(context.Context, string) (string, error) { return "", errors.New("boom") }}
	for _, limit := range []int{0, 1, 2} {
		n := mustNode(t, []tools.Tool{failing}, WithMaxConcurrency(limit),
			WithToolErrorFormatter(func(error) string { panic("formatter bug") }))
		_, err := n.Run(context.Background(), conversation(tc("a", "fail", ""), tc("b", "fail", ""), tc("c", "fail", "")))
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "formatter bug" {
			t.Errorf("limit %d: err = %v, want a *PanicError from the formatter", limit, err)
		}
	}
}

func TestPlainToolArg1WithLeadingSpace(t *testing.T) {
	if got := unwrapArg1(" \n{\"__arg1\":\"x\"}"); got != "x" {
		t.Errorf("unwrapArg1 = %q, want x", got)
	}
}

// Workers are started on demand: whatever mix of instant, yielding and
// sleeping calls a message holds, every call runs exactly once, its answer
// lands in call order, and no more calls than the bound run at once.
func TestPoolRunsEveryCallOnceWithinTheBound(t *testing.T) {
	const calls = 300
	for _, limit := range []int{0, 2, 5, 64} {
		var f inflight
		var ran [calls]atomic.Int32
		tool := plainTool{name: "mixed", fn: func(ctx context.Context, in string) (string, error) {
			f.enter()
			defer f.leave()
			i, err := strconv.Atoi(in)
			if err != nil {
				return "", err
			}
			ran[i].Add(1)
			switch i % 3 {
			case 1:
				runtime.Gosched()
			case 2:
				time.Sleep(time.Duration(i%7) * 50 * time.Microsecond)
			}
			return "r" + in, nil
		}}
		n := mustNode(t, []tools.Tool{tool}, WithMaxConcurrency(limit))
		var parts []llms.ContentPart
		for i := range calls {
			parts = append(parts, tc("c"+strconv.Itoa(i), "mixed", strconv.Itoa(i)))
		}
		res, err := n.Run(context.Background(), conversation(parts...))
		if err != nil {
			t.Fatal(err)
		}
		for i := range calls {
			if got := ran[i].Load(); got != 1 {
				t.Fatalf("limit %d: call %d ran %d times", limit, i, got)
			}
			if res.Calls[i].Output != "r"+strconv.Itoa(i) || res.ToolMessages[i].Parts[0].(llms.ToolCallResponse).ToolCallID != "c"+strconv.Itoa(i) {
				t.Fatalf("limit %d: answer %d out of order: %+v", limit, i, res.Calls[i])
			}
		}
		if limit > 0 && f.max > limit {
			t.Errorf("limit %d: %d calls ran at once", limit, f.max)
		}
	}
}

// Tests in this file cross stages: validators inside the correction cycle,
// hooks after a failed correction, events of flagged issues.

func TestValidatorsRerunDuringCorrectionWithAttemptNumbers(t *testing.T) {
	type seen struct {
		phase        Phase
		attempt, max int
		final        bool
		userID       string
	}
	var mu sync.Mutex
	var calls []seen
	// The validator rejects every user id but "u1".
	v := func(_ context.Context, args map[string]any, vc ValidatorContext) error {
		mu.Lock()
		calls = append(calls, seen{vc.Phase, vc.Attempt, vc.MaxAttempts, vc.IsFinal, fmt.Sprint(args["user_id"])})
		mu.Unlock()
		if args["user_id"] != "u1" {
			return &ValidationIssue{Path: "user_id", Message: "not the signed-in user"}
		}
		return nil
	}
	// The correction model first answers with the wrong user, then the right one.
	model := saidextest.NewModel(saidextest.Sequence(
		saidextest.ForcedToolCall(`{"order_id":"o1","user_id":"u2"}`),
		saidextest.ForcedToolCall(`{"order_id":"o1","user_id":"u1"}`),
	))
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", v),
		WithCorrectionModel(model), WithMaxCorrectionRetries(3))
	res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o1","user_id":"u9"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Calls[0]; got.Outcome != OutcomeCorrected || tool.calls.Load() != 1 || got.CorrectionRetries != 1 {
		t.Fatalf("outcome %s, tool ran %d times, retries %d; want corrected, 1, 1", got.Outcome, tool.calls.Load(), got.CorrectionRetries)
	}
	want := []seen{
		{PhaseInitial, 0, 0, false, "u9"},
		{PhaseCorrection, 1, 3, false, "u2"},
		{PhaseCorrection, 2, 3, false, "u1"},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("validator saw %+v, want %+v", calls, want)
	}
	// The retry prompt carries the validator's issue for the previous answer.
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Text(), "not the signed-in user") {
		t.Errorf("retry prompt lacks the validator issue: %d requests", len(reqs))
	}
}

func TestHookAfterFailedCorrectionSeesTheModelsArguments(t *testing.T) {
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"order_id":"o1","user_id":42}`)) // always wrong type
	var got UnresolvedToolCall
	hook := func(_ context.Context, c UnresolvedToolCall) (Resolution, error) {
		got = c
		return Resolution{}, nil
	}
	n := urNode(t, []tools.Tool{newURTool("get_orders")},
		WithCorrectionModel(model), WithMaxCorrectionRetries(2), WithUnresolvedHook(hook))
	res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o1","user_id":7}`)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback || !got.CorrectionAttempted {
		t.Fatalf("outcome %s, hook saw CorrectionAttempted=%v", res.Calls[0].Outcome, got.CorrectionAttempted)
	}
	if fmt.Sprint(got.Args["user_id"]) != "7" {
		t.Errorf("hook Args = %v, want the model's own arguments (user_id 7)", got.Args)
	}
	if model.CallCount() != 2 {
		t.Errorf("correction model called %d times, want 2 (the retry budget)", model.CallCount())
	}
}

func TestEventMarksFlaggedIssues(t *testing.T) {
	v := func(context.Context, map[string]any, ValidatorContext) error {
		return Flag(&ValidationIssue{Path: "order_id", Message: "unusually old order"})
	}
	n := urNode(t, []tools.Tool{newURTool("get_orders")}, WithValidator("get_orders", v))
	ctx, sink := CollectStats(context.Background())
	if _, err := n.Invoke(ctx, urConversation(urCall("c1", "get_orders", `{"order_id":"o1","user_id":"u1"}`))); err != nil {
		t.Fatal(err)
	}
	calls := allCalls(sink)
	if len(calls) != 1 || calls[0].Outcome != OutcomeExecuted {
		t.Fatalf("stats = %+v", calls)
	}
	if is := calls[0].Flagged; len(is) != 1 || !is[0].Flagged || is[0].Path != "/order_id" || len(calls[0].Issues) != 0 {
		t.Errorf("Issues = %+v, Flagged = %+v; want one flagged issue at /order_id and no other", calls[0].Issues, is)
	}
}

func TestEventCarriesPerCallStageDurations(t *testing.T) {
	const pause = time.Millisecond
	slowTool := NewTool("get_orders", "", func(context.Context, urOrderArgs) (string, error) {
		time.Sleep(pause)
		return "ok", nil
	})
	model := saidextest.NewModel(saidextest.Delay(pause, saidextest.ForcedToolCall(`{"order_id":"o2","user_id":"u1"}`)))
	n := urNode(t, []tools.Tool{slowTool}, WithCorrectionModel(model))
	ctx, sink := CollectStats(context.Background())
	if _, err := n.Invoke(ctx, urConversation(
		urCall("c1", "get_orders", `{"order_id":"o1","user_id":"u1"}`),
		urCall("c2", "get_orders", `{"order_id":5,"user_id":"u1"}`),
	)); err != nil {
		t.Fatal(err)
	}
	calls := allCalls(sink)
	if len(calls) != 2 || calls[1].Outcome != OutcomeCorrected {
		t.Fatalf("stats = %+v", calls)
	}
	if d := calls[0].Durations; d.Execute < pause || d.Correct != 0 {
		t.Errorf("executed call durations %+v: want Execute >= %v and no Correct", d, pause)
	}
	if d := calls[1].Durations; d.Execute < pause || d.Correct < pause {
		t.Errorf("corrected call durations %+v: want Execute and Correct >= %v", d, pause)
	}
}

// invariantHarness is a node whose tools record which call ids ran.
type invariantHarness struct {
	node *ToolNode
	mu   sync.Mutex
	ran  map[string]int // "id|args" -> runs
}

func newInvariantHarness(t testing.TB) *invariantHarness {
	h := &invariantHarness{ran: map[string]int{}}
	record := func(ctx context.Context, in string) {
		info, _ := CallFromContext(ctx)
		h.mu.Lock()
		h.ran[info.ID]++
		h.mu.Unlock()
	}
	weather := NewTool("get_weather", "", func(ctx context.Context, a weatherArgs) (string, error) {
		record(ctx, a.City)
		switch a.City {
		case "error":
			return "", errors.New("tool failed")
		case "panic":
			panic("tool panicked")
		}
		return "ok " + a.City, nil
	})
	echo := plainTool{name: "echo", fn: func(ctx context.Context, in string) (string, error) {
		record(ctx, in)
		return in, nil
	}}
	// A correction model whose answers cycle through a valid correction, an
	// invalid one, a provider error and unparseable text.
	var turn atomic.Int64
	corrector := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		switch turn.Add(1) % 4 {
		case 0:
			return saidextest.ToolCallResponse(saidextest.Call("call", req.ToolChoiceName(), `{"city":"Fixed"}`)), nil
		case 1:
			return saidextest.ToolCallResponse(saidextest.Call("call", req.ToolChoiceName(), `{"city":5}`)), nil
		case 2:
			return nil, errors.New("HTTP 429: rate limited")
		default:
			return saidextest.TextResponse("I cannot help with that."), nil
		}
	})
	h.node = mustNode(t, []tools.Tool{weather, echo}, WithHandleToolErrors(true),
		WithCorrectionModel(corrector), WithLogger(slog.New(slog.DiscardHandler)))
	return h
}

// callKinds are the argument shapes the invariant tests mix.
var callKinds = []struct {
	name, args string
	valid      bool // the tool must run exactly once
}{
	{"get_weather", `{"city":"Paris"}`, true},
	{"get_weather", `{"city":"error"}`, true},
	{"get_weather", `{"city":"panic"}`, true},
	{"get_weather", `{"city":"Rome","days":3}`, true},
	{"get_weather", `{"city": "Rome",}`, true}, // repairable
	{"get_weather", `{"days":3}`, false},       // missing city
	{"get_weather", `{"city":"Oslo","unit":"kelvin"}`, false},
	{"get_weather", `<<<garbage>>>`, false},
	{"get_weather", ``, false},
	{"echo", `anything`, true},
	{"teleport", `{}`, false}, // unknown: the executor answers, no tool runs
	{"", `{}`, false},         // unknown, empty name
}

type genCall struct {
	part    llms.ContentPart
	id      string
	mustRun bool
}

// checkInvariant runs the node on calls and checks that every call whose
// id is not a repeat gets exactly one tool message, in order, and that
// every valid call ran exactly once.
//
// With cut, the run's reply was cut by the output limit: no call may run,
// and every answered call has outcome output_limit.
func (h *invariantHarness) checkInvariant(t testing.TB, calls []genCall, cut bool) *Result {
	t.Helper()
	h.mu.Lock()
	clear(h.ran)
	h.mu.Unlock()
	parts := make([]llms.ContentPart, len(calls))
	for i, c := range calls {
		parts[i] = c.part
	}
	var opts []RunOption
	if cut {
		opts = append(opts, WithFinishReason("length"))
	}
	res, err := h.node.Run(context.Background(), conversation(parts...), opts...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Calls) != len(calls) {
		t.Fatalf("%d reports for %d calls", len(res.Calls), len(calls))
	}
	seen := map[string]bool{}
	var wantIDs []string
	execs := map[string]int{}
	ranOnce := map[string]bool{} // corrected calls must have run exactly once
	for i, c := range calls {
		dup := c.id != "" && seen[c.id]
		seen[c.id] = true
		if dup != (res.Calls[i].Outcome == OutcomeDropped) {
			t.Fatalf("call %d (id %q, repeat %v) has outcome %s", i, c.id, dup, res.Calls[i].Outcome)
		}
		if dup {
			continue
		}
		wantIDs = append(wantIDs, c.id)
		if cut {
			if res.Calls[i].Outcome != OutcomeOutputLimit {
				t.Fatalf("call %d of a cut reply has outcome %s", i, res.Calls[i].Outcome)
			}
			continue
		}
		if c.mustRun {
			execs[c.id]++
		}
		if res.Calls[i].Outcome == OutcomeCorrected {
			ranOnce[c.id] = true
		}
	}
	if len(res.ToolMessages) != len(wantIDs) {
		t.Fatalf("%d tool messages for %d answerable calls", len(res.ToolMessages), len(wantIDs))
	}
	for i, m := range res.ToolMessages {
		if r := response(t, m); r.ToolCallID != wantIDs[i] {
			t.Fatalf("message %d answers %q, want %q", i, r.ToolCallID, wantIDs[i])
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, n := range execs {
		if id != "" && h.ran[id] != n {
			t.Fatalf("call %q ran %d times, want %d", id, h.ran[id], n)
		}
	}
	for id := range ranOnce {
		if id != "" && h.ran[id] != 1 {
			t.Fatalf("corrected call %q ran %d times, want 1", id, h.ran[id])
		}
	}
	if cut && len(h.ran) > 0 {
		t.Fatalf("calls of a cut reply ran: %v", h.ran)
	}
	for id, n := range h.ran {
		if id != "" && n > 1 {
			t.Fatalf("call %q ran %d times", id, n)
		}
	}
	return res
}

func randomCalls(r *rand.Rand) []genCall {
	n := r.IntN(12)
	calls := make([]genCall, n)
	for i := range calls {
		k := callKinds[r.IntN(len(callKinds))]
		id := fmt.Sprintf("call_%d", i)
		switch r.IntN(6) {
		case 0:
			id = "" // Gemini style
		case 1:
			if i > 0 {
				id = fmt.Sprintf("call_%d", r.IntN(i)) // maybe a repeat
			}
		}
		var part llms.ContentPart = tc(id, k.name, k.args)
		if r.IntN(20) == 0 {
			part, k.valid = llms.ToolCall{ID: id}, false // nil FunctionCall
		}
		calls[i] = genCall{part: part, id: id, mustRun: k.valid}
	}
	return calls
}

func TestInvariantEveryCallAnsweredOnce(t *testing.T) {
	h := newInvariantHarness(t)
	iterations := 10000
	if testing.Short() {
		iterations = 500
	}
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[Outcome]int{}
	for range iterations {
		for _, c := range h.checkInvariant(t, randomCalls(r), r.IntN(10) == 0).Calls {
			seen[c.Outcome]++
		}
	}
	// The mix must exercise every outcome the harness can produce.
	for _, o := range []Outcome{OutcomeExecuted, OutcomeCorrected, OutcomeFeedback, OutcomeDropped, OutcomeOutputLimit} {
		if seen[o] == 0 {
			t.Errorf("no call had outcome %s: %v", o, seen)
		}
	}
}

func FuzzToolNodeInvariant(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, `{"city":"x"`)
	f.Add([]byte{5, 5, 9, 200, 17}, `<think>{"city":"a"}</think>{"city":"b"}`)
	f.Add([]byte{0xff, 1, 2, 0x85}, `{"city": "Paris", "unit": "celsius"`)
	h := newInvariantHarness(f)
	f.Fuzz(func(t *testing.T, plan []byte, args string) {
		if len(plan) > 64 {
			plan = plan[:64]
		}
		var calls []genCall
		for i, b := range plan {
			id := fmt.Sprintf("id%d", b%8) // repeats are common
			if b%7 == 0 {
				id = ""
			}
			k := callKinds[int(b)%len(callKinds)]
			name, a, valid := k.name, k.args, k.valid
			if b&0x80 != 0 {
				// Fuzzed arguments: whether they run depends on repair and validation.
				a, valid = args, false
				if i%2 == 1 {
					name = "echo"
					valid = true
				}
			}
			calls = append(calls, genCall{part: tc(id, name, a), id: id, mustRun: valid && !strings.Contains(a, "\x00")})
		}
		h.checkInvariant(t, calls, len(plan) > 0 && plan[0] == 0xff) // a first byte of 255: the reply was cut
	})
}
