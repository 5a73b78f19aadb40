package saidex

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// matchResponsesByScan is the reference for matchResponses: for each call
// in order, a scan of every response for the first one not yet taken that
// answers it (quadratic; matchResponses indexes the responses instead).
func matchResponsesByScan(ai llms.MessageContent, after []llms.MessageContent) []int {
	type response struct {
		msg  int
		r    llms.ToolCallResponse
		used bool
	}
	answers := func(r llms.ToolCallResponse, tc llms.ToolCall) bool {
		if r.ToolCallID != tc.ID {
			return false
		}
		if tc.ID != "" {
			return true
		}
		name := ""
		if tc.FunctionCall != nil {
			name = tc.FunctionCall.Name
		}
		return r.Name == name
	}
	var rs []response
	for i, m := range after {
		if m.Role != llms.ChatMessageTypeTool {
			continue
		}
		for _, p := range m.Parts {
			switch r := p.(type) {
			case llms.ToolCallResponse:
				rs = append(rs, response{msg: i, r: r})
			case *llms.ToolCallResponse:
				if r != nil {
					rs = append(rs, response{msg: i, r: *r})
				}
			}
		}
	}
	calls := toolCallsOf(ai)
	out := make([]int, len(calls))
	seen := map[string]bool{}
	for k, tc := range calls {
		out[k] = -1
		if tc.ID != "" {
			if seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
		}
		for j := range rs {
			if r := &rs[j]; !r.used && answers(r.r, tc) {
				r.used, out[k] = true, r.msg
				break
			}
		}
	}
	return out
}

// Each call takes the first response not yet taken that answers it: by id,
// or, without id, by tool name; a repeated id is never answered; responses
// are found in any part of any tool message, by value or by pointer, and
// other messages are skipped.
func TestMatchResponses(t *testing.T) {
	ai := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
	}
	ans := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts}
	}
	r := func(id, name string) llms.ToolCallResponse { return llms.ToolCallResponse{ToolCallID: id, Name: name} }
	rp := func(id, name string) *llms.ToolCallResponse { x := r(id, name); return &x }
	noFunc := llms.ToolCall{ID: ""}
	tests := []struct {
		name  string
		ai    llms.MessageContent
		after []llms.MessageContent
		want  []int
	}{
		{"by id, in any order", ai(tc("a", "f", ""), tc("b", "f", "")), []llms.MessageContent{ans(r("b", "f")), ans(r("a", "f"))}, []int{1, 0}},
		{"an id answers whatever the name", ai(tc("a", "f", "")), []llms.MessageContent{ans(r("a", "other"))}, []int{0}},
		{"a repeated id is never answered", ai(tc("a", "f", ""), tc("a", "f", "")), []llms.MessageContent{ans(r("a", "f")), ans(r("a", "f"))}, []int{0, -1}},
		{"without id, by name, in order", ai(tc("", "h", ""), tc("", "g", ""), tc("", "h", "")),
			[]llms.MessageContent{ans(r("", "h")), ans(r("", "g")), ans(r("", "h"))}, []int{0, 1, 2}},
		{"a response without id does not answer a call with one", ai(tc("a", "h", "")), []llms.MessageContent{ans(r("", "h"))}, []int{-1}},
		{"a response with an id does not answer a call without", ai(tc("", "h", "")), []llms.MessageContent{ans(r("x", "h"))}, []int{-1}},
		{"a call without function matches a response without id or name", ai(noFunc), []llms.MessageContent{ans(r("", "f")), ans(r("", ""))}, []int{1}},
		{"parts of one message, by pointer, nil pointers skipped", ai(tc("a", "f", ""), tc("b", "f", "")),
			[]llms.MessageContent{ans((*llms.ToolCallResponse)(nil), rp("b", "f"), r("a", "f"))}, []int{0, 0}},
		{"non-tool messages are skipped", ai(tc("a", "f", "")),
			[]llms.MessageContent{{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{r("a", "f")}}, ans(r("a", "f"))}, []int{1}},
		{"more responses than calls", ai(tc("", "h", "")), []llms.MessageContent{ans(r("", "h")), ans(r("", "h"))}, []int{0}},
		{"no responses", ai(tc("a", "f", ""), llms.TextPart("x")), nil, []int{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchResponses(tt.ai, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("matchResponses = %v, want %v", got, tt.want)
			}
			if got := matchResponsesByScan(tt.ai, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("the reference = %v, want %v", got, tt.want)
			}
		})
	}
}

// matchResponses agrees with the scan on random messages: ids drawn from a
// few (so they repeat), empty ids, a few names, responses spread over
// messages by value and by pointer.
func TestMatchResponsesAgreesWithTheScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := range 5000 {
		var parts []llms.ContentPart
		for range rng.IntN(8) {
			if rng.IntN(6) == 0 {
				parts = append(parts, llms.TextPart("t"))
				continue
			}
			parts = append(parts, tc(pick("", "", "a", "b", "c"), pick("f", "g"), "{}"))
		}
		var after []llms.MessageContent
		for range rng.IntN(8) {
			m := llms.MessageContent{Role: llms.ChatMessageTypeTool}
			if rng.IntN(8) == 0 {
				m.Role = llms.ChatMessageTypeHuman
			}
			for range 1 + rng.IntN(2) {
				resp := llms.ToolCallResponse{ToolCallID: pick("", "", "a", "b", "c", "d"), Name: pick("f", "g")}
				if rng.IntN(2) == 0 {
					m.Parts = append(m.Parts, &resp)
				} else {
					m.Parts = append(m.Parts, resp)
				}
			}
			after = append(after, m)
		}
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
		if got, want := matchResponses(ai, after), matchResponsesByScan(ai, after); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: matchResponses = %v, the scan = %v\nai %+v\nafter %+v", i, got, want, ai, after)
		}
	}
}

// Matching examines at most one response per call, however many calls
// and responses there are: a scan of the responses for each call (as
// matchResponsesByScan does) examines a number that grows with the square
// of the calls, which made a message of 10,000 calls, half of them
// answered, 40 times as slow as one of 1,000.
func TestMatchResponsesExaminesOneResponsePerCall(t *testing.T) {
	for _, n := range []int{10, 10000} {
		msgs := halfAnswered(n)
		out, probes := matchResponsesCounted(msgs[1], msgs[2:])
		answered := 0
		for _, k := range out {
			if k >= 0 {
				answered++
			}
		}
		if answered != n/2 || probes > len(out) {
			t.Errorf("%d calls: %d answered (want %d), %d responses examined (want at most %d)", n, answered, n/2, probes, len(out))
		}
	}
}

var (
	human = llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather?")
	later = llms.TextParts(llms.ChatMessageTypeHuman, "And tomorrow?")
)

// recordingTool counts its calls per city and answers "<city>: ok".
func recordingTool() (Tool, func() []string) {
	var mu sync.Mutex
	var ran []string
	t := NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			mu.Lock()
			ran = append(ran, a.City)
			mu.Unlock()
			return a.City + ": ok", nil
		})
	return t, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(ran)
		slices.Sort(out)
		return out
	}
}

// callIDs lists, per message, its role and the ids its tool calls or tool
// responses carry: "ai:a,b", "tool:a", "human".
func callIDs(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		var ids []string
		for _, p := range m.Parts {
			if tc, ok := asToolCall(p); ok {
				ids = append(ids, tc.ID+"/"+tc.FunctionCall.Name)
			}
			if r, ok := p.(llms.ToolCallResponse); ok {
				ids = append(ids, r.ToolCallID+"/"+r.Content)
			}
		}
		s := string(m.Role)
		if len(ids) > 0 {
			s += ":" + strings.Join(ids, ",")
		}
		out = append(out, s)
	}
	return out
}

func TestInvokeRunsOnlyPendingCalls(t *testing.T) {
	ai := saidextest.AIMessage(
		saidextest.Call("a", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("b", "get_weather", `{"city":"Rome"}`),
		saidextest.Call("c", "get_weather", `{"city":"Oslo"}`),
	)
	gemini := saidextest.AIMessage( // no ids: answered by name, in order
		saidextest.Call("", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("", "get_weather", `{"city":"Rome"}`),
	)
	answer := saidextest.ToolMessage
	textAI := llms.TextParts(llms.ChatMessageTypeAI, "Sunny.")
	tests := []struct {
		name      string
		in        []llms.MessageContent
		wantRan   []string
		want      []string // callIDs of the result
		unchanged bool     // the result is the input
		outcomes  []Outcome
	}{
		{
			name:     "nothing answered",
			in:       []llms.MessageContent{human, ai},
			wantRan:  []string{"Oslo", "Paris", "Rome"},
			want:     []string{"human", "ai:a/get_weather,b/get_weather,c/get_weather", "tool:a/Paris: ok", "tool:b/Rome: ok", "tool:c/Oslo: ok"},
			outcomes: []Outcome{OutcomeExecuted, OutcomeExecuted, OutcomeExecuted},
		},
		{
			name:      "every call answered",
			in:        []llms.MessageContent{human, ai, answer("a", "get_weather", "1"), answer("b", "get_weather", "2"), answer("c", "get_weather", "3")},
			unchanged: true,
			outcomes:  []Outcome{OutcomeAlreadyAnswered, OutcomeAlreadyAnswered, OutcomeAlreadyAnswered},
		},
		{
			name:      "every call answered, out of order, then the conversation went on",
			in:        []llms.MessageContent{human, ai, answer("c", "get_weather", "3"), answer("a", "get_weather", "1"), answer("b", "get_weather", "2"), textAI, later},
			unchanged: true,
			outcomes:  []Outcome{OutcomeAlreadyAnswered, OutcomeAlreadyAnswered, OutcomeAlreadyAnswered},
		},
		{
			name:     "the middle call answered",
			in:       []llms.MessageContent{human, ai, answer("b", "get_weather", "2")},
			wantRan:  []string{"Oslo", "Paris"},
			want:     []string{"human", "ai:a/get_weather,b/get_weather,c/get_weather", "tool:a/Paris: ok", "tool:b/2", "tool:c/Oslo: ok"},
			outcomes: []Outcome{OutcomeExecuted, OutcomeAlreadyAnswered, OutcomeExecuted},
		},
		{
			name:     "the last call answered, a stray response kept after the block",
			in:       []llms.MessageContent{human, ai, answer("zz", "other", "stray"), answer("c", "get_weather", "3")},
			wantRan:  []string{"Paris", "Rome"},
			want:     []string{"human", "ai:a/get_weather,b/get_weather,c/get_weather", "tool:a/Paris: ok", "tool:b/Rome: ok", "tool:c/3", "tool:zz/stray"},
			outcomes: []Outcome{OutcomeExecuted, OutcomeExecuted, OutcomeAlreadyAnswered},
		},
		{
			name:     "calls without ids: one of two answered by name",
			in:       []llms.MessageContent{human, gemini, answer("", "get_weather", "1")},
			wantRan:  []string{"Rome"},
			want:     []string{"human", "ai:/get_weather,/get_weather", "tool:/1", "tool:/Rome: ok"},
			outcomes: []Outcome{OutcomeAlreadyAnswered, OutcomeExecuted},
		},
		{
			name:      "calls without ids: both answered",
			in:        []llms.MessageContent{human, gemini, answer("", "get_weather", "1"), answer("", "get_weather", "2")},
			unchanged: true,
			outcomes:  []Outcome{OutcomeAlreadyAnswered, OutcomeAlreadyAnswered},
		},
		{
			name:     "a response to another tool does not answer a call without id",
			in:       []llms.MessageContent{human, gemini, answer("", "other", "1")},
			wantRan:  []string{"Paris", "Rome"},
			want:     []string{"human", "ai:/get_weather,/get_weather", "tool:/Paris: ok", "tool:/Rome: ok", "tool:/1"},
			outcomes: []Outcome{OutcomeExecuted, OutcomeExecuted},
		},
		{
			name:      "no AI message with calls",
			in:        []llms.MessageContent{human, textAI},
			unchanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, ran := recordingTool()
			var sink StatsSink
			node := mustNode(t, []tools.Tool{weather}, WithObserver(sink.add))
			in := slices.Clone(tt.in)
			out, err := node.Invoke(context.Background(), in)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if !reflect.DeepEqual(in, tt.in) {
				t.Error("Invoke modified its input")
			}
			if got := ran(); !slices.Equal(got, tt.wantRan) {
				t.Errorf("ran %v, want %v", got, tt.wantRan)
			}
			if tt.unchanged {
				if !reflect.DeepEqual(out, tt.in) {
					t.Errorf("conversation changed:\n%v\nwant\n%v", callIDs(out), callIDs(tt.in))
				}
			} else if got := callIDs(out); !slices.Equal(got, tt.want) {
				t.Errorf("conversation\n%v\nwant\n%v", got, tt.want)
			}
			var outcomes []Outcome
			for _, ev := range sink.Events() {
				for _, c := range ev.Calls {
					outcomes = append(outcomes, c.Outcome)
				}
			}
			if !slices.Equal(outcomes, tt.outcomes) {
				t.Errorf("outcomes %v, want %v", outcomes, tt.outcomes)
			}

			// Invoke is idempotent: a second run on its result changes nothing.
			again, err := node.Invoke(context.Background(), out)
			if err != nil {
				t.Fatalf("second Invoke: %v", err)
			}
			if !reflect.DeepEqual(again, out) {
				t.Errorf("second Invoke changed the conversation:\n%v\nwant\n%v", callIDs(again), callIDs(out))
			}
			if got := ran(); !slices.Equal(got, tt.wantRan) {
				t.Errorf("after the second Invoke ran %v, want %v", got, tt.wantRan)
			}
		})
	}
}

func TestRunOnAnsweredHistoryReturnsNoToolMessages(t *testing.T) {
	weather, ran := recordingTool()
	var sink StatsSink
	node := mustNode(t, []tools.Tool{weather}, WithObserver(sink.add))
	conv := []llms.MessageContent{human,
		saidextest.AIMessage(saidextest.Call("a", "get_weather", `{"city":"Paris"}`)),
		saidextest.ToolMessage("a", "get_weather", "done"),
	}
	res, err := node.Run(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolMessages) != 0 || len(ran()) != 0 {
		t.Errorf("%d tool messages, ran %v; want none", len(res.ToolMessages), ran())
	}
	if len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeAlreadyAnswered || res.Calls[0].Output != "" || res.AIMessageIndex != 1 {
		t.Errorf("calls %+v, AI message %d", res.Calls, res.AIMessageIndex)
	}
	if n := sink.Count(OutcomeAlreadyAnswered); n != 1 {
		t.Errorf("stats count %d already answered, want 1", n)
	}
}

func TestMisplacedMessageIsRefused(t *testing.T) {
	ai := saidextest.AIMessage(
		saidextest.Call("a", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("b", "get_weather", `{"city":"Rome"}`),
	)
	tests := []struct {
		name      string
		in        []llms.MessageContent
		wantIndex int
		wantRole  llms.ChatMessageType
	}{
		{"a human message", []llms.MessageContent{human, ai, later}, 2, llms.ChatMessageTypeHuman},
		{"a system message", []llms.MessageContent{human, ai, llms.TextParts(llms.ChatMessageTypeSystem, "Be brief.")}, 2, llms.ChatMessageTypeSystem},
		{"an AI message without calls", []llms.MessageContent{human, ai, llms.TextParts(llms.ChatMessageTypeAI, "Hmm.")}, 2, llms.ChatMessageTypeAI},
		{"a human message after a partial answer", []llms.MessageContent{human, ai, saidextest.ToolMessage("a", "get_weather", "1"), later}, 3, llms.ChatMessageTypeHuman},
		{"an AI reply after a partial answer", []llms.MessageContent{human, ai, saidextest.ToolMessage("a", "get_weather", "1"), llms.TextParts(llms.ChatMessageTypeAI, "Sunny."), later}, 3, llms.ChatMessageTypeAI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, ran := recordingTool()
			node := mustNode(t, []tools.Tool{weather})
			out, err := node.Invoke(context.Background(), tt.in)
			if !errors.Is(err, ErrMisplacedMessage) || out != nil {
				t.Fatalf("Invoke = %d messages, %v; want ErrMisplacedMessage", len(out), err)
			}
			var me *MisplacedMessageError
			if !errors.As(err, &me) || me.Index != tt.wantIndex || me.Role != tt.wantRole || me.AIMessageIndex != 1 {
				t.Errorf("error %#v, want index %d role %s after AI message 1", me, tt.wantIndex, tt.wantRole)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("message %d", tt.wantIndex)) {
				t.Errorf("error text %q does not name message %d", err, tt.wantIndex)
			}
			if got := ran(); len(got) != 0 {
				t.Errorf("ran %v before refusing", got)
			}
		})
	}
}

// TestToolErrorCarriesCompletedCalls: a tool error stops the run, and the
// calls that completed before it are reachable from the error; running
// the node again on the history they make runs only the rest.
func TestToolErrorCarriesCompletedCalls(t *testing.T) {
	errDown := errors.New("service down")
	tests := []struct {
		name      string
		opts      []Option
		wantDone  []string // ids answered in the partial result
		wantAfter []string // cities run when resumed
	}{
		// Concurrent: the failing call waits until its siblings finished.
		{name: "concurrent", wantDone: []string{"a", "c"}, wantAfter: []string{"Oslo"}},
		// One at a time: the call after the failing one never starts.
		{name: "sequential", opts: []Option{WithMaxConcurrency(1)}, wantDone: []string{"a"}, wantAfter: []string{"Oslo", "Rome"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				siblings sync.WaitGroup
				failing  atomic.Bool
				runs     atomic.Int64
			)
			failing.Store(true)
			siblings.Add(2)
			sequential := len(tt.opts) > 0
			weather := NewTool("get_weather", "Current weather for a city.",
				func(ctx context.Context, a weatherArgs) (string, error) {
					runs.Add(1)
					if a.City == "Oslo" && failing.Load() {
						if !sequential {
							siblings.Wait()
						}
						return "", errDown
					}
					if !sequential && failing.Load() {
						defer siblings.Done()
					}
					return a.City + ": ok", nil
				})
			node := mustNode(t, []tools.Tool{weather}, tt.opts...)
			conv := []llms.MessageContent{human, saidextest.AIMessage(
				saidextest.Call("a", "get_weather", `{"city":"Paris"}`),
				saidextest.Call("b", "get_weather", `{'city':'Oslo'}`), // repaired, then fails
				saidextest.Call("c", "get_weather", `{"city":"Rome"}`),
			)}
			out, err := node.Invoke(context.Background(), conv)
			if out != nil || !errors.Is(err, errDown) {
				t.Fatalf("Invoke = %d messages, %v; want the tool's error", len(out), err)
			}
			var te *ToolError
			if !errors.As(err, &te) || te.Partial == nil {
				t.Fatalf("error %v carries no partial result", err)
			}
			var done []string
			for _, r := range toolResponses(te.Partial.ToolMessages) {
				done = append(done, r.ToolCallID)
			}
			if !slices.Equal(done, tt.wantDone) {
				t.Errorf("partial result answers %v, want %v", done, tt.wantDone)
			}
			for _, c := range te.Partial.Calls {
				want := OutcomeUnanswered // never started
				switch {
				case slices.Contains(tt.wantDone, c.ID):
					want = OutcomeExecuted
				case c.ID == "b":
					want = OutcomeFailed
				}
				if c.Outcome != want {
					t.Errorf("call %s: outcome %s, want %s", c.ID, c.Outcome, want)
				}
			}
			if b := te.Partial.Calls[1]; !errors.Is(b.Err, errDown) || b.Output != "" {
				t.Errorf("failing call report: err %v, output %q", b.Err, b.Output)
			}
			if args := toolCallsOf(te.Partial.AIMessage)[1].FunctionCall.Arguments; args != `{"city":"Oslo"}` {
				t.Errorf("partial AI message keeps %s for the failing call, want its repaired arguments", args)
			}

			// Keep what ran, then resume once the service is back.
			failing.Store(false)
			before := runs.Load()
			kept := append(slices.Clone(conv[:1]), te.Partial.AIMessage)
			kept = append(kept, te.Partial.ToolMessages...)
			resumed, err := node.Invoke(context.Background(), kept)
			if err != nil {
				t.Fatalf("resumed Invoke: %v", err)
			}
			if n := runs.Load() - before; n != int64(len(tt.wantAfter)) {
				t.Errorf("resumed run executed %d calls, want %d", n, len(tt.wantAfter))
			}
			want := []string{"human", "ai:a/get_weather,b/get_weather,c/get_weather"}
			for _, id := range []string{"a", "b", "c"} {
				city := map[string]string{"a": "Paris", "b": "Oslo", "c": "Rome"}[id]
				want = append(want, "tool:"+id+"/"+city+": ok")
			}
			if got := callIDs(resumed); !slices.Equal(got, want) {
				t.Errorf("resumed conversation\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// A *ToolError a tool returns from a nested node is the tool's error, not
// this run's: it gets no partial result of the outer run.
func TestNestedToolErrorIsNotGivenThePartialResult(t *testing.T) {
	inner := &ToolError{Tool: "inner", Err: errors.New("inner failed")}
	failing := plainTool{name: "outer", fn: func(context.Context, string) (string, error) { return "", inner }}
	node := mustNode(t, []tools.Tool{failing})
	_, err := node.Invoke(context.Background(), conversation(tc("a", "outer", `{}`)))
	var te *ToolError
	if !errors.As(err, &te) || te == inner || te.Partial == nil || inner.Partial != nil {
		t.Fatalf("err %v: outer %p partial %v, inner partial %v", err, te, te.Partial != nil, inner.Partial)
	}
}

// With nothing pending no stage runs: the raise policy, which refuses a
// message with a dropped call, has nothing to refuse in an answered
// history that still holds the repeated call.
func TestAnsweredHistoryRunsNoStage(t *testing.T) {
	weather, ran := recordingTool()
	node := mustNode(t, []tools.Tool{weather}, WithOnUnresolved(UnresolvedRaise), WithLogger(sanDiscard))
	ai := saidextest.AIMessage(
		saidextest.Call("a", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("a", "get_weather", `{"city":"Rome"}`),
	)
	if _, err := node.Invoke(context.Background(), []llms.MessageContent{human, ai}); err == nil {
		t.Fatal("the raise policy accepted a message with a repeated id")
	}
	answered := []llms.MessageContent{human, ai, saidextest.ToolMessage("a", "get_weather", "done")}
	out, err := node.Invoke(context.Background(), answered)
	if err != nil || !reflect.DeepEqual(out, answered) || len(ran()) != 0 {
		t.Fatalf("Invoke = %v, changed %v, ran %v; want the history unchanged", err, !reflect.DeepEqual(out, answered), ran())
	}
}
