package saidex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// urOrderBelongsToUser rejects an order id that does not start with the
// user id of the run's state; it reads the state from vc and checks that
// StateFromContext agrees.
func urOrderBelongsToUser(ctx context.Context, args map[string]any, vc ValidatorContext) error {
	st, ok := vc.State.(urState)
	if !ok {
		return errors.New("no signed-in user")
	}
	if StateFromContext(ctx) != vc.State {
		return errors.New("StateFromContext disagrees with ValidatorContext.State")
	}
	if id, _ := args["order_id"].(string); !strings.HasPrefix(id, st.UserID+"-") {
		return &ValidationIssue{Path: "order_id", Message: "the order does not belong to the user"}
	}
	return nil
}

func TestValidatorWithStateOrderBelongsToUser(t *testing.T) {
	for _, tt := range []struct {
		name     string
		orderID  string
		wantRun  bool
		wantPath string
	}{
		{name: "own order", orderID: "u1-17", wantRun: true},
		{name: "foreign order", orderID: "u2-17", wantPath: "/order_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("cancel_order")
			n := urNode(t, []tools.Tool{tool}, WithValidator("cancel_order", urOrderBelongsToUser))
			msgs := urConversation(urCall("c1", "cancel_order", fmt.Sprintf(`{"order_id":%q,"user_id":"u1"}`, tt.orderID)))
			ctx := ContextWithState(context.Background(), urState{UserID: "u1"})
			res, err := n.Run(ctx, msgs)
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if ran := tool.calls.Load() == 1; ran != tt.wantRun {
				t.Fatalf("tool ran: %v, want %v (outcome %s, issues %+v)", ran, tt.wantRun, rep.Outcome, rep.Issues)
			}
			if tt.wantRun {
				if rep.Outcome != OutcomeExecuted || len(rep.Issues) != 0 {
					t.Errorf("outcome %s issues %+v", rep.Outcome, rep.Issues)
				}
				return
			}
			want := []Issue{{Path: tt.wantPath, Kind: IssueValidator, Message: "the order does not belong to the user"}}
			if rep.Outcome != OutcomeFeedback || !rep.IsError || fmt.Sprint(rep.Issues) != fmt.Sprint(want) {
				t.Errorf("outcome %s issues %+v, want feedback with %+v", rep.Outcome, rep.Issues, want)
			}
			if !strings.Contains(rep.Output, "the order does not belong to the user") {
				t.Errorf("the feedback does not carry the validator's message: %q", rep.Output)
			}
		})
	}
}

func TestValidatorErrorsBecomeIssues(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want []Issue // nil: accepted
	}{
		{name: "nil accepts", err: nil},
		{name: "empty ValidationIssues accepts", err: ValidationIssues(nil)},
		{name: "nil *ValidationIssue accepts", err: (*ValidationIssue)(nil)},
		{name: "plain error is one root issue", err: errors.New("orders are frozen today"),
			want: []Issue{{Kind: IssueValidator, Message: "orders are frozen today"}}},
		{name: "JSON Pointer path kept", err: &ValidationIssue{Path: "/items/0/sku", Message: "unknown sku"},
			want: []Issue{{Path: "/items/0/sku", Kind: IssueValidator, Message: "unknown sku"}}},
		{name: "member name escaped", err: &ValidationIssue{Path: "a/b~c", Message: "bad"},
			want: []Issue{{Path: "/a~1b~0c", Kind: IssueValidator, Message: "bad"}}},
		{name: "several issues", err: ValidationIssues{{Path: "order_id", Message: "m1"}, {Path: "user_id", Message: "m2"}},
			want: []Issue{{Path: "/order_id", Kind: IssueValidator, Message: "m1"}, {Path: "/user_id", Kind: IssueValidator, Message: "m2"}}},
		{name: "wrapped issue", err: fmt.Errorf("check: %w", &ValidationIssue{Path: "user_id", Message: "m"}),
			want: []Issue{{Path: "/user_id", Kind: IssueValidator, Message: "m"}}},
		{name: "joined issues", err: errors.Join(&ValidationIssue{Path: "order_id", Message: "m1"}, errors.New("m2")),
			want: []Issue{{Path: "/order_id", Kind: IssueValidator, Message: "m1"}, {Kind: IssueValidator, Message: "m2"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", func(context.Context, map[string]any, ValidatorContext) error {
				return tt.err
			}))
			res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if tt.want == nil {
				if rep.Outcome != OutcomeExecuted || tool.calls.Load() != 1 {
					t.Errorf("outcome %s, issues %+v; want the call accepted", rep.Outcome, rep.Issues)
				}
				return
			}
			if rep.Outcome != OutcomeFeedback || tool.calls.Load() != 0 || fmt.Sprint(rep.Issues) != fmt.Sprint(tt.want) {
				t.Errorf("outcome %s, issues %+v; want feedback with %+v", rep.Outcome, rep.Issues, tt.want)
			}
		})
	}
}

func TestValidatorFlagRecordsWithoutRejecting(t *testing.T) {
	large := func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
		return &ValidationIssue{Path: "order_id", Message: "unusually old order"}
	}
	for _, tt := range []struct {
		name string
		opt  Option
	}{
		{name: "Flag", opt: WithValidator("get_orders", func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
			return Flag(large(ctx, args, vc))
		})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, tt.opt)
			res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if rep.Outcome != OutcomeExecuted || tool.calls.Load() != 1 || len(rep.Issues) != 0 {
				t.Fatalf("outcome %s issues %+v: a flagged issue rejected the call", rep.Outcome, rep.Issues)
			}
			want := []Issue{{Path: "/order_id", Kind: IssueValidator, Message: "unusually old order", Flagged: true}}
			if fmt.Sprint(rep.Flagged) != fmt.Sprint(want) {
				t.Errorf("Flagged = %+v, want %+v", rep.Flagged, want)
			}
		})
	}
	if Flag(nil) != nil {
		t.Error("Flag(nil) != nil")
	}
}

// Each part of a joined or wrapped validator error counts on its own: a
// flagged part never hides a rejecting one, which rejects the call while
// the flagged parts are recorded beside it.
func TestValidatorFlagInsideJoinedOrWrappedErrors(t *testing.T) {
	note := errors.New("note")
	city := &ValidationIssue{Path: "/city", Message: "not allowed"}
	plain := errors.New("orders are frozen")
	noteIssue := Issue{Kind: IssueValidator, Message: "note", Flagged: true}
	cityIssue := Issue{Path: "/city", Kind: IssueValidator, Message: "not allowed"}
	cityFlagged := cityIssue
	cityFlagged.Flagged = true
	plainIssue := Issue{Kind: IssueValidator, Message: "orders are frozen"}
	for _, tt := range []struct {
		name        string
		err         error
		wantReject  []Issue // nil: the call executes
		wantFlagged []Issue
	}{
		{"join flag then issue", errors.Join(Flag(note), city), []Issue{cityIssue}, []Issue{noteIssue}},
		{"join issue then flag", errors.Join(city, Flag(note)), []Issue{cityIssue}, []Issue{noteIssue}},
		{"join flag then plain", errors.Join(Flag(note), plain), []Issue{plainIssue}, []Issue{noteIssue}},
		{"join plain then flag", errors.Join(plain, Flag(note)), []Issue{plainIssue}, []Issue{noteIssue}},
		{"two %w, flag first", fmt.Errorf("%w; %w", Flag(note), city), []Issue{cityIssue}, []Issue{noteIssue}},
		{"two %w, issue first", fmt.Errorf("%w; %w", city, Flag(note)), []Issue{cityIssue}, []Issue{noteIssue}},
		{"wrapped join", fmt.Errorf("checking: %w", errors.Join(Flag(note), city)), []Issue{cityIssue}, []Issue{noteIssue}},
		{"join of wrapped parts", errors.Join(fmt.Errorf("a: %w", Flag(note)), fmt.Errorf("b: %w", city)), []Issue{cityIssue}, []Issue{noteIssue}},
		{"nested joins", errors.Join(errors.Join(Flag(note), errors.Join(city)), ValidationIssues{}), []Issue{cityIssue}, []Issue{noteIssue}},
		{"join of flags only", errors.Join(Flag(note), Flag(city)), nil, []Issue{noteIssue, cityFlagged}},
		{"flagged join", Flag(errors.Join(note, city)), nil, []Issue{noteIssue, cityFlagged}},
		{"flagged wrapped issue", Flag(fmt.Errorf("w: %w", city)), nil, []Issue{cityFlagged}},
		{"wrapped flag", fmt.Errorf("w: %w", Flag(note)), nil, []Issue{noteIssue}},
		{"flag and an empty ValidationIssues", errors.Join(Flag(note), ValidationIssues{}), nil, []Issue{noteIssue}},
		{"flag and a nil issue", errors.Join(Flag(note), (*ValidationIssue)(nil)), nil, []Issue{noteIssue}},
		{"issue alone", city, []Issue{cityIssue}, nil},
		{"join without flags", errors.Join(plain, city), []Issue{plainIssue, cityIssue}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := newURTool("get_orders")
			n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", func(context.Context, map[string]any, ValidatorContext) error {
				return tt.err
			}))
			res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			ran := tool.calls.Load() == 1
			if ran != (tt.wantReject == nil) {
				t.Fatalf("tool ran: %v (outcome %s, issues %+v, flagged %+v), want %v", ran, rep.Outcome, rep.Issues, rep.Flagged, tt.wantReject == nil)
			}
			sortIssues := func(is []Issue) string {
				out := make([]string, len(is))
				for i, x := range is {
					out[i] = fmt.Sprint(x)
				}
				slices.Sort(out)
				return strings.Join(out, "|")
			}
			if tt.wantReject != nil && (rep.Outcome != OutcomeFeedback || sortIssues(rep.Issues) != sortIssues(tt.wantReject)) {
				t.Errorf("outcome %s, issues %+v; want feedback with %+v", rep.Outcome, rep.Issues, tt.wantReject)
			}
			if tt.wantReject != nil && !strings.Contains(rep.Output, tt.wantReject[0].Message) {
				t.Errorf("the feedback does not carry %q: %q", tt.wantReject[0].Message, rep.Output)
			}
			if got := sortIssues(rep.Flagged); got != sortIssues(tt.wantFlagged) {
				t.Errorf("Flagged = %+v, want %+v", rep.Flagged, tt.wantFlagged)
			}
		})
	}
}

func TestValidatorsRunInOrderAndTheFirstRejectionEndsTheCheck(t *testing.T) {
	var order []string
	mk := func(name string, err error) Validator {
		return func(context.Context, map[string]any, ValidatorContext) error {
			order = append(order, name)
			return err
		}
	}
	n := urNode(t, []tools.Tool{newURTool("get_orders")},
		WithValidator("get_orders", mk("flag", Flag(errors.New("f")))),
		WithValidator("get_orders", mk("reject", errors.New("r"))),
		WithValidator("get_orders", mk("approve", fmt.Errorf("ask: %w", ErrInterrupt))),
	)
	res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
	if err != nil {
		t.Fatalf("Run: %v (the interrupting validator ran after a rejection)", err)
	}
	if fmt.Sprint(order) != "[flag reject]" || res.Calls[0].Outcome != OutcomeFeedback {
		t.Errorf("ran %v, outcome %s", order, res.Calls[0].Outcome)
	}
}

func TestValidatorRunsOnlyAfterTheSchemaPasses(t *testing.T) {
	var calls atomic.Int32
	n := urNode(t, []tools.Tool{newURTool("get_orders")}, WithValidator("get_orders", func(context.Context, map[string]any, ValidatorContext) error {
		calls.Add(1)
		return nil
	}))
	res, err := n.Run(context.Background(), urConversation(
		urCall("bad", "get_orders", `{"order_id":"o"}`),
		urCall("good", "get_orders", `{"order_id":"o","user_id":"u"}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || res.Calls[0].Outcome != OutcomeFeedback || res.Calls[1].Outcome != OutcomeExecuted {
		t.Errorf("validator ran %d times; outcomes %s, %s", calls.Load(), res.Calls[0].Outcome, res.Calls[1].Outcome)
	}
}

type urPause struct{ question string }

func (p *urPause) Error() string { return "pause: " + p.question }

func TestInterruptFromAValidatorPropagatesAndNothingExecutes(t *testing.T) {
	approve := fmt.Errorf("cancel_order needs approval: %w", ErrInterrupt)
	pause := &urPause{question: "cancel?"}
	isPause := func(err error) bool { var p *urPause; return errors.As(err, &p) }
	for _, tt := range []struct {
		name string
		ret  error
		opts []Option
		want error
	}{
		{name: "ErrInterrupt", ret: approve, want: approve},
		{name: "flagged ErrInterrupt", ret: Flag(approve), want: approve},
		{name: "caller's interrupt type", ret: pause, opts: []Option{WithInterruptErrors(isPause)}, want: pause},
		{name: "caller's interrupt type with handled tool errors", ret: pause,
			opts: []Option{WithInterruptErrors(isPause), WithHandleToolErrors(true)}, want: pause},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orders, cancel := newURTool("get_orders"), newURTool("cancel_order")
			opts := append([]Option{WithValidator("cancel_order", func(context.Context, map[string]any, ValidatorContext) error {
				return tt.ret
			})}, tt.opts...)
			n := urNode(t, []tools.Tool{orders, cancel}, opts...)
			res, err := n.Run(context.Background(), urConversation(
				urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`),
				urCall("c2", "cancel_order", `{"order_id":"o","user_id":"u"}`),
				urCall("c3", "get_orders", `{"order_id":"o","user_id":"u"}`),
			))
			if err != tt.want || res != nil {
				t.Fatalf("Run = %v, %v; want exactly the interrupt %v", res, err, tt.want)
			}
			if orders.calls.Load()+cancel.calls.Load() != 0 {
				t.Errorf("%d calls executed", orders.calls.Load()+cancel.calls.Load())
			}
		})
	}
}

func TestCallersInterruptTypeIsOnlyAnInterruptWhenMarked(t *testing.T) {
	n := urNode(t, []tools.Tool{newURTool("get_orders")}, WithValidator("get_orders", func(context.Context, map[string]any, ValidatorContext) error {
		return &urPause{question: "?"}
	}))
	res, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
	if err != nil || res.Calls[0].Outcome != OutcomeFeedback {
		t.Fatalf("Run = %v, %v; want an ordinary rejection", res, err)
	}
}

func TestInterruptFromAToolPropagatesUnchanged(t *testing.T) {
	pause := fmt.Errorf("approve the refund: %w", ErrInterrupt)
	refund := NewTool("refund", "Refunds an order.", func(ctx context.Context, a urOrderArgs) (string, error) {
		return "", pause
	})
	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{name: "default tool errors"},
		{name: "handled tool errors", opts: []Option{WithHandleToolErrors(true)}},
		{name: "formatted tool errors", opts: []Option{WithToolErrorFormatter(func(err error) string { return "failed" })}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := urNode(t, []tools.Tool{refund}, tt.opts...)
			res, err := n.Run(context.Background(), urConversation(urCall("c1", "refund", `{"order_id":"o","user_id":"u"}`)))
			if err != pause || res != nil {
				t.Fatalf("Run = %v, %v; want exactly %v", res, err, pause)
			}
		})
	}
}

func TestValidatorPanicStopsTheRun(t *testing.T) {
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", func(context.Context, map[string]any, ValidatorContext) error {
		panic("validator bug")
	}))
	_, err := n.Run(context.Background(), urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "validator bug" || tool.calls.Load() != 0 {
		t.Fatalf("err = %v; want a *PanicError and nothing executed", err)
	}
}

func TestValidatorSeesCanceledContextAsCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := urNode(t, []tools.Tool{newURTool("get_orders")}, WithValidator("get_orders", func(ctx context.Context, _ map[string]any, _ ValidatorContext) error {
		cancel()
		return ctx.Err()
	}))
	_, err := n.Run(ctx, urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"u"}`)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWithValidatorConfigErrors(t *testing.T) {
	ok := func(context.Context, map[string]any, ValidatorContext) error { return nil }
	plain := urPlainTool{}
	for _, tt := range []struct {
		name string
		opt  Option
	}{
		{name: "unknown tool", opt: WithValidator("get_order", ok)},
		{name: "nil validator", opt: WithValidator("get_orders", nil)},
		{name: "tool without schema", opt: WithValidator("plain", ok)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{newURTool("get_orders"), plain}, tt.opt)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

type urPlainTool struct{}

func (urPlainTool) Name() string                                 { return "plain" }
func (urPlainTool) Description() string                          { return "a plain tool" }
func (urPlainTool) Call(context.Context, string) (string, error) { return "ok", nil }

func TestTypedValidatorDecodesTheArguments(t *testing.T) {
	type quantity struct {
		OrderID string `json:"order_id"`
		Count   int    `json:"count"`
	}
	var mu sync.Mutex
	var got []quantity
	tool := NewTool("set_quantity", "Sets an order's quantity.", func(ctx context.Context, q quantity) (string, error) { return "ok", nil })
	n := urNode(t, []tools.Tool{tool}, WithValidator("set_quantity", TypedValidator(func(ctx context.Context, q quantity, vc ValidatorContext) error {
		mu.Lock()
		got = append(got, q)
		mu.Unlock()
		if q.Count > 10 {
			return &ValidationIssue{Path: "count", Message: "at most 10"}
		}
		return nil
	})))
	res, err := n.Run(context.Background(), urConversation(
		urCall("c1", "set_quantity", `{"order_id":"o1","count":3}`),
		urCall("c2", "set_quantity", `{"order_id":"o2","count":12}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{o1 3} {o2 12}]" {
		t.Errorf("validator got %v", got)
	}
	if res.Calls[0].Outcome != OutcomeExecuted || res.Calls[1].Outcome != OutcomeFeedback ||
		len(res.Calls[1].Issues) != 1 || res.Calls[1].Issues[0].Path != "/count" {
		t.Errorf("outcomes %s, %s; issues %+v", res.Calls[0].Outcome, res.Calls[1].Outcome, res.Calls[1].Issues)
	}
}

func TestTypedValidatorRejectsArgumentsThatDoNotDecode(t *testing.T) {
	v := TypedValidator(func(context.Context, struct{ Count int }, ValidatorContext) error { return nil })
	err := v(context.Background(), map[string]any{"Count": "three"}, ValidatorContext{})
	if reject, _ := validatorIssues(err); err == nil || len(reject) != 1 {
		t.Fatalf("err = %v, want one rejecting issue", err)
	}
}

func TestValidatorContextPhases(t *testing.T) {
	type seen struct {
		vc   ValidatorContext
		args map[string]any
	}
	var mu sync.Mutex
	var log []seen
	rec := func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
		mu.Lock()
		log = append(log, seen{vc, args})
		mu.Unlock()
		if args["user_id"] == "bad" {
			return errors.New("bad user")
		}
		return nil
	}
	hook := func(ctx context.Context, call UnresolvedToolCall) (Resolution, error) {
		call.Args["user_id"] = "u1"
		return Salvage(call.Args), nil
	}
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", rec), WithUnresolvedHook(hook))
	msgs := urConversation(urCall("c1", "get_orders", `{"order_id":"o","user_id":"bad"}`))
	res, err := n.Run(ContextWithState(context.Background(), "st"), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeSalvaged || tool.calls.Load() != 1 {
		t.Fatalf("outcome %s", res.Calls[0].Outcome)
	}
	if len(log) != 2 {
		t.Fatalf("validator ran %d times, want 2 (initial, salvage)", len(log))
	}
	for i, want := range []ValidatorContext{
		{ToolName: "get_orders", CallID: "c1", State: "st", Phase: PhaseInitial},
		{ToolName: "get_orders", CallID: "c1", State: "st", Phase: PhaseSalvage},
	} {
		got := log[i].vc
		if len(got.Messages) != len(msgs) {
			t.Errorf("run %d: %d messages, want %d", i, len(got.Messages), len(msgs))
		}
		got.Messages = nil
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("run %d: ValidatorContext = %+v, want %+v", i, got, want)
		}
	}
	if log[1].args["user_id"] != "u1" {
		t.Errorf("salvage phase checked %v", log[1].args)
	}
}

// TestCheckPassesCorrectionAttempts checks the ValidatorContext of the
// correction phase at the check contract the correction stage calls; the
// end-to-end test belongs with the correction stage.
func TestCheckPassesCorrectionAttempts(t *testing.T) {
	var got []ValidatorContext
	n := urNode(t, []tools.Tool{newURTool("get_orders")}, WithValidator("get_orders", func(_ context.Context, _ map[string]any, vc ValidatorContext) error {
		got = append(got, vc)
		return errors.New("still wrong")
	}))
	c := &call{name: "get_orders", id: "c1", tool: n.tools["get_orders"]}
	r := &run{state: "st"}
	value := map[string]any{"order_id": "o", "user_id": "u"}
	for attempt := 1; attempt <= 2; attempt++ {
		issues, err := n.check(context.Background(), r, c, value, "", checkPhase{phase: PhaseCorrection, attempt: attempt, maxAttempts: 2})
		if err != nil || len(issues) != 1 {
			t.Fatalf("attempt %d: check = %v, %v", attempt, issues, err)
		}
	}
	want := []ValidatorContext{
		{ToolName: "get_orders", CallID: "c1", State: "st", Phase: PhaseCorrection, Attempt: 1, MaxAttempts: 2},
		{ToolName: "get_orders", CallID: "c1", State: "st", Phase: PhaseCorrection, Attempt: 2, MaxAttempts: 2, IsFinal: true},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ValidatorContexts = %+v\nwant %+v", got, want)
	}
}

// TestValidatorsOfDifferentCallsMayRunConcurrently documents, under -race,
// that a validator sharing state must protect it: salvage checks of
// several calls run at the same time.
func TestValidatorsOfDifferentCallsMayRunConcurrently(t *testing.T) {
	var mu sync.Mutex
	phases := map[Phase]int{}
	n := urNode(t, []tools.Tool{newURTool("get_orders")},
		WithValidator("get_orders", func(_ context.Context, _ map[string]any, vc ValidatorContext) error {
			mu.Lock()
			phases[vc.Phase]++
			mu.Unlock()
			return nil
		}),
		WithUnresolvedHook(func(_ context.Context, call UnresolvedToolCall) (Resolution, error) {
			call.Args["user_id"] = "u"
			return Salvage(call.Args), nil
		}))
	var calls []llms.ToolCall
	for i := range 4 {
		calls = append(calls, urCall(fmt.Sprintf("c%d", i), "get_orders", `{"order_id":"o"}`))
	}
	res, err := n.Run(context.Background(), urConversation(calls...))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Calls {
		if c.Outcome != OutcomeSalvaged {
			t.Errorf("call %s: outcome %s", c.ID, c.Outcome)
		}
	}
	if phases[PhaseSalvage] != 4 || phases[PhaseInitial] != 0 {
		t.Errorf("validator phases %v", phases)
	}
}
