package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestQuickstart runs the example and checks the lines that explain it:
// that its models are scripted, what the model sent, what a stock executor
// and saidex each do with every call, and the history after.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	before, after, ok := strings.Cut(got, "AFTER")
	if !ok {
		t.Fatalf("output lacks the AFTER section:\n%s", got)
	}
	for _, want := range []string{
		`The agent model and the correction model are scripted (package saidextest)`,
		`call_1 get_forecast <think>The user wants Paris.</think>{"city": "Paris", "days": 2,}`,
		`CALL BY CALL: a stock executor (json.Unmarshal, then the tool) vs saidex`,
		`call_1 stock:  error "invalid character '<' looking for beginning of value"`,
		`saidex: repaired [strip_thinking json_repair] and executed; the tool got {"city":"Paris","days":2}`,
		`call_2 stock:  error "json: cannot unmarshal string into Go struct field ForecastArgs.days of type int"`,
		`saidex: corrected by the (scripted) correction model and executed; the tool got {"city":"Oslo","days":3}`,
		`call_3 stock:  ran the tool without a city (the field is missing): ": sunny, 21 degrees, for 5 days"`,
		`saidex: feedback, not executed; the model reads which field to fix (below) and calls again`,
		`one that skips the call leaves its id`,
		`unanswered, and the provider rejects the next request (HTTP 400)`,
	} {
		if !strings.Contains(before, want) {
			t.Errorf("output before AFTER lacks %q:\n%s", want, got)
		}
	}
	for _, want := range []string{
		`ai    call_1 get_forecast {"city":"Paris","days":2}`,
		`ai    call_2 get_forecast {"city":"Oslo","days":3}`,
		`tool  call_2 Oslo: sunny, 21 degrees, for 3 days`,
		`tool  call_3 Error: get_forecast was not executed`,
		`city: required field is missing`,
	} {
		if !strings.Contains(after, want) {
			t.Errorf("the history lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(after, "<think>") || strings.Contains(after, `"three"`) {
		t.Errorf("a broken argument string stayed in the history:\n%s", got)
	}
}
