package saidex

import (
	"fmt"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
)

// WithRepeatLimit stops a model that sends the same valid call again and
// again: a call identical to n calls that already ran earlier in the
// conversation is not run. 0, the default, sets no limit; a negative
// value is a configuration error. Use it with tools whose side effects
// must not repeat (sending, paying, writing) and with cheap models that
// loop on a call whose result they already have.
//
// Identical means the same tool and the same arguments as JSON values: key
// order, spacing and the spelling of numbers do not matter, so a repaired
// call matches the canonical arguments the sanitized history stores for
// it. Secret values (see [Secret]) are compared masked, on both sides, as
// the sanitized history stores them: two calls that differ only in a
// secret count as the same call. [ToolNode.CheckCall] sees no history, so
// the limit never applies there. The count is read from the conversation before the AI message, as
// [WithFeedbackLimit]'s is, so it needs no state and a re-run gives the
// same answer: an earlier call counts when a tool message answers it with
// anything but the node's feedback (its output, or its error as a
// message). Calls of the same message do not count for each other.
//
// Such a call is answered with feedback that says the same call already
// ran that many times and names the id of the latest one, whose tool
// message holds the result; it does not repeat the output, nor any
// argument. Its outcome is [OutcomeRepeatLimit], counted in events and
// stats, and like any feedback it counts toward [WithFeedbackLimit]. With
// [WithOnUnresolved]([UnresolvedRaise]) the run returns a
// [*RepeatLimitError] instead, before any call executes. The check runs on
// calls that are ready to run, after correction and the unresolved hook,
// and [WrapModel] and [ToolNode.Check] report such calls too.
func WithRepeatLimit(n int) Option {
	return optionFunc(func(c *config) { c.repeatLimit = n })
}

// RepeatLimitError is returned by [ToolNode.Run] and [ToolNode.Invoke]
// with [WithOnUnresolved]([UnresolvedRaise]) and [WithRepeatLimit] when a
// call reaches the limit. Nothing has executed.
type RepeatLimitError struct {
	// Limit is the configured limit (see [WithRepeatLimit]).
	Limit int
	// IDs and Tools are the ids and tool names of the calls that reached
	// it, in call order.
	IDs, Tools []string
}

// Error names the tools whose calls reached the limit.
func (e *RepeatLimitError) Error() string {
	return fmt.Sprintf("saidex: the repeat limit of %d was reached by %s", e.Limit, strings.Join(e.Tools, ", "))
}

// repeatRun is what the conversation before the AI message says about the
// executed calls of one tool.
type repeatRun struct {
	secret *secretSchema // the tool's secret locations, masked on both sides before comparing
	args   []any         // the decoded arguments of each executed call, secret values masked
	ids    []string      // their call ids, in the same order: latest first
}

// repeats is the repeat-limit stage: every call still ready to run whose
// tool already ran with the same arguments WithRepeatLimit times earlier in
// the conversation is answered with feedback instead (or, under
// UnresolvedRaise, makes the run return a *RepeatLimitError). It reads the
// history only when the limit is set and a call is ready to run.
func (n *ToolNode) repeats(r *run, calls []*call) error {
	if n.cfg.repeatLimit == 0 {
		return nil
	}
	var past map[string]*repeatRun
	for _, c := range calls {
		if c.status == statusValid && c.tool != nil && c.outcome != OutcomeUnknownTool {
			if past == nil {
				past = map[string]*repeatRun{}
			}
			past[c.name] = &repeatRun{secret: c.tool.secret}
		}
	}
	if past == nil {
		return nil
	}
	readRuns(r.messages, r.aiIndex, past)
	var hit *RepeatLimitError
	for _, c := range calls {
		if c.status != statusValid || c.tool == nil || c.outcome == OutcomeUnknownTool {
			continue
		}
		h := past[c.name]
		if len(h.args) < n.cfg.repeatLimit {
			continue
		}
		v := c.value
		if v == nil { // valid as sent, not decoded (repair.go)
			var err error
			if v, err = decodeJSON(c.args); err != nil {
				continue // a plain tool's text: compared as JSON only
			}
		} else if h.secret != nil {
			v = deepCopyJSON(v) // masked below, and c.value is what runs
		}
		v, _ = h.secret.mask(v) // the history stores masks where secrets were
		same, latest := 0, ""
		for i, a := range h.args {
			if jsonvalue.Equal(a, v) {
				if same == 0 {
					latest = h.ids[i]
				}
				same++
			}
		}
		if same < n.cfg.repeatLimit {
			continue
		}
		if n.cfg.onUnresolved == UnresolvedRaise {
			if hit == nil {
				hit = &RepeatLimitError{Limit: n.cfg.repeatLimit}
			}
			hit.IDs, hit.Tools = append(hit.IDs, c.id), append(hit.Tools, c.name)
			continue
		}
		c.output = boundMessage(repeatLimitFeedback(c, same, latest)) // bounds.go
		c.status, c.outcome, c.isError = statusAnswered, OutcomeRepeatLimit, true
	}
	if hit != nil {
		return hit
	}
	return nil
}

// readRuns fills past with the executed calls of its tools in the turns
// before messages[ai], latest first.
func readRuns(messages []llms.MessageContent, ai int, past map[string]*repeatRun) {
	for i := ai - 1; i >= 0; i-- {
		m := messages[i]
		if m.Role != llms.ChatMessageTypeAI || !MessageHasToolCalls(m) {
			continue
		}
		answers, byCall, _ := answersAfter(messages, i) // history.go
		calls := toolCallsOf(m)
		for k := len(calls) - 1; k >= 0; k-- {
			tc := calls[k]
			if tc.FunctionCall == nil || k >= len(byCall) || byCall[k] < 0 {
				continue
			}
			h := past[tc.FunctionCall.Name]
			if h == nil {
				continue
			}
			content, ok := responseContent(answers[byCall[k]], tc) // limit.go
			if !ok || isNodeFeedback(content, tc.FunctionCall.Name) {
				continue
			}
			v, err := decodeJSON(tc.FunctionCall.Arguments)
			if err != nil {
				continue
			}
			v, _ = h.secret.mask(v)
			h.args, h.ids = append(h.args, v), append(h.ids, tc.ID)
		}
	}
}

// repeatLimitFeedback answers a call identical to times calls that already
// ran, the latest with id latest. It quotes neither the output nor the
// arguments.
func repeatLimitFeedback(c *call, times int, latest string) string {
	var b strings.Builder
	b.WriteString(feedbackHead)
	b.WriteString(c.name)
	b.WriteString(notExecuted) // the marker of the node's feedback (limit.go)
	b.WriteString(" the same call, with the same arguments, already ran ")
	if times == 1 {
		b.WriteString("once")
	} else {
		fmt.Fprintf(&b, "%d times", times)
	}
	b.WriteString(" in this conversation")
	if latest != "" {
		b.WriteString(": its result is in the tool message answering call ")
		b.WriteString(latest)
	}
	b.WriteString(". Use that result instead of calling ")
	b.WriteString(c.name)
	b.WriteString(" again; change the arguments if you need something else, or answer the user.")
	return b.String()
}
