package saidex

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestRepeatLimit(t *testing.T) {
	ran := func(id, args string) any {
		return turn{[]llms.ToolCall{saidextest.Call(id, "get_weather", args)}, []string{"Paris: sunny for 2 days"}}
	}
	rejected := func(id, args string) any {
		return turn{[]llms.ToolCall{saidextest.Call(id, "get_weather", args)},
			[]string{"Error: get_weather was not executed because its arguments do not match the tool's schema:\n- days: must be at most 14"}}
	}
	tests := []struct {
		name    string
		limit   int
		history []llms.MessageContent
		args    string
		stopped bool
		latest  string
	}{
		{"the same call once before, limit 1", 1, history(t, ran("p1", `{"city":"Paris","days":2}`)), `{"city":"Paris","days":2}`, true, "p1"},
		{"keys reordered and spaced", 1, history(t, ran("p1", `{"city":"Paris","days":2}`)), `{ "days": 2, "city": "Paris" }`, true, "p1"},
		{"numbers spelled otherwise", 1, history(t, ran("p1", `{"city":"Paris","days":2}`)), `{"city":"Paris","days":2.0}`, true, "p1"},
		{"a repaired call", 1, history(t, ran("p1", `{"city":"Paris","days":2}`)), `{'city': 'Paris', 'days': 2,}`, true, "p1"},
		{"other arguments", 1, history(t, ran("p1", `{"city":"Paris","days":2}`)), `{"city":"Paris","days":3}`, false, ""},
		{"once before, limit 2", 2, history(t, ran("p1", `{"city":"Paris"}`)), `{"city":"Paris"}`, false, ""},
		{"twice before, limit 2", 2, history(t, ran("p1", `{"city":"Paris"}`), ran("p2", `{"city":"Paris"}`)), `{"city":"Paris"}`, true, "p2"},
		{"earlier call answered with feedback", 1, history(t, rejected("p1", `{"city":"Paris"}`)), `{"city":"Paris"}`, false, ""},
		{"no limit", 0, history(t, ran("p1", `{"city":"Paris"}`), ran("p2", `{"city":"Paris"}`)), `{"city":"Paris"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather}, WithRepeatLimit(tt.limit))
			ctx, stats := CollectStats(context.Background())
			conv := append(tt.history, saidextest.AIMessage(
				saidextest.Call("now", "get_weather", tt.args),
				saidextest.Call("other", "get_weather", `{"city":"Oslo"}`)))
			res, err := node.Run(ctx, conv)
			if err != nil {
				t.Fatal(err)
			}
			if res.Calls[1].Outcome != OutcomeExecuted {
				t.Errorf("a different call: %s", res.Calls[1].Outcome)
			}
			rep := res.Calls[0]
			if !tt.stopped {
				if rep.Outcome != OutcomeExecuted || runs.Load() != 2 {
					t.Errorf("outcome %s, runs %d; want both run", rep.Outcome, runs.Load())
				}
				return
			}
			if rep.Outcome != OutcomeRepeatLimit || !rep.IsError || runs.Load() != 1 {
				t.Fatalf("outcome %s, runs %d; want repeat_limit and only the other call run", rep.Outcome, runs.Load())
			}
			if !strings.Contains(rep.Output, "answering call "+tt.latest+".") || strings.Contains(rep.Output, "sunny") || strings.Contains(rep.Output, "Paris") {
				t.Errorf("feedback %q: want the latest id %s, no output, no argument", rep.Output, tt.latest)
			}
			if !isNodeFeedback(rep.Output, "get_weather") {
				t.Errorf("feedback %q is not recognised as the node's", rep.Output)
			}
			if got := stats.Count(OutcomeRepeatLimit); got != 1 {
				t.Errorf("stats count %d repeat_limit calls, want 1", got)
			}
			// Read from the history alone: a second run gives the same answer.
			again, err := node.Run(context.Background(), conv)
			if err != nil || again.Calls[0].Output != rep.Output {
				t.Errorf("a re-run answered %q (%v)", again.Calls[0].Output, err)
			}
		})
	}
}

func TestRepeatLimitWithRaise(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithRepeatLimit(1), WithOnUnresolved(UnresolvedRaise))
	conv := history(t, turn{[]llms.ToolCall{saidextest.Call("p1", "get_weather", `{"city":"Paris"}`)}, []string{"sunny"}})
	conv = append(conv, saidextest.AIMessage(
		saidextest.Call("p2", "get_weather", `{"city":"Oslo"}`),
		saidextest.Call("p3", "get_weather", `{"city":"Paris"}`)))
	_, err := node.Run(context.Background(), conv)
	var rl *RepeatLimitError
	if !errors.As(err, &rl) || rl.Limit != 1 || len(rl.IDs) != 1 || rl.IDs[0] != "p3" || rl.Tools[0] != "get_weather" {
		t.Fatalf("err %v (%+v), want a *RepeatLimitError for p3", err, rl)
	}
	if runs.Load() != 0 {
		t.Errorf("%d calls ran before the error", runs.Load())
	}
	if _, err := NewToolNode([]tools.Tool{weather}, WithRepeatLimit(-1)); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("WithRepeatLimit(-1): %v", err)
	}
}

func TestRepeatLimitNeverShowsASecret(t *testing.T) {
	var runs int
	login := NewTool("login", "Log in.", func(ctx context.Context, a secretLogin) (string, error) { runs++; return "ok", nil })
	node := mustNode(t, []tools.Tool{login}, WithRepeatLimit(1))
	args := `{"user":"bob","password":"hunter2"}`
	conv := history(t, turn{[]llms.ToolCall{saidextest.Call("l1", "login", args)}, []string{"ok"}})
	conv = append(conv, saidextest.AIMessage(saidextest.Call("l2", "login", args)))
	res, err := node.Run(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeRepeatLimit || runs != 0 {
		t.Fatalf("outcome %s, runs %d", rep.Outcome, runs)
	}
	for _, s := range []string{rep.Output, rep.RawArguments, string(rep.Arguments)} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("the secret shows in %q", s)
		}
	}
}

func TestRepeatLimitWithASecretInTheSanitizedHistory(t *testing.T) {
	var runs int
	login := NewTool("login", "Log in.", func(ctx context.Context, a secretLogin) (string, error) { runs++; return "ok", nil })
	node := mustNode(t, []tools.Tool{login}, WithRepeatLimit(1))
	ctx := context.Background()
	args := `{"user":"bob","password":"hunter2"}`
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Log in."),
		saidextest.AIMessage(saidextest.Call("l1", "login", args))}
	conv, err := node.Invoke(ctx, conv) // the history keeps the mask
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 || strings.Contains(toolCallsOf(conv[1])[0].FunctionCall.Arguments, "hunter2") {
		t.Fatalf("runs %d, stored %s", runs, toolCallsOf(conv[1])[0].FunctionCall.Arguments)
	}
	res, err := node.Run(ctx, append(conv, saidextest.AIMessage(saidextest.Call("l2", "login", args))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeRepeatLimit || runs != 1 {
		t.Errorf("the same call again: %s, runs %d", res.Calls[0].Outcome, runs)
	}
}
