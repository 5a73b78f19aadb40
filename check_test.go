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
