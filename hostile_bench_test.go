package saidex

import (
	"context"
	"fmt"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// BenchmarkToolOnly is the tool's own cost for the messages of
// BenchmarkRun: decoding its arguments into its struct and its body, with
// no executor around it. Subtracted from BenchmarkRun/valid, it gives what
// the node adds per call.
func BenchmarkToolOnly(b *testing.B) {
	ctx := context.Background()
	tool := benchTool()
	for _, size := range []int{1, 8, 64} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			calls := benchfixture.ToolCalls(benchfixture.Valid, size)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range calls {
					// As the node runs it: decoding arguments its schema accepted.
					if _, err := tool.(validatedCaller).callValidated(ctx, c.FunctionCall.Arguments); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkHugeBroken is the cost of answering one call whose 10 MB
// argument string does not parse: refused unparsed above the default
// WithMaxArgumentBytes, and, under a raised cap, parsed and refused or
// repaired. The budget is 50 ms.
func BenchmarkHugeBroken(b *testing.B) {
	ctx := context.Background()
	args := hugeObject(10 << 20)
	args = args[:len(args)-1] + ",}"
	msgs := conversation(llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: benchfixture.ToolName, Arguments: args}})
	for _, bc := range []struct {
		name string
		opts []Option
	}{
		{"default-cap", nil},
		{"raised-cap", []Option{WithMaxArgumentBytes(16 << 20)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n := mustNode(b, []tools.Tool{benchTool()}, bc.opts...)
			b.ReportAllocs()
			for b.Loop() {
				res, err := n.Run(ctx, msgs)
				if err != nil || len(res.ToolMessages) != 1 || res.Calls[0].Outcome == OutcomeExecuted && res.Calls[0].IsError {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunSequential is BenchmarkRun/valid with WithMaxConcurrency(1):
// the calls run one after another on the caller's goroutine, as in the
// stock baselines. The difference with BenchmarkRun/valid is what the
// default's concurrent execution costs for a tool that does no I/O (the
// calling goroutine runs calls and starts workers, one at a time, only while
// calls are waiting; see WithMaxConcurrency).
func BenchmarkRunSequential(b *testing.B) {
	ctx := context.Background()
	n := mustNode(b, []tools.Tool{benchTool()}, WithMaxConcurrency(1))
	for _, size := range []int{1, 8, 64} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			msgs := benchfixture.Conversation(benchfixture.Valid, size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := n.Run(ctx, msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
