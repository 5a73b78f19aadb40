package saidex

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/tools"
)

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
	v := FlagOnly(func(context.Context, map[string]any, ValidatorContext) error {
		return &ValidationIssue{Path: "order_id", Message: "unusually old order"}
	})
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
