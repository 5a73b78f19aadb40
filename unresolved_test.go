package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Helpers of the unresolved and validator tests carry the prefix "ur" so
// they do not collide with other test files of the package.

type urOrderArgs struct {
	OrderID string `json:"order_id"`
	UserID  string `json:"user_id"`
}

type urState struct{ UserID string }

// urOrdersTool is a NewTool tool that counts its calls and records the
// arguments and state it ran with.
type urOrdersTool struct {
	Tool
	calls atomic.Int32
	mu    sync.Mutex
	args  []urOrderArgs
	state []any
}

func newURTool(name string) *urOrdersTool {
	t := &urOrdersTool{}
	t.Tool = NewTool(name, "Lists the orders of a user.", func(ctx context.Context, a urOrderArgs) (string, error) {
		t.calls.Add(1)
		t.mu.Lock()
		t.args = append(t.args, a)
		t.state = append(t.state, StateFromContext(ctx))
		t.mu.Unlock()
		return "orders of " + a.UserID + " from " + a.OrderID, nil
	})
	return t
}

func urCall(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func urConversation(calls ...llms.ToolCall) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, c := range calls {
		ai.Parts = append(ai.Parts, c)
	}
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "show my orders"), ai}
}

func urNode(t *testing.T, ts []tools.Tool, opts ...Option) *ToolNode {
	t.Helper()
	n, err := NewToolNode(ts, opts...)
	if err != nil {
		t.Fatalf("NewToolNode: %v", err)
	}
	return n
}

// urLogs is a slog.Handler that keeps the records it handles.
type urLogs struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *urLogs) Enabled(context.Context, slog.Level) bool { return true }
func (h *urLogs) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *urLogs) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *urLogs) WithGroup(string) slog.Handler      { return h }

func (h *urLogs) attrs(i int) map[string]string {
	m := map[string]string{}
	h.records[i].Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

// urDefaultFeedback is the tool message a node without hook sends for a
// lone call: the reference the hook tests compare against.
func urDefaultFeedback(t *testing.T, tc llms.ToolCall) string {
	t.Helper()
	n := urNode(t, []tools.Tool{newURTool(tc.FunctionCall.Name)})
	res, err := n.Run(context.Background(), urConversation(tc))
	if err != nil {
		t.Fatalf("Run without hook: %v", err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback {
		t.Fatalf("reference call outcome = %s, want feedback", res.Calls[0].Outcome)
	}
	return res.Calls[0].Output
}

func TestUnresolvedHookSalvageExecutesWithValidatedArguments(t *testing.T) {
	tool := newURTool("get_orders")
	var got UnresolvedToolCall
	var hookCalls atomic.Int32
	hook := func(ctx context.Context, call UnresolvedToolCall) (Resolution, error) {
		hookCalls.Add(1)
		got = call
		st := call.State.(urState)
		args := call.Args
		args["user_id"] = st.UserID
		return Salvage(args), nil
	}
	n := urNode(t, []tools.Tool{tool}, WithUnresolvedHook(hook))
	raw := `{"order_id": "u7-<1>"}`
	msgs := urConversation(urCall("call_1", "get_orders", raw))
	res, err := n.Run(ContextWithState(context.Background(), urState{UserID: "u7"}), msgs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if hookCalls.Load() != 1 {
		t.Fatalf("hook called %d times, want 1", hookCalls.Load())
	}
	if got.ToolName != "get_orders" || got.CallID != "call_1" || got.RawArguments != raw ||
		len(got.Issues) == 0 || got.Error == "" || got.CorrectionAttempted || len(got.Messages) != 2 {
		t.Errorf("hook received %+v", got)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeSalvaged || rep.IsError {
		t.Fatalf("outcome = %s (isError %v), want salvaged", rep.Outcome, rep.IsError)
	}
	if want := `{"order_id":"u7-<1>","user_id":"u7"}`; string(rep.Arguments) != want {
		t.Errorf("Arguments = %s, want canonical %s", rep.Arguments, want)
	}
	if tool.calls.Load() != 1 || tool.args[0] != (urOrderArgs{OrderID: "u7-<1>", UserID: "u7"}) {
		t.Fatalf("tool ran %d times with %+v", tool.calls.Load(), tool.args)
	}
	if rep.Output != "orders of u7 from u7-<1>" {
		t.Errorf("Output = %q", rep.Output)
	}
	if len(rep.Issues) == 0 {
		t.Errorf("the issues that made the call unresolved are not reported")
	}
}

func TestUnresolvedCallArgsAreACopy(t *testing.T) {
	value := map[string]any{"order_id": "o1", "items": []any{map[string]any{"sku": "x"}}}
	c := &call{name: "get_orders", id: "c1", value: value}
	uc := unresolvedCall(&run{}, c)
	uc.Args["order_id"] = "changed"
	uc.Args["items"].([]any)[0].(map[string]any)["sku"] = "changed"
	if value["order_id"] != "o1" || value["items"].([]any)[0].(map[string]any)["sku"] != "x" {
		t.Errorf("changing UnresolvedToolCall.Args changed the call's arguments: %v", value)
	}
	c.value = []any{"not an object"}
	if uc := unresolvedCall(&run{}, c); uc.Args != nil {
		t.Errorf("Args = %v for a non-object value, want nil", uc.Args)
	}
}

func TestUnresolvedHookSalvageStillInvalidGetsDefaultFeedbackAndWarning(t *testing.T) {
	tc := urCall("call_9", "get_orders", `{"order_id": "secret-order-42"}`)
	want := urDefaultFeedback(t, tc)

	for _, tt := range []struct {
		name string
		args map[string]any
		opts []Option
	}{
		{name: "schema rejects", args: map[string]any{"order_id": "secret-order-42", "user_id": 7}},
		{name: "not JSON", args: map[string]any{"order_id": "secret-order-42", "user_id": make(chan int)}},
		{name: "validator rejects in salvage phase", args: map[string]any{"order_id": "secret-order-42", "user_id": "u1"},
			opts: []Option{WithValidator("get_orders", func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
				if vc.Phase == PhaseSalvage {
					return &ValidationIssue{Path: "user_id", Message: "not the signed-in user"}
				}
				return nil
			})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &urLogs{}
			tool := newURTool("get_orders")
			hook := func(ctx context.Context, call UnresolvedToolCall) (Resolution, error) {
				return Salvage(tt.args), nil
			}
			opts := append([]Option{WithUnresolvedHook(hook), WithLogger(slog.New(logs))}, tt.opts...)
			n := urNode(t, []tools.Tool{tool}, opts...)
			res, err := n.Run(context.Background(), urConversation(tc))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			rep := res.Calls[0]
			if rep.Outcome != OutcomeFeedback || !rep.IsError || rep.Output != want {
				t.Errorf("got outcome %s isError %v output %q, want the default feedback %q", rep.Outcome, rep.IsError, rep.Output, want)
			}
			if rep.Arguments != nil || tool.calls.Load() != 0 {
				t.Errorf("the call ran (%d tool calls, Arguments %s)", tool.calls.Load(), rep.Arguments)
			}
			if len(logs.records) != 1 || logs.records[0].Level != slog.LevelWarn {
				t.Fatalf("got %d log records, want one warning", len(logs.records))
			}
			a := logs.attrs(0)
			if a["tool"] != "get_orders" || a["call_id"] != "call_9" || a["outcome"] != string(OutcomeFeedback) {
				t.Errorf("warning attributes = %v", a)
			}
			all := logs.records[0].Message + fmt.Sprint(a)
			if strings.Contains(all, "secret-order") || strings.Contains(all, "u1") {
				t.Errorf("the warning leaks argument values: %s", all)
			}
		})
	}
}

func TestUnresolvedHookResolutions(t *testing.T) {
	tc := urCall("c1", "get_orders", `{"order_id":"o1"}`)
	def := urDefaultFeedback(t, tc)
	for _, tt := range []struct {
		name string
		res  Resolution
		want string
	}{
		{name: "custom text", res: FeedbackText("Ask the user for their id first."), want: "Ask the user for their id first."},
		{name: "zero value is the default feedback", res: Resolution{}, want: def},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, WithUnresolvedHook(func(context.Context, UnresolvedToolCall) (Resolution, error) {
				return tt.res, nil
			}))
			res, err := n.Run(context.Background(), urConversation(tc))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if rep.Output != tt.want || !rep.IsError || rep.Outcome != OutcomeFeedback || tool.calls.Load() != 0 {
				t.Errorf("got %q isError %v outcome %s (%d tool calls), want %q", rep.Output, rep.IsError, rep.Outcome, tool.calls.Load(), tt.want)
			}
			tr := res.ToolMessages[0].Parts[0].(llms.ToolCallResponse)
			if tr.ToolCallID != "c1" || tr.Content != tt.want {
				t.Errorf("tool message = %+v", tr)
			}
		})
	}
}

func TestUnresolvedHookErrorStopsTheRunBeforeAnythingExecutes(t *testing.T) {
	errNoDB := errors.New("user database unreachable")
	for _, tt := range []struct {
		name  string
		hook  UnresolvedHook
		check func(t *testing.T, err error)
	}{
		{name: "error", hook: func(context.Context, UnresolvedToolCall) (Resolution, error) { return Resolution{}, errNoDB },
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errNoDB) {
					t.Errorf("err = %v, want one wrapping the hook's error", err)
				}
			}},
		{name: "panic", hook: func(context.Context, UnresolvedToolCall) (Resolution, error) { panic("hook bug") },
			check: func(t *testing.T, err error) {
				var pe *PanicError
				if !errors.As(err, &pe) || pe.Value != "hook bug" {
					t.Errorf("err = %v, want a *PanicError", err)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, WithUnresolvedHook(tt.hook))
			msgs := urConversation(
				urCall("ok", "get_orders", `{"order_id":"o1","user_id":"u1"}`),
				urCall("bad", "get_orders", `{"order_id":"o2"}`),
			)
			res, err := n.Run(context.Background(), msgs)
			if err == nil || res != nil {
				t.Fatalf("Run = %v, %v; want an error and no result", res, err)
			}
			tt.check(t, err)
			if tool.calls.Load() != 0 {
				t.Errorf("%d calls executed", tool.calls.Load())
			}
		})
	}
}

func TestUnresolvedHookIsCalledOncePerUnresolvedCall(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	hook := func(ctx context.Context, call UnresolvedToolCall) (Resolution, error) {
		mu.Lock()
		seen[call.CallID]++
		mu.Unlock()
		return FeedbackText("fix " + call.CallID), nil
	}
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithUnresolvedHook(hook), WithMaxConcurrency(2))
	var calls []llms.ToolCall
	for i := range 6 {
		calls = append(calls, urCall(fmt.Sprintf("c%d", i), "get_orders", `{"order_id":"o"}`))
	}
	calls = append(calls, urCall("valid", "get_orders", `{"order_id":"o","user_id":"u"}`))
	res, err := n.Run(context.Background(), urConversation(calls...))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 6 {
		t.Fatalf("hook saw %v, want the 6 invalid calls", seen)
	}
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		if seen[id] != 1 || res.Calls[i].Output != "fix "+id {
			t.Errorf("call %s: hook called %d times, output %q", id, seen[id], res.Calls[i].Output)
		}
	}
	if tool.calls.Load() != 1 || res.Calls[6].Outcome != OutcomeExecuted {
		t.Errorf("the valid sibling did not execute once")
	}
}

func TestOnUnresolvedRaise(t *testing.T) {
	valid := `{"order_id":"o1","user_id":"u1"}`
	for _, tt := range []struct {
		name      string
		calls     []llms.ToolCall
		wantIDs   []string
		wantCount int
	}{
		{name: "lists the invalid calls with an id", calls: []llms.ToolCall{
			urCall("a", "get_orders", valid),
			urCall("b", "get_orders", `{"order_id":"o2"}`),
			urCall("c", "get_orders", `{"order_id": `),
		}, wantIDs: []string{"b", "c"}, wantCount: 2},
		{name: "a call without an id counts but is not listed", calls: []llms.ToolCall{
			urCall("", "get_orders", `{"order_id":"o2"}`),
			urCall("b", "get_orders", `{"user_id":"u"}`),
			urCall("a", "get_orders", valid),
		}, wantIDs: []string{"b"}, wantCount: 2},
		// A repeated id alone raises, though both calls are valid:
		// nothing executes.
		{name: "a dropped call with a repeated id counts but is not listed", calls: []llms.ToolCall{
			urCall("a", "get_orders", valid),
			urCall("a", "get_orders", valid),
		}, wantIDs: nil, wantCount: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, WithOnUnresolved(UnresolvedRaise), WithLogger(slog.New(&urLogs{})))
			res, err := n.Invoke(context.Background(), urConversation(tt.calls...))
			var ve *ToolCallValidationError
			if !errors.As(err, &ve) || res != nil {
				t.Fatalf("Invoke = %v, %v; want a *ToolCallValidationError", res, err)
			}
			var ids []string
			for _, c := range ve.Calls {
				ids = append(ids, c.CallID)
				if c.ToolName != "get_orders" || c.Error == "" {
					t.Errorf("listed call %+v lacks its name or error", c)
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.wantIDs) || ve.Count != tt.wantCount {
				t.Errorf("Calls ids = %v, Count = %d; want %v, %d", ids, ve.Count, tt.wantIDs, tt.wantCount)
			}
			if tool.calls.Load() != 0 {
				t.Errorf("%d calls executed before the error", tool.calls.Load())
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%d tool call", tt.wantCount)) {
				t.Errorf("Error() = %q", err)
			}
		})
	}
}

func TestOnUnresolvedRaiseLetsValidCallsRun(t *testing.T) {
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithOnUnresolved(UnresolvedRaise))
	res, err := n.Run(context.Background(), urConversation(urCall("a", "get_orders", `{"order_id":"o1","user_id":"u1"}`)))
	if err != nil || res.Calls[0].Outcome != OutcomeExecuted || tool.calls.Load() != 1 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}

func TestOnUnresolvedConfigErrors(t *testing.T) {
	hook := func(context.Context, UnresolvedToolCall) (Resolution, error) { return Resolution{}, nil }
	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{name: "unknown policy", opts: []Option{WithOnUnresolved(UnresolvedPolicy(7))}},
		{name: "raise with a hook", opts: []Option{WithOnUnresolved(UnresolvedRaise), WithUnresolvedHook(hook)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{newURTool("get_orders")}, tt.opts...)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestStateReachesToolsThroughTheContext(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(n *ToolNode, msgs []llms.MessageContent) error
		want any
	}{
		{name: "ContextWithState with Run", want: urState{UserID: "u1"}, run: func(n *ToolNode, msgs []llms.MessageContent) error {
			_, err := n.Run(ContextWithState(context.Background(), urState{UserID: "u1"}), msgs)
			return err
		}},
		{name: "ContextWithState with Invoke", want: urState{UserID: "u2"}, run: func(n *ToolNode, msgs []llms.MessageContent) error {
			_, err := n.Invoke(ContextWithState(context.Background(), urState{UserID: "u2"}), msgs)
			return err
		}},
		{name: "the innermost ContextWithState", want: urState{UserID: "u3"}, run: func(n *ToolNode, msgs []llms.MessageContent) error {
			_, err := n.Run(ContextWithState(ContextWithState(context.Background(), urState{UserID: "u2"}), urState{UserID: "u3"}), msgs)
			return err
		}},
		{name: "no state", want: nil, run: func(n *ToolNode, msgs []llms.MessageContent) error {
			_, err := n.Run(context.Background(), msgs)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool})
			if err := tt.run(n, urConversation(urCall("a", "get_orders", `{"order_id":"o1","user_id":"u1"}`))); err != nil {
				t.Fatal(err)
			}
			if len(tool.state) != 1 || tool.state[0] != tt.want {
				t.Errorf("tool saw state %v, want %v", tool.state, tt.want)
			}
		})
	}
}

func TestCanonicalArgsKeepsHTMLCharacters(t *testing.T) {
	text, value, err := canonicalArgs(map[string]any{"q": "a<b & c>d", "n": json.Number("1.50")})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":1.50,"q":"a<b & c>d"}`; text != want {
		t.Errorf("text = %s, want %s", text, want)
	}
	if m := value.(map[string]any); m["n"] != json.Number("1.50") {
		t.Errorf("value = %#v", value)
	}
}
