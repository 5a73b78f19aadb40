package saidex

import (
	"fmt"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
)

// WithFeedbackLimit bounds how many turns in a row the agent is sent
// feedback for calls of one tool. 0, the default, sets no limit; a negative
// value is a configuration error.
//
// The count is read from the conversation, so it needs no state between
// runs: it is the number of consecutive earlier turns (AI messages with
// tool calls) in which calls of the tool were answered with the node's
// feedback, going back to the last turn in which a call of the tool was
// answered by anything else (the tool ran: its output, or its error as a
// message) or to the last human message (the user spoke, so the count
// starts again). Turns that do not call the tool neither count nor end
// the count.
//
// The node's feedback is recognised by a fixed rule, never guessed: a tool
// message answering a call of tool T is the node's feedback when its
// content begins with "Error: T was not executed because" (every feedback
// text, including the repeated-call and limit messages) or with "Error: the
// arguments of T could not be read as one JSON object" (arguments that did
// not parse). Text written by an unresolved hook ([FeedbackText]) counts
// only when it begins the same way.
//
// When a call of the tool that stays invalid would be answered with
// feedback for the (n+1)-th turn in a row, it is answered instead with a
// final message telling the agent to stop calling the tool this way and to
// answer without it or ask the user; its outcome is
// [OutcomeFeedbackLimit]. The call's id is answered, as always. With
// [WithOnUnresolved]([UnresolvedRaise]) the run returns a
// [*FeedbackLimitError] instead, before any call executes. (A node with
// that policy answers no call with feedback itself, so what it counts is
// the feedback in the conversation it is given, such as that of a node in
// the default policy earlier in the same thread.)
//
// Correction: the limit replaces only feedback the agent would receive. A
// call is still sent to the correction model first (a repeated call is
// not, see [CallReport].Repeated), and a call the correction model fixes
// runs and adds nothing to the count: only feedback that reached the agent
// counts, and a corrected call resets nothing by being corrected. Once it
// has run, though, the conversation shows an execution of the tool (the
// node does not mark corrected calls in the history), which ends the count
// like any execution. An unresolved hook runs before the limit; the limit
// replaces the default feedback, not a hook's [Salvage] or [FeedbackText].
func WithFeedbackLimit(n int) Option {
	return optionFunc(func(c *config) { c.feedbackLimit = n })
}

// FeedbackLimitError is returned by [ToolNode.Run] and [ToolNode.Invoke]
// with [WithOnUnresolved]([UnresolvedRaise]) and [WithFeedbackLimit] when a
// call that stays invalid reaches the limit. Nothing has executed. It
// unwraps to the [*ToolCallValidationError] listing every unresolved call
// of the run, so errors.As finds either.
type FeedbackLimitError struct {
	// Limit is the configured limit (see [WithFeedbackLimit]).
	Limit int
	// Tools names the tools whose unresolved calls reached the limit, in
	// call order, each once.
	Tools []string
	// Validation lists every unresolved call of the run.
	Validation *ToolCallValidationError
}

// Error names the tools that reached the limit.
func (e *FeedbackLimitError) Error() string {
	return fmt.Sprintf("saidex: the feedback limit of %d %s was reached for %s",
		e.Limit, plural(e.Limit, "turn", "turns"), strings.Join(e.Tools, ", "))
}

// Unwrap returns the validation error of the run.
func (e *FeedbackLimitError) Unwrap() error {
	if e.Validation == nil {
		return nil
	}
	return e.Validation
}

// The feedback markers: every feedback text the node writes for a call of
// tool T begins with "Error: T was not executed because" or "Error: the
// arguments of T could not be read as one JSON object" (feedback.go writes
// them with these constants), by which the node recognises its own
// feedback in the conversation (see WithFeedbackLimit).
const (
	feedbackHead   = "Error: "
	notExecuted    = " was not executed because"
	unreadableHead = "the arguments of "
	unreadableTail = " could not be read as one JSON object"
)

// isNodeFeedback reports whether content, answering a call of tool name,
// is the node's feedback by the rule WithFeedbackLimit documents.
func isNodeFeedback(content, name string) bool {
	rest, ok := strings.CutPrefix(content, feedbackHead)
	if !ok {
		return false
	}
	if after, ok := strings.CutPrefix(rest, name); ok && strings.HasPrefix(after, notExecuted) {
		return true
	}
	if after, ok := strings.CutPrefix(rest, unreadableHead); ok {
		if after, ok := strings.CutPrefix(after, name); ok {
			return strings.HasPrefix(after, unreadableTail)
		}
	}
	return false
}

// toolHistory is what the conversation before the AI message says about
// one tool's calls.
type toolHistory struct {
	streak   int      // consecutive turns answered with feedback (see WithFeedbackLimit)
	counting bool     // the streak is still being counted, going back
	rejected []string // the argument strings of the calls answered with feedback, latest first
}

// recall reads the conversation before the AI message for the tools of the
// calls that are invalid after validation: a call identical to one the
// node already answered with feedback is marked repeated (it is answered
// at once, without correction), and a call whose tool's feedback streak has
// reached WithFeedbackLimit is marked over the limit. It reads nothing
// when no call is invalid.
func (n *ToolNode) recall(r *run, calls []*call) {
	var tools map[string]*toolHistory
	for _, c := range calls {
		if c.status == statusInvalid && c.tool != nil && !c.noFunc && !c.cut {
			if tools == nil {
				tools = map[string]*toolHistory{}
			}
			tools[c.name] = &toolHistory{counting: n.cfg.feedbackLimit > 0}
		}
	}
	if tools == nil {
		return
	}
	readHistory(r.messages, r.aiIndex, tools)
	for _, c := range calls {
		if c.status != statusInvalid || c.tool == nil || c.noFunc || c.cut {
			continue
		}
		h := tools[c.name]
		c.overLimit = n.cfg.feedbackLimit > 0 && h.streak >= n.cfg.feedbackLimit
		c.streak = h.streak
		c.repeated = n.sameAsRejected(c, h.rejected)
	}
}

// readHistory fills tools from the turns before messages[ai], latest first.
func readHistory(messages []llms.MessageContent, ai int, tools map[string]*toolHistory) {
	for i := ai - 1; i >= 0; i-- {
		m := messages[i]
		if m.Role == llms.ChatMessageTypeHuman {
			for _, h := range tools {
				h.counting = false
			}
			continue
		}
		if m.Role != llms.ChatMessageTypeAI || !MessageHasToolCalls(m) {
			continue
		}
		answers, byCall, _ := answersAfter(messages, i) // history.go
		type verdict struct{ feedback, ran bool }
		var turn map[string]*verdict
		for k, tc := range toolCallsOf(m) {
			if tc.FunctionCall == nil || k >= len(byCall) || byCall[k] < 0 {
				continue
			}
			h := tools[tc.FunctionCall.Name]
			if h == nil {
				continue
			}
			content, ok := responseContent(answers[byCall[k]], tc)
			if !ok {
				continue
			}
			if turn == nil {
				turn = map[string]*verdict{}
			}
			v := turn[tc.FunctionCall.Name]
			if v == nil {
				v = &verdict{}
				turn[tc.FunctionCall.Name] = v
			}
			if isNodeFeedback(content, tc.FunctionCall.Name) {
				v.feedback = true
				h.rejected = append(h.rejected, tc.FunctionCall.Arguments)
			} else {
				v.ran = true
			}
		}
		for name, v := range turn {
			h := tools[name]
			switch {
			case !h.counting:
			case v.ran:
				h.counting = false
			case v.feedback:
				h.streak++
			}
		}
	}
}

// responseContent returns the content of the response in the tool message
// m that answers tc.
func responseContent(m llms.MessageContent, tc llms.ToolCall) (string, bool) {
	want := keyOfCall(tc) // history.go
	for _, p := range m.Parts {
		switch r := p.(type) {
		case llms.ToolCallResponse:
			if keyOfResponse(r) == want {
				return r.Content, true
			}
		case *llms.ToolCallResponse:
			if r != nil && keyOfResponse(*r) == want {
				return r.Content, true
			}
		}
	}
	return "", false
}

// sameAsRejected reports whether c sends again the arguments of a call
// already answered with feedback: the same argument string, or arguments
// that repair to the same JSON value (key order, spacing and the spelling
// of numbers aside).
func (n *ToolNode) sameAsRejected(c *call, rejected []string) bool {
	for _, past := range rejected {
		if past == c.raw {
			return true
		}
		if c.err != nil || c.value == nil {
			continue // arguments that never parsed compare as sent
		}
		opt := n.cfg.repairOptions()
		opt.schema = c.tool.schema             // the reading the repair stage takes
		res, err := repairArguments(past, opt) // repair.go
		if err == nil && jsonvalue.Equal(res.value, c.value) {
			return true
		}
	}
	return false
}

// answerUnresolved answers an invalid call the way the node does when no
// hook decides: the limit message when the call is over the limit, the
// repeated-call message when it repeats a rejected call, the default
// feedback otherwise.
func answerUnresolved(c *call) {
	switch {
	case c.cut: // cut.go
		c.output = boundMessage(outputLimitFeedback(c)) // bounds.go (a long tool name)
		c.status, c.outcome, c.isError = statusAnswered, OutcomeOutputLimit, true
	case c.overLimit:
		c.output = boundMessage(limitFeedback(c, c.streak)) // feedback.go; bounds.go (a long tool name)
		c.status, c.outcome, c.isError = statusAnswered, OutcomeFeedbackLimit, true
	case c.repeated:
		answerFeedback(c, boundMessage(repeatedFeedback(c))) // bounds.go
	default:
		answerFeedback(c, feedbackFor(c))
	}
}
