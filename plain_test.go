package saidex

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// A plain tool (no schema) receives arguments that repair cleanly as the
// repaired JSON text, unvalidated, and the history keeps them; anything
// else reaches it as sent.
func TestPlainToolReceivesRepairedArguments(t *testing.T) {
	tests := []struct {
		name        string
		raw         string
		wantInput   string // what the tool's Call receives
		wantHistory string // the arguments of the sanitized AI message
		wantSteps   []RepairStep
	}{
		{"python-style object", `{'city': 'Paris',}`, `{"city":"Paris"}`, `{"city":"Paris"}`, []RepairStep{RepairJSON}},
		{"reasoning before the object", `<think>look it up</think>{"q":"weather"}`, `{"q":"weather"}`, `{"q":"weather"}`, []RepairStep{RepairStripThinking}},
		{"the __arg1 object, repaired", `{__arg1: 'hi'}`, `hi`, `{"__arg1":"hi"}`, []RepairStep{RepairJSON}},
		{"valid JSON, as sent", `{"b": 1, "a": 2}`, `{"b": 1, "a": 2}`, `{"b": 1, "a": 2}`, nil},
		{"free text, as sent", `hello world`, `hello world`, `{"__arg1":"hello world"}`, nil},
		{"a single-quoted string, as sent", `'hello'`, `'hello'`, `{"__arg1":"'hello'"}`, nil},
		{"an unfinished string, as sent", `{"q": "wea`, `{"q": "wea`, `{"__arg1":"{\"q\": \"wea"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var mu sync.Mutex
			echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) {
				mu.Lock()
				got = append(got, in)
				mu.Unlock()
				return "ok", nil
			}}
			node := mustNode(t, []tools.Tool{echo}, WithLogger(sanDiscard))
			conv := []llms.MessageContent{human, saidextest.AIMessage(saidextest.Call("c1", "echo", tt.raw))}
			res, err := node.Run(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != tt.wantInput {
				t.Errorf("tool received %q, want %q", got, tt.wantInput)
			}
			rep := res.Calls[0]
			if rep.Outcome != OutcomeExecuted || rep.Prevalidated || rep.Repaired != (tt.wantSteps != nil) || !slices.Equal(rep.RepairSteps, tt.wantSteps) {
				t.Errorf("report: outcome %s prevalidated %v repaired %v steps %v, want executed, false, steps %v",
					rep.Outcome, rep.Prevalidated, rep.Repaired, rep.RepairSteps, tt.wantSteps)
			}
			out, err := node.Invoke(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			if args := toolCallsOf(out[1])[0].FunctionCall.Arguments; args != tt.wantHistory {
				t.Errorf("history keeps %s, want %s", args, tt.wantHistory)
			}
		})
	}
}

// NewToolNode warns once per plain tool that it is not validated; runs add
// no warning.
func TestPlainToolWarnsOnceAtConstruction(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	weather, _ := countingWeather()
	plainA := plainTool{name: "plain_a", fn: func(context.Context, string) (string, error) { return "a", nil }}
	plainB := plainTool{name: "plain_b", fn: func(context.Context, string) (string, error) { return "b", nil }}
	node := mustNode(t, []tools.Tool{weather, plainA, plainB}, WithLogger(logger))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "tool=plain_a") || !strings.Contains(lines[1], "tool=plain_b") {
		t.Fatalf("construction logged:\n%s\nwant one warning per plain tool", buf.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "not validated") {
			t.Errorf("warning %q does not say validation is off", l)
		}
	}
	buf.Reset()
	for range 2 {
		if _, err := node.Run(context.Background(), conversation(tc("c1", "plain_a", `{'x': 1}`))); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("runs logged:\n%s", buf.String())
	}
}
