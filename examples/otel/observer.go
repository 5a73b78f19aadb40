package main

import (
	"context"
	"fmt"
	"time"

	"github.com/saidex/saidex-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Span, metric and attribute names. Tool name and call id use the keys of
// the OpenTelemetry GenAI semantic conventions; the rest are saidex's own.
const (
	runSpanName  = "saidex.toolnode.run"
	callSpanName = "saidex.tool_call" // followed by the tool name

	callsMetric       = "saidex.tool_calls"
	runDurationMetric = "saidex.toolnode.run.duration"

	attrToolName           = attribute.Key("gen_ai.tool.name")
	attrCallID             = attribute.Key("gen_ai.tool.call.id")
	attrAIMessageIndex     = attribute.Key("saidex.ai_message_index")
	attrCalls              = attribute.Key("saidex.calls")
	attrCallIndex          = attribute.Key("saidex.call.index")
	attrOutcome            = attribute.Key("saidex.outcome")
	attrIsError            = attribute.Key("saidex.is_error")
	attrRepaired           = attribute.Key("saidex.repaired")
	attrRepairSteps        = attribute.Key("saidex.repair.steps")
	attrCorrectionAttempt  = attribute.Key("saidex.correction.attempted")
	attrCorrectionRetries  = attribute.Key("saidex.correction.retries")
	attrFieldIssues        = attribute.Key("saidex.field_issues")
	attrFieldIssueKinds    = attribute.Key("saidex.field_issue.kinds")
	runDurationDescription = "Duration of a saidex ToolNode run: repair, validation, correction and execution of one AI message's tool calls."
)

// observer returns a function for [saidex.WithObserver] that exports every [saidex.ToolNodeEvent] to
// OpenTelemetry:
//
//   - one span per run (saidex.toolnode.run), from ev.Start to
//     ev.Start+ev.Duration, with one child span per tool call
//     (saidex.tool_call <tool>) carrying the call's id, outcome, repair,
//     correction and validation facts;
//   - a counter of tool calls (saidex.tool_calls) by tool name and outcome;
//   - a histogram of run durations in seconds (saidex.toolnode.run.duration).
//
// The event arrives after the run has ended, so the spans are created with
// explicit timestamps. The event records how long each call spent in each
// stage but not when the call started, so a call span starts with the run
// and lasts the call's summed stage times (capped at the run's end): its
// length is exact, its position approximate.
//
// Nothing exported carries an argument value: the event holds none, and of
// its field issues only the count and the kinds (JSON Schema keywords such
// as "required") are exported, never the messages, paths or allowed values.
//
// The tool name comes from the model, which may invent names, and a
// metric's attribute sets must stay few: a call of a tool the node does
// not have (outcome unknown_tool) is counted without gen_ai.tool.name, and
// only its span carries the name the model sent. Every other call is
// counted under its tool's name, one of the node's.
//
// The observer has no context (saidex calls it with the event only), so run
// spans are roots of their own traces; they do not join the trace of the
// request that ran the node. The returned function is safe for concurrent
// use, as WithObserver requires.
func observer(tracer trace.Tracer, meter metric.Meter) (func(saidex.ToolNodeEvent), error) {
	calls, err := meter.Int64Counter(callsMetric,
		metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls handled by saidex ToolNodes, by tool and outcome."))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", callsMetric, err)
	}
	runs, err := meter.Float64Histogram(runDurationMetric,
		metric.WithUnit("s"),
		metric.WithDescription(runDurationDescription),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", runDurationMetric, err)
	}
	// callSeries is the attribute set a call is counted under.
	callSeries := func(c *saidex.CallReport) metric.MeasurementOption {
		if c.Outcome == saidex.OutcomeUnknownTool { // a name the model made up: on the span only
			return metric.WithAttributes(attrOutcome.String(string(c.Outcome)))
		}
		return metric.WithAttributes(attrToolName.String(c.Name), attrOutcome.String(string(c.Outcome)))
	}

	return func(ev saidex.ToolNodeEvent) {
		// The observer gets no context; spans become roots and metrics are
		// recorded without one.
		ctx := context.Background()
		start, end := ev.Start, ev.Start.Add(ev.Duration)
		if start.IsZero() {
			// An event without times (one not emitted by a run) has no
			// start: place it at the time of export.
			now := time.Now()
			start, end = now, now
		}

		runCtx, runSpan := tracer.Start(ctx, runSpanName,
			trace.WithTimestamp(start),
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(
				attrAIMessageIndex.Int(ev.AIMessageIndex),
				attrCalls.Int(len(ev.Calls)),
			))
		for i := range ev.Calls {
			c := &ev.Calls[i]
			callEnd := start.Add(c.Durations.Repair + c.Durations.Validate + c.Durations.Correct + c.Durations.Execute)
			if callEnd.After(end) {
				callEnd = end
			}
			_, span := tracer.Start(runCtx, callSpanName+" "+c.Name,
				trace.WithTimestamp(start),
				trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(callAttributes(c)...))
			if c.IsError {
				span.SetStatus(codes.Error, "the tool message answers with an error")
			}
			span.End(trace.WithTimestamp(callEnd))

			calls.Add(ctx, 1, callSeries(c))
		}
		runSpan.End(trace.WithTimestamp(end))
		if !ev.Start.IsZero() { // an untimed run (see ToolNodeEvent) would record 0 s
			runs.Record(ctx, ev.Duration.Seconds())
		}
	}, nil
}

// callAttributes returns the span attributes of one call: facts about what
// saidex did with it, never its arguments.
func callAttributes(c *saidex.CallReport) []attribute.KeyValue {
	steps := make([]string, len(c.RepairSteps))
	for i, s := range c.RepairSteps {
		steps[i] = string(s)
	}
	// Field issues: those found, then those validators only flagged.
	kinds := make([]string, 0, len(c.Issues)+len(c.Flagged))
	for _, list := range [][]saidex.Issue{c.Issues, c.Flagged} {
		for _, is := range list {
			kinds = append(kinds, string(is.Kind))
		}
	}
	attrs := []attribute.KeyValue{
		attrToolName.String(c.Name),
		attrCallID.String(c.ID),
		attrCallIndex.Int(c.Index),
		attrOutcome.String(string(c.Outcome)),
		attrIsError.Bool(c.IsError),
		attrRepaired.Bool(c.Repaired),
		attrCorrectionAttempt.Bool(c.CorrectionAttempted),
		attrFieldIssues.Int(len(kinds)),
	}
	// Attributes that only say more about a fact above are left out when
	// that fact is false or zero, to keep spans short.
	if len(steps) > 0 {
		attrs = append(attrs, attrRepairSteps.StringSlice(steps))
	}
	if c.CorrectionAttempted {
		attrs = append(attrs, attrCorrectionRetries.Int(c.CorrectionRetries))
	}
	if len(kinds) > 0 {
		attrs = append(attrs, attrFieldIssueKinds.StringSlice(kinds))
	}
	return attrs
}
