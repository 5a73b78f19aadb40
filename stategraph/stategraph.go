// Package stategraph fits a [saidex.ToolNode] into a state graph: it
// returns functions whose types are exactly the node and edge types of
// github.com/smallnest/langgraphgo's StateGraph (a node is
// func(context.Context, interface{}) (interface{}, error) over a
// map[string]interface{} state whose keys have reducers; a conditional
// edge is func(context.Context, interface{}) string), and imports no
// graph framework.
//
//	g.AddNode("tools", stategraph.Node(node, "messages"))
//	g.AddConditionalEdge("agent", stategraph.HasToolCalls("messages", "tools", graph.END))
//
// A message graph (github.com/tmc/langgraphgo's MessageGraph) needs no
// adapter: [saidex.ToolNode.Invoke] has its node type.
package stategraph

import (
	"context"
	"errors"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ErrStateShape is returned (wrapped) by the functions [Node] and
// [AppendNode] return when the state is not a map[string]any or its
// messages are not a slice of llms.MessageContent.
var ErrStateShape = errors.New("stategraph: unexpected graph state")

// Node returns a state-graph node (the node type of
// github.com/smallnest/langgraphgo's StateGraph) that runs node on
// the conversation stored under key in a map[string]any state.
//
// The messages under key may be a []llms.MessageContent or a []any holding
// llms.MessageContent values (what reflection-based reducers produce). The
// whole state is passed to unresolved hooks and validators as their state.
//
// The node returns a partial update, as smallnest's MapSchema expects: a
// new map holding only key, whose value is the whole updated conversation
// as a []llms.MessageContent — what [saidex.ToolNode.Invoke] returns: the input
// messages, the AI message replaced by its updated copy (see
// [saidex.WithSanitizeMessages]), with one tool message per call answered by this run placed after
// it; the messages unchanged when no call was pending. Other keys of the
// state are left to the graph.
// Register no reducer (the MapSchema default overwrites) or an overwrite
// reducer for key. An appending reducer, such as smallnest's AddMessages
// (langchaingo messages carry no id, so it cannot replace one), would add
// the conversation a second time: use [AppendNode] there.
//
// The state is not modified. Errors are those of [saidex.ToolNode.Run],
// [ErrStateShape] for a state of another shape, and one wrapping
// [saidex.ErrInvalidConfig] for a nil node.
func Node(node *saidex.ToolNode, key string) func(ctx context.Context, state any) (any, error) {
	return run(node, key, func(res *saidex.Result) []llms.MessageContent { return res.Messages() })
}

// AppendNode is [Node] for a key whose reducer appends
// (smallnest's AddMessages): the partial update holds only the new tool
// messages under key (none when no call was pending); on a half-answered
// history they follow the tool messages already there, not in call order.
// An appending state cannot replace the AI message, so
// its arguments stay as the model sent them; where the conversation goes
// back to a provider that parses past arguments (Anthropic, Gemini), prefer
// Node with an overwriting key.
func AppendNode(node *saidex.ToolNode, key string) func(ctx context.Context, state any) (any, error) {
	return run(node, key, func(res *saidex.Result) []llms.MessageContent { return res.ToolMessages })
}

// run runs node on the messages under key, with the whole state as the
// run's state, and returns {key: update(result)}.
func run(node *saidex.ToolNode, key string, update func(*saidex.Result) []llms.MessageContent) func(ctx context.Context, state any) (any, error) {
	return func(ctx context.Context, state any) (any, error) {
		if node == nil {
			return nil, fmt.Errorf("%w: stategraph: nil node", saidex.ErrInvalidConfig)
		}
		msgs, err := stateMessages(state, key)
		if err != nil {
			return nil, err
		}
		res, err := node.Run(saidex.ContextWithState(ctx, state), msgs)
		if err != nil {
			return nil, err
		}
		return map[string]any{key: update(res)}, nil
	}
}

// HasToolCalls returns a conditional edge for a state graph (the edge type
// of github.com/smallnest/langgraphgo's StateGraph): it returns ifTools when
// the last message under key in a map[string]any state is an AI message
// with at least one tool call, and otherwise in every other case (no
// messages, a last message of another role, a state of another shape).
func HasToolCalls(key, ifTools, otherwise string) func(ctx context.Context, state any) string {
	return func(_ context.Context, state any) string {
		msgs, err := stateMessages(state, key)
		if err != nil || len(msgs) == 0 {
			return otherwise
		}
		if saidex.MessageHasToolCalls(msgs[len(msgs)-1]) {
			return ifTools
		}
		return otherwise
	}
}

// stateMessages reads the conversation stored under key.
func stateMessages(state any, key string) ([]llms.MessageContent, error) {
	m, ok := state.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: state is %T, want map[string]any", ErrStateShape, state)
	}
	switch v := m[key].(type) {
	case []llms.MessageContent:
		return v, nil
	case nil:
		return nil, nil
	case []any:
		msgs := make([]llms.MessageContent, 0, len(v))
		for i, e := range v {
			switch e := e.(type) {
			case llms.MessageContent:
				msgs = append(msgs, e)
			case *llms.MessageContent:
				if e == nil {
					return nil, fmt.Errorf("%w: %s[%d] is a nil *llms.MessageContent", ErrStateShape, key, i)
				}
				msgs = append(msgs, *e)
			default:
				return nil, fmt.Errorf("%w: %s[%d] is %T, want llms.MessageContent", ErrStateShape, key, i, e)
			}
		}
		return msgs, nil
	default:
		return nil, fmt.Errorf("%w: %s is %T, want []llms.MessageContent", ErrStateShape, key, v)
	}
}
