package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestOpenAI runs the example and checks its lines: the stock loop panics,
// or leaves two ids unanswered and gets HTTP 400; with saidexopenai the
// broken call is repaired and runs, the unknown tool is answered, the
// repaired arguments are sent, and the next request goes through.
func TestOpenAI(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	stock, guarded, ok := strings.Cut(got, "with saidexopenai:\n")
	if !ok {
		t.Fatalf("no saidexopenai section:\n%s", got)
	}
	for _, want := range []string{
		"  panic: invalid character '}' looking for beginning of object key string\n",
		"  next request: HTTP 400: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2, call_3\n",
	} {
		if !strings.Contains(stock, want) {
			t.Errorf("stock output lacks %q:\n%s", want, stock)
		}
	}
	for _, want := range []string{
		"  tool ran: get_weather location=Paris\n",
		"  tool ran: get_weather location=New York City\n",
		`  call_2 get_weather {"location": "New York City",} -> executed` + "\n",
		`  call_3 get_time {"timezone":"America/New_York"} -> unknown_tool` + "\n",
		`"arguments":"{\"location\":\"New York City\"}"`,
		`"content":"Error: get_time is not a valid tool, try one of [get_weather].","tool_call_id":"call_3"`,
		"  the model answers: Paris and New York City: sunny.\n",
	} {
		if !strings.Contains(guarded, want) {
			t.Errorf("output lacks %q:\n%s", want, guarded)
		}
	}
}
