package saidex

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
)

// TokenUsage counts the tokens spent on correction calls for one model.
type TokenUsage struct {
	InputTokens  int
	OutputTokens int
	TotalTokens  int
}

// addUsage adds the usage of every model in from to its entry in to, and
// returns to, which it allocates when nil and from is not empty. It is the
// one place token counts are summed: per response, per call, per event and
// per sink.
func addUsage(to, from map[string]TokenUsage) map[string]TokenUsage {
	for model, u := range from {
		if to == nil {
			to = make(map[string]TokenUsage, len(from))
		}
		t := to[model]
		t.InputTokens += u.InputTokens
		t.OutputTokens += u.OutputTokens
		t.TotalTokens += u.TotalTokens
		to[model] = t
	}
	return to
}

// StageDurations is the wall-clock time spent in each stage: by one
// [ToolNode.Run] in [ToolNodeEvent].Stages, by one call in
// [CallReport].Durations. For a Run, Repair and Validate are the sums over
// the calls (which are repaired and validated one after another); Correct
// and Execute cover all calls, which run concurrently; Sanitize includes
// assembling the tool messages.
type StageDurations struct {
	Repair   time.Duration
	Validate time.Duration
	Correct  time.Duration
	Resolve  time.Duration
	Execute  time.Duration
	Sanitize time.Duration
}

// ToolNodeEvent is what one successful [ToolNode.Run] (or Invoke) reports
// to the node's observers ([WithObserver]) and to the sinks of
// [CollectStats]. A Run that returns an error emits no event. Observers
// share one event value and must treat it, including its slices and maps,
// as read-only. Times are measured only for a Run that has a listener (a
// Run nobody observes reads no clock).
type ToolNodeEvent struct {
	// Start is when the Run began, and Duration how long it took.
	Start    time.Time
	Duration time.Duration
	// Stages is the time spent in each stage.
	Stages StageDurations
	// AIMessageIndex is the index of the handled AI message in the
	// conversation given to Run.
	AIMessageIndex int
	// Calls reports on every tool call of the AI message, in call order:
	// the reports of [Result].Calls without the fields that can carry
	// argument values or a tool's output, since events reach exporters.
	// RawArguments, Arguments and Output are empty, and Err and
	// CorrectionErr nil; the slices and maps are the event's own.
	Calls []CallReport
}

// Count returns the number of calls with outcome o.
func (e ToolNodeEvent) Count(o Outcome) int {
	k := 0
	for i := range e.Calls {
		if e.Calls[i].Outcome == o {
			k++
		}
	}
	return k
}

// TokenUsage returns the token usage of the Run's corrections, summed per
// model name; nil when no model was called.
func (e ToolNodeEvent) TokenUsage() map[string]TokenUsage {
	var total map[string]TokenUsage
	for _, c := range e.Calls {
		total = addUsage(total, c.Tokens)
	}
	return total
}

// emit is the observability stage: it publishes the run's event to the
// node's observers, then the StatsSinks of ctx, on the goroutine that
// called Run. It builds no event when nobody listens.
func (n *ToolNode) emit(ctx context.Context, r *run, res *Result, calls []*call) {
	if !n.listened(ctx) {
		return
	}
	sinks, _ := ctx.Value(sinkKey{}).(*sinkChain)
	r.lap(&r.stages.Sanitize)
	ev := ToolNodeEvent{
		Start:          r.start,
		Duration:       r.last.Sub(r.start),
		Stages:         r.stages,
		AIMessageIndex: res.AIMessageIndex,
		Calls:          make([]CallReport, len(calls)),
	}
	for i, c := range calls {
		ev.Stages.Repair += c.durations.Repair
		ev.Stages.Validate += c.durations.Validate
		rep := c.report() // toolnode.go
		// Events carry no argument values or tool output (see ToolNodeEvent.Calls).
		rep.RawArguments, rep.Output, rep.Err, rep.CorrectionErr = "", "", nil, nil
		rep.Issues, rep.Flagged, rep.Tokens = slices.Clone(rep.Issues), slices.Clone(rep.Flagged), maps.Clone(rep.Tokens)
		ev.Calls[i] = rep
	}
	for _, fn := range n.cfg.observers {
		n.deliver(fn, ev)
	}
	for s := sinks; s != nil; s = s.parent {
		s.sink.add(ev)
	}
}

// listened reports whether a run's event has a listener: an observer of the
// node or a StatsSink in ctx.
func (n *ToolNode) listened(ctx context.Context) bool {
	return len(n.cfg.observers) > 0 || ctx.Value(sinkKey{}) != nil
}

// now returns the current time when the run is timed, and the zero time
// otherwise. A run is timed when its event has a listener (Run sets
// r.timed): a run nobody observes reads no clock, which is a measurable
// share of a valid call's cost.
func (r *run) now() time.Time {
	if !r.timed {
		return time.Time{}
	}
	return time.Now()
}

// since returns the time elapsed since t when the run is timed, else 0.
func (r *run) since(t time.Time) time.Duration {
	if !r.timed {
		return 0
	}
	return time.Since(t)
}

// lap records in d (when not nil) the time since the previous lap, or since
// the start of the run. It does nothing when the run is not timed.
func (r *run) lap(d *time.Duration) {
	if !r.timed {
		return
	}
	now := time.Now()
	last := r.last
	if last.IsZero() {
		last = r.start
	}
	if d != nil {
		*d = now.Sub(last)
	}
	r.last = now
}

// deliver calls a listener, recovering a panic: a failing observer must
// not fail the run whose results it observes. The panic is logged.
func (n *ToolNode) deliver(fn func(ToolNodeEvent), ev ToolNodeEvent) {
	defer func() {
		if v := recover(); v != nil {
			n.cfg.log().Warn("saidex: a ToolNode event listener panicked",
				slog.String("panic", fmt.Sprint(v)))
		}
	}()
	fn(ev)
}

// WithObserver adds fn to the node's observers: fn receives the
// [ToolNodeEvent] of every successful Run of this node, before the sinks of
// [CollectStats]. It is called synchronously on the goroutine that called
// Run, possibly by several Runs at once, so it must be safe for concurrent
// use and should return quickly.
// A panic in fn is recovered and logged; the Run still succeeds. The option
// may be given several times; a nil fn is ignored. Default: none.
func WithObserver(fn func(ToolNodeEvent)) Option {
	return optionFunc(func(c *config) {
		if fn != nil {
			c.observers = append(c.observers, fn)
		}
	})
}

// StatsSink collects the [ToolNodeEvent] values of the Runs given a context
// returned by [CollectStats]. It is safe for concurrent use.
type StatsSink struct {
	mu     sync.Mutex
	events []ToolNodeEvent
}

func (s *StatsSink) add(ev ToolNodeEvent) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
}

// Events returns the events collected so far, in the order the Runs
// finished.
func (s *StatsSink) Events() []ToolNodeEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Count returns the number of calls with outcome o in the events collected
// so far.
func (s *StatsSink) Count(o Outcome) int {
	k := 0
	for _, ev := range s.Events() {
		k += ev.Count(o)
	}
	return k
}

// TokenUsage returns the token usage of the events collected so far, summed
// per model name; nil when no model was called.
func (s *StatsSink) TokenUsage() map[string]TokenUsage {
	var total map[string]TokenUsage
	for _, ev := range s.Events() {
		total = addUsage(total, ev.TokenUsage())
	}
	return total
}

type sinkKey struct{}

// sinkChain links the sinks of nested CollectStats contexts.
type sinkChain struct {
	sink   *StatsSink
	parent *sinkChain
}

// CollectStats returns a context derived from ctx and a [StatsSink] that
// collects the event of every successful Run given that context or one
// derived from it, for example all tool-node runs of one graph run. Runs
// given other contexts, such as concurrent runs of other graphs, are not
// collected. When CollectStats contexts are nested, a Run's event goes to
// every sink on its context, innermost first. A tool that runs a ToolNode
// of its own with the ctx it was given is part of the outer run's context:
// the inner run's event is collected too, before the outer run's.
func CollectStats(ctx context.Context) (context.Context, *StatsSink) {
	s := &StatsSink{}
	parent, _ := ctx.Value(sinkKey{}).(*sinkChain)
	return context.WithValue(ctx, sinkKey{}, &sinkChain{sink: s, parent: parent}), s
}
