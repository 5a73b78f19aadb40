package saidex

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/saidex/saidex-go/internal/benchfixture"
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

// nestedSchema returns an object schema of depth nested objects, each
// with one property "a" (38 bytes a level: 800 levels are 30 KB), as a
// hostile server's inputSchema may be.
func nestedSchema(depth int) string {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString(`}}`)
	}
	return b.String()
}

// boundSchema is a schema near every bound: 30 nested objects (60 levels
// of JSON), then an object of props string properties.
func boundSchema(props int) string {
	var b strings.Builder
	for range 30 {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"object","properties":{`)
	for i := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`}}`)
	for range 30 {
		b.WriteString(`}}`)
	}
	return b.String()
}

// TestSchemaBounds: a schema past MaxSchemaDepth, MaxSchemaObjects or
// MaxSchemaBytes is refused by NewToolNode with ErrInvalidConfig naming
// the tool; one within them compiles.
func TestSchemaBounds(t *testing.T) {
	tests := []struct {
		name, schema string
		refused      string // a text the error holds; "" when it compiles
	}{
		{"800 nested objects", nestedSchema(800), "MaxSchemaDepth"},
		{"1,600 nested objects", nestedSchema(1600), "MaxSchemaDepth"},
		{"nested to the depth bound", nestedSchema(MaxSchemaDepth/2 - 1), ""},
		{"an array nested past the bound", `{"type":"object","properties":{"a":{"enum":[` + strings.Repeat("[", MaxSchemaDepth) + strings.Repeat("]", MaxSchemaDepth) + `]}}}`, "MaxSchemaDepth"},
		{"brackets inside strings do not count", `{"type":"object","description":"` + strings.Repeat("{[", 5000) + `\"{"}`, ""},
		{"many subschemas", boundSchema(MaxSchemaObjects), "MaxSchemaObjects"},
		{"near every bound", boundSchema(MaxSchemaObjects - 70), ""},
		{"too many bytes", `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, "MaxSchemaBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{ToolWithSchema(plainTool{name: "deep"}, tt.schema)}, WithLogger(sanDiscard))
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("NewToolNode: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `tool "deep"`) || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("err = %v, want ErrInvalidConfig naming the tool and %s", err, tt.refused)
			}
		})
	}
}

// BenchmarkNewToolNodeDepth measures schema setup against schema size:
// 800 and 1,600 nested objects (both refused by MaxSchemaDepth, after one
// pass over the text), and a schema near every bound (compiled).
func BenchmarkNewToolNodeDepth(b *testing.B) {
	for _, depth := range []int{800, 1600} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			tl := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(depth))}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = NewToolNode(tl, WithLogger(sanDiscard))
			}
		})
	}
	b.Run("near every bound", func(b *testing.B) {
		tl := []tools.Tool{ToolWithSchema(plainTool{name: "wide"}, boundSchema(MaxSchemaObjects-70))}
		b.ReportAllocs()
		for b.Loop() {
			_, _ = NewToolNode(tl, WithLogger(sanDiscard))
		}
	})
}

// BenchmarkSchemaSetupRatio reports the setup time of the 1,600-level
// schema over that of the 800-level one ("ratio"): linear setup keeps it
// near 2.
func BenchmarkSchemaSetupRatio(b *testing.B) {
	small := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(800))}
	large := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(1600))}
	var ts, tl time.Duration
	for b.Loop() {
		start := time.Now()
		_, _ = NewToolNode(small, WithLogger(sanDiscard))
		mid := time.Now()
		_, _ = NewToolNode(large, WithLogger(sanDiscard))
		ts, tl = ts+mid.Sub(start), tl+time.Since(mid)
	}
	b.ReportMetric(float64(tl)/float64(ts), "ratio")
}

// BenchmarkScrubValidPath runs one valid call through Run and reports the
// cost per byte of its arguments: on a node whose tools have no secrets
// (nothing is collected or scrubbed), and on a tool with a secret field
// (its values collected, every text scrubbed).
func BenchmarkScrubValidPath(b *testing.B) {
	note := strings.Repeat("lorem ipsum ", 80)
	cases := []struct {
		name, schema, raw string
	}{
		{"no secrets", `{"type":"object","properties":{"user":{"type":"string"},"note":{"type":"string"}}}`,
			`{"user":"bob","note":"` + note + `"}`},
		{"a secret field", nestedAuthSchema,
			`{"user":"bob","auth":{"password":"` + shapeSecret + `"},"note":"` + note + `"}`},
	}
	for _, tt := range cases {
		b.Run(tt.name, func(b *testing.B) {
			n := mustNode(b, []tools.Tool{ToolWithSchema(plainTool{name: "login", fn: func(context.Context, string) (string, error) {
				return "ok", nil
			}}, tt.schema)}, WithLogger(sanDiscard))
			msgs := conversation(tc("c1", "login", tt.raw))
			b.SetBytes(int64(len(tt.raw)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := n.Run(context.Background(), msgs)
				if err != nil || res.Calls[0].Outcome != OutcomeExecuted {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScrubText scrubs a 4 KB text for 10 secret values (with
// their encodings): one pass, whatever their number.
func BenchmarkScrubText(b *testing.B) {
	vals := map[string]bool{}
	for i := range 10 {
		addString(shapeSecret+strings.Repeat("x", i), vals)
	}
	s := newScrubber(vals)
	text := strings.Repeat("the tool answered: nothing to hide here. ", 100) + shapeSecret
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if out := s.text(text); strings.Contains(out, shapeSecret) {
			b.Fatal("not scrubbed")
		}
	}
}
