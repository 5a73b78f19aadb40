package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestMCP runs the example and checks what reached the server and what the
// model read.
func TestMCP(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`server received {"city":"Paris","days":2}`,
		"call_1 executed: Paris: sunny, 21 degrees, for 2 days",
		"call_2 feedback: Error: get_forecast was not executed",
		"days: ",
		`server received {"city":"Oslo","days":3}`,
		"the model answers: Paris: sunny for 2 days. Oslo: sunny for 3 days.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "server received") != 2 {
		t.Errorf("the invalid call reached the server:\n%s", got)
	}
}
