package main

import (
	"bytes"
	"context"
	"os"
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

// TestREADMEShowsTheRealOutput: every line of the README's "Before and
// after" block (but the "..." that stands for lines left out) is a line of
// this example's output, in the same order.
func TestREADMEShowsTheRealOutput(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## Before and after")
	if !ok {
		t.Fatal("README.md has no Before and after section")
	}
	_, block, ok := strings.Cut(section, "\n```\n")
	if !ok {
		t.Fatal("the Before and after section has no code block")
	}
	block, _, _ = strings.Cut(block, "```")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	shown := 0
	for line := range strings.Lines(block) {
		line = strings.TrimRight(line, "\n")
		if strings.TrimSpace(line) == "..." {
			continue
		}
		i := 0
		for i < len(lines) && lines[i] != line {
			i++
		}
		if i == len(lines) {
			t.Errorf("README.md shows a line the quickstart does not print (in this order):\n%q", line)
			continue
		}
		lines = lines[i+1:]
		shown++
	}
	if shown < 10 {
		t.Errorf("README.md shows %d lines of the quickstart's output, want at least 10", shown)
	}
}
