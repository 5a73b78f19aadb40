package saidex

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// Graph frameworks. saidex imports neither Go LangGraph port; it offers
// functions whose types are exactly their node types:
//
//   - github.com/tmc/langgraphgo MessageGraph: a node is
//     func(context.Context, []llms.MessageContent) ([]llms.MessageContent, error)
//     and returns the whole new conversation. [ToolNode.Invoke] has that type:
//     graph.AddNode("tools", node.Invoke).
//   - github.com/smallnest/langgraphgo StateGraph: a node is
//     func(context.Context, interface{}) (interface{}, error) over a
//     map[string]interface{} state whose keys have reducers; a conditional
//     edge is func(context.Context, interface{}) string. Use
//     [ToolNode.StateNode] and [HasToolCalls].

// ErrStateShape is returned (wrapped) by the function [ToolNode.StateNode]
// returns when the state is not a map[string]any or its messages are not a
// slice of llms.MessageContent.
var ErrStateShape = errors.New("saidex: unexpected graph state")

// StateNode returns a state-graph node (the node type of
// github.com/smallnest/langgraphgo's StateGraph) that runs the tool node on
// the conversation stored under key in a map[string]any state.
//
// The messages under key may be a []llms.MessageContent or a []any holding
// llms.MessageContent values (what reflection-based reducers produce). The
// whole state is passed to unresolved hooks and validators as their state.
//
// The node returns a partial update, as smallnest's MapSchema expects: a
// new map holding only key, whose value is the whole updated conversation
// as a []llms.MessageContent — what [ToolNode.Invoke] returns: the input
// messages, the AI message replaced by its updated copy (see the sanitize
// stage), with one tool message per call answered by this run placed after
// it; the messages unchanged when no call was pending. Other keys of the
// state are left to the graph.
// Register no reducer (the MapSchema default overwrites) or an overwrite
// reducer for key. An appending reducer, such as smallnest's AddMessages
// (langchaingo messages carry no id, so it cannot replace one), would add
// the conversation a second time: use [ToolNode.StateNodeAppend] there.
//
// The state is not modified. Errors are those of [ToolNode.Run], and
// ErrStateShape for a state of another shape.
func (n *ToolNode) StateNode(key string) func(ctx context.Context, state any) (any, error) {
	return n.stateNode(key, func(_ []llms.MessageContent, res *Result) []llms.MessageContent { return res.Messages() })
}

// StateNodeAppend is [ToolNode.StateNode] for a key whose reducer appends
// (smallnest's AddMessages): the partial update holds only the new tool
// messages under key (none when no call was pending); on a half-answered
// history they follow the tool messages already there, not in call order.
// An appending state cannot replace the AI message, so
// its arguments stay as the model sent them; where the conversation goes
// back to a provider that parses past arguments (Anthropic, Gemini), prefer
// StateNode with an overwriting key.
func (n *ToolNode) StateNodeAppend(key string) func(ctx context.Context, state any) (any, error) {
	return n.stateNode(key, func(_ []llms.MessageContent, res *Result) []llms.MessageContent {
		return res.ToolMessages
	})
}

// stateNode runs the node on the messages under key, with the whole state as
// the hook and validator state, and returns {key: update(messages, result)}.
func (n *ToolNode) stateNode(key string, update func([]llms.MessageContent, *Result) []llms.MessageContent) func(ctx context.Context, state any) (any, error) {
	return func(ctx context.Context, state any) (any, error) {
		msgs, err := stateMessages(state, key)
		if err != nil {
			return nil, err
		}
		res, err := n.Run(ctx, msgs, WithState(state))
		if err != nil {
			return nil, err
		}
		return map[string]any{key: update(msgs, res)}, nil
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
		if MessageHasToolCalls(msgs[len(msgs)-1]) { // messages.go
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
