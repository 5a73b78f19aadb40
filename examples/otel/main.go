// Command otel exports the events of a saidex ToolNode as OpenTelemetry
// spans and metrics, with no API key: it runs a node on a scripted AI
// message whose five tool calls take every common path,
//
//   - a valid call, executed as sent,
//   - a call with broken JSON (single quotes, a trailing comma), repaired
//     and executed,
//   - a call with a wrongly typed field, fixed by a (scripted) correction
//     model and executed,
//   - a call missing a required field, answered with feedback,
//   - a call to a tool that does not exist, answered with an error,
//
// and prints a summary first, the metrics: tool calls by tool and outcome,
// and the run's duration; then the run's span and its child span per call,
// one line each (go run . -v adds them as the stdout trace exporter prints
// them). No span or metric holds an argument value.
//
// The exporter itself is the observer function in observer.go, passed to
// the node with saidex.WithObserver; copy it into your program and give it
// your own tracer and meter.
//
// This directory is a Go module of its own, so that the saidex library never
// depends on OpenTelemetry; its go.mod points at the library in the parent
// directories. Run it from this directory:
//
//	cd examples/otel && go run .
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// instrumentation is the name of the tracer and meter.
const instrumentation = "github.com/saidex/saidex-go/examples/otel"

// ForecastArgs is the weather tool's argument object; its JSON Schema is
// reflected from the struct.
type ForecastArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
}

func main() {
	verbose := flag.Bool("v", false, "also print the spans as the stdout trace exporter does")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *verbose); err != nil {
		log.Fatal(err)
	}
}

// run handles the scripted AI message with a node observed by the
// OpenTelemetry exporter, and writes to w a summary (the metrics) first,
// then the spans, one line each. With verbose, the spans follow as the
// stdout trace exporter prints them (about 600 lines of JSON).
func run(ctx context.Context, w io.Writer, verbose bool) (err error) {
	// The spans are kept until the end, so the summary comes first. A
	// service would use sdktrace.WithBatcher and an OTLP exporter.
	spans := &spanCollector{}
	res := resource.NewSchemaless(attribute.String("service.name", "saidex-otel-example"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans), sdktrace.WithResource(res))
	defer func() { err = errors.Join(err, tp.Shutdown(ctx)) }()
	// A ManualReader lets the demo print the metrics once; a service would
	// use a PeriodicReader and an OTLP exporter.
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
	defer func() { err = errors.Join(err, mp.Shutdown(ctx)) }()

	obs, err := observer(tp.Tracer(instrumentation), mp.Meter(instrumentation))
	if err != nil {
		return err
	}
	node, err := newNode(saidex.WithObserver(obs))
	if err != nil {
		return err
	}
	if _, err := node.Run(ctx, conversation()); err != nil {
		return err
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	fmt.Fprintln(w, "summary (metrics):")
	writeMetrics(w, rm)
	fmt.Fprintln(w, "  (a call of a tool the node does not have is counted without gen_ai.tool.name: the name the model")
	fmt.Fprintln(w, "  sent is on the call's span, below, so names a model invents add no metric series)")
	fmt.Fprintln(w, "\nspans (the run, then one per call; attributes that are false or 0 left out):")
	spans.writeLines(w)
	if !verbose {
		fmt.Fprintln(w, "\n(go run . -v prints the spans as the stdout trace exporter does)")
		return nil
	}
	fmt.Fprintln(w, "\nspans (stdout trace exporter):")
	exp, err := stdouttrace.New(stdouttrace.WithWriter(w), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	return exp.ExportSpans(ctx, spans.all())
}

// spanCollector is an sdktrace.SpanExporter that keeps the spans it is
// given, for printing once the run is over.
type spanCollector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

// ExportSpans keeps spans.
func (c *spanCollector) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans = append(c.spans, spans...)
	return nil
}

// Shutdown does nothing: the collector holds no resource.
func (c *spanCollector) Shutdown(context.Context) error { return nil }

func (c *spanCollector) all() []sdktrace.ReadOnlySpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// writeLines writes one line per span: every span without a parent among
// the spans, then its children indented, in start order (ties by call
// index). A line holds the name, the duration, the status when it is set,
// and the attributes, leaving out the tool name (in the span name) and
// those that are false or 0.
func (c *spanCollector) writeLines(w io.Writer) {
	spans := c.all()
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int {
		return cmp.Or(a.StartTime().Compare(b.StartTime()), cmp.Compare(callIndex(a), callIndex(b)))
	})
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	var write func(s sdktrace.ReadOnlySpan, indent string)
	write = func(s sdktrace.ReadOnlySpan, indent string) {
		line := fmt.Sprintf("%s%s (%s)", indent, s.Name(), s.EndTime().Sub(s.StartTime()).Round(time.Microsecond))
		if st := s.Status(); st.Code != codes.Unset {
			line += fmt.Sprintf(" status=%s", st.Code)
		}
		for _, kv := range s.Attributes() {
			if kv.Key == attrToolName || kv.Value.String() == "false" || (kv.Key != attrCallIndex && kv.Value.String() == "0") {
				continue // in the span name, or false or 0
			}
			line += fmt.Sprintf(" %s=%s", kv.Key, kv.Value.String())
		}
		fmt.Fprintln(w, line)
		for _, child := range spans {
			if child.Parent().SpanID() == s.SpanContext().SpanID() {
				write(child, indent+"  ")
			}
		}
	}
	for _, s := range spans {
		if !s.Parent().IsValid() || !ids[s.Parent().SpanID().String()] {
			write(s, "  ")
		}
	}
}

// callIndex returns a call span's saidex.call.index attribute, or -1.
func callIndex(s sdktrace.ReadOnlySpan) int64 {
	for _, kv := range s.Attributes() {
		if kv.Key == attrCallIndex {
			return kv.Value.AsInt64()
		}
	}
	return -1
}

const forecastTool = "get_forecast"

// newNode returns a node with the weather tool and a scripted correction
// model that answers every correction request with valid arguments.
func newNode(opts ...saidex.Option) (*saidex.ToolNode, error) {
	forecast := saidex.NewTool(forecastTool, "Weather forecast for a city.",
		func(_ context.Context, a ForecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny, 21 degrees, for %d days", a.City, a.Days), nil
		})
	corrector := saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Oslo", "days": 3}`))
	return saidex.NewToolNode([]tools.Tool{forecast},
		append([]saidex.Option{saidex.WithCorrectionModel(corrector)}, opts...)...)
}

// conversation returns a user question and the scripted AI message that
// answers it with five tool calls.
func conversation() []llms.MessageContent {
	call := saidextest.Call
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Lisbon, Oslo and Rome, and the tides in Brest?"),
		saidextest.AIMessage(
			call("call_1", forecastTool, `{"city": "Paris", "days": 2}`),       // valid
			call("call_2", forecastTool, `{'city': 'Lisbon', 'days': 3,}`),     // repaired
			call("call_3", forecastTool, `{"city": "Oslo", "days": "three"}`),  // corrected
			call("call_4", forecastTool, `{"days": 5}`),                        // feedback: city is missing
			call("call_5", "get_tides", `{"port": "Brest", "date": "Friday"}`), // unknown tool
		),
	}
}

// writeMetrics writes the counter's data points and the histogram's count
// and sum, in a stable order.
func writeMetrics(w io.Writer, rm metricdata.ResourceMetrics) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				points := slices.Clone(data.DataPoints)
				slices.SortFunc(points, func(a, b metricdata.DataPoint[int64]) int {
					return cmp.Compare(attrString(a.Attributes), attrString(b.Attributes))
				})
				for _, p := range points {
					fmt.Fprintf(w, "  %s{%s} %d\n", m.Name, attrString(p.Attributes), p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range data.DataPoints {
					fmt.Fprintf(w, "  %s count=%d sum=%gs\n", m.Name, p.Count, p.Sum)
				}
			}
		}
	}
}

func attrString(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, fmt.Sprintf("%s=%s", kv.Key, kv.Value.String()))
	}
	return strings.Join(parts, ",")
}
