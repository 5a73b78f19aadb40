package saidex

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The scaling benchmarks of issue 24: each runs one shape at two or more
// sizes, so that BENCHMARKS.md can give the ratio of the larger to the
// smaller (10× the size should cost about 10× the time: linear).

// scaleSizes are the sizes of the 1k vs 10k benchmarks.
var scaleSizes = []int{1000, 10000}

// halfAnswered returns a conversation whose AI message has n calls of tool
// "t", the even ones answered by the tool messages after it, in reverse
// order.
func halfAnswered(n int) []llms.MessageContent {
	calls := make([]llms.ContentPart, n)
	for i := range calls {
		calls[i] = tc(fmt.Sprintf("call_%d", i), "t", `{}`)
	}
	msgs := conversation(calls...)
	for i := n - 2; i >= 0; i -= 2 {
		msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: fmt.Sprintf("call_%d", i), Name: "t", Content: "done"},
		}})
	}
	return msgs
}

// BenchmarkScaleHistory runs a message of n calls, half of them answered
// by earlier tool messages: matching the answered ones, running the rest,
// placing the new answers.
func BenchmarkScaleHistory(b *testing.B) {
	ctx := context.Background()
	tool := NewTool("t", "", func(context.Context, struct{}) (string, error) { return "ok", nil })
	n := mustNode(b, []tools.Tool{tool}, WithMaxConcurrency(1))
	for _, size := range scaleSizes {
		msgs := halfAnswered(size)
		b.Run(fmt.Sprintf("calls=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := n.Run(ctx, msgs)
				if err != nil || len(res.ToolMessages) != size/2 {
					b.Fatal(err)
				}
			}
		})
	}
}

// recursiveSchema is a tree of nodes: each has an integer value and
// optional children of the same schema.
const recursiveSchema = `{"type": "object", "properties": {
	"v": {"type": "integer"},
	"c": {"$ref": "#"}},
  "additionalProperties": false}`

// deepArguments nests depth objects {"c": …}; the innermost holds a value
// of the wrong type, so validation fails at the bottom.
func deepArguments(depth int) string {
	return strings.Repeat(`{"c":`, depth) + `{"v":"x"}` + strings.Repeat(`}`, depth)
}

// BenchmarkScaleDeep runs one call whose argument nests depth objects
// against a recursive schema and fails validation at the bottom: the
// issues come from an error tree as deep as the value. Up to depth 999
// (1,000 levels) the full validator runs; deeper values are refused before
// it (see compiledSchema.validate).
func BenchmarkScaleDeep(b *testing.B) {
	ctx := context.Background()
	tool := ToolWithSchema(plainTool{name: "tree"}, recursiveSchema)
	n := mustNode(b, []tools.Tool{tool}, WithLogger(sanDiscard))
	for _, depth := range []int{250, 500, 999, 1000, 2000, 4000, 8000} {
		msgs := conversation(tc("c1", "tree", deepArguments(depth)))
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := n.Run(ctx, msgs)
				if err != nil || res.Calls[0].Outcome != OutcomeFeedback {
					b.Fatal(err, res.Calls[0].Outcome)
				}
			}
		})
	}
}

// enumSchema is an object whose one field is an enum of n strings.
func enumSchema(n int) map[string]any {
	vals := make([]any, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("value-%06d", i)
	}
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"pick": map[string]any{"type": "string", "enum": vals}},
		"required":   []any{"pick"},
	}
}

// BenchmarkScaleEnum runs one call whose value is not one of an enum of n
// values, and reports the size of its feedback (bytes/msg).
func BenchmarkScaleEnum(b *testing.B) {
	ctx := context.Background()
	for _, size := range scaleSizes {
		tool := ToolWithSchema(plainTool{name: "pick"}, enumSchema(size))
		n := mustNode(b, []tools.Tool{tool}, WithLogger(sanDiscard))
		msgs := conversation(tc("c1", "pick", `{"pick": "value-00012x"}`))
		b.Run(fmt.Sprintf("values=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			var res *Result
			for b.Loop() {
				var err error
				if res, err = n.Run(ctx, msgs); err != nil || res.Calls[0].Outcome != OutcomeFeedback {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(response(b, res.ToolMessages[0]).Content)), "bytes/msg")
		})
	}
}

// manyTools returns n tools named tool_000000, tool_000001, ….
func manyTools(n int) []tools.Tool {
	ts := make([]tools.Tool, n)
	for i := range ts {
		ts[i] = plainTool{name: fmt.Sprintf("tool_%06d", i)}
	}
	return ts
}

// BenchmarkScaleUnknownTool runs one call of an unknown tool on a node of
// n tools, and reports the size of its answer (bytes/msg).
func BenchmarkScaleUnknownTool(b *testing.B) {
	ctx := context.Background()
	for _, size := range scaleSizes {
		n := mustNode(b, manyTools(size), WithLogger(sanDiscard))
		msgs := conversation(tc("c1", "tool_00012x", `{}`))
		b.Run(fmt.Sprintf("tools=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			var res *Result
			for b.Loop() {
				var err error
				if res, err = n.Run(ctx, msgs); err != nil || res.Calls[0].Outcome != OutcomeUnknownTool {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(response(b, res.ToolMessages[0]).Content)), "bytes/msg")
		})
	}
}
