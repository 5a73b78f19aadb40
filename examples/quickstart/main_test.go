package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

// TestQuickstart runs the example and checks the three outcomes it shows.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`call_1  executed  repaired=true  args={"city":"Paris","days":2}`,
		`repair steps: [strip_thinking json_repair]`,
		`call_2  corrected repaired=false args={"city":"Oslo","days":3}`,
		`call_3  feedback  repaired=false args=(not executed)`,
		`city: required field is missing`,
	} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if regexp.MustCompile(`<think>`).Match(out.Bytes()) {
		t.Errorf("reasoning text leaked into the output:\n%s", out.String())
	}
}
