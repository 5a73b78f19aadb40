package saidex

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

// Hostile and broken input: every test here feeds the node something a
// model, a provider client or a tool should never produce, and checks that
// the node answers clearly instead of hanging, panicking, leaking or
// echoing the input back.

// maxFeedbackBytes bounds the tool message that answers a refused call: it
// quotes a short prefix of the arguments, never the arguments themselves.
const maxFeedbackBytes = 4 << 10

// hangTimeout is how long a test waits before calling an operation hung. It
// is a hang detector, not a speed assertion: every operation it guards
// finishes in milliseconds.
const hangTimeout = 30 * time.Second

// withinHangTimeout runs fn in a goroutine and fails the test when it does
// not return within hangTimeout.
func withinHangTimeout(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangTimeout):
		t.Fatalf("%s did not return within %v", what, hangTimeout)
	}
}

// runOne runs the node on one call and returns its report and tool message.
func runOne(t *testing.T, n *ToolNode, call llms.ToolCall) (CallReport, llms.ToolCallResponse) {
	t.Helper()
	res, err := n.Run(context.Background(), conversation(call))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Calls) != 1 || len(res.ToolMessages) != 1 {
		t.Fatalf("got %d reports and %d tool messages, want 1 and 1", len(res.Calls), len(res.ToolMessages))
	}
	return res.Calls[0], response(t, res.ToolMessages[0])
}

// sanitizedArgs returns the arguments of the only call of a sanitized AI message.
func sanitizedArgs(t *testing.T, res *Result) string {
	t.Helper()
	if len(res.AIMessage.Parts) != 1 {
		t.Fatalf("sanitized AI message has %d parts, want 1", len(res.AIMessage.Parts))
	}
	c, ok := res.AIMessage.Parts[0].(llms.ToolCall)
	if !ok || c.FunctionCall == nil {
		t.Fatalf("sanitized part is %T, want an llms.ToolCall with a FunctionCall", res.AIMessage.Parts[0])
	}
	return c.FunctionCall.Arguments
}

// assertShortFeedback checks that a refused call was answered with
// feedback that quotes at most a short prefix of its arguments.
func assertShortFeedback(t *testing.T, rep CallReport, resp llms.ToolCallResponse) {
	t.Helper()
	if rep.Outcome != OutcomeFeedback || !rep.IsError {
		t.Fatalf("outcome %q (error %v), want feedback", rep.Outcome, rep.IsError)
	}
	if len(resp.Content) > maxFeedbackBytes {
		t.Fatalf("feedback is %d bytes, want at most %d: it must not echo the arguments", len(resp.Content), maxFeedbackBytes)
	}
	if !utf8.ValidString(resp.Content) || strings.ContainsRune(resp.Content, 0) {
		t.Errorf("feedback is not clean text: %q", resp.Content)
	}
	if rep.Arguments != nil {
		t.Errorf("Arguments = %d bytes, want nil for a call that did not run", len(rep.Arguments))
	}
}

// hugeObject returns a valid {"city": "..."} object of about size bytes.
func hugeObject(size int) string {
	return `{"city":"` + strings.Repeat("x", size-len(`{"city":""}`)) + `"}`
}

func TestHugeArguments(t *testing.T) {
	const size = 10 << 20
	valid := hugeObject(size)
	broken := valid[:len(valid)-1] + ",}"
	tests := []struct {
		name     string
		args     string
		opts     []Option
		plain    bool
		executed bool
	}{
		{name: "valid, above the default cap: refused unparsed", args: valid},
		{name: "broken, above the default cap: refused unparsed", args: broken},
		{name: "valid, under a raised cap: executed", args: valid, opts: []Option{WithMaxArgumentBytes(16 << 20)}, executed: true},
		{name: "plain tool, above the default cap: refused", args: valid, plain: true},
		{name: "plain tool, under a raised cap: executed", args: valid, plain: true, opts: []Option{WithMaxArgumentBytes(16 << 20)}, executed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got atomic.Int64 // length of the input the tool received
			var tool tools.Tool = plainTool{name: "get_weather", fn: func(_ context.Context, in string) (string, error) {
				got.Store(int64(len(in)))
				return "ok", nil
			}}
			if !tt.plain {
				tool = ToolWithSchema(tool, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
			}
			n := mustNode(t, []tools.Tool{tool}, tt.opts...)
			res, err := n.Run(context.Background(), conversation(tc("c1", "get_weather", tt.args)))
			if err != nil || len(res.ToolMessages) != 1 {
				t.Fatalf("Run: %v", err)
			}
			rep, resp := res.Calls[0], response(t, res.ToolMessages[0])
			// The sanitized history keeps arguments that ran, and drops
			// (without parsing) arguments refused for their size.
			if got := sanitizedArgs(t, res); tt.executed && got != tt.args || !tt.executed && got != "{}" {
				t.Errorf("sanitized arguments are %d bytes (%.20q), want %s", len(got), got, map[bool]string{true: "the arguments", false: "{}"}[tt.executed])
			}
			if !tt.executed {
				assertShortFeedback(t, rep, resp)
				if got.Load() != 0 {
					t.Fatalf("the tool ran with %d bytes, want a refusal", got.Load())
				}
				if !strings.Contains(resp.Content, fmt.Sprint(len(tt.args))) {
					t.Errorf("feedback does not give the size of the arguments: %q", resp.Content)
				}
				return
			}
			if rep.Outcome != OutcomeExecuted || rep.IsError || resp.Content != "ok" {
				t.Fatalf("outcome %q (error %v), content %.100q; want executed", rep.Outcome, rep.IsError, resp.Content)
			}
			if got.Load() != int64(len(tt.args)) {
				t.Fatalf("the tool received %d bytes, want %d", got.Load(), len(tt.args))
			}
		})
	}
}

// nested returns depth levels of open, the innermost value, then the
// matching closes (none when closed is false).
func nested(open, inner, close string, depth int, closed bool) string {
	s := strings.Repeat(open, depth) + inner
	if closed {
		s += strings.Repeat(close, depth)
	}
	return s
}

func TestDeepNestingIsAnsweredWithFeedback(t *testing.T) {
	const depth = 100_000
	tests := []struct{ name, args string }{
		{"arrays, unclosed", nested("[", "", "", depth, false)},
		{"arrays, closed", nested("[", "1", "]", depth, true)},
		{"objects, unclosed", nested(`{"a":`, "1", "", depth, false)},
		{"objects, closed", nested(`{"a":`, "1", "}", depth, true)},
		{"inside a field, closed", `{"city":` + nested("[", "", "]", depth, true) + `}`},
		// Small, unclosed and too deep for any argument object: the
		// scanner refuses them at the depth limit, in linear time.
		{"arrays, unclosed, small", nested("[", "", "", 60_000, false)},
		{"objects, unclosed, small", nested(`{"a":`, "", "", 12_000, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Bool
			tool := ToolWithSchema(plainTool{name: "get_weather", fn: func(context.Context, string) (string, error) {
				ran.Store(true)
				return "ok", nil
			}}, `{"type":"object","properties":{"city":{"type":"string"}}}`)
			n := mustNode(t, []tools.Tool{tool})
			var rep CallReport
			var resp llms.ToolCallResponse
			withinHangTimeout(t, "Run", func() { rep, resp = runOne(t, n, tc("c1", "get_weather", tt.args)) })
			assertShortFeedback(t, rep, resp)
			if ran.Load() {
				t.Fatal("the tool ran")
			}
			if !errors.Is(rep.Err, ErrMalformedArguments) {
				t.Errorf("Err = %v, want one wrapping ErrMalformedArguments", rep.Err)
			}
		})
	}
}

// A value nested as deep as encoding/json allows is validated, masked and
// sanitized without trouble.
func TestDeepButParseableValueIsExecuted(t *testing.T) {
	const depth = 9_000 // encoding/json refuses 10,000 and more
	var got atomic.Int64
	tool := ToolWithSchema(plainTool{name: "store", fn: func(_ context.Context, in string) (string, error) {
		got.Store(int64(len(in)))
		return "stored", nil
	}}, `{"type":"object","properties":{"data":{}, "token":{"type":"string","writeOnly":true}},"required":["data"]}`)
	n := mustNode(t, []tools.Tool{tool})
	args := `{"token":"s3cret","data":` + nested(`{"a":`, "[1]", "}", depth, true) + `}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "store", args)))
	if err != nil {
		t.Fatal(err)
	}
	rep, resp := res.Calls[0], response(t, res.ToolMessages[0])
	if rep.Outcome != OutcomeExecuted || resp.Content != "stored" || got.Load() != int64(len(args)) {
		t.Fatalf("outcome %q, content %.200q, tool got %d bytes; want executed with %d bytes", rep.Outcome, resp.Content, got.Load(), len(args))
	}
	// The sanitized history masks the secret and keeps the deep value.
	if s := sanitizedArgs(t, res); strings.Contains(s, "s3cret") || strings.Count(s, `{"a":`) != depth {
		t.Fatalf("sanitized arguments (%d bytes) keep the secret or lose the nesting: %.80q", len(s), s)
	}
}

func TestInvalidUTF8AndNULBytes(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             Outcome
		wantErr          bool // answered with an error tool message
	}{
		{"invalid UTF-8 inside a string value", "get_weather", "{\"city\":\"Os\xfflo\"}", OutcomeExecuted, false},
		{"escaped NUL inside a string value", "get_weather", `{"city":"Oslo\u0000"}`, OutcomeExecuted, false},
		// A raw control character inside a string is repaired (escaped), and
		// bytes after the one object are cut, as for any trailing text.
		{"raw NUL inside a string value", "get_weather", "{\"city\":\"Oslo\x00\"}", OutcomeExecuted, false},
		{"raw NUL after the object", "get_weather", "{\"city\":\"Oslo\"}\x00", OutcomeExecuted, false},
		{"only invalid bytes", "get_weather", "\xff\xfe\xfd", OutcomeFeedback, true},
		{"invalid UTF-8 as a key", "get_weather", "{\"ci\xfety\":\"Oslo\"}", OutcomeFeedback, true},
		{"NUL in the tool name", "get_weather\x00", `{"city":"Oslo"}`, OutcomeUnknownTool, true},
		{"invalid UTF-8 in the tool name", "get_\xffweather", `{"city":"Oslo"}`, OutcomeUnknownTool, true},
		{"only a NUL as the tool name", "\x00", `{"city":"Oslo"}`, OutcomeUnknownTool, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, calls := countingWeather()
			n := mustNode(t, []tools.Tool{weather})
			rep, resp := runOne(t, n, tc("c1", tt.tool, tt.args))
			if rep.Outcome != tt.want || rep.IsError != tt.wantErr {
				t.Fatalf("outcome %q (error %v), want %q (error %v): %q", rep.Outcome, rep.IsError, tt.want, tt.wantErr, resp.Content)
			}
			if wantRuns := map[bool]int64{false: 1, true: 0}[tt.wantErr]; calls.Load() != wantRuns {
				t.Fatalf("the tool ran %d times, want %d", calls.Load(), wantRuns)
			}
			if tt.wantErr && (!utf8.ValidString(resp.Content) || strings.ContainsRune(resp.Content, 0)) {
				t.Errorf("error message is not clean text: %q", resp.Content)
			}
			if resp.ToolCallID != "c1" || resp.Name != tt.tool {
				t.Errorf("response answers id %q name %q, want the call's own", resp.ToolCallID, resp.Name)
			}
		})
	}
}

func TestSchemaWithRefCycleNeverHangs(t *testing.T) {
	tests := []struct {
		name, schema, args string
	}{
		{"root refers to itself", `{"type":"object","$ref":"#"}`, `{"city":"Oslo"}`},
		{"two definitions refer to each other",
			`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
			`{"x":1}`},
		{"allOf loops back to the root", `{"type":"object","allOf":[{"$ref":"#"}]}`, `{}`},
		{"anyOf through definitions",
			`{"$ref":"#/$defs/a","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
			`{}`},
		{"recursion through properties (a tree)",
			`{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#"}},"additionalProperties":false}`,
			`{"name":"a","child":` + nested(`{"name":"b","child":`, `{"name":"leaf"}`, "}", 500, true) + `}`},
		{"recursion through items",
			`{"type":"object","properties":{"list":{"$ref":"#/$defs/l"}},"$defs":{"l":{"type":"array","items":{"$ref":"#/$defs/l"}}}}`,
			`{"list":` + nested("[", "", "]", 500, true) + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Int64
			tool := ToolWithSchema(plainTool{name: "t", fn: func(context.Context, string) (string, error) {
				ran.Add(1)
				return "ok", nil
			}}, tt.schema)
			withinHangTimeout(t, "NewToolNode and Run", func() {
				n, err := NewToolNode([]tools.Tool{tool})
				if err != nil {
					if !errors.Is(err, ErrInvalidConfig) {
						t.Errorf("NewToolNode error %v does not wrap ErrInvalidConfig", err)
					}
					return
				}
				n.Definitions()
				for _, args := range []string{tt.args, `{"unexpected": [1, {"a": null}]}`, `[]`} {
					rep, resp := runOne(t, n, tc("c1", "t", args))
					if rep.Outcome != OutcomeExecuted && rep.Outcome != OutcomeFeedback {
						t.Errorf("args %.40q: outcome %q", args, rep.Outcome)
					}
					if rep.Outcome == OutcomeFeedback && len(resp.Content) > maxFeedbackBytes {
						t.Errorf("args %.40q: feedback of %d bytes", args, len(resp.Content))
					}
				}
				if ran.Load() == 0 {
					t.Errorf("a schema that compiled accepted none of the calls, not even %.40q", tt.args)
				}
			})
		})
	}
}

func TestTenThousandCallsAreAllAnsweredInOrder(t *testing.T) {
	const count = 10_000
	for _, opts := range [][]Option{nil, {WithMaxConcurrency(16)}} {
		t.Run(fmt.Sprintf("options=%d", len(opts)), func(t *testing.T) {
			weather, runs := countingWeather()
			n := mustNode(t, []tools.Tool{weather}, opts...)
			parts := make([]llms.ContentPart, count)
			valid := 0
			for i := range parts {
				args := fmt.Sprintf(`{"city":"C%d","days":%d}`, i, 1+i%14)
				if i%10 == 9 {
					args = fmt.Sprintf(`{"city":"C%d","days":"%d"}`, i, i) // invalid: a string
				} else {
					valid++
				}
				parts[i] = tc(fmt.Sprintf("call_%d", i), "get_weather", args)
			}
			res, err := n.Run(context.Background(), conversation(parts...))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ToolMessages) != count || len(res.Calls) != count {
				t.Fatalf("%d tool messages and %d reports, want %d", len(res.ToolMessages), len(res.Calls), count)
			}
			for i, m := range res.ToolMessages {
				r := response(t, m)
				if want := fmt.Sprintf("call_%d", i); r.ToolCallID != want || res.Calls[i].Index != i {
					t.Fatalf("message %d answers %q (report index %d), want %q", i, r.ToolCallID, res.Calls[i].Index, want)
				}
				if i%10 == 9 {
					if res.Calls[i].Outcome != OutcomeFeedback {
						t.Fatalf("call %d: outcome %q, want feedback", i, res.Calls[i].Outcome)
					}
				} else if want := fmt.Sprintf("C%d: sunny for %d days", i, 1+i%14); r.Content != want {
					t.Fatalf("call %d answered %q, want %q", i, r.Content, want)
				}
			}
			if runs.Load() != int64(valid) {
				t.Fatalf("the tool ran %d times, want %d", runs.Load(), valid)
			}
		})
	}
}

func TestDuplicateAndEmptyIDs(t *testing.T) {
	weather, runs := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	ids := []string{"a", "", "a", "", "b", "a"}
	var parts []llms.ContentPart
	for i, id := range ids {
		parts = append(parts, tc(id, "get_weather", fmt.Sprintf(`{"city":"C%d"}`, i)))
	}
	res, err := n.Run(context.Background(), conversation(parts...))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcomes := []Outcome{OutcomeExecuted, OutcomeExecuted, OutcomeDropped, OutcomeExecuted, OutcomeExecuted, OutcomeDropped}
	wantAnswers := []string{"a:C0", ":C1", ":C3", "b:C4"}
	for i, rep := range res.Calls {
		if rep.Outcome != wantOutcomes[i] || rep.ID != ids[i] {
			t.Errorf("call %d (id %q): outcome %q, want %q", i, rep.ID, rep.Outcome, wantOutcomes[i])
		}
	}
	var got []string
	for _, m := range res.ToolMessages {
		r := response(t, m)
		got = append(got, r.ToolCallID+":"+strings.TrimSuffix(r.Content, ": sunny for 0 days"))
	}
	if strings.Join(got, " ") != strings.Join(wantAnswers, " ") {
		t.Fatalf("answers %q, want %q", got, wantAnswers)
	}
	if runs.Load() != 4 {
		t.Fatalf("the tool ran %d times, want 4", runs.Load())
	}
}

func TestToolNamesDifferingInCase(t *testing.T) {
	var lower, upper atomic.Int64
	mk := func(name string, n *atomic.Int64) tools.Tool {
		return plainTool{name: name, fn: func(context.Context, string) (string, error) {
			n.Add(1)
			return name, nil
		}}
	}
	n := mustNode(t, []tools.Tool{mk("search", &lower), mk("Search", &upper)})
	res, err := n.Run(context.Background(), conversation(
		tc("1", "Search", `{}`), tc("2", "search", `{}`), tc("3", "SEARCH", `{}`), tc("4", "Search", `{}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	wantContent := []string{"Search", "search", "", "Search"}
	for i, m := range res.ToolMessages {
		r := response(t, m)
		if i == 2 {
			if !res.Calls[i].IsError || !strings.Contains(r.Content, "SEARCH is not a valid tool") {
				t.Errorf("call SEARCH answered %q (error %v), want an unknown-tool error", r.Content, res.Calls[i].IsError)
			}
			continue
		}
		if r.Content != wantContent[i] {
			t.Errorf("call %d answered by %q, want %q", i, r.Content, wantContent[i])
		}
	}
	if lower.Load() != 1 || upper.Load() != 2 {
		t.Fatalf("search ran %d times, Search %d; want 1 and 2", lower.Load(), upper.Load())
	}
}

func TestNilFunctionCallAndNilToolCallPointer(t *testing.T) {
	weather, runs := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	var nilPtr *llms.ToolCall
	msgs := conversation(
		llms.ToolCall{ID: "nofunc", Type: "function"},
		nilPtr,
		&llms.ToolCall{ID: "ptr-nofunc"},
		tc("ok", "get_weather", `{"city":"Oslo"}`),
		llms.TextContent{Text: "and some text"},
	)
	out, err := n.Invoke(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	// The nil pointer has no id to answer: it is skipped. Every other call is answered.
	if len(out) != len(msgs)+3 || len(res.ToolMessages) != 3 || len(res.Calls) != 3 {
		t.Fatalf("%d messages out, %d tool messages, %d reports; want %d, 3, 3", len(out), len(res.ToolMessages), len(res.Calls), len(msgs)+3)
	}
	for i, want := range []struct {
		id      string
		outcome Outcome
	}{{"nofunc", OutcomeFeedback}, {"ptr-nofunc", OutcomeFeedback}, {"ok", OutcomeExecuted}} {
		r := response(t, res.ToolMessages[i])
		if r.ToolCallID != want.id || res.Calls[i].Outcome != want.outcome {
			t.Errorf("message %d answers %q with outcome %q, want %q %q", i, r.ToolCallID, res.Calls[i].Outcome, want.id, want.outcome)
		}
	}
	if runs.Load() != 2 { // once per Invoke and Run
		t.Fatalf("the tool ran %d times, want 2", runs.Load())
	}
	// The sanitized AI message gives every call a FunctionCall, so that
	// provider clients that dereference it do not panic.
	for i, p := range res.AIMessage.Parts {
		switch x := p.(type) {
		case llms.ToolCall:
			if x.FunctionCall == nil {
				t.Errorf("sanitized part %d has a nil FunctionCall", i)
			}
		case *llms.ToolCall:
			if x != nil && x.FunctionCall == nil {
				t.Errorf("sanitized part %d has a nil FunctionCall", i)
			}
		}
	}
}

func TestToolThatPanics(t *testing.T) {
	panicky := plainTool{name: "boom", fn: func(context.Context, string) (string, error) { panic("kaboom") }}
	weather, runs := countingWeather()
	msgs := conversation(tc("1", "get_weather", `{"city":"Oslo"}`), tc("2", "boom", `{}`), tc("3", "get_weather", `{"city":"Rome"}`))

	n := mustNode(t, []tools.Tool{weather, panicky})
	_, err := n.Run(context.Background(), msgs)
	var te *ToolError
	var pe *PanicError
	if !errors.As(err, &te) || !errors.As(err, &pe) || te.CallID != "2" || pe.Value != "kaboom" || len(pe.Stack) == 0 {
		t.Fatalf("Run = %v, want a *ToolError for call 2 wrapping a *PanicError with a stack", err)
	}

	n = mustNode(t, []tools.Tool{weather, panicky}, WithHandleToolErrors(true))
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if r := response(t, res.ToolMessages[1]); r.Content != "Error: panic: kaboom" || !res.Calls[1].IsError {
		t.Fatalf("the panic was answered %q (error %v)", r.Content, res.Calls[1].IsError)
	}
	if len(res.ToolMessages) != 3 || runs.Load() < 2 {
		t.Fatalf("%d tool messages, weather ran %d times", len(res.ToolMessages), runs.Load())
	}
}

func TestHugeToolOutputIsAnsweredUnchanged(t *testing.T) {
	big := strings.Repeat("0123456789", 1<<20) // 10 MB
	tool := plainTool{name: "dump", fn: func(context.Context, string) (string, error) { return big, nil }}
	n := mustNode(t, []tools.Tool{tool})
	rep, resp := runOne(t, n, tc("1", "dump", `{}`))
	if rep.Outcome != OutcomeExecuted || rep.IsError || resp.Content != big || rep.Output != big {
		t.Fatalf("outcome %q (error %v), %d bytes answered; want the %d bytes unchanged", rep.Outcome, rep.IsError, len(resp.Content), len(big))
	}
}

// blockingTool blocks until its ctx is done, after signalling started.
func blockingTool(name string, started chan<- string) tools.Tool {
	return plainTool{name: name, fn: func(ctx context.Context, in string) (string, error) {
		started <- in
		<-ctx.Done()
		return "", ctx.Err()
	}}
}

// invokeAndCancel runs Invoke on msgs, cancels its ctx once ready returns,
// and fails unless Invoke returns promptly with context.Canceled and no
// messages.
func invokeAndCancel(t *testing.T, n *ToolNode, msgs []llms.MessageContent, ready func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		out []llms.MessageContent
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := n.Invoke(ctx, msgs)
		done <- result{out, err}
	}()
	ready()
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(hangTimeout):
		t.Fatal("Run did not return after cancel")
	}
	if !errors.Is(r.err, context.Canceled) || r.out != nil {
		t.Fatalf("Invoke = %d messages, %v; want nil, context.Canceled", len(r.out), r.err)
	}
}

func TestCancellationMidExecution(t *testing.T) {
	for _, handle := range []bool{false, true} {
		t.Run(fmt.Sprintf("handleToolErrors=%v", handle), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			started := make(chan string, 4)
			weather, _ := countingWeather()
			n := mustNode(t, []tools.Tool{weather, blockingTool("wait", started)}, WithHandleToolErrors(handle))
			invokeAndCancel(t, n, conversation(
				tc("1", "get_weather", `{"city":"Oslo"}`), tc("2", "wait", "a"), tc("3", "wait", "b"),
			), func() { <-started; <-started })
		})
	}
}

func TestCancellationMidCorrection(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{}, 4)
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		started <- struct{}{}
		return saidextest.Delay(time.Hour, saidextest.ForcedToolCall(`{"city":"Paris","days":3}`))(ctx, req)
	})
	rec := &cxRecorder{}
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(model))
	invokeAndCancel(t, n, cxConversation(
		cxCall("c1", "forecast", `{"city":"Oslo","days":2}`), // valid: would run after correction
		cxCall("c2", "forecast", `{"city":"Paris","days":"3"}`),
		cxCall("c3", "forecast", `{"city":"Rome","days":"two"}`),
	), func() { <-started; <-started })
	if got := rec.ran(); len(got) != 0 {
		t.Fatalf("the tool ran after cancellation with %+v", got)
	}
}

// A deadline that expires while a tool blocks ends the run the same way.
func TestDeadlineMidExecution(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan string, 1)
	n := mustNode(t, []tools.Tool{blockingTool("wait", started)})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := n.Run(ctx, conversation(tc("1", "wait", "x")))
	if !errors.Is(err, context.DeadlineExceeded) || res != nil {
		t.Fatalf("Run = %v, %v; want nil, context.DeadlineExceeded", res, err)
	}
}

func TestHugeUnknownToolNameIsNotEchoed(t *testing.T) {
	weather, runs := countingWeather()
	n := mustNode(t, []tools.Tool{weather})
	name := strings.Repeat("get_weather", 1<<20)
	rep, resp := runOne(t, n, tc("c1", name, `{"city":"Oslo"}`))
	if !rep.IsError || runs.Load() != 0 {
		t.Fatalf("outcome %q (error %v), tool ran %d times; want an unknown-tool error", rep.Outcome, rep.IsError, runs.Load())
	}
	if len(resp.Content) > maxFeedbackBytes || !strings.Contains(resp.Content, "is not a valid tool") {
		t.Fatalf("answered with %d bytes: %.300q", len(resp.Content), resp.Content)
	}
}

// Calls that run one at a time (a single call, or WithMaxConcurrency(1))
// run on the caller's goroutine: the same contract as concurrent calls.
func TestSequentialExecutionContract(t *testing.T) {
	type key struct{}
	errDown := errors.New("down")
	var order []string // written by one goroutine at a time: calls run sequentially here
	mk := func(name string, fail bool) tools.Tool {
		return plainTool{name: name, fn: func(ctx context.Context, in string) (string, error) {
			info, ok := CallFromContext(ctx)
			if !ok || info.Name != name || ctx.Value(key{}) != "caller" || len(info.Messages) != 2 {
				return "", fmt.Errorf("tool context: info %+v (%v), caller value %v", info, ok, ctx.Value(key{}))
			}
			order = append(order, info.ID)
			if fail {
				return "", errDown
			}
			return "ok " + info.ID, nil
		}}
	}
	ctx := context.WithValue(context.Background(), key{}, "caller")
	ts := []tools.Tool{mk("a", false), mk("fail", true)}

	n := mustNode(t, ts)
	res, err := n.Run(ctx, conversation(tc("1", "a", "x")))
	if err != nil || response(t, res.ToolMessages[0]).Content != "ok 1" {
		t.Fatalf("single call: %v", err)
	}

	order = nil
	n = mustNode(t, ts, WithMaxConcurrency(1))
	_, err = n.Run(ctx, conversation(tc("1", "a", "x"), tc("2", "fail", "x"), tc("3", "a", "x")))
	var te *ToolError
	if !errors.As(err, &te) || te.CallID != "2" || !errors.Is(err, errDown) {
		t.Fatalf("Run = %v, want the *ToolError of call 2", err)
	}
	if strings.Join(order, ",") != "1,2" {
		t.Fatalf("calls ran in order %q, want 1,2 and nothing after the failure", order)
	}

	order = nil
	n = mustNode(t, ts, WithMaxConcurrency(1), WithHandleToolErrors(true))
	res, err = n.Run(ctx, conversation(tc("1", "a", "x"), tc("2", "fail", "x"), tc("3", "a", "x")))
	if err != nil || len(res.ToolMessages) != 3 || strings.Join(order, ",") != "1,2,3" {
		t.Fatalf("Run = %v, order %q; want all three answered in order", err, order)
	}
	if got := response(t, res.ToolMessages[1]).Content; got != "Error: down" {
		t.Fatalf("the failure was answered %q", got)
	}
}

// The tests of issue 24's bounds: none times anything; they count bytes
// allocated, issues, values and bytes written.

// runCall runs a conversation of one call and returns its report and the
// content of its tool message.
func runCall(t *testing.T, n *ToolNode, call llms.ToolCall) (CallReport, string) {
	t.Helper()
	res, err := n.Run(context.Background(), conversation(call))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolMessages) != 1 {
		t.Fatalf("%d tool messages, want 1", len(res.ToolMessages))
	}
	return res.Calls[0], response(t, res.ToolMessages[0]).Content
}

// A chain of santhosh-tekuri errors as deep as a nested value, each level
// a grouping error (as $ref and properties give) over the next, costs the
// mapper the same bytes per level at depth 8,000 as at 1,000: it formats
// no pointer and copies no issue per level. It formatted one pointer per
// level, so its bytes grew with the square of the depth.
func TestIssueMappingIsLinearInTheDepthOfTheErrorTree(t *testing.T) {
	chain := func(depth int) *jsonschema.ValidationError {
		loc := make([]string, depth) // shared by every level, as no copy is made here
		for i := range loc {
			loc[i] = "c"
		}
		e := &jsonschema.ValidationError{InstanceLocation: loc, ErrorKind: &kind.Type{Got: "string", Want: []string{"integer"}}}
		for d := depth - 1; d >= 0; d-- {
			e = &jsonschema.ValidationError{InstanceLocation: loc[:d], ErrorKind: &kind.Schema{}, Causes: []*jsonschema.ValidationError{e}}
		}
		return e
	}
	m := &issueMapper{s: mustCompile(t, recursiveSchema)}
	bytesAt := func(depth int) uint64 {
		e := chain(depth)
		var out []found
		b := allocatedBy(func() { m.collect(e, &out) })
		if len(out) != 1 || out[0].depth != depth || out[0].Kind != IssueType {
			t.Fatalf("depth %d: %.200v", depth, out)
		}
		return b
	}
	small, big := bytesAt(1000), bytesAt(8000)
	if big > 16*small {
		t.Errorf("mapping an error tree 8,000 deep allocates %d bytes, %.1f× the %d at 1,000 deep: not linear", big, float64(big)/float64(small), small)
	}
}

// A value nested deeper than 1,000 levels that fails validation gets one
// issue at the root, before the full validator runs: what a failing call
// allocates grows with the depth, not with its square (santhosh-tekuri's
// error tree copies each level's location). A deep valid value still runs:
// the precheck accepts it on its text.
func TestDeepValuesCostLinearly(t *testing.T) {
	var ran int
	tool := ToolWithSchema(plainTool{name: "tree", fn: func(context.Context, string) (string, error) { ran++; return "ok", nil }}, recursiveSchema)
	n := mustNode(t, []tools.Tool{tool}, WithLogger(sanDiscard))

	rep, msg := runCall(t, n, tc("c1", "tree", deepArguments(999)))
	if rep.Outcome != OutcomeFeedback || len(rep.Issues) != 1 || rep.Issues[0].Kind != IssueType || strings.Count(rep.Issues[0].Path, "/") != 1000 || len(msg) > maxToolMessageBytes {
		t.Fatalf("1,000 levels: %s %.200v", rep.Outcome, rep.Issues)
	}
	rep, msg = runCall(t, n, tc("c1", "tree", deepArguments(4000)))
	if rep.Outcome != OutcomeFeedback || len(rep.Issues) != 1 || rep.Issues[0].Path != "" || !strings.Contains(msg, "nested deeper than 1000 levels") {
		t.Fatalf("4,000 levels: %s %.200v\n%.300s", rep.Outcome, rep.Issues, msg)
	}
	valid := strings.Repeat(`{"c":`, 5000) + `{"v":1}` + strings.Repeat(`}`, 5000)
	if rep, _ = runCall(t, n, tc("c1", "tree", valid)); rep.Outcome != OutcomeExecuted || ran != 1 {
		t.Fatalf("a valid value 5,000 deep: %s, ran %d", rep.Outcome, ran)
	}

	bytesAt := func(depth int) uint64 {
		msgs := conversation(tc("c1", "tree", deepArguments(depth)))
		return allocatedBy(func() {
			if res, err := n.Run(context.Background(), msgs); err != nil || res.Calls[0].Outcome != OutcomeFeedback {
				t.Fatal(err)
			}
		})
	}
	small, big := bytesAt(2000), bytesAt(8000)
	if big > 8*small {
		t.Errorf("a failing value 8,000 deep allocates %d bytes, %.1f× the %d at 2,000 deep: not linear", big, float64(big)/float64(small), small)
	}
}

// A call keeps at most 50 issues, the first in path order, and its
// feedback and the hook's error say how many more there were.
func TestIssuesAreCappedPerCall(t *testing.T) {
	schema := `{"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}}`
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "nums"}, schema)}, WithLogger(sanDiscard))
	items := make([]string, 2000)
	for i := range items {
		items[i] = `"x"`
	}
	rep, msg := runCall(t, n, tc("c1", "nums", `{"xs": [`+strings.Join(items, ",")+`]}`))
	if len(rep.Issues) != maxIssues || rep.Issues[0].Path != "/xs/0" || rep.Issues[maxIssues-1].Path != fmt.Sprintf("/xs/%d", maxIssues-1) {
		t.Fatalf("%d issues, first %+v", len(rep.Issues), rep.Issues[0])
	}
	if !strings.Contains(msg, "- and 1950 more issues, not listed") || strings.Count(msg, "\n- ") != maxIssues+1 {
		t.Errorf("feedback:\n%s", msg)
	}

	var hookErr string
	raising := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "nums"}, schema)}, WithLogger(sanDiscard),
		WithOnUnresolved(UnresolvedRaise))
	_, err := raising.Run(context.Background(), conversation(tc("c1", "nums", `{"xs": [`+strings.Join(items, ",")+`]}`)))
	if err != nil {
		hookErr = err.Error()
	}
	var ve *ToolCallValidationError
	if !errors.As(err, &ve) || !strings.HasSuffix(hookErr, "and 1950 more") {
		t.Errorf("raised error: %.200q", hookErr)
	}
}

// One value outside an enum of 100,000 gets a message naming the 10
// allowed values closest to it, closest first, and how many more: not the
// 1.6 MB of every value.
func TestFeedbackNamesTheClosestAllowedValues(t *testing.T) {
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, enumSchema(100000))}, WithLogger(sanDiscard))
	rep, msg := runCall(t, n, tc("c1", "pick", `{"pick": "value-00012x"}`))
	want := `must be one of "value-000120", "value-000121", "value-000122", "value-000123", "value-000124", "value-000125", "value-000126", "value-000127", "value-000128", "value-000129", and 99990 more`
	if len(rep.Issues) != 1 || rep.Issues[0].Message != want || len(rep.Issues[0].Allowed) != 100000 {
		t.Fatalf("issues %.300v", rep.Issues)
	}
	if len(msg) > 1024 {
		t.Errorf("feedback is %d bytes", len(msg))
	}
	// Small enums are listed whole, as before.
	_, small := runCall(t, mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, enumSchema(10))}), tc("c1", "pick", `{"pick": "no"}`))
	if !strings.Contains(small, `"value-000000", "value-000001"`) || !strings.Contains(small, `"value-000009"`) || strings.Contains(small, "more") {
		t.Errorf("an enum of 10 values:\n%s", small)
	}
	// A missing member of a large enum lists the first values in schema order.
	_, missing := runCall(t, n, tc("c1", "pick", `{}`))
	if !strings.Contains(missing, `one of "value-000000", "value-000001"`) || !strings.Contains(missing, "and 99990 more") {
		t.Errorf("a missing member:\n%s", missing)
	}
}

// An unknown tool on a node of up to 20 tools gets the list of every tool,
// as always; on a larger node, the 5 closest names and the count.
func TestUnknownToolAnswers(t *testing.T) {
	tests := []struct {
		tools int
		call  string
		want  string
	}{
		{2, "tool_00012x", "Error: tool_00012x is not a valid tool, try one of [tool_000000, tool_000001]."},
		{20, "x", "Error: x is not a valid tool, try one of [" + strings.Join(toolNamesUpTo(20), ", ") + "]."},
		{21, "tool_00001", "Error: tool_00001 is not a valid tool; did you mean one of [tool_000001, tool_000010, tool_000011, tool_000012, tool_000013]? (21 tools are available; these are the closest by name.)"},
		{10000, "tool_00012x", "Error: tool_00012x is not a valid tool; did you mean one of [tool_000120, tool_000121, tool_000122, tool_000123, tool_000124]? (10000 tools are available; these are the closest by name.)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tools), func(t *testing.T) {
			rep, msg := runCall(t, mustNode(t, manyTools(tt.tools), WithLogger(sanDiscard)), tc("c1", tt.call, `{}`))
			if rep.Outcome != OutcomeUnknownTool || msg != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", rep.Outcome, msg, tt.want)
			}
		})
	}
}

func toolNamesUpTo(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tool_%06d", i)
	}
	return out
}

func TestBoundMessage(t *testing.T) {
	lines := strings.Repeat("- a line of feedback that says what to change\n", 400)
	for _, tt := range []struct {
		name, in  string
		cutAtLine bool
		last      string // the last line, kept after the marker
	}{
		{"short text is unchanged", "Error: x", false, ""},
		{"exactly the bound", strings.Repeat("a", maxToolMessageBytes), false, ""},
		{"lines are cut at a line break", lines, true, ""},
		{"one long line of multibyte runes", strings.Repeat("é€😀", 5000), false, ""},
		{"feedback keeps its last line", lines + "Call t again with these fields corrected.", true, "\nCall t again with these fields corrected."},
		{"a long last line is not kept", lines + strings.Repeat("x", maxKeptLastLine), true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := boundMessage(tt.in)
			if len(tt.in) <= maxToolMessageBytes {
				if got != tt.in {
					t.Fatalf("changed a text within the bound")
				}
				return
			}
			body, marker, ok := strings.Cut(got, "\n[… message cut: ")
			marker, ok2 := strings.CutSuffix(marker, tt.last)
			if len(got) > maxToolMessageBytes || !ok || !ok2 || !utf8.ValidString(got) || !strings.HasPrefix(tt.in, body) {
				t.Fatalf("%d bytes, marker %v, valid %v:\n…%s", len(got), ok, utf8.ValidString(got), got[max(0, len(got)-200):])
			}
			if wantMarker := fmt.Sprintf("%d bytes, the first %d shown]", len(tt.in), len(body)); marker != wantMarker {
				t.Errorf("marker %q, want %q", marker, wantMarker)
			}
			if tt.cutAtLine && !strings.HasSuffix(body, "change") {
				t.Errorf("not cut at a line break: …%q", body[len(body)-40:])
			}
			if len(body) < maxToolMessageBytes/2 {
				t.Errorf("kept only %d bytes", len(body))
			}
		})
	}
}

// Every tool message the node writes is at most 8 KiB: feedback listing
// long field names, and the text of a tool error it reports.
func TestToolMessagesTheNodeWritesAreBounded(t *testing.T) {
	props := map[string]any{}
	var required []any
	for i := range 40 {
		name := fmt.Sprintf("%03d_%s", i, strings.Repeat("n", 400))
		props[name] = map[string]any{"type": "string"}
		required = append(required, name)
	}
	schema := map[string]any{"type": "object", "properties": props, "required": required}
	huge := errors.New(strings.Repeat("stack frame\n", 100000))
	failing := ToolWithSchema(plainTool{name: "fails", fn: func(context.Context, string) (string, error) { return "", huge }}, map[string]any{"type": "object"})
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "long"}, schema), failing}, WithHandleToolErrors(true), WithLogger(sanDiscard))
	for _, call := range []llms.ToolCall{tc("c1", "long", `{}`), tc("c1", "long", `{"a": `), tc("c1", "fails", `{}`)} {
		rep, msg := runCall(t, n, call)
		if !rep.IsError || len(msg) > maxToolMessageBytes || !strings.Contains(msg, "[… message cut: ") {
			t.Errorf("%s %s: %s, %d bytes", call.FunctionCall.Name, call.FunctionCall.Arguments, rep.Outcome, len(msg))
		}
	}
}

// The closest values to a secret value sent are not named: the enum is
// listed in schema order.
func TestFeedbackDoesNotRankValuesBySecretValues(t *testing.T) {
	for _, mark := range []map[string]any{{"writeOnly": true}, {"format": "password"}} {
		schema := enumSchema(100)
		pick := schema["properties"].(map[string]any)["pick"].(map[string]any)
		for k, v := range mark {
			pick[k] = v
		}
		rep, _ := runCall(t, mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, schema)}, WithLogger(sanDiscard)), tc("c1", "pick", `{"pick": "value-00012x"}`))
		if len(rep.Issues) != 1 || !strings.HasPrefix(rep.Issues[0].Message, `must be one of "value-000000", "value-000001"`) {
			t.Errorf("%v: %.200v", mark, rep.Issues)
		}
	}
}

// typedLocations.covers answers as a scan of every location does, for
// pointers whose tokens sort around the separator ("a-b", "a.b" before and
// "a0" after "a/"), repeat, nest and are numbers.
func TestTypedLocationsCoverAsAScanDoes(t *testing.T) {
	scan := func(path string, locs []string) bool {
		for _, l := range locs {
			if path == l || strings.HasPrefix(path, l+"/") {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(24, 2))
	toks := []string{"a", "a-b", "a.b", "a0", "ab", "0", "1", "10", "2", "~1", ""}
	pointer := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString("/" + toks[rng.IntN(len(toks))])
		}
		return b.String()
	}
	for i := range 20000 {
		locs := make([]string, rng.IntN(6))
		for j := range locs {
			locs[j] = pointer()
		}
		typed := newTypedLocations(locs)
		for range 5 {
			p := pointer()
			if got, want := typed.covers(p), scan(p, locs); got != want {
				t.Fatalf("case %d: covers(%q) = %v over %q (kept %q), want %v", i, p, got, locs, typed, want)
			}
		}
	}
}

// Many values outside a large enum cost the enum's length once per issue a
// call keeps, not once per issue: 1,000 items against an enum of 5,000
// values allocate not much more than 100 items do. Each issue copied the
// enum into its Allowed and listed it in its message.
func TestManyIssuesAgainstALargeEnumCostLinearly(t *testing.T) {
	vals := make([]any, 5000)
	for i := range vals {
		vals[i] = fmt.Sprintf("value-%06d", i)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"xs": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": vals}}}}
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "picks"}, schema)}, WithLogger(sanDiscard))
	bytesAt := func(items int) uint64 {
		xs := make([]string, items)
		for i := range xs {
			xs[i] = fmt.Sprintf(`"value-%05dx"`, i)
		}
		msgs := conversation(tc("c1", "picks", `{"xs": [`+strings.Join(xs, ",")+`]}`))
		return allocatedBy(func() {
			res, err := n.Run(context.Background(), msgs)
			if err != nil || len(res.Calls[0].Issues) != min(items, maxIssues) || len(res.Calls[0].Issues[0].Allowed) != len(vals) {
				t.Fatal(err)
			}
		})
	}
	small, big := bytesAt(100), bytesAt(1000)
	if big > 3*small {
		t.Errorf("1,000 issues against an enum of 5,000 allocate %d bytes, %.1f× the %d of 100", big, float64(big)/float64(small), small)
	}
}
