package saidex

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestCheckReportsWhatToDoWithEachCallAndRunsNothing(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	msgs := conversation(
		tc("valid", "get_weather", `{"city":"Paris","days":3}`),
		tc("repaired", "get_weather", `{'city': 'Rome',}`),
		tc("invalid", "get_weather", `{"city":"Oslo","days":"many"}`),
		tc("unknown", "teleport", `{}`),
		tc("valid", "get_weather", `{"city":"Lima"}`),
	)
	reps, err := node.Check(context.Background(), msgs)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	want := []struct {
		outcome Outcome
		args    string // "" for nil
	}{
		{OutcomeExecuted, `{"city":"Paris","days":3}`},
		{OutcomeExecuted, `{"city":"Rome"}`},
		{OutcomeFeedback, ""},
		{OutcomeUnknownTool, ""},
		{OutcomeDropped, ""},
	}
	if len(reps) != len(want) {
		t.Fatalf("%d reports, want %d", len(reps), len(want))
	}
	for i, w := range want {
		if reps[i].Outcome != w.outcome || string(reps[i].Arguments) != w.args {
			t.Errorf("call %d: outcome %s arguments %s, want %s %s", i, reps[i].Outcome, reps[i].Arguments, w.outcome, w.args)
		}
	}
	if !strings.Contains(reps[2].Output, "days") || !reps[2].IsError {
		t.Errorf("feedback %q (error %t) does not name the invalid field", reps[2].Output, reps[2].IsError)
	}
	if runs.Load() != 0 {
		t.Errorf("Check executed the tool %d times", runs.Load())
	}
	// The verdicts are those of Run.
	res, err := node.Run(context.Background(), msgs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i := range reps {
		if reps[i].Outcome != res.Calls[i].Outcome {
			t.Errorf("call %d: Check says %s, Run says %s", i, reps[i].Outcome, res.Calls[i].Outcome)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		msgs []llms.MessageContent
		want error
	}{
		{"no messages", context.Background(), nil, ErrNoAIMessage},
		{"last is not an AI message", context.Background(), conversation(tc("a", "get_weather", `{}`))[:1], ErrNoAIMessage},
		{"ctx done", canceled, conversation(tc("a", "get_weather", `{}`)), context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := node.Check(c.ctx, c.msgs); !errors.Is(err, c.want) {
				t.Errorf("err %v, want %v", err, c.want)
			}
		})
	}
}

// TestCheckCallIsCheckOfOneCall checks CheckCall against its oracle, Check
// on a message holding the call alone: the same outcome, the same
// arguments for a ready call (the very string sent when it was valid as
// sent), the same feedback, and nothing executed.
func TestCheckCallIsCheckOfOneCall(t *testing.T) {
	weather, runs := countingWeather()
	echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) { return in, nil }}
	node := mustNode(t, []tools.Tool{weather, echo})
	for _, c := range []struct {
		name, tool, args string
		want             Outcome
	}{
		{"valid as sent", "get_weather", `{"city":"Paris","days":3}`, OutcomeExecuted},
		{"repaired", "get_weather", `{'city': 'Rome',}`, OutcomeExecuted},
		{"repaired from empty", "get_weather", ``, OutcomeFeedback},
		{"schema-invalid", "get_weather", `{"city":"Oslo","days":"many"}`, OutcomeFeedback},
		{"unparsable", "get_weather", `{"city": [`, OutcomeFeedback},
		{"unknown tool", "teleport", `{}`, OutcomeUnknownTool},
		{"plain tool, text", "echo", `hello`, OutcomeExecuted},
		{"plain tool, repaired JSON", "echo", `{'a': 1,}`, OutcomeExecuted},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := node.CheckCall(context.Background(), "id1", c.tool, c.args)
			if err != nil {
				t.Fatalf("CheckCall: %v", err)
			}
			reps, err := node.Check(context.Background(), conversation(tc("id1", c.tool, c.args)))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			rep := reps[0]
			if got.Outcome != c.want || rep.Outcome != c.want {
				t.Fatalf("CheckCall outcome %s, Check outcome %s, want %s", got.Outcome, rep.Outcome, c.want)
			}
			wantArgs := ""
			if got.Ready() {
				wantArgs = string(rep.Arguments)
				if rep.Arguments == nil {
					wantArgs = rep.RawArguments // a plain tool's text
				}
			}
			if got.Arguments != wantArgs || got.Output != rep.Output {
				t.Errorf("CheckCall gives arguments %q output %q; Check gives %q and %q", got.Arguments, got.Output, wantArgs, rep.Output)
			}
			if got.Ready() != ready(rep.Outcome) {
				t.Errorf("Ready() = %t for %s", got.Ready(), got.Outcome)
			}
		})
	}
	if runs.Load() != 0 {
		t.Errorf("CheckCall executed the tool %d times", runs.Load())
	}
}

func ready(o Outcome) bool {
	return o == OutcomeExecuted || o == OutcomeCorrected || o == OutcomeSalvaged
}

// TestCheckCallFastPathAllocatesNothing: a call valid as sent is passed on
// as the same string, without an allocation.
func TestCheckCallFastPathAllocatesNothing(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	ctx := context.Background()
	args := `{"city":"Paris","days":3,"unit":"celsius"}`
	var got CallCheck
	allocs := testing.AllocsPerRun(50, func() { got, _ = node.CheckCall(ctx, "id1", "get_weather", args) })
	if allocs != 0 && !raceEnabled {
		t.Errorf("CheckCall of a valid call allocates %v times, want 0", allocs)
	}
	if !got.Ready() || got.Arguments != args {
		t.Errorf("CheckCall = %+v, want the arguments as sent", got)
	}
}

// TestCheckCallSlowPathSeesTheCall: a call that does not take the fast
// path (here: its tool has a validator) is checked in a conversation of the
// AI message holding it, with its id, as Check of that message would.
func TestCheckCallSlowPathSeesTheCall(t *testing.T) {
	weather, _ := countingWeather()
	var seen ValidatorContext
	node := mustNode(t, []tools.Tool{weather}, WithValidator("get_weather",
		func(_ context.Context, args map[string]any, vc ValidatorContext) error {
			seen = vc
			if args["city"] == "Atlantis" {
				return &ValidationIssue{Path: "/city", Message: "no such city"}
			}
			return nil
		}))
	ok, err := node.CheckCall(context.Background(), "id7", "get_weather", `{"city":"Paris"}`)
	if err != nil || !ok.Ready() || ok.Arguments != `{"city":"Paris"}` {
		t.Fatalf("CheckCall = %+v, %v; want ready with the arguments", ok, err)
	}
	if seen.CallID != "id7" || len(seen.Messages) != 1 || seen.Messages[0].Role != llms.ChatMessageTypeAI {
		t.Fatalf("validator saw call id %q and %d messages", seen.CallID, len(seen.Messages))
	}
	if calls := toolCallsOf(seen.Messages[0]); len(calls) != 1 || calls[0].ID != "id7" || calls[0].FunctionCall.Arguments != `{"city":"Paris"}` {
		t.Errorf("validator's AI message holds %+v, want the call", calls)
	}
	bad, err := node.CheckCall(context.Background(), "id8", "get_weather", `{"city":"Atlantis"}`)
	if err != nil || bad.Ready() || !strings.Contains(bad.Output, "no such city") || bad.Arguments != "" {
		t.Errorf("CheckCall = %+v, %v; want feedback naming the issue", bad, err)
	}
}

func TestCheckCallErrors(t *testing.T) {
	weather, _ := countingWeather()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	var verr *ToolCallValidationError
	for _, c := range []struct {
		name string
		node *ToolNode
		ctx  context.Context
		args string
		is   func(error) bool
	}{
		{"ctx done", mustNode(t, []tools.Tool{weather}), canceled, `{"city":"Paris"}`,
			func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"raise policy", mustNode(t, []tools.Tool{weather}, WithOnUnresolved(UnresolvedRaise)), context.Background(), `{"days":"x"}`,
			func(err error) bool { return errors.As(err, &verr) && verr.Count == 1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.node.CheckCall(c.ctx, "id1", "get_weather", c.args)
			if !c.is(err) || got != (CallCheck{}) {
				t.Errorf("CheckCall = %+v, %v", got, err)
			}
		})
	}
}

// TestOutcomeReady: the outcomes of a call that runs (or may) are ready,
// every other outcome is not.
func TestOutcomeReady(t *testing.T) {
	for o, want := range map[Outcome]bool{
		OutcomeExecuted: true, OutcomeCorrected: true, OutcomeSalvaged: true, OutcomeReady: true,
		OutcomeFeedback: false, OutcomeFeedbackLimit: false, OutcomeRepeatLimit: false,
		OutcomeOutputLimit: false, OutcomeDropped: false, OutcomeUnknownTool: false,
		OutcomeAlreadyAnswered: false, OutcomeUnanswered: false, OutcomeFailed: false,
		OutcomeCanceled: false, OutcomeRunning: false, Outcome("other"): false,
	} {
		if got := o.Ready(); got != want {
			t.Errorf("%s.Ready() = %v, want %v", o, got, want)
		}
	}
}

// TestCheckSeesTheStateOfItsContext: Check's and CheckCall's validators
// see the state of their ctx in ValidatorContext.State, as a run's do.
func TestCheckSeesTheStateOfItsContext(t *testing.T) {
	var seen []any
	tool := newURTool("get_orders")
	n := urNode(t, []tools.Tool{tool}, WithValidator("get_orders", func(ctx context.Context, _ map[string]any, vc ValidatorContext) error {
		if StateFromContext(ctx) != vc.State {
			return errors.New("StateFromContext disagrees with ValidatorContext.State")
		}
		seen = append(seen, vc.State)
		return nil
	}))
	ctx := ContextWithState(context.Background(), urState{UserID: "u9"})
	reps, err := n.Check(ctx, urConversation(urCall("a", "get_orders", `{"order_id":"o1","user_id":"u9"}`)))
	if err != nil || len(reps) != 1 || !reps[0].Outcome.Ready() {
		t.Fatalf("Check: %v %+v", err, reps)
	}
	chk, err := n.CheckCall(ctx, "b", "get_orders", `{"order_id":"o2","user_id":"u9"}`)
	if err != nil || !chk.Ready() {
		t.Fatalf("CheckCall: %v %+v", err, chk)
	}
	if len(seen) != 2 || seen[0] != (urState{UserID: "u9"}) || seen[1] != (urState{UserID: "u9"}) {
		t.Errorf("validators saw states %v, want the ctx's twice", seen)
	}
}
