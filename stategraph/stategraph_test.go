package stategraph_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/saidex/saidex-go/stategraph"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type weatherArgs struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// countingWeather is a get_weather tool and the number of times it ran.
func countingWeather() (saidex.Tool, *atomic.Int64) {
	runs := new(atomic.Int64)
	weather := saidex.NewTool("get_weather", "Current weather for a city.", func(_ context.Context, a weatherArgs) (string, error) {
		runs.Add(1)
		return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
	})
	return weather, runs
}

func mustNode(t *testing.T, ts []tools.Tool, opts ...saidex.Option) *saidex.ToolNode {
	t.Helper()
	node, err := saidex.NewToolNode(ts, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// oneCall is a human turn, then an AI message with one get_weather call.
func oneCall(id, args string) []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather?"),
		saidextest.AIMessage(saidextest.Call(id, "get_weather", args)),
	}
}

// toolResponses lists the tool results of msgs' tool messages, in order.
func toolResponses(msgs []llms.MessageContent) (out []llms.ToolCallResponse) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok && m.Role == llms.ChatMessageTypeTool {
				out = append(out, r)
			}
		}
	}
	return out
}

// The node and edge types of github.com/smallnest/langgraphgo's StateGraph.
type (
	sgNode    func(ctx context.Context, state interface{}) (interface{}, error)
	sgEdge    func(ctx context.Context, state interface{}) string
	sgReducer func(current, new interface{}) (interface{}, error)
)

const sgEnd = "END"

// miniStateGraph mimics smallnest's StateGraph loop over a map state with a
// MapSchema: a node returns a partial update, merged key by key through the
// key's reducer or, without one, by overwriting.
type miniStateGraph struct {
	nodes    map[string]sgNode
	edges    map[string]string
	cond     map[string]sgEdge
	reducers map[string]sgReducer
	entry    string
}

func newMiniStateGraph(entry string) *miniStateGraph {
	return &miniStateGraph{entry: entry, nodes: map[string]sgNode{}, edges: map[string]string{},
		cond: map[string]sgEdge{}, reducers: map[string]sgReducer{}}
}

func (g *miniStateGraph) invoke(ctx context.Context, state map[string]interface{}) (map[string]interface{}, error) {
	cur := g.entry
	for steps := 0; cur != sgEnd; steps++ {
		if steps > 20 {
			return nil, errors.New("graph did not finish")
		}
		upd, err := g.nodes[cur](ctx, state)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", cur, err)
		}
		m, ok := upd.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("node %s returned %T", cur, upd)
		}
		next := make(map[string]interface{}, len(state))
		for k, v := range state {
			next[k] = v
		}
		for k, v := range m {
			if r := g.reducers[k]; r != nil {
				if v, err = r(next[k], v); err != nil {
					return nil, err
				}
			}
			next[k] = v
		}
		state = next
		if c := g.cond[cur]; c != nil {
			cur = c(ctx, state)
		} else {
			cur = g.edges[cur]
		}
	}
	return state, nil
}

// appendMessages is an appending reducer like smallnest's AddMessages for
// messages without ids.
func appendMessages(current, new interface{}) (interface{}, error) {
	cur, _ := current.([]llms.MessageContent)
	add, ok := new.([]llms.MessageContent)
	if !ok {
		return nil, fmt.Errorf("appendMessages: %T", new)
	}
	return append(append([]llms.MessageContent(nil), cur...), add...), nil
}

// modelStateNode is the agent node of a ReAct graph: it calls the model on
// the messages and returns the conversation with the AI message appended.
func modelStateNode(m llms.Model, node *saidex.ToolNode, appendOnly bool) sgNode {
	return func(ctx context.Context, state interface{}) (interface{}, error) {
		msgs := state.(map[string]interface{})["messages"].([]llms.MessageContent)
		resp, err := m.GenerateContent(ctx, msgs, llms.WithTools(node.Definitions()))
		if err != nil {
			return nil, err
		}
		ai := saidex.AIMessageFromResponse(resp)
		if appendOnly {
			return map[string]interface{}{"messages": []llms.MessageContent{ai}}, nil
		}
		return map[string]interface{}{"messages": append(append([]llms.MessageContent(nil), msgs...), ai)}, nil
	}
}

func TestNodeInAReActLoop(t *testing.T) {
	tests := []struct {
		name      string
		appending bool // messages key has an appending reducer
	}{
		{name: "overwriting key with Node"},
		{name: "appending key with AppendNode", appending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather})
			model := saidextest.NewModel(saidextest.Sequence(
				saidextest.Respond(&llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Checking.", ToolCalls: []llms.ToolCall{
					saidextest.Call("a", "get_weather", `{"city":"Paris","days":2}`),
					saidextest.Call("b", "get_weather", `<<not json>>`),
					saidextest.Call("c", "get_weather", `{"days":3}`),
					saidextest.Call("d", "teleport", `{}`),
				}}}}),
				saidextest.Text("Sunny in Paris."),
			))
			g := newMiniStateGraph("agent")
			g.nodes["agent"] = modelStateNode(model, node, tt.appending)
			if tt.appending {
				g.reducers["messages"] = appendMessages
				g.nodes["tools"] = stategraph.AppendNode(node, "messages")
			} else {
				g.nodes["tools"] = stategraph.Node(node, "messages")
			}
			g.cond["agent"] = stategraph.HasToolCalls("messages", "tools", sgEnd)
			g.edges["tools"] = "agent"

			final, err := g.invoke(context.Background(), map[string]interface{}{
				"messages": []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")},
				"user_id":  "u-1",
			})
			if err != nil {
				t.Fatalf("graph: %v", err)
			}
			if final["user_id"] != "u-1" {
				t.Errorf("other state keys were lost: %v", final)
			}
			msgs := final["messages"].([]llms.MessageContent)
			// human, ai, 4 tool messages, final ai
			if len(msgs) != 7 {
				t.Fatalf("conversation has %d messages, want 7: %+v", len(msgs), msgs)
			}
			if got := runs.Load(); got != 1 {
				t.Errorf("weather ran %d times, want 1", got)
			}
			resps := toolResponses(msgs)
			wantIDs := []string{"a", "b", "c", "d"}
			for i, r := range resps {
				if r.ToolCallID != wantIDs[i] {
					t.Errorf("tool message %d answers %q, want %q", i, r.ToolCallID, wantIDs[i])
				}
			}
			if !strings.Contains(resps[0].Content, "Paris: sunny") {
				t.Errorf("valid call answered %q", resps[0].Content)
			}
			if !strings.Contains(resps[2].Content, "city") {
				t.Errorf("invalid call feedback %q does not name the missing field", resps[2].Content)
			}
			// The model's second turn saw every call answered.
			received := model.Requests()
			if len(received) != 2 || len(received[1].ToolResults()) != 4 {
				t.Errorf("second model turn did not receive the 4 tool messages")
			}
		})
	}
}

func TestNodeReturnsPartialUpdateWithoutMutatingState(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	msgs := oneCall("a", `{"city":"Oslo"}`)
	state := map[string]any{"messages": msgs, "user_id": "u-1"}
	before := oneCall("a", `{"city":"Oslo"}`)

	upd, err := stategraph.Node(node, "messages")(context.Background(), state)
	if err != nil {
		t.Fatalf("Node: %v", err)
	}
	m := upd.(map[string]any)
	if len(m) != 1 {
		t.Errorf("update has keys %v, want only messages", m)
	}
	out := m["messages"].([]llms.MessageContent)
	if len(out) != len(msgs)+1 || !reflect.DeepEqual(out[:len(msgs)], msgs) {
		t.Errorf("update is not the conversation plus one tool message: %+v", out)
	}
	if !reflect.DeepEqual(state["messages"], before) || len(state) != 2 {
		t.Error("Node modified the state")
	}
}

func TestNodeAcceptsMessagesAsAnySlice(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	msgs := oneCall("a", `{"city":"Oslo"}`)
	state := map[string]any{"messages": []any{msgs[0], &msgs[1]}}
	upd, err := stategraph.Node(node, "messages")(context.Background(), state)
	if err != nil {
		t.Fatalf("Node: %v", err)
	}
	if got := len(upd.(map[string]any)["messages"].([]llms.MessageContent)); got != 3 || runs.Load() != 1 {
		t.Errorf("got %d messages and %d runs, want 3 and 1", got, runs.Load())
	}
}

func TestNodeRejectsOtherStateShapes(t *testing.T) {
	node := mustNode(t, nil)
	tests := []struct {
		name  string
		state any
	}{
		{"not a map", []llms.MessageContent{}},
		{"typed map", map[string][]llms.MessageContent{}},
		{"messages of another type", map[string]any{"messages": "hello"}},
		{"foreign element", map[string]any{"messages": []any{"hello"}}},
		{"nil element pointer", map[string]any{"messages": []any{(*llms.MessageContent)(nil)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, fn := range map[string]func(context.Context, any) (any, error){
				"Node": stategraph.Node(node, "messages"), "AppendNode": stategraph.AppendNode(node, "messages"),
			} {
				if _, err := fn(context.Background(), tt.state); !errors.Is(err, stategraph.ErrStateShape) {
					t.Errorf("%s: err = %v, want stategraph.ErrStateShape", name, err)
				}
			}
		})
	}
	if _, err := stategraph.Node(node, "messages")(context.Background(), map[string]any{}); !errors.Is(err, saidex.ErrNoAIMessage) {
		t.Errorf("empty conversation: err = %v, want saidex.ErrNoAIMessage", err)
	}
}

func TestHasToolCalls(t *testing.T) {
	human := llms.TextParts(llms.ChatMessageTypeHuman, "hi")
	aiText := llms.TextParts(llms.ChatMessageTypeAI, "hello")
	aiCall := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart("x"), saidextest.Call("a", "f", "{}")}}
	call := saidextest.Call("a", "f", "{}")
	aiPtr := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{&call}}
	toolMsg := llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "a"}}}
	tests := []struct {
		name  string
		state any
		want  string
	}{
		{"AI message with a tool call", map[string]any{"messages": []llms.MessageContent{human, aiCall}}, "tools"},
		{"AI message with a pointer tool call", map[string]any{"messages": []llms.MessageContent{human, aiPtr}}, "tools"},
		{"AI message with text only", map[string]any{"messages": []llms.MessageContent{human, aiText}}, "end"},
		{"tool message last", map[string]any{"messages": []llms.MessageContent{human, aiCall, toolMsg}}, "end"},
		{"human message last", map[string]any{"messages": []llms.MessageContent{human}}, "end"},
		{"no messages", map[string]any{}, "end"},
		{"messages as []any", map[string]any{"messages": []any{human, aiCall}}, "tools"},
		{"not a map", "state", "end"},
	}
	edge := stategraph.HasToolCalls("messages", "tools", "end")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := edge(context.Background(), tt.state); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodePassesTheWholeStateToValidatorsAndTools(t *testing.T) {
	var seen []any
	v := func(_ context.Context, _ map[string]any, vc saidex.ValidatorContext) error {
		seen = append(seen, vc.State)
		if st, _ := vc.State.(map[string]any); st["user_id"] != "u1" {
			return errors.New("no signed-in user")
		}
		return nil
	}
	var toolState any
	weather := saidex.NewTool("get_weather", "", func(ctx context.Context, a weatherArgs) (string, error) {
		toolState = saidex.StateFromContext(ctx)
		return "ok", nil
	})
	n := mustNode(t, []tools.Tool{weather}, saidex.WithValidator("get_weather", v))
	state := map[string]any{"user_id": "u1", "messages": oneCall("c1", `{"city":"Oslo"}`)}
	upd, err := stategraph.Node(n, "messages")(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	msgs := upd.(map[string]any)["messages"].([]llms.MessageContent)
	if r := toolResponses(msgs[len(msgs)-1:]); len(r) != 1 || r[0].Content != "ok" {
		t.Fatalf("answer = %+v, want the tool's output", r)
	}
	if len(seen) != 1 || seen[0].(map[string]any)["user_id"] != "u1" {
		t.Errorf("validator saw state %v", seen)
	}
	if st, _ := toolState.(map[string]any); st["user_id"] != "u1" {
		t.Errorf("tool saw state %v", toolState)
	}
}

// On a history whose calls are all answered, AppendNode runs nothing and
// appends nothing (moved from the root's TestRunOnAnsweredHistoryReturnsNoToolMessages).
func TestAppendNodeOnAnAnsweredHistoryAddsNothing(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	conv := append(oneCall("a", `{"city":"Paris"}`), saidextest.ToolMessage("a", "get_weather", "done"))
	upd, err := stategraph.AppendNode(node, "messages")(context.Background(), map[string]any{"messages": conv})
	if err != nil {
		t.Fatal(err)
	}
	if msgs := upd.(map[string]any)["messages"].([]llms.MessageContent); len(msgs) != 0 || runs.Load() != 0 {
		t.Errorf("AppendNode appends %d messages and ran %d calls, want 0 and 0", len(msgs), runs.Load())
	}
}

func TestNilNodeIsAConfigurationError(t *testing.T) {
	state := map[string]any{"messages": oneCall("a", `{"city":"Paris"}`)}
	for name, fn := range map[string]func(context.Context, any) (any, error){
		"Node": stategraph.Node(nil, "messages"), "AppendNode": stategraph.AppendNode(nil, "messages"),
	} {
		if _, err := fn(context.Background(), state); !errors.Is(err, saidex.ErrInvalidConfig) {
			t.Errorf("%s(nil): err = %v, want ErrInvalidConfig", name, err)
		}
	}
}
