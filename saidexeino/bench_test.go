package saidexeino_test

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/saidexeino"
)

// forecastTool is the benchmark tool made by utils.InferTool: Eino decodes
// its arguments into benchfixture.ForecastArgs with sonic.
func forecastTool(tb testing.TB) tool.InvokableTool {
	t, err := utils.InferTool(benchfixture.ToolName, "Weather forecast.",
		func(_ context.Context, a benchfixture.ForecastArgs) (string, error) { return benchfixture.Body(a), nil })
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// benchMessage is the AI message of n calls of kind k in Eino's types.
func benchMessage(k benchfixture.Kind, n int) *schema.Message {
	calls := make([]schema.ToolCall, 0, n)
	for _, c := range benchfixture.ToolCalls(k, n) {
		calls = append(calls, schema.ToolCall{ID: c.ID, Type: "function",
			Function: schema.FunctionCall{Name: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments}})
	}
	return schema.AssistantMessage("", calls)
}

// BenchmarkToolsNode runs Eino's ToolsNode bare and with the saidex
// configuration, side by side, on messages of valid calls of an InferTool
// tool.
func BenchmarkToolsNode(b *testing.B) {
	ctx := context.Background()
	ft := forecastTool(b)
	bare, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{ft}})
	if err != nil {
		b.Fatal(err)
	}
	g, err := saidexeino.New(ctx, []tool.BaseTool{ft}, saidex.WithHandleToolErrors(true))
	if err != nil {
		b.Fatal(err)
	}
	cfg := g.ToolsNodeConfig()
	guarded, err := compose.NewToolNode(ctx, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 8, 64} {
		msg := benchMessage(benchfixture.Valid, n)
		for _, c := range []struct {
			name string
			node *compose.ToolsNode
		}{{"eino", bare}, {"saidex", guarded}} {
			b.Run("valid/"+strconv.Itoa(n)+"/"+c.name, func(b *testing.B) {
				loop(b, func() {
					if _, err := c.node.Invoke(ctx, msg); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkToolsNodeBroken runs both nodes on messages of 8 broken calls:
// repairable JSON, and calls that parse but break the schema. Bare Eino
// fails the whole node (answered/op 0, the time is the time to fail);
// saidex answers every call (answered/op 8).
func BenchmarkToolsNodeBroken(b *testing.B) {
	ctx := context.Background()
	ft := forecastTool(b)
	bare, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{ft}})
	if err != nil {
		b.Fatal(err)
	}
	g, err := saidexeino.New(ctx, []tool.BaseTool{ft}, saidex.WithHandleToolErrors(true))
	if err != nil {
		b.Fatal(err)
	}
	cfg := g.ToolsNodeConfig()
	guarded, err := compose.NewToolNode(ctx, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	const n = 8
	for _, k := range []benchfixture.Kind{benchfixture.Repaired, benchfixture.Invalid} {
		msg := benchMessage(k, n)
		b.Run(string(k)+"/8/eino", func(b *testing.B) {
			loop(b, func() {
				if _, err := bare.Invoke(ctx, msg); err == nil {
					b.Fatal("bare Eino answered a message of broken calls")
				}
			})
			b.ReportMetric(0, "answered/op")
		})
		b.Run(string(k)+"/8/saidex", func(b *testing.B) {
			loop(b, func() {
				msgs, err := guarded.Invoke(ctx, msg)
				if err != nil || len(msgs) != n {
					b.Fatalf("%d messages, error %v", len(msgs), err)
				}
			})
			b.ReportMetric(n, "answered/op")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports, besides the wall time, the process's
// CPU time per op (cpu-ns/op): on a machine shared with other jobs the wall
// time of a parallel node depends on how many cores the scheduler grants,
// the CPU time much less.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}
