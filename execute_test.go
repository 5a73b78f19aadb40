package saidex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

// stuckCallee is a callee that ignores its ctx: it signals entered, then
// blocks until release is closed, and closes exited when it returns.
type stuckCallee struct {
	entered, release, exited chan struct{}
}

func newStuckCallee() *stuckCallee {
	return &stuckCallee{entered: make(chan struct{}, 1), release: make(chan struct{}), exited: make(chan struct{})}
}

func (s *stuckCallee) block() {
	defer close(s.exited)
	s.entered <- struct{}{}
	<-s.release
}

// runResult is what a Run started by runUntilCancelled returned.
type runResult struct {
	res *Result
	err error
}

// runAndCancel runs n on conv, cancels its ctx once the callee entered,
// and returns what Run returned; it fails the test when Run waits for the
// callee (which only returns once the test releases it).
func runAndCancel(t *testing.T, n *ToolNode, conv []llms.MessageContent, s *stuckCallee) runResult {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan runResult, 1)
	go func() {
		res, err := n.Run(ctx, conv)
		done <- runResult{res, err}
	}()
	<-s.entered
	cancel()
	select {
	case r := <-done:
		return r
	case <-time.After(hangTimeout):
		close(s.release)
		t.Fatal("Run waited for a callee that ignores ctx")
		return runResult{}
	}
}

// Cancelling ctx makes Run return at once, whatever the callee it waits
// for does: a tool, a validator, an unresolved hook or the correction
// model that ignores ctx is left running, and its goroutine ends when it
// returns.
func TestCancelReturnsPromptlyWhateverTheCallee(t *testing.T) {
	tests := []struct {
		name string
		// node returns the node and the conversation whose run blocks in s.
		node        func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent)
		wantPartial bool // a call had started executing
	}{
		{name: "tool, one at a time", wantPartial: true, node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			return stuckToolNode(t, s, WithMaxConcurrency(1))
		}},
		{name: "tool, concurrent", wantPartial: true, node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			return stuckToolNode(t, s)
		}},
		{name: "tool with handled errors", wantPartial: true, node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			return stuckToolNode(t, s, WithHandleToolErrors(true))
		}},
		{name: "validator", node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			weather, _ := countingWeather()
			n := mustNode(t, []tools.Tool{weather}, WithValidator("get_weather", func(context.Context, map[string]any, ValidatorContext) error {
				s.block()
				return nil
			}))
			return n, conversation(tc("1", "get_weather", `{"city":"Oslo","days":2}`))
		}},
		{name: "unresolved hook", node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			weather, _ := countingWeather()
			n := mustNode(t, []tools.Tool{weather}, WithUnresolvedHook(func(context.Context, UnresolvedToolCall) (Resolution, error) {
				s.block()
				return Resolution{}, nil
			}))
			return n, conversation(tc("1", "get_weather", `{"city":"Oslo","days":"two"}`))
		}},
		{name: "correction model", node: func(t *testing.T, s *stuckCallee) (*ToolNode, []llms.MessageContent) {
			weather, _ := countingWeather()
			model := saidextest.NewModel(func(context.Context, saidextest.Request) (*llms.ContentResponse, error) {
				s.block()
				return saidextest.ForcedToolCall(`{"city":"Oslo","days":2}`)(context.Background(), saidextest.Request{})
			})
			n := mustNode(t, []tools.Tool{weather}, WithCorrectionModel(model))
			return n, conversation(tc("1", "get_weather", `{"city":"Oslo","days":"2 days"}`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			s := newStuckCallee()
			n, conv := tt.node(t, s)
			r := runAndCancel(t, n, conv, s)

			var ce *CanceledError
			if r.res != nil || !errors.As(r.err, &ce) || !errors.Is(r.err, context.Canceled) {
				t.Fatalf("Run = %v, %v; want nil and a *CanceledError matching context.Canceled", r.res, r.err)
			}
			if (ce.Partial != nil) != tt.wantPartial {
				t.Errorf("Partial = %v, want one: %v", ce.Partial, tt.wantPartial)
			}
			select {
			case <-s.exited:
				t.Fatal("the callee returned before it was released")
			default: // it runs on after Run returned, as documented
			}
			close(s.release)
			<-s.exited
			goleak.VerifyNone(t, before) // its goroutine ended with it
		})
	}
}

// stuckToolNode returns a node whose conversation calls a quick tool, then
// a tool that blocks in s (it signals s only after the quick call
// returned), then the quick tool again.
func stuckToolNode(t *testing.T, s *stuckCallee, opts ...Option) (*ToolNode, []llms.MessageContent) {
	quickDone := make(chan struct{})
	var once sync.Once
	quick := plainTool{name: "quick", fn: func(_ context.Context, in string) (string, error) {
		defer once.Do(func() { close(quickDone) })
		return "done " + in, nil
	}}
	stuck := plainTool{name: "stuck", fn: func(context.Context, string) (string, error) {
		<-quickDone
		s.block()
		return "late", nil
	}}
	n := mustNode(t, []tools.Tool{quick, stuck}, opts...)
	return n, conversation(tc("1", "quick", "a"), tc("2", "stuck", "b"), tc("3", "quick", "c"))
}

// The *CanceledError keeps what finished: the quick call's answer is in
// Partial, the blocked call is reported running, a call that never
// started unanswered; a re-run on the history with Partial's messages
// executes exactly the calls Partial does not answer.
func TestCancelPartialKeepsWhatFinished(t *testing.T) {
	s := newStuckCallee()
	var mu sync.Mutex
	var ran []string
	record := func(in string) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, in)
	}
	quick := plainTool{name: "quick", fn: func(_ context.Context, in string) (string, error) {
		record(in)
		return "done " + in, nil
	}}
	first := true
	stuck := plainTool{name: "stuck", fn: func(context.Context, string) (string, error) {
		record("b")
		if first {
			first = false
			s.block()
		}
		return "late", nil
	}}
	n := mustNode(t, []tools.Tool{quick, stuck}, WithMaxConcurrency(1))
	conv := conversation(tc("1", "quick", "a"), tc("2", "stuck", "b"), tc("3", "quick", "c"))
	r := runAndCancel(t, n, conv, s)
	var ce *CanceledError
	if !errors.As(r.err, &ce) || ce.Partial == nil {
		t.Fatalf("Run = %v, want a *CanceledError with a partial result", r.err)
	}
	p := ce.Partial
	var outcomes []Outcome
	for _, c := range p.Calls {
		outcomes = append(outcomes, c.Outcome)
	}
	if want := []Outcome{OutcomeExecuted, OutcomeRunning, OutcomeUnanswered}; !slices.Equal(outcomes, want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	if got := toolResponses(p.ToolMessages); len(got) != 1 || got[0].ToolCallID != "1" || got[0].Content != "done a" {
		t.Fatalf("partial answers %+v, want the first call's", got)
	}
	if c := p.Calls[1]; c.Output != "" || c.Err != nil || string(c.Arguments) != `{"__arg1":"b"}` && c.Arguments != nil {
		t.Errorf("running call: output %q, err %v, arguments %s", c.Output, c.Err, c.Arguments)
	}
	close(s.release)
	<-s.exited

	mu.Lock()
	ran = nil
	mu.Unlock()
	kept := append(slices.Clone(conv[:1]), p.AIMessage)
	kept = append(kept, p.ToolMessages...)
	out, err := n.Invoke(context.Background(), kept)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(ran, []string{"b", "c"}) {
		t.Errorf("the re-run executed %v, want [b c]: the running and the unanswered call", ran)
	}
	if got := callIDs(out); len(got) != 5 {
		t.Errorf("resumed conversation %v", got)
	}
}

// When a sibling's tool error stops a concurrent run, a call that had
// started and honours ctx is cancelled: Partial reports it canceled, with
// its error, distinct from the call that never started; one that returns
// a result despite the cancel is answered. A re-run executes exactly the
// calls without a tool message: the failed, the canceled and the
// unanswered one.
func TestToolErrorReportsCancelledSiblings(t *testing.T) {
	errDown := errors.New("service down")
	var mu sync.Mutex
	runs := map[string]int{}
	failing := true
	started := make(chan struct{}, 2)
	tool := plainTool{name: "work", fn: func(ctx context.Context, in string) (string, error) {
		mu.Lock()
		runs[in]++
		again := runs[in] > 1 || !failing
		mu.Unlock()
		if again {
			return "ok " + in, nil
		}
		switch in {
		case "fail": // waits until both siblings run, then stops the run
			<-started
			<-started
			return "", errDown
		case "honour": // returns ctx's error once the run is stopped
			started <- struct{}{}
			<-ctx.Done()
			return "", ctx.Err()
		case "finish": // completes its work despite the cancel
			started <- struct{}{}
			<-ctx.Done()
			return "finished " + in, nil
		}
		return "ok " + in, nil
	}}
	n := mustNode(t, []tools.Tool{tool}, WithMaxConcurrency(3))
	conv := conversation(tc("f", "work", "fail"), tc("h", "work", "honour"), tc("d", "work", "finish"), tc("n", "work", "never"))
	_, err := n.Run(context.Background(), conv)
	var te *ToolError
	if !errors.As(err, &te) || te.Partial == nil || te.CallID != "f" {
		t.Fatalf("Run = %v, want the *ToolError of call f with a partial result", err)
	}
	want := map[string]Outcome{"f": OutcomeFailed, "h": OutcomeCanceled, "d": OutcomeExecuted, "n": OutcomeUnanswered}
	for _, c := range te.Partial.Calls {
		if c.Outcome != want[c.ID] {
			t.Errorf("call %s: outcome %s, want %s", c.ID, c.Outcome, want[c.ID])
		}
	}
	if c := te.Partial.Calls[0]; !errors.Is(c.Err, errDown) {
		t.Errorf("failed call: err %v", c.Err)
	}
	if c := te.Partial.Calls[1]; !errors.Is(c.Err, context.Canceled) || c.Output != "" {
		t.Errorf("canceled call: err %v, output %q; want its ctx error and no output", c.Err, c.Output)
	}
	if c := te.Partial.Calls[3]; c.Err != nil || c.Arguments != nil {
		t.Errorf("unstarted call: err %v, arguments %s", c.Err, c.Arguments)
	}
	if got := toolResponses(te.Partial.ToolMessages); len(got) != 1 || got[0].ToolCallID != "d" {
		t.Fatalf("partial answers %+v, want only call d", got)
	}

	mu.Lock()
	failing = false
	mu.Unlock()
	kept := append(slices.Clone(conv[:1]), te.Partial.AIMessage)
	kept = append(kept, te.Partial.ToolMessages...)
	if _, err := n.Invoke(context.Background(), kept); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if wantRuns := map[string]int{"fail": 2, "honour": 2, "finish": 1, "never": 1}; fmt.Sprint(runs) != fmt.Sprint(wantRuns) {
		t.Errorf("executions %v, want %v: the re-run executes the failed, canceled and unanswered calls", runs, wantRuns)
	}
}

func TestWatchCall(t *testing.T) {
	t.Run("a ctx that is never done runs fn inline", func(t *testing.T) {
		ran := false
		if !watchCall(context.Background(), func() { ran = true }) || !ran {
			t.Fatal("fn did not run")
		}
	})
	t.Run("a done ctx does not start fn", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if watchCall(ctx, func() { t.Error("fn started") }) {
			t.Fatal("watchCall reported fn returned")
		}
	})
	t.Run("a panic reaches the waiting caller", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		defer func() {
			if v := recover(); v != "boom" {
				t.Fatalf("recovered %v, want boom", v)
			}
		}()
		watchCall(ctx, func() { panic("boom") })
		t.Fatal("the panic did not propagate")
	})
}

// BenchmarkRunCancellableContext measures what watching a cancellable ctx
// costs: the same message of valid calls run with context.Background()
// (callees on the driving goroutine) and with a ctx that can be cancelled
// (a goroutine per callee), at the default concurrency and at 1.
func BenchmarkRunCancellableContext(b *testing.B) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, limit := range []int{0, 1} {
		n := mustNode(b, []tools.Tool{benchTool()}, WithMaxConcurrency(limit))
		for _, size := range []int{1, 8, 64} {
			msgs := benchfixture.Conversation(benchfixture.Valid, size)
			for _, c := range []struct {
				name string
				ctx  context.Context
			}{{"background", context.Background()}, {"cancellable", cancellable}} {
				b.Run(fmt.Sprintf("limit=%d/calls=%d/%s", limit, size, c.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := n.Run(c.ctx, msgs); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
