package saidex

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

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
	// StateNodeAppend adds nothing either.
	upd, err := node.StateNodeAppend("messages")(context.Background(), map[string]any{"messages": conv})
	if err != nil {
		t.Fatal(err)
	}
	if msgs := upd.(map[string]any)["messages"].([]llms.MessageContent); len(msgs) != 0 {
		t.Errorf("StateNodeAppend appends %d messages, want 0", len(msgs))
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
