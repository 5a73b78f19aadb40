// Command peerbench runs the same AI messages through saidex's ToolNode and
// through github.com/cloudwego/eino's compose.ToolsNode, the closest Go
// peer, and prints the cost ratio and what each produces for broken calls.
//
// It is a separate module so that the library never depends on Eino:
//
//	cd internal/peerbench && go run .
//
// The same workloads are Go benchmarks in peer_test.go, for benchstat.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// einoTool is the benchmark tool as an Eino InvokableTool: it decodes its
// JSON into the same struct and does the same work as saidex's tool.
type einoTool struct{}

func (einoTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: benchfixture.ToolName, Desc: "Weather forecast."}, nil
}

func (einoTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var a benchfixture.ForecastArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", err
	}
	return benchfixture.Body(a), nil
}

// newEino returns Eino's ToolsNode with the benchmark tool.
func newEino() (*compose.ToolsNode, error) {
	return compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoTool{}}})
}

// newSaidex returns saidex's ToolNode with the benchmark tool made by
// saidex.NewTool, which decodes its validated arguments itself.
func newSaidex() (*saidex.ToolNode, error) {
	return saidex.NewToolNode([]tools.Tool{newTypedTool()})
}

func newTypedTool() saidex.Tool {
	return saidex.NewTool(benchfixture.ToolName, "Weather forecast.",
		func(_ context.Context, a benchfixture.ForecastArgs) (string, error) { return benchfixture.Body(a), nil })
}

// sameTool is the benchmark tool as a hand-written saidex.Tool whose Call
// is einoTool's code: encoding/json into the same struct. Run with it, the
// comparison holds the tool's own work equal and measures the two nodes.
type sameTool struct{ schema any }

func (sameTool) Name() string        { return benchfixture.ToolName }
func (sameTool) Description() string { return "Weather forecast." }
func (t sameTool) Schema() any       { return t.schema }
func (sameTool) Call(_ context.Context, args string) (string, error) {
	var a benchfixture.ForecastArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", err
	}
	return benchfixture.Body(a), nil
}

// newSaidexSameTool returns saidex's ToolNode with sameTool, validated
// against the schema NewTool reflects.
func newSaidexSameTool() (*saidex.ToolNode, error) {
	return saidex.NewToolNode([]tools.Tool{sameTool{schema: newTypedTool().Schema()}})
}

// einoMessage is the AI message of n calls of kind k in Eino's types.
func einoMessage(k benchfixture.Kind, n int) *schema.Message {
	calls := make([]schema.ToolCall, 0, n)
	for _, c := range benchfixture.ToolCalls(k, n) {
		calls = append(calls, schema.ToolCall{ID: c.ID, Type: "function",
			Function: schema.FunctionCall{Name: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments}})
	}
	return schema.AssistantMessage("", calls)
}

// benchEino is the benchmark of Eino's node on msg, shared by BenchmarkPeer
// and main.
func benchEino(ctx context.Context, node *compose.ToolsNode, msg *schema.Message) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := node.Invoke(ctx, msg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchSaidex is the benchmark of a saidex node on msgs.
func benchSaidex(ctx context.Context, node *saidex.ToolNode, msgs []llms.MessageContent) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := node.Run(ctx, msgs); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func main() {
	en, err := newEino()
	if err != nil {
		fail(err)
	}
	sn, err := newSaidex()
	if err != nil {
		fail(err)
	}
	same, err := newSaidexSameTool()
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	fmt.Println("| workload | saidex/eino | saidex (same tool code)/eino | eino allocs | saidex allocs | saidex (same tool code) allocs |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, n := range []int{1, 8, 64} {
		em, sm := einoMessage(benchfixture.Valid, n), benchfixture.Conversation(benchfixture.Valid, n)
		e := testing.Benchmark(benchEino(ctx, en, em))
		s := testing.Benchmark(benchSaidex(ctx, sn, sm))
		st := testing.Benchmark(benchSaidex(ctx, same, sm))
		fmt.Printf("| valid, %d calls | %.2f× | %.2f× | %d | %d | %d |\n", n,
			float64(s.NsPerOp())/float64(e.NsPerOp()), float64(st.NsPerOp())/float64(e.NsPerOp()),
			e.AllocsPerOp(), s.AllocsPerOp(), st.AllocsPerOp())
	}
	fmt.Println()
	fmt.Println("What each produces for an AI message of 8 calls:")
	for _, k := range []benchfixture.Kind{benchfixture.Repaired, benchfixture.Invalid} {
		_, eerr := en.Invoke(ctx, einoMessage(k, 8))
		res, serr := sn.Run(ctx, benchfixture.Conversation(k, 8))
		counts := map[saidex.Outcome]int{}
		if serr == nil {
			for _, c := range res.Calls {
				counts[c.Outcome]++
			}
		}
		fmt.Printf("- %s: eino: %s; saidex: %d tool messages, outcomes %v, err %v\n", k, describe(eerr), len(res.ToolMessages), counts, serr)
	}
}

func describe(err error) string {
	if err == nil {
		return "8 tool messages, no error"
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return "the node fails: " + msg
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "peerbench:", err)
	os.Exit(1)
}
