package saidexeino_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
)

// mixedMessage holds a valid call, a repaired one, a schema-invalid one,
// an unknown tool and a failing tool.
func mixedMessage() *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{
		call("valid", "get_weather", `{"city":"Paris","days":3}`),
		call("repaired", "get_weather", `{'city': 'Rome', 'days': 2,}`),
		call("invalid", "get_weather", `{"city":"Oslo","days":"many"}`),
		call("unknown", "teleport", `{"to":"Mars"}`),
		call("failing", "book_table", `{"name":"Ada"}`),
	})
}

func guardedNode(t *testing.T, ts []tool.BaseTool, opts ...saidex.Option) *compose.ToolsNode {
	t.Helper()
	ctx := context.Background()
	g, err := saidexeino.New(ctx, ts, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cfg := g.ToolsNodeConfig()
	node, err := compose.NewToolNode(ctx, &cfg)
	if err != nil {
		t.Fatalf("NewToolNode: %v", err)
	}
	return node
}

func TestToolsNodeAnswersEveryCallOnce(t *testing.T) {
	ctx := context.Background()
	for _, sequential := range []bool{false, true} {
		t.Run(map[bool]string{false: "parallel", true: "sequential"}[sequential], func(t *testing.T) {
			rec := &recorder{}
			ts := []tool.BaseTool{weatherTool(t, rec), failingTool(t)}
			g, err := saidexeino.New(ctx, ts, saidex.WithHandleToolErrors(true))
			if err != nil {
				t.Fatal(err)
			}
			cfg := g.ToolsNodeConfig()
			cfg.ExecuteSequentially = sequential
			node, err := compose.NewToolNode(ctx, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			in := mixedMessage()
			msgs, err := node.Invoke(ctx, in)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if len(msgs) != len(in.ToolCalls) {
				t.Fatalf("%d tool messages for %d calls", len(msgs), len(in.ToolCalls))
			}
			want := []struct{ contains []string }{
				{[]string{"sunny in Paris"}},
				{[]string{"sunny in Rome"}},
				{[]string{"days", "integer"}},
				{[]string{"teleport", "get_weather", "book_table"}},
				{[]string{"Error:", errFlaky.Error()}},
			}
			for i, m := range msgs {
				if m == nil || m.Role != schema.Tool || m.ToolCallID != in.ToolCalls[i].ID {
					t.Fatalf("message %d: %+v, want the tool message of call %q", i, m, in.ToolCalls[i].ID)
				}
				for _, s := range want[i].contains {
					if !strings.Contains(m.Content, s) {
						t.Errorf("message %d (%s): %q does not contain %q", i, m.ToolCallID, m.Content, s)
					}
				}
			}
			// The valid and the repaired call ran, with the repaired
			// arguments; the invalid call never reached its tool.
			if got := rec.got(); !slices.Equal(got, []string{"Paris/3", "Rome/2"}) {
				t.Errorf("the weather tool received %v, want [Paris/3 Rome/2]", got)
			}
		})
	}
}

func TestBareEinoFailsOnTheSameMessage(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	for _, c := range []struct {
		name string
		msg  *schema.Message
	}{
		{"mixed", mixedMessage()},
		{"unknown tool", schema.AssistantMessage("", []schema.ToolCall{call("u", "teleport", `{}`)})},
		{"failing tool", schema.AssistantMessage("", []schema.ToolCall{call("f", "book_table", `{"name":"Ada"}`)})},
		{"broken JSON", schema.AssistantMessage("", []schema.ToolCall{call("r", "get_weather", `{'city': 'Rome',}`)})},
	} {
		t.Run(c.name, func(t *testing.T) {
			bare, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool(t, rec), failingTool(t)}})
			if err != nil {
				t.Fatal(err)
			}
			if msgs, err := bare.Invoke(ctx, c.msg); err == nil {
				t.Errorf("bare Eino answered %d messages, want an error", len(msgs))
			}
			node := guardedNode(t, []tool.BaseTool{weatherTool(t, rec), failingTool(t)}, saidex.WithHandleToolErrors(true))
			if msgs, err := node.Invoke(ctx, c.msg); err != nil || len(msgs) != len(c.msg.ToolCalls) {
				t.Errorf("guarded: %d messages, error %v", len(msgs), err)
			}
		})
	}
}

func TestToolErrorFailsTheNodeUnlessHandled(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	node := guardedNode(t, []tool.BaseTool{weatherTool(t, rec), failingTool(t)})
	_, err := node.Invoke(ctx, mixedMessage())
	if !errors.Is(err, errFlaky) {
		t.Fatalf("Invoke: %v, want the tool's error", err)
	}
	var te *saidex.ToolError
	if errors.As(err, &te) {
		t.Errorf("the node's error is saidex's %v, want the tool's own error as Eino returns it", te)
	}
}

func TestToolErrorFormatterAnswers(t *testing.T) {
	ctx := context.Background()
	node := guardedNode(t, []tool.BaseTool{failingTool(t)},
		saidex.WithToolErrorFormatter(func(err error) string { return "try later" }))
	msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{call("f", "book_table", `{"name":"Ada"}`)}))
	if err != nil || len(msgs) != 1 || msgs[0].Content != "try later" {
		t.Fatalf("Invoke: %v, %v", msgs, err)
	}
}

// panicTool panics.
type panicTool struct{}

func (panicTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "explode", Desc: "Panics."}, nil
}

func (panicTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	panic("boom")
}

func TestToolPanicIsAnsweredWhenToolErrorsAre(t *testing.T) {
	ctx := context.Background()
	node := guardedNode(t, []tool.BaseTool{panicTool{}}, saidex.WithHandleToolErrors(true))
	msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{call("p", "explode", `{}`)}))
	if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0].Content, "panic: boom") {
		t.Fatalf("Invoke: %v, %v", msgs, err)
	}
}

func TestHandWrittenToolInfo(t *testing.T) {
	ctx := context.Background()
	var got atomic.Value
	order := utils2Tool{info: &schema.ToolInfo{
		Name: "order_pizza", Desc: "Orders a pizza.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"size":     {Type: schema.String, Enum: []string{"small", "large"}, Required: true},
			"quantity": {Type: schema.Integer, Required: true},
		}),
	}, run: func(args string) { got.Store(args) }}
	node := guardedNode(t, []tool.BaseTool{order})
	for _, c := range []struct {
		name, args string
		ran        string // the arguments the tool received; "" for none
		says       string
	}{
		{"valid", `{"size":"large","quantity":2}`, `{"size":"large","quantity":2}`, "ordered"},
		{"repaired", "```json\n{\"size\": \"small\", \"quantity\": 1}\n```", `{"size": "small", "quantity": 1}`, "ordered"},
		{"enum", `{"size":"huge","quantity":1}`, "", "size"},
		{"missing", `{"size":"small"}`, "", "quantity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got.Store("")
			msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{call("o", "order_pizza", c.args)}))
			if err != nil || len(msgs) != 1 {
				t.Fatalf("Invoke: %v, %v", msgs, err)
			}
			if !strings.Contains(msgs[0].Content, c.says) {
				t.Errorf("answer %q does not contain %q", msgs[0].Content, c.says)
			}
			if g := got.Load().(string); g != c.ran {
				t.Errorf("the tool received %q, want %q", g, c.ran)
			}
		})
	}
}

// utils2Tool is a hand-written InvokableTool with its own ToolInfo.
type utils2Tool struct {
	info *schema.ToolInfo
	run  func(args string)
}

func (u utils2Tool) Info(context.Context) (*schema.ToolInfo, error) { return u.info, nil }

func (u utils2Tool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	u.run(args)
	return "ordered", nil
}

// streamTool is a StreamableTool that counts its starts.
type streamTool struct{ starts *atomic.Int64 }

func (streamTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "count", Desc: "Counts to n.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"n": {Type: schema.Integer, Required: true},
		})}, nil
}

func (s streamTool) StreamableRun(_ context.Context, args string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	s.starts.Add(1)
	return schema.StreamReaderFromArray([]string{"1", "2", "3:" + args}), nil
}

func TestStreamableToolIsCheckedBeforeItStarts(t *testing.T) {
	ctx := context.Background()
	starts := &atomic.Int64{}
	node := guardedNode(t, []tool.BaseTool{streamTool{starts}})
	in := schema.AssistantMessage("", []schema.ToolCall{
		call("ok", "count", `{'n': 3}`),
		call("bad", "count", `{"n":"three"}`),
	})
	sr, err := node.Stream(ctx, in)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer sr.Close()
	content := map[string]string{}
	for {
		chunk, err := sr.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		for _, m := range chunk {
			if m != nil {
				content[m.ToolCallID] += m.Content
			}
		}
	}
	if content["ok"] != `123:{"n":3}` {
		t.Errorf("valid call streamed %q, want the tool's stream on the repaired arguments", content["ok"])
	}
	if !strings.Contains(content["bad"], "n") || strings.HasPrefix(content["bad"], "1") {
		t.Errorf("invalid call answered %q, want feedback", content["bad"])
	}
	if starts.Load() != 1 {
		t.Errorf("the tool started %d times, want 1 (the invalid call must not start it)", starts.Load())
	}
}

// interruptTool interrupts the graph.
type interruptTool struct{}

func (interruptTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "approve", Desc: "Needs approval."}, nil
}

func (interruptTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	return "", compose.Interrupt(ctx, "needs a human")
}

func TestEinoInterruptPropagatesEvenWhenToolErrorsAreHandled(t *testing.T) {
	ctx := context.Background()
	node := guardedNode(t, []tool.BaseTool{interruptTool{}}, saidex.WithHandleToolErrors(true))
	_, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{call("i", "approve", `{}`)}))
	if _, ok := compose.IsInterruptRerunError(err); !ok {
		t.Fatalf("Invoke: %v, want an Eino interrupt", err)
	}
}

func TestNewRejectsBadTools(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	for _, c := range []struct {
		name string
		ts   []tool.BaseTool
	}{
		{"nil tool", []tool.BaseTool{nil}},
		{"duplicate", []tool.BaseTool{weatherTool(t, rec), weatherTool(t, rec)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := saidexeino.New(ctx, c.ts); !errors.Is(err, saidex.ErrInvalidConfig) {
				t.Errorf("New: %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestGuardToolsRunOnlyInsideTheToolsNode(t *testing.T) {
	ctx := context.Background()
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, &recorder{})})
	if err != nil {
		t.Fatal(err)
	}
	defs := g.Node().Definitions()
	if len(defs) != 1 || defs[0].Function.Name != "get_weather" {
		t.Fatalf("Definitions: %+v", defs)
	}
	props, _ := defs[0].Function.Parameters.(map[string]any)["properties"].(map[string]any)
	if _, ok := props["city"]; !ok {
		t.Errorf("the schema from ParamsOneOf lacks city: %v", defs[0].Function.Parameters)
	}
}
