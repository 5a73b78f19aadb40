package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEino runs the example and checks its lines: bare Eino fails the run;
// with saidex the repaired call runs with its repaired arguments (also in
// the history), the invalid call and the unknown tool are answered with
// feedback and never run, and the agent reaches its answer.
func TestEino(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	bare, guarded, ok := strings.Cut(got, "with saidex:\n")
	if !ok {
		t.Fatalf("no saidex section:\n%s", got)
	}
	if !strings.Contains(bare, "the run fails: ") || strings.Contains(bare, "tool ran") {
		t.Errorf("bare Eino did not fail before running a tool:\n%s", bare)
	}
	for _, want := range []string{
		"  tool ran: get_weather city=Paris days=2\n",
		`  history: call_1 {"city":"Paris","days":2}` + "\n",
		`  history: call_2 {"city": "Rome", "days": "two"}` + "\n",
		"  the model reads call_1: Paris: sunny for 2 days\n",
		"  the model reads call_2: Error: get_weather was not executed because its arguments do not match the tool's schema: - days: expected an integer, got a string",
		"  the model reads call_3: Error: get_forecast is not a valid tool, try one of [get_weather].\n",
		"  tool ran: get_weather city=Rome days=2\n",
		"  the model answers: Paris and Rome: sunny for two days.\n",
	} {
		if !strings.Contains(guarded, want) {
			t.Errorf("output lacks %q:\n%s", want, guarded)
		}
	}
	if n := strings.Count(guarded, "tool ran"); n != 2 {
		t.Errorf("the tool ran %d times, want 2 (the invalid call never runs):\n%s", n, guarded)
	}
}
