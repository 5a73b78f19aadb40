package saidex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func benchTool() Tool {
	return NewTool(benchfixture.ToolName, "Weather forecast.",
		func(_ context.Context, a benchfixture.ForecastArgs) (string, error) {
			return benchfixture.Body(a), nil
		})
}

// stockTool is the benchmark tool as a user writes it for a stock
// executor: its Call decodes the arguments with encoding/json, unknown
// members refused, then does the tool's work.
type stockTool struct{}

func (stockTool) Name() string        { return benchfixture.ToolName }
func (stockTool) Description() string { return "Weather forecast." }
func (stockTool) Call(_ context.Context, input string) (string, error) {
	var a benchfixture.ForecastArgs
	dec := json.NewDecoder(strings.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", err
	}
	return benchfixture.Body(a), nil
}

// stockRun is a stock executor: a hand-written loop that calls each tool
// with the arguments as sent and builds its tool message. The only decode
// is the tool's own (stockTool's encoding/json decode). No validation, no
// repair. t is stockTool{}. It is the stricter baseline: the node's goals
// are stated against it.
func stockRun(ctx context.Context, t tools.Tool, messages []llms.MessageContent) ([]llms.MessageContent, error) {
	return stockLoop(ctx, t, messages, false)
}

// functionsAgentRun is the path of langchaingo's functions agent
// (agents.OpenAIFunctionsAgent): it parses each call's arguments
// (json.Unmarshal into a map, looking for "__arg1") before the executor
// calls the tool, which decodes them again. It is stockRun plus that parse.
func functionsAgentRun(ctx context.Context, t tools.Tool, messages []llms.MessageContent) ([]llms.MessageContent, error) {
	return stockLoop(ctx, t, messages, true)
}

func stockLoop(ctx context.Context, t tools.Tool, messages []llms.MessageContent, parseFirst bool) ([]llms.MessageContent, error) {
	ai := messages[len(messages)-1]
	out := make([]llms.MessageContent, 0, len(ai.Parts))
	for _, p := range ai.Parts {
		c := p.(llms.ToolCall)
		if parseFirst {
			var m map[string]any
			_ = json.Unmarshal([]byte(c.FunctionCall.Arguments), &m)
		}
		res, err := t.Call(ctx, c.FunctionCall.Arguments)
		if err != nil {
			res = "Error: " + err.Error()
		}
		out = append(out, llms.MessageContent{
			Role:  llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: res}},
		})
	}
	return out, nil
}

// BenchmarkRun compares a node's Run on messages of valid, repairable and
// invalid calls with two baselines on the valid messages: "stock" (stockRun,
// one decode, in the tool) and "functions-agent" (functionsAgentRun, a
// parse and then the tool's decode). Compare ratios within one run.
func BenchmarkRun(b *testing.B) {
	ctx := context.Background()
	tool := benchTool()
	n := mustNode(b, []tools.Tool{tool})
	for _, size := range []int{1, 8, 64} {
		for _, base := range []struct {
			name string
			run  func(context.Context, tools.Tool, []llms.MessageContent) ([]llms.MessageContent, error)
		}{{"stock", stockRun}, {"functions-agent", functionsAgentRun}} {
			b.Run(fmt.Sprintf("%s/%d", base.name, size), func(b *testing.B) {
				msgs := benchfixture.Conversation(benchfixture.Valid, size)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := base.run(ctx, stockTool{}, msgs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		for _, kind := range []benchfixture.Kind{benchfixture.Valid, benchfixture.Repaired, benchfixture.Invalid} {
			b.Run(fmt.Sprintf("%s/%d", kind, size), func(b *testing.B) {
				msgs := benchfixture.Conversation(kind, size)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := n.Run(ctx, msgs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkInvoke is BenchmarkRun's "valid" through [ToolNode.Invoke],
// which returns the conversation with the tool messages appended: what an
// agent loop calls. Compare with BenchmarkRun/stock in the same run.
func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	n := mustNode(b, []tools.Tool{benchTool()})
	for _, size := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("valid/%d", size), func(b *testing.B) {
			msgs := benchfixture.Conversation(benchfixture.Valid, size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := n.Invoke(ctx, msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunScale reports the cost per call for 1 to 1,000 valid calls
// in one message: it should stay flat.
func BenchmarkRunScale(b *testing.B) {
	ctx := context.Background()
	n := mustNode(b, []tools.Tool{benchTool()})
	for _, size := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("calls=%d", size), func(b *testing.B) {
			msgs := benchfixture.Conversation(benchfixture.Valid, size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := n.Run(ctx, msgs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/call")
		})
	}
}

// corpusBrokenArguments returns the dev corpus's argument strings that do
// not parse as JSON, or skips when the corpus is absent.
func corpusBrokenArguments(b *testing.B) []string {
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		b.Skip("dev corpus not present:", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			Raw string `json:"raw_arguments"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil && !json.Valid([]byte(c.Raw)) {
			out = append(out, c.Raw)
		}
	}
	return out
}

// BenchmarkRepair runs the repair stage on the dev corpus's broken
// arguments.
func BenchmarkRepair(b *testing.B) {
	inputs := corpusBrokenArguments(b)
	opt := defaultRepairOptions()
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range inputs {
			_, _ = repairArguments(in, opt)
		}
	}
}

// BenchmarkRepairSize reports the repair stage's cost per byte (ns/byte)
// on broken arguments of 1 KiB, 64 KiB and 1 MiB (the default argument
// limit) in three shapes (benchfixture.BrokenArguments): one long string
// with literal line breaks and unescaped inner quotes, an object of many
// single-quoted members with trailing commas, and deeply nested arrays cut
// off at the end. "text" is the repair itself (internal/lenient: the scan
// and the canonical text); "stage" adds the one decode of that text into
// the value validation reads. Repair is linear: the goal is at most 10
// ns/byte at every size, and at most 1.5× the 1 KiB cost per byte at 1 MiB.
func BenchmarkRepairSize(b *testing.B) {
	opt := defaultRepairOptions()
	lopt := lenient.Options{StripThinking: true, FixSyntax: true}
	for _, variant := range []string{"text", "stage"} {
		for _, shape := range benchfixture.Shapes {
			for _, size := range []struct {
				name  string
				bytes int
			}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
				in := benchfixture.BrokenArguments(shape, size.bytes)
				b.Run(fmt.Sprintf("%s/%s/%s", variant, shape, size.name), func(b *testing.B) {
					b.SetBytes(int64(len(in)))
					b.ReportAllocs()
					for b.Loop() {
						var err error
						if variant == "text" {
							_, err = lenient.Repair(in, lopt)
						} else {
							_, err = repairArguments(in, opt)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/byte")
				})
			}
		}
	}
}

// bigArguments returns a valid argument object of about size bytes.
func bigArguments(size int) string {
	var sb strings.Builder
	sb.WriteString(`{"city":"`)
	for sb.Len() < size-2 {
		sb.WriteString("abcdefghij")
	}
	sb.WriteString(`"}`)
	return sb.String()
}

// BenchmarkParseSize reports parse+validate throughput (ns/byte through
// MB/s) from 1 KB to 10 MB of arguments: it should be linear. "valid" runs
// the repair stage on valid arguments (their fast path) and validates the
// result; "broken" does the same on the object with a trailing comma, which
// the repair stage repairs. Either fails on an error or an issue.
func BenchmarkParseSize(b *testing.B) {
	s, err := compileSchema("big", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}})
	if err != nil {
		b.Fatal(err)
	}
	opt := repairOptions{stripThinking: true, jsonRepair: true, maxBytes: 64 << 20}
	for _, size := range []int{1 << 10, 100 << 10, 10 << 20} {
		in := bigArguments(size)
		b.Run(fmt.Sprintf("valid/%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				r, err := repairArguments(in, opt)
				if err != nil || len(s.validateText(r.json, r.value)) > 0 {
					b.Fatal(err)
				}
			}
		})
		broken := in[:len(in)-1] + ",}"
		b.Run(fmt.Sprintf("broken/%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(broken)))
			for b.Loop() {
				r, err := repairArguments(broken, opt)
				if err != nil || len(r.steps) == 0 || len(s.validateText(r.json, r.value)) > 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// hostileShapes are argument strings built to make a scan look back or
// ahead once per token: each is n repetitions of a unit, repaired or
// refused. A linear scan spends the same time per byte at every n.
var hostileShapes = []struct {
	name             string
	head, unit, tail string
}{
	{"invisible_run", `{"a": "x",`, "\u200b", `'b': 1}`},
	{"inner_quotes", `{"a": ["say`, ` "hi" x`, `"]}`},
	{"backslashes_before_quote", `{\n"a": "`, `\\`, `"\n}`},
	{"closers_before_object", ``, `}`, `{"a": 1}`},
	{"block_comments", `{"a": `, `/* c */ `, `1,}`},
	{"escaped_line_breaks", `{\n"a": "x",`, `\n`, `"b": 1}`},
	{"joined_pieces", `{"a": "x"`, ` + "y"`, `}`},
	{"strings_ending_with_closers", `{"a": [`, `"x}", `, `"y"}`},
	{"empty_strings_trailing_commas", `{'a': [`, `"", `, `],}`},
	{"single_quoted_double_quotes", `{'a': [`, `'"x"', `, `],}`},
}

// BenchmarkRepairHostile is the repair of each hostile shape at 16 KiB
// and 128 KiB: ns/byte should not grow with the size.
func BenchmarkRepairHostile(b *testing.B) {
	lopt := lenient.Options{StripThinking: true, FixSyntax: true}
	for _, sh := range hostileShapes {
		for _, size := range []struct {
			name  string
			bytes int
		}{{"16KiB", 16 << 10}, {"128KiB", 128 << 10}} {
			in := sh.head + strings.Repeat(sh.unit, (size.bytes-len(sh.head)-len(sh.tail))/len(sh.unit)) + sh.tail
			b.Run(sh.name+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					_, _ = lenient.Repair(in, lopt) // repaired or refused: the cost is what is measured
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/byte")
			})
		}
	}
}
