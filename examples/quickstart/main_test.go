package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestQuickstart runs the example and checks its before, its three
// outcomes and its after.
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
		`call_1 get_forecast <think>The user wants Paris.</think>{"city": "Paris", "days": 2,}`,
		`call_1 executed; repair steps [strip_thinking json_repair]; the tool got {"city":"Paris","days":2}`,
		`call_2 corrected by the correction model; the tool got {"city":"Oslo","days":3}`,
		`call_3 feedback: not executed`,
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
