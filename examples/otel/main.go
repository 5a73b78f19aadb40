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
// and prints the run's span, with one child span per call, through the
// stdout trace exporter, followed by the metrics: tool calls by tool and
// outcome, and the run's duration. No span or metric holds an argument
// value.
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
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.opentelemetry.io/otel/attribute"
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
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run handles the scripted AI message with a node observed by the
// OpenTelemetry exporter and writes the spans and metrics to w.
func run(ctx context.Context, w io.Writer) (err error) {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(w), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	// WithSyncer exports each span as it ends, which suits a demo; a
	// service would use sdktrace.WithBatcher and an OTLP exporter.
	res := resource.NewSchemaless(attribute.String("service.name", "saidex-otel-example"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans), sdktrace.WithResource(res))
	defer func() { err = errors.Join(err, tp.Shutdown(ctx)) }()
	// A ManualReader lets the demo print the metrics once; a service would
	// use a PeriodicReader and an OTLP exporter.
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
	defer func() { err = errors.Join(err, mp.Shutdown(ctx)) }()

	obs, err := observer(tp.Tracer(instrumentation), mp.Meter(instrumentation), []string{forecastTool})
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
	fmt.Fprintln(w, "metrics:")
	writeMetrics(w, rm)
	return nil
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
	call := func(id, name, args string) llms.ToolCall {
		return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
	}
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Lisbon, Oslo and Rome, and the tides in Brest?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			call("call_1", forecastTool, `{"city": "Paris", "days": 2}`),       // valid
			call("call_2", forecastTool, `{'city': 'Lisbon', 'days': 3,}`),     // repaired
			call("call_3", forecastTool, `{"city": "Oslo", "days": "three"}`),  // corrected
			call("call_4", forecastTool, `{"days": 5}`),                        // feedback: city is missing
			call("call_5", "get_tides", `{"port": "Brest", "date": "Friday"}`), // unknown tool
		}},
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
