package saidex

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// answersAfter returns the tool messages right after the AI message
// messages[i], the index among them of the message answering each tool
// call of messages[i] (by matchResponses; -1 for none), and the index of
// the first message after them.
func answersAfter(messages []llms.MessageContent, i int) (answers []llms.MessageContent, byCall []int, end int) {
	end = i + 1
	for end < len(messages) && messages[end].Role == llms.ChatMessageTypeTool {
		end++
	}
	answers = messages[i+1 : end]
	return answers, matchResponses(messages[i], answers), end
}

// ErrMisplacedMessage is matched, with errors.Is, by the error
// [ToolNode.Run] and [ToolNode.Invoke] return for a conversation the
// provider would reject: after the last AI message with tool calls, some of
// whose calls are unanswered, comes a message that is not a tool message (a
// human or system message, or an AI message without tool calls). Nothing
// executes. The error is a [*MisplacedMessageError] naming that message.
var ErrMisplacedMessage = errors.New("saidex: a message other than a tool message follows unanswered tool calls")

// MisplacedMessageError is the error behind [ErrMisplacedMessage]. Answer
// the pending calls before any other message (or remove that message), then
// run the node again.
type MisplacedMessageError struct {
	// Index is the position, in the conversation given, of the first
	// message after the AI message that is not a tool message; Role is its
	// role.
	Index int
	Role  llms.ChatMessageType
	// AIMessageIndex is the position of the AI message whose calls are
	// not all answered.
	AIMessageIndex int
}

// Error names the misplaced message and the AI message it follows.
func (e *MisplacedMessageError) Error() string {
	return fmt.Sprintf("saidex: message %d (role %q) follows AI message %d, whose tool calls are not all answered; the provider rejects such a conversation",
		e.Index, e.Role, e.AIMessageIndex)
}

// Is reports whether target is [ErrMisplacedMessage].
func (e *MisplacedMessageError) Is(target error) bool { return target == ErrMisplacedMessage }

// callMessage returns the index of the AI message whose calls Run handles:
// the last AI message with a tool call, else the last AI message, else -1.
// Later AI messages without calls are history, checked by skipAnswered.
func callMessage(messages []llms.MessageContent) int {
	last := -1
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Role != llms.ChatMessageTypeAI {
			continue
		}
		if MessageHasToolCalls(messages[i]) {
			return i
		}
		if last < 0 {
			last = i
		}
	}
	return last
}

// skipAnswered marks the calls of messages[ai] that a tool message after it
// already answers (see matchResponses): they are not executed and get no
// new message (OutcomeAlreadyAnswered). It reports whether some call is
// still pending; then, it returns a *MisplacedMessageError for the first
// message after the AI message that is not a tool message, before anything
// runs.
func skipAnswered(messages []llms.MessageContent, ai int, calls []*call) (pending bool, err error) {
	if ai == len(messages)-1 {
		return true, nil // nothing follows: every call is pending, the common case
	}
	answers := matchResponses(messages[ai], messages[ai+1:])
	for _, c := range calls {
		switch {
		case c.status == statusDropped:
		case c.index < len(answers) && answers[c.index] >= 0:
			c.status, c.outcome, c.err = statusSkipped, OutcomeAlreadyAnswered, nil
		default:
			pending = true
		}
	}
	if !pending {
		return false, nil
	}
	for i := ai + 1; i < len(messages); i++ {
		if messages[i].Role != llms.ChatMessageTypeTool {
			return true, &MisplacedMessageError{Index: i, Role: messages[i].Role, AIMessageIndex: ai}
		}
	}
	return true, nil
}

// matchResponses matches the tool calls of ai to the tool responses of the
// tool messages in after: each call, in order, takes the first response not
// yet taken that fits it — one with its id, or for a call without id one
// without id and of the same tool name, which is how the node answers such
// a call (Gemini's calls have no ids). A call whose id repeats
// an earlier call's id is never answered, as the node drops it. It returns,
// per call (in the order of toolCallsOf), the index in after of the message
// answering it, or -1. Its cost is linear in the number of calls and
// responses (see [responseIndex]).
func matchResponses(ai llms.MessageContent, after []llms.MessageContent) []int {
	out, _ := matchResponsesCounted(ai, after)
	return out
}

// matchResponsesCounted is matchResponses, also returning how many
// responses it examined to match the calls (its tests check that this is
// at most one per call).
func matchResponsesCounted(ai llms.MessageContent, after []llms.MessageContent) (out []int, probes int) {
	calls := toolCallsOf(ai)
	out = make([]int, len(calls))
	idx := newResponseIndex(after)
	seen := make(map[string]bool, len(calls))
	for k, tc := range calls {
		out[k] = -1
		if tc.ID != "" {
			if seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
		}
		out[k] = idx.take(tc)
	}
	return out, idx.probes
}

// responseKey is what a tool response answers: a tool-call id, or, for a
// response without id, a tool name (byName). A call fits the responses of
// one key: the key of its id, or, for a call without id (Gemini's), the
// key of its tool name ("" for a call without a FunctionCall).
type responseKey struct {
	id, name string
	byName   bool
}

func keyOfResponse(r llms.ToolCallResponse) responseKey {
	if r.ToolCallID != "" {
		return responseKey{id: r.ToolCallID}
	}
	return responseKey{name: r.Name, byName: true}
}

func keyOfCall(tc llms.ToolCall) responseKey {
	if tc.ID != "" {
		return responseKey{id: tc.ID}
	}
	name := ""
	if tc.FunctionCall != nil {
		name = tc.FunctionCall.Name
	}
	return responseKey{name: name, byName: true}
}

// responseIndex holds the tool responses of some messages chained by key,
// in order, so that taking the first response not yet taken that answers a
// call costs one map lookup, instead of a scan of every response (which
// made matching a message of n calls, half of them answered, quadratic).
type responseIndex struct {
	head   map[responseKey]int // the first response not yet taken of each key
	next   []int               // per response, the next one of its key, or -1
	msg    []int               // per response, the index of its message
	probes int                 // responses examined by take
}

// newResponseIndex indexes the tool responses of the tool messages in msgs.
func newResponseIndex(msgs []llms.MessageContent) *responseIndex {
	var rs []llms.ToolCallResponse
	idx := &responseIndex{}
	for i, m := range msgs {
		if m.Role != llms.ChatMessageTypeTool {
			continue
		}
		for _, p := range m.Parts {
			switch r := p.(type) {
			case llms.ToolCallResponse:
				rs, idx.msg = append(rs, r), append(idx.msg, i)
			case *llms.ToolCallResponse:
				if r != nil {
					rs, idx.msg = append(rs, *r), append(idx.msg, i)
				}
			}
		}
	}
	idx.head = make(map[responseKey]int, len(rs))
	idx.next = make([]int, len(rs))
	for j := len(rs) - 1; j >= 0; j-- { // backwards, so each chain is in order
		key := keyOfResponse(rs[j])
		idx.next[j] = -1
		if h, ok := idx.head[key]; ok {
			idx.next[j] = h
		}
		idx.head[key] = j
	}
	return idx
}

// take returns the message index of the first response not yet taken that
// answers tc, and marks it taken; -1 when none does.
func (idx *responseIndex) take(tc llms.ToolCall) int {
	key := keyOfCall(tc)
	j, ok := idx.head[key]
	if !ok {
		return -1
	}
	idx.probes++
	if n := idx.next[j]; n >= 0 {
		idx.head[key] = n
	} else {
		delete(idx.head, key)
	}
	return idx.msg[j]
}

// placeToolMessages returns, in a new slice, messages with the tool messages
// fresh (the node's new answers) placed as the providers require: right
// after messages[ai], together with the tool messages already there, in
// call order; tool messages that answer no call follow them, then any
// other message, in the order given.
func placeToolMessages(messages []llms.MessageContent, ai int, fresh []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(messages)+len(fresh))
	if ai == len(messages)-1 {
		return append(append(out, messages...), fresh...)
	}
	tail := append(slices.Clone(messages[ai+1:]), fresh...)
	placed := make([]bool, len(tail))
	out = append(out, messages[:ai+1]...)
	for _, i := range matchResponses(messages[ai], tail) {
		if i >= 0 && !placed[i] {
			placed[i] = true
			out = append(out, tail[i])
		}
	}
	for _, tool := range []bool{true, false} {
		for i, m := range tail {
			if !placed[i] && (m.Role == llms.ChatMessageTypeTool) == tool {
				out = append(out, m)
			}
		}
	}
	return out
}

// asToolCall returns the tool call a content part holds, by value or by a
// non-nil pointer.
func asToolCall(p llms.ContentPart) (llms.ToolCall, bool) {
	switch p := p.(type) {
	case llms.ToolCall:
		return p, true
	case *llms.ToolCall:
		if p != nil {
			return *p, true
		}
	}
	return llms.ToolCall{}, false
}
