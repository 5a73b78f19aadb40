package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestAnthropic runs the example and checks its lines: the stock loop gets
// a bare unmarshal error, leaves the id unanswered and its next request is
// refused with HTTP 400; the guarded loop runs the valid and the coerced
// call, sends the coerced input back, answers the out-of-range call with
// feedback, and gets the model's answer; the call of a stream cut by
// max_tokens never runs.
func TestAnthropic(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	stock, rest, ok1 := strings.Cut(got, "guarded loop")
	guarded, cut, ok2 := strings.Cut(rest, "streamed reply cut by max_tokens")
	if !ok1 || !ok2 {
		t.Fatalf("missing sections:\n%s", got)
	}
	for _, c := range []struct{ section, want string }{
		{stock, `toolu_02 {"city":"Oslo","days":"3"}: json: cannot unmarshal string into Go struct field WeatherArgs.days of type int`},
		{stock, `toolu_03 {"city":"Rome","days":30}: ran unchecked: Rome: sunny for 30 days`},
		{stock, "next request: HTTP 400: messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_02."},
		{guarded, `toolu_02 {"city":"Oslo","days":"3"}: executed, sent back as {"city":"Oslo","days":3}, is_error=false: Oslo: sunny for 3 days`},
		{guarded, `toolu_03 {"city":"Rome","days":30}: feedback, sent back as {"city":"Rome","days":30}, is_error=true: Error: get_weather was not executed because its arguments do not match the tool's schema: - days: must be at most 14`},
		{guarded, "the model answers: Sunny in Paris and Oslo."},
		{cut, "stock: Message.Accumulate gives input {}; json.Unmarshal error: <nil>"},
		{cut, "output_limit, sent back as {}, is_error=true: Error: get_weather was not executed because the reply that holds it was cut off by the output-token limit"},
		{cut, "next request: accepted"},
	} {
		if !strings.Contains(c.section, c.want) {
			t.Errorf("output lacks %q:\n%s", c.want, got)
		}
	}
	if n := strings.Count(guarded, "tool ran"); n != 2 {
		t.Errorf("the guarded tool ran %d times, want 2:\n%s", n, guarded)
	}
	if strings.Contains(cut, "tool ran") {
		t.Errorf("a call of the cut reply ran:\n%s", cut)
	}
}
