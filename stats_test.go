package saidex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// onlyEvent returns the one event rec collected, and its calls summarised
// by sanStatsSummary.
func onlyEvent(t *testing.T, rec *StatsSink) (ToolNodeEvent, []string) {
	t.Helper()
	events := rec.Events()
	if len(events) != 1 {
		t.Fatalf("got %d events, want 1", len(events))
	}
	var got []string
	for _, c := range events[0].Calls {
		got = append(got, sanStatsSummary(c))
	}
	return events[0], got
}

// sanStatsSummary reduces an event's call report to the fields a test
// compares.
func sanStatsSummary(s CallReport) string {
	return fmt.Sprintf("%d %s %s %s err=%v repaired=%v%v prevalidated=%v corr=%v/%d issues=%d flagged=%d tokens=%v",
		s.Index, s.ID, s.Name, s.Outcome, s.IsError, s.Repaired, s.RepairSteps, s.Prevalidated,
		s.CorrectionAttempted, s.CorrectionRetries, len(s.Issues), len(s.Flagged), s.Tokens)
}

// allCalls returns the call reports of every event the sink collected.
func allCalls(s *StatsSink) []CallReport {
	var all []CallReport
	for _, ev := range s.Events() {
		all = append(all, ev.Calls...)
	}
	return all
}

func TestEventReportsEachOutcomeOfARun(t *testing.T) {
	var rec StatsSink
	n := sanNode(t, WithObserver(rec.add), WithLogger(sanDiscard))
	msgs := []llms.MessageContent{sanHuman("hi"), sanAI(
		sanCall("c1", "weather", `{"city":"Paris"}`),
		sanCall("c2", "weather", `{"city": 5}`),
		sanCall("c3", "weather", `{"city": "Par`),
		sanCall("c1", "weather", `{"city":"Rome"}`),
		sanCall("c5", "nope", `{}`),
	)}
	if _, err := n.Run(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	ev, got := onlyEvent(t, &rec)
	want := []string{
		"0 c1 weather executed err=false repaired=false[] prevalidated=true corr=false/0 issues=0 flagged=0 tokens=map[]",
		"1 c2 weather feedback err=true repaired=false[] prevalidated=true corr=false/0 issues=1 flagged=0 tokens=map[]",
		"2 c3 weather feedback err=true repaired=false[] prevalidated=true corr=false/0 issues=0 flagged=0 tokens=map[]",
		"3 c1 weather dropped err=false repaired=false[] prevalidated=false corr=false/0 issues=0 flagged=0 tokens=map[]",
		"4 c5 nope unknown_tool err=true repaired=false[] prevalidated=false corr=false/0 issues=0 flagged=0 tokens=map[]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var counts []int
	for _, o := range []Outcome{OutcomeExecuted, OutcomeFeedback, OutcomeDropped, OutcomeCorrected, OutcomeSalvaged, OutcomeUnknownTool} {
		counts = append(counts, ev.Count(o))
	}
	if !reflect.DeepEqual(counts, []int{1, 2, 1, 0, 0, 1}) {
		t.Errorf("executed, feedback, dropped, corrected, salvaged, unknown_tool = %v, want [1 2 1 0 0 1]", counts)
	}
	if ev.AIMessageIndex != 1 || ev.Start.IsZero() || ev.TokenUsage() != nil {
		t.Errorf("event = %+v", ev)
	}
}

func TestEventReportsCorrectionSalvageAndTokens(t *testing.T) {
	var rec StatsSink
	n := sanNode(t, WithObserver(rec.add))
	ai := sanAI(
		sanCall("c1", "weather", `{"town":"Paris"}`),
		sanCall("c2", "weather", `{"town":"Rome"}`),
		sanCall("c3", "weather", `{'city':'Oslo'}`),
	)
	r := &run{messages: []llms.MessageContent{ai}, aiIndex: 0}
	calls := n.collect(ai)
	for _, c := range calls {
		n.repair(c)
	}
	// The states the correction, salvage and repair stages leave calls in.
	corrected, salvaged, repaired := calls[0], calls[1], calls[2]
	corrected.status, corrected.outcome, corrected.args = statusAnswered, OutcomeCorrected, `{"city":"Paris"}`
	corrected.issues = []Issue{{Path: "/town", Kind: IssueAdditional}, {Path: "/city", Kind: IssueRequired}}
	corrected.correctionAttempted, corrected.correctionRetries = true, 1
	corrected.tokens = map[string]TokenUsage{"small": {InputTokens: 100, OutputTokens: 20, TotalTokens: 120}}
	salvaged.status, salvaged.outcome, salvaged.args = statusAnswered, OutcomeSalvaged, `{"city":"Rome"}`
	salvaged.correctionAttempted, salvaged.correctionRetries = true, 2
	salvaged.tokens = map[string]TokenUsage{"small": {InputTokens: 50, OutputTokens: 5, TotalTokens: 55}, "big": {InputTokens: 1, OutputTokens: 1, TotalTokens: 2}}
	repaired.err, repaired.status, repaired.args = nil, statusAnswered, `{"city":"Oslo"}`
	repaired.repaired, repaired.steps = true, []RepairStep{RepairJSON}
	res := n.assemble(r, calls)
	n.sanitize(r, res, calls)
	n.emit(context.Background(), r, res, calls)

	ev, got := onlyEvent(t, &rec)
	want := []string{
		"0 c1 weather corrected err=false repaired=false[] prevalidated=true corr=true/1 issues=2 flagged=0 tokens=map[small:{100 20 120}]",
		"1 c2 weather salvaged err=false repaired=false[] prevalidated=true corr=true/2 issues=0 flagged=0 tokens=map[big:{1 1 2} small:{50 5 55}]",
		"2 c3 weather executed err=false repaired=true[json_repair] prevalidated=true corr=false/0 issues=0 flagged=0 tokens=map[]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantUsage := map[string]TokenUsage{"small": {150, 25, 175}, "big": {1, 1, 2}}
	if !reflect.DeepEqual(ev.TokenUsage(), wantUsage) {
		t.Errorf("TokenUsage = %v, want %v", ev.TokenUsage(), wantUsage)
	}
	if ev.Count(OutcomeCorrected) != 1 || ev.Count(OutcomeSalvaged) != 1 || ev.Count(OutcomeExecuted) != 1 {
		t.Errorf("counts: corrected %d salvaged %d executed %d, want 1 each",
			ev.Count(OutcomeCorrected), ev.Count(OutcomeSalvaged), ev.Count(OutcomeExecuted))
	}
	// The event owns its maps: changing the call afterwards does not reach it.
	corrected.tokens["small"] = TokenUsage{}
	if ev.Calls[0].Tokens["small"].TotalTokens != 120 {
		t.Error("the event shares the call's token map")
	}
	// The sanitized message carries the arguments each of them ran with.
	var args []string
	for _, tc := range sanToolCalls(t, res.AIMessage) {
		args = append(args, tc.FunctionCall.Arguments)
	}
	if want := []string{`{"city":"Paris"}`, `{"city":"Rome"}`, `{"city":"Oslo"}`}; !reflect.DeepEqual(args, want) {
		t.Errorf("sanitized arguments = %q, want %q", args, want)
	}
}

func TestNoEventWhenRunFails(t *testing.T) {
	var rec StatsSink
	failing := NewTool("fail", "Fails.", func(context.Context, sanWeatherArgs) (string, error) {
		return "", errors.New("backend down")
	})
	n, err := NewToolNode([]tools.Tool{failing}, WithObserver(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	ctx, sink := CollectStats(context.Background())
	if _, err := n.Run(ctx, []llms.MessageContent{sanAI(sanCall("c1", "fail", `{"city":"x"}`))}); err == nil {
		t.Fatal("Run succeeded, want the tool's error")
	}
	if _, err := n.Run(ctx, []llms.MessageContent{sanHuman("no AI message")}); !errors.Is(err, ErrNoAIMessage) {
		t.Fatalf("err = %v, want ErrNoAIMessage", err)
	}
	if len(rec.Events()) != 0 || len(sink.Events()) != 0 {
		t.Errorf("events after failed runs: observer %d, sink %d; want none", len(rec.Events()), len(sink.Events()))
	}
}

func TestCollectStatsIsolatesConcurrentRuns(t *testing.T) {
	n := sanNode(t)
	outer, outerSink := CollectStats(context.Background())
	sinks := make([]*StatsSink, 2)
	var wg sync.WaitGroup
	for g := range 2 {
		ctx, sink := CollectStats(outer)
		sinks[g] = sink
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				id := fmt.Sprintf("g%d-%d", g, i)
				msgs := []llms.MessageContent{sanAI(sanCall(id, "weather", `{"city":"Paris"}`))}
				if _, err := n.Run(ctx, msgs); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	// A run outside any CollectStats context is collected by nobody.
	if _, err := n.Run(context.Background(), []llms.MessageContent{sanAI(sanCall("free", "weather", `{"city":"Paris"}`))}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for g, sink := range sinks {
		calls := allCalls(sink)
		if len(calls) != 5 || len(sink.Events()) != 5 {
			t.Errorf("sink %d: %d calls in %d events, want 5 and 5", g, len(calls), len(sink.Events()))
		}
		for _, c := range calls {
			if !strings.HasPrefix(c.ID, fmt.Sprintf("g%d-", g)) {
				t.Errorf("sink %d collected call %s of another run", g, c.ID)
			}
		}
		if sink.Count(OutcomeExecuted) != 5 {
			t.Errorf("sink %d: executed = %d, want 5", g, sink.Count(OutcomeExecuted))
		}
	}
	if got := len(allCalls(outerSink)); got != 10 {
		t.Errorf("outer sink collected %d calls, want the 10 of both nested scopes", got)
	}
}

func TestStatsSinkSumsTokenUsage(t *testing.T) {
	s := &StatsSink{}
	s.add(ToolNodeEvent{Calls: []CallReport{{Tokens: map[string]TokenUsage{"m": {1, 2, 3}}}}})
	s.add(ToolNodeEvent{Calls: []CallReport{{}, {Tokens: map[string]TokenUsage{"m": {10, 20, 30}, "n": {1, 1, 2}}}}})
	want := map[string]TokenUsage{"m": {11, 22, 33}, "n": {1, 1, 2}}
	if got := s.TokenUsage(); !reflect.DeepEqual(got, want) {
		t.Errorf("TokenUsage = %v, want %v", got, want)
	}
	if (&StatsSink{}).TokenUsage() != nil {
		t.Error("an empty sink reports token usage")
	}
}

func TestPanickingListenerDoesNotFailRun(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&sanSyncWriter{w: &buf, mu: &mu}, nil))
	var after atomic.Int32
	n := sanNode(t,
		WithLogger(logger),
		WithObserver(func(ToolNodeEvent) { panic("observer bug") }),
		WithObserver(func(ToolNodeEvent) { after.Add(1) }),
	)
	ctx, sink := CollectStats(context.Background())
	if _, err := n.Run(ctx, []llms.MessageContent{sanAI(sanCall("c1", "weather", `{"city":"Paris"}`))}); err != nil {
		t.Fatalf("Run = %v, want success despite the panicking observer", err)
	}
	if after.Load() != 1 || len(sink.Events()) != 1 {
		t.Errorf("later observer called %d times, sink has %d events; want 1 and 1", after.Load(), len(sink.Events()))
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(buf.String(), "listener panicked") || !strings.Contains(buf.String(), "observer bug") {
		t.Errorf("log = %q, want the recovered panic", buf.String())
	}
}

type sanSyncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *sanSyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestWarningsCarryCallAttributesNotArgumentValues(t *testing.T) {
	var buf bytes.Buffer
	n := sanNode(t, WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	msgs := []llms.MessageContent{sanAI(
		sanCall("c1", "login", `{"user":"ann","password":"TOPSECRET"}`),
		sanCall("c1", "login", `{"user":"ann","password":"TOPSECRET2"}`),
	)}
	if _, err := n.Run(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	log := buf.String()
	for _, want := range []string{`"tool":"login"`, `"call_id":"c1"`, `"outcome":"dropped"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log %s lacks %s", log, want)
		}
	}
	if strings.Contains(log, "TOPSECRET") || strings.Contains(log, "ann") {
		t.Errorf("log %s holds argument values", log)
	}
}

func TestEmitBuildsEventsOnlyForListeners(t *testing.T) {
	msgs := []llms.MessageContent{sanAI(sanCall("c1", "weather", `{"city":"Paris"}`))}
	allocs := func(n *ToolNode) float64 {
		r := &run{messages: msgs, aiIndex: 0}
		calls := n.collect(msgs[0])
		res := &Result{}
		return testing.AllocsPerRun(20, func() { n.emit(context.Background(), r, res, calls) })
	}
	if got := allocs(sanNode(t)); got != 0 {
		t.Errorf("emit without listeners allocates %v times, want 0", got)
	}
	if got := allocs(sanNode(t, WithObserver(func(ToolNodeEvent) {}))); got == 0 {
		t.Error("emit with an observer allocates nothing: no event was built")
	}
}

// A run is timed only when its event has a listener as it starts; then the
// event's durations cover the tool's own run time.
func TestEventDurationsCoverTheToolsRunTimeWhenObserved(t *testing.T) {
	const pause = 3 * time.Millisecond
	slow := NewTool("slow", "Sleeps.", func(context.Context, struct{}) (string, error) {
		time.Sleep(pause)
		return "ok", nil
	})
	var rec StatsSink
	n, err := NewToolNode([]tools.Tool{slow}, WithObserver(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llms.MessageContent{sanHuman("hi"), sanAI(sanCall("c1", "slow", `{}`))}
	if _, err := n.Run(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	ev := rec.Events()[0]
	if ev.Start.IsZero() || ev.Duration < pause || ev.Stages.Execute < pause || ev.Calls[0].Durations.Execute < pause {
		t.Errorf("durations do not cover the tool's %v: run %v, stage %v, call %v",
			pause, ev.Duration, ev.Stages.Execute, ev.Calls[0].Durations.Execute)
	}
	// Unobserved, the run reads no clock: nothing is measured.
	r := &run{}
	if !r.now().IsZero() || r.since(time.Now().Add(-time.Hour)) != 0 {
		t.Error("an untimed run measured time")
	}
}

// A tool that runs a ToolNode of its own with its ctx shares the outer
// run's state and stats sinks; the inner run's event comes first.
func TestNestedRunSharesStateAndSinks(t *testing.T) {
	var innerState any
	leaf := plainTool{name: "leaf", fn: func(ctx context.Context, _ string) (string, error) {
		innerState = StateFromContext(ctx)
		return "leaf done", nil
	}}
	inner := mustNode(t, []tools.Tool{leaf})
	outerTool := plainTool{name: "outer", fn: func(ctx context.Context, _ string) (string, error) {
		res, err := inner.Run(ctx, conversation(tc("i1", "leaf", "x")))
		if err != nil {
			return "", err
		}
		return res.Calls[0].Output, nil
	}}
	outer := mustNode(t, []tools.Tool{outerTool})
	ctx, sink := CollectStats(context.Background())
	res, err := outer.Run(ContextWithState(ctx, "user-7"), conversation(tc("o1", "outer", "y")))
	if err != nil || res.Calls[0].Output != "leaf done" {
		t.Fatalf("outer run: %v, %+v", err, res)
	}
	if innerState != "user-7" {
		t.Errorf("inner tool saw state %v, want the outer run's", innerState)
	}
	evs := sink.Events()
	if len(evs) != 2 || evs[0].Calls[0].ID != "i1" || evs[1].Calls[0].ID != "o1" {
		t.Errorf("events: %+v", evs)
	}
}

// An event's call reports are the Result's without the fields that can
// carry argument values or tool output, and own their slices and maps.
func TestEventReportsAreTheResultsWithoutArgumentValues(t *testing.T) {
	var rec StatsSink
	n := sanNode(t, WithObserver(rec.add), WithLogger(sanDiscard))
	res, err := n.Run(context.Background(), []llms.MessageContent{sanAI(
		sanCall("c1", "weather", `{"city":"TOPSECRET"}`),          // executed: output quotes it
		sanCall("c2", "weather", `{"city":5,"note":"TOPSECRET"}`), // feedback with issues
		sanCall("c3", "weather", `{"city": "TOPSECRET`),           // unparseable: Err
	)})
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := onlyEvent(t, &rec)
	if len(ev.Calls) != len(res.Calls) {
		t.Fatalf("event has %d reports, Result %d", len(ev.Calls), len(res.Calls))
	}
	if res.Calls[0].Arguments == nil || res.Calls[0].Output == "" || res.Calls[2].Err == nil || len(res.Calls[1].Issues) == 0 {
		t.Fatalf("Result reports lack what the test strips: %+v", res.Calls)
	}
	for i, want := range res.Calls {
		want.RawArguments, want.Arguments, want.Output, want.Err, want.CorrectionErr = "", nil, "", nil, nil
		if !reflect.DeepEqual(ev.Calls[i], want) {
			t.Errorf("event report %d =\n%+v\nwant\n%+v", i, ev.Calls[i], want)
		}
	}
	if s := fmt.Sprintf("%+v", ev); strings.Contains(s, "TOPSECRET") {
		t.Errorf("event holds an argument value: %s", s)
	}
	res.Calls[1].Issues[0].Path = "/changed"
	if ev.Calls[1].Issues[0].Path == "/changed" {
		t.Error("the event shares the Result's issues")
	}
}
