package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/saidex/saidex-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// argumentValues are values sent in the scripted calls' arguments (and the
// correction model's answer); none may reach a span or a metric.
var argumentValues = []string{"Paris", "Lisbon", "Oslo", "three", "Brest", "Friday"}

// harness is an observer wired to in-memory OpenTelemetry exporters.
type harness struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	obs    func(saidex.ToolNodeEvent)
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		if err := errors.Join(tp.Shutdown(context.Background()), mp.Shutdown(context.Background())); err != nil {
			t.Error(err)
		}
	})
	obs, err := observer(tp.Tracer("test"), mp.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	h.obs = obs
	return h
}

// run runs the example's node and conversation n times concurrently and
// returns the events saidex reported.
func (h *harness) run(t *testing.T, n int) []saidex.ToolNodeEvent {
	t.Helper()
	node, err := newNode(saidex.WithObserver(h.obs))
	if err != nil {
		t.Fatal(err)
	}
	ctx, sink := saidex.CollectStats(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := node.Run(ctx, conversation()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	return sink.Events()
}

func (h *harness) metrics(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func attrOf(attrs []attribute.KeyValue, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range attrs {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func TestObserverExportsARunSpanWithOneChildSpanPerCall(t *testing.T) {
	h := newHarness(t)
	events := h.run(t, 1)
	if len(events) != 1 {
		t.Fatalf("saidex reported %d events, want 1", len(events))
	}
	ev := events[0]

	var runSpan tracetest.SpanStub
	var children []tracetest.SpanStub
	for _, s := range h.spans.GetSpans() {
		if s.Name == runSpanName {
			if runSpan.Name != "" {
				t.Fatal("two run spans for one run")
			}
			runSpan = s
			continue
		}
		children = append(children, s)
	}
	if runSpan.Name == "" {
		t.Fatalf("no %s span", runSpanName)
	}
	if runSpan.Parent.IsValid() {
		t.Errorf("run span has parent %v, want a root span", runSpan.Parent)
	}
	runEnd := ev.Start.Add(ev.Duration)
	if !runSpan.StartTime.Equal(ev.Start) || !runSpan.EndTime.Equal(runEnd) {
		t.Errorf("run span %v..%v, want the run's %v..%v", runSpan.StartTime, runSpan.EndTime, ev.Start, runEnd)
	}
	if v, _ := attrOf(runSpan.Attributes, attrCalls); v.AsInt64() != 5 {
		t.Errorf("run span %s = %v, want 5", attrCalls, v.String())
	}
	if len(children) != len(ev.Calls) || len(children) != 5 {
		t.Fatalf("%d call spans for %d calls, want 5", len(children), len(ev.Calls))
	}

	type want struct {
		tool                string
		outcome             saidex.Outcome
		isError, repaired   bool
		repairSteps         []string // nil: attribute absent
		correctionAttempted bool
		fieldIssueKinds     []string // nil: attribute absent
	}
	wants := map[string]want{
		"call_1": {tool: forecastTool, outcome: saidex.OutcomeExecuted},
		"call_2": {tool: forecastTool, outcome: saidex.OutcomeExecuted, repaired: true, repairSteps: []string{string(saidex.RepairJSON)}},
		"call_3": {tool: forecastTool, outcome: saidex.OutcomeCorrected, correctionAttempted: true, fieldIssueKinds: []string{string(saidex.IssueType)}},
		"call_4": {tool: forecastTool, outcome: saidex.OutcomeFeedback, isError: true, fieldIssueKinds: []string{string(saidex.IssueRequired)}},
		"call_5": {tool: "get_tides", outcome: saidex.OutcomeUnknownTool, isError: true},
	}
	seen := map[string]bool{}
	for _, s := range children {
		id, _ := attrOf(s.Attributes, attrCallID)
		w, ok := wants[id.AsString()]
		if !ok || seen[id.AsString()] {
			t.Errorf("unexpected or repeated call span %q (call id %q)", s.Name, id.String())
			continue
		}
		seen[id.AsString()] = true
		t.Run(id.AsString(), func(t *testing.T) {
			if s.Parent.SpanID() != runSpan.SpanContext.SpanID() || s.Parent.TraceID() != runSpan.SpanContext.TraceID() ||
				s.SpanContext.TraceID() != runSpan.SpanContext.TraceID() {
				t.Errorf("parent %v in trace %v, want the run span %v", s.Parent.SpanID(), s.SpanContext.TraceID(), runSpan.SpanContext.SpanID())
			}
			if s.Name != callSpanName+" "+w.tool {
				t.Errorf("name %q, want %q", s.Name, callSpanName+" "+w.tool)
			}
			if !s.StartTime.Equal(ev.Start) || s.EndTime.Before(s.StartTime) || s.EndTime.After(runEnd) {
				t.Errorf("call span %v..%v is not within the run %v..%v", s.StartTime, s.EndTime, ev.Start, runEnd)
			}
			get := func(k attribute.Key) attribute.Value {
				v, ok := attrOf(s.Attributes, k)
				if !ok {
					t.Errorf("attribute %s missing", k)
				}
				return v
			}
			if v := get(attrToolName).AsString(); v != w.tool {
				t.Errorf("%s = %q, want %q", attrToolName, v, w.tool)
			}
			if v := get(attrOutcome).AsString(); v != string(w.outcome) {
				t.Errorf("%s = %q, want %q", attrOutcome, v, w.outcome)
			}
			if v := get(attrIsError).AsBool(); v != w.isError {
				t.Errorf("%s = %v, want %v", attrIsError, v, w.isError)
			}
			if v := get(attrRepaired).AsBool(); v != w.repaired {
				t.Errorf("%s = %v, want %v", attrRepaired, v, w.repaired)
			}
			if v := get(attrCorrectionAttempt).AsBool(); v != w.correctionAttempted {
				t.Errorf("%s = %v, want %v", attrCorrectionAttempt, v, w.correctionAttempted)
			}
			if v := get(attrFieldIssues).AsInt64(); v != int64(len(w.fieldIssueKinds)) {
				t.Errorf("%s = %d, want %d", attrFieldIssues, v, len(w.fieldIssueKinds))
			}
			if v, _ := attrOf(s.Attributes, attrRepairSteps); !slices.Equal(v.AsStringSlice(), w.repairSteps) {
				t.Errorf("%s = %v, want %v", attrRepairSteps, v.AsStringSlice(), w.repairSteps)
			}
			if v, _ := attrOf(s.Attributes, attrFieldIssueKinds); !slices.Equal(v.AsStringSlice(), w.fieldIssueKinds) {
				t.Errorf("%s = %v, want %v", attrFieldIssueKinds, v.AsStringSlice(), w.fieldIssueKinds)
			}
			if _, ok := attrOf(s.Attributes, attrCorrectionRetries); ok != w.correctionAttempted {
				t.Errorf("%s present = %v, want %v", attrCorrectionRetries, ok, w.correctionAttempted)
			}
			if wantCode := map[bool]codes.Code{true: codes.Error, false: codes.Unset}[w.isError]; s.Status.Code != wantCode {
				t.Errorf("status %v, want %v", s.Status.Code, wantCode)
			}
		})
	}
}

func TestObserverCountsCallsByToolAndOutcome(t *testing.T) {
	const runs = 4 // concurrent, as WithObserver allows
	tests := []struct {
		name      string
		tidesTool string // the metric's tool name for the unknown get_tides
	}{
		{"an unknown tool is counted without a tool name", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			events := h.run(t, runs)
			if len(events) != runs {
				t.Fatalf("saidex reported %d events, want %d", len(events), runs)
			}

			type key struct{ tool, outcome string }
			got := map[key]int64{}
			var histCount uint64
			var histSum float64
			for _, sm := range h.metrics(t).ScopeMetrics {
				for _, m := range sm.Metrics {
					switch m.Name {
					case callsMetric:
						sum, ok := m.Data.(metricdata.Sum[int64])
						if !ok || !sum.IsMonotonic {
							t.Fatalf("%s is %T, want a monotonic int64 sum", m.Name, m.Data)
						}
						for _, p := range sum.DataPoints {
							tool, _ := p.Attributes.Value(attrToolName)
							outcome, _ := p.Attributes.Value(attrOutcome)
							got[key{tool.AsString(), outcome.AsString()}] += p.Value
						}
					case runDurationMetric:
						if m.Unit != "s" {
							t.Errorf("%s unit %q, want s", m.Name, m.Unit)
						}
						for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
							histCount += p.Count
							histSum += p.Sum
						}
					}
				}
			}
			want := map[key]int64{
				{forecastTool, string(saidex.OutcomeExecuted)}:    2 * runs,
				{forecastTool, string(saidex.OutcomeCorrected)}:   runs,
				{forecastTool, string(saidex.OutcomeFeedback)}:    runs,
				{tt.tidesTool, string(saidex.OutcomeUnknownTool)}: runs,
			}
			if len(got) != len(want) {
				t.Errorf("counter series %v, want %v", got, want)
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("%s{tool=%s, outcome=%s} = %d, want %d", callsMetric, k.tool, k.outcome, got[k], n)
				}
			}

			var wantSum float64
			for _, ev := range events {
				wantSum += ev.Duration.Seconds()
			}
			if histCount != runs || math.Abs(histSum-wantSum) > 1e-9 {
				t.Errorf("%s count %d sum %g, want %d and %g", runDurationMetric, histCount, histSum, runs, wantSum)
			}

			// Each run is its own trace: one root span, five children in it.
			perTrace := map[string]int{}
			for _, s := range h.spans.GetSpans() {
				perTrace[s.SpanContext.TraceID().String()]++
			}
			if len(perTrace) != runs {
				t.Errorf("%d traces, want %d", len(perTrace), runs)
			}
			for id, n := range perTrace {
				if n != 6 {
					t.Errorf("trace %s has %d spans, want 6", id, n)
				}
			}
		})
	}
}

func TestObserverPlacesCallSpansWithinTheRun(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	call := func(id string, d saidex.StageDurations) saidex.CallReport {
		return saidex.CallReport{ID: id, Name: forecastTool, Outcome: saidex.OutcomeExecuted, Durations: d}
	}
	tests := []struct {
		name    string
		ev      saidex.ToolNodeEvent
		wantEnd map[string]time.Duration // call id -> end, from the run's start
	}{
		{
			name: "a call lasts its summed stage times",
			ev: saidex.ToolNodeEvent{Start: t0, Duration: 10 * time.Millisecond, Calls: []saidex.CallReport{
				call("a", saidex.StageDurations{Repair: time.Millisecond, Validate: time.Millisecond, Correct: 3 * time.Millisecond, Execute: 2 * time.Millisecond}),
				call("b", saidex.StageDurations{}),
			}},
			wantEnd: map[string]time.Duration{"a": 7 * time.Millisecond, "b": 0},
		},
		{
			name: "a call never ends after the run",
			ev: saidex.ToolNodeEvent{Start: t0, Duration: 10 * time.Millisecond, Calls: []saidex.CallReport{
				call("a", saidex.StageDurations{Validate: 4 * time.Millisecond, Execute: 9 * time.Millisecond}),
			}},
			wantEnd: map[string]time.Duration{"a": 10 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.obs(tt.ev)
			spans := h.spans.GetSpans()
			if len(spans) != len(tt.ev.Calls)+1 {
				t.Fatalf("%d spans, want %d", len(spans), len(tt.ev.Calls)+1)
			}
			for _, s := range spans {
				if !s.StartTime.Equal(t0) {
					t.Errorf("%s starts at %v, want the run's start %v", s.Name, s.StartTime, t0)
				}
				id, ok := attrOf(s.Attributes, attrCallID)
				if !ok {
					if want := t0.Add(tt.ev.Duration); !s.EndTime.Equal(want) {
						t.Errorf("run span ends at %v, want %v", s.EndTime, want)
					}
					continue
				}
				if want := t0.Add(tt.wantEnd[id.AsString()]); !s.EndTime.Equal(want) {
					t.Errorf("call %s ends at %v, want %v", id.AsString(), s.EndTime, want)
				}
			}
		})
	}

	t.Run("an untimed run is placed at the time of export", func(t *testing.T) {
		h := newHarness(t)
		before := time.Now()
		h.obs(saidex.ToolNodeEvent{Calls: []saidex.CallReport{call("a", saidex.StageDurations{})}})
		for _, s := range h.spans.GetSpans() {
			if s.StartTime.Before(before) || !s.EndTime.Equal(s.StartTime) {
				t.Errorf("%s spans %v..%v, want an instant at or after %v", s.Name, s.StartTime, s.EndTime, before)
			}
		}
		// Its call is counted, but its zero duration is not recorded.
		for _, sm := range h.metrics(t).ScopeMetrics {
			for _, m := range sm.Metrics {
				if hist, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == runDurationMetric {
					for _, p := range hist.DataPoints {
						if p.Count != 0 {
							t.Errorf("an untimed run recorded %d durations", p.Count)
						}
					}
				}
			}
		}
	})
}

// TestExportHoldsNoArgumentValue checks every exported string: span names,
// attributes, status descriptions and events, metric attributes, and the
// command's whole output.
func TestExportHoldsNoArgumentValue(t *testing.T) {
	h := newHarness(t)
	h.run(t, 1)

	var exported []string
	addAttrs := func(attrs ...attribute.KeyValue) {
		for _, kv := range attrs {
			exported = append(exported, string(kv.Key), kv.Value.String())
		}
	}
	spans := h.spans.GetSpans()
	if len(spans) == 0 {
		t.Fatal("no spans exported")
	}
	for _, s := range spans {
		exported = append(exported, s.Name, s.Status.Description)
		addAttrs(s.Attributes...)
		for _, e := range s.Events {
			exported = append(exported, e.Name)
			addAttrs(e.Attributes...)
		}
	}
	for _, sm := range h.metrics(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			exported = append(exported, m.Name, m.Description)
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, p := range sum.DataPoints {
					addAttrs(p.Attributes.ToSlice()...)
				}
			}
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out, true); err != nil {
		t.Fatal(err)
	}
	exported = append(exported, out.String())

	for _, s := range exported {
		for _, v := range argumentValues {
			if strings.Contains(s, v) {
				t.Errorf("exported text %q holds the argument value %q", s, v)
			}
		}
	}
}

// TestRunPrintsTheSummaryFirst checks the command's output: the metrics
// first, then one line per span, the run's span before its call spans,
// and with verbose the stdout exporter's JSON after them.
func TestRunPrintsTheSummaryFirst(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), &out, verbose); err != nil {
				t.Fatal(err)
			}
			summary, rest, ok := strings.Cut(out.String(), "\nspans (the run, then one per call")
			if !ok || !strings.HasPrefix(summary, "summary (metrics):\n") {
				t.Fatalf("the output does not open with the summary, then the spans:\n%s", out.String())
			}
			for _, line := range []string{
				callsMetric + "{gen_ai.tool.name=get_forecast,saidex.outcome=executed} 2",
				callsMetric + "{gen_ai.tool.name=get_forecast,saidex.outcome=corrected} 1",
				callsMetric + "{gen_ai.tool.name=get_forecast,saidex.outcome=feedback} 1",
				callsMetric + "{saidex.outcome=unknown_tool} 1",
				"(a call of a tool the node does not have is counted without gen_ai.tool.name: the name the model",
				"sent is on the call's span, below, so names a model invents add no metric series)",
				runDurationMetric + " count=1 ",
			} {
				if !strings.Contains(summary, line) {
					t.Errorf("summary lacks %q:\n%s", line, summary)
				}
			}

			lines, jsonText, _ := strings.Cut(rest, "\nspans (stdout trace exporter):\n")
			var names []string
			for _, l := range strings.Split(lines, "\n")[1:] {
				if name, _, ok := strings.Cut(strings.TrimSpace(l), " ("); ok && strings.HasPrefix(l, "  ") {
					names = append(names, name)
				}
			}
			want := []string{
				runSpanName,
				callSpanName + " get_forecast", callSpanName + " get_forecast", callSpanName + " get_forecast", callSpanName + " get_forecast",
				callSpanName + " get_tides",
			}
			if !slices.Equal(names, want) {
				t.Errorf("span lines name %q, want %q:\n%s", names, want, lines)
			}
			if n := strings.Count(lines, "\n"); n > 12 {
				t.Errorf("the span lines take %d lines:\n%s", n, lines)
			}
			if !strings.Contains(lines, "gen_ai.tool.call.id=call_4 saidex.call.index=3 saidex.outcome=feedback") {
				t.Errorf("the span lines lack call_4's outcome:\n%s", lines)
			}

			if !verbose {
				if jsonText != "" {
					t.Errorf("JSON spans printed without verbose")
				}
				return
			}
			var jsonNames []string
			dec := json.NewDecoder(strings.NewReader(jsonText))
			for {
				var span struct{ Name string }
				if err := dec.Decode(&span); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("decoding span %d: %v", len(jsonNames)+1, err)
				}
				jsonNames = append(jsonNames, span.Name)
			}
			slices.Sort(jsonNames)
			slices.Sort(want)
			if !slices.Equal(jsonNames, want) {
				t.Errorf("verbose spans %q, want %q", jsonNames, want)
			}
		})
	}
}
