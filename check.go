package saidex

import (
	"context"
	"fmt"

	"github.com/saidex/saidex-go/internal/stackroom"
	"github.com/tmc/langchaingo/llms"
)

// Check runs the stages before execution (repair, validation, correction
// and the unresolved step) on the tool calls of the last message of
// messages, which must be an AI message, and returns one [CallReport] per
// tool call, in order. Nothing is executed. It is what [WrapModel] runs on
// a response, for a caller that executes the calls itself: the messages
// before the AI message are the conversation the correction prompt may
// quote, and messages may be just the AI message. A caller that sees one
// call at a time (a framework's per-call tool middleware) uses
// [ToolNode.CheckCall], which skips the per-message work.
//
// A report's Outcome says what to do with its call:
//
//   - executed, corrected or salvaged: the call is ready to run; Arguments
//     holds the JSON to run it with (the model's own arguments when they
//     were valid as sent, else the repaired, corrected or salvaged ones;
//     nil for a plain tool whose input is not JSON, which runs with
//     RawArguments). Unlike every other report, a report of Check holds
//     secret values (see [Secret]) in clear in Arguments, since the
//     caller runs the call with them; its RawArguments is masked;
//   - feedback, feedback_limit, output_limit or repeat_limit: the call
//     must not run; Output is the feedback text to answer it with;
//   - unknown_tool: the call names a tool the node does not have; Output
//     is the error naming its tools that the node answers such a call
//     with;
//   - dropped: the call repeats an earlier call's id (see [ToolNode]).
//
// opts are the run options: [WithFinishReason] refuses every call of a
// reply the output limit cut (an AI message carrying [WrapModel]'s notice
// is refused without it).
//
// Validators and hooks see the state ctx carries ([ContextWithState]), as
// in a run. Its reports carry no durations. Errors: [ErrNoAIMessage] when the last message is not an
// AI message; ctx.Err(); and those the node returns before execution (a
// *ToolCallValidationError, *FeedbackLimitError or *RepeatLimitError with
// the raise policy, an interrupt, an unresolved hook's error).
func (n *ToolNode) Check(ctx context.Context, messages []llms.MessageContent, opts ...RunOption) ([]CallReport, error) {
	reports, calls, err := n.checkCalls(ctx, messages, newRunConfig(opts))
	for i, c := range calls {
		if c.status == statusValid {
			reports[i].Arguments = c.runArguments() // the caller runs the call with them
		}
	}
	return reports, err
}

// checkCalls is Check with reports as every report is, secret values masked,
// and the calls behind them.
func (n *ToolNode) checkCalls(ctx context.Context, messages []llms.MessageContent, rcfg runConfig) ([]CallReport, []*call, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ai := len(messages) - 1
	if ai < 0 || messages[ai].Role != llms.ChatMessageTypeAI {
		return nil, nil, ErrNoAIMessage
	}
	r := &run{messages: messages, aiIndex: ai, outputLimit: rcfg.outputLimit || markedCut(messages[ai]), // cut.go
		state: StateFromContext(ctx)} // unresolved.go
	calls := n.collect(messages[ai])
	if err := n.prepare(ctx, r, calls); err != nil {
		return nil, nil, n.sealErr(r, calls, err)
	}
	n.seal(r, calls) // scrub.go
	reports := make([]CallReport, len(calls))
	for i, c := range calls {
		reports[i] = c.report()
		if c.status == statusValid {
			reports[i].Arguments = c.jsonArguments() // nil for an unknown tool
		}
		if c.outcome == OutcomeUnknownTool {
			reports[i].Output, reports[i].IsError = n.unknownToolMessage(c.name), true // bounds.go: the node's answer
		}
	}
	return reports, calls, nil
}

// CallCheck is what [ToolNode.CheckCall] decided for one tool call.
type CallCheck struct {
	// Outcome is OutcomeExecuted, OutcomeCorrected or OutcomeSalvaged for
	// a call ready to run (see [CallCheck.Ready]), OutcomeFeedback (or
	// OutcomeOutputLimit, for a reply the output limit cut) for a call that
	// must not run, and OutcomeUnknownTool for a call of a tool
	// the node does not have (Output is the error naming its tools that the
	// node answers such a call with; Arguments is empty).
	Outcome Outcome
	// Arguments is the text a ready call runs with: the model's own
	// arguments when they were valid as sent (the same string), else the
	// repaired, corrected or salvaged JSON (a plain tool's text as the
	// node would pass it). Empty when the call is not ready.
	Arguments string
	// Output is the text to answer a call that does not run with: the
	// feedback, or the unknown tool's error; empty for a ready call.
	Output string
}

// Ready reports whether the call may run, with Arguments.
func (c CallCheck) Ready() bool {
	return c.Outcome.Ready()
}

// CheckCall is [ToolNode.Check] for one tool call given by its id, tool
// name and argument text, for a caller that executes calls one at a time
// (a framework's per-call tool middleware): it runs the same stages
// (repair, validation, correction and the unresolved step) on that call
// alone and executes nothing. Arguments that the tool's schema accepts as
// sent take the fast path of the repair stage and return at once, without
// allocating; the validators, hooks and correction prompt of any other
// call see as the conversation an AI message holding that call alone.
// Like Check, its validators and hooks see the state ctx carries
// ([ContextWithState]), and it reports no durations. opts
// are Check's: with [WithFinishReason] saying the output limit cut the
// reply, the call is refused whatever its arguments (no fast path). It
// sees no earlier calls, so [WithRepeatLimit] never applies here.
//
// Errors: ctx.Err(), and those Check returns before execution (a
// *ToolCallValidationError with the raise policy, an interrupt, an
// unresolved hook's error).
//
// A framework that runs each call on a goroutine of its own runs CheckCall
// and then the tool on a fresh stack, which the tool's decoding grows
// anyway: CheckCall grows it once, at entry, to room for both
// (internal/stackroom), rather than letting the check and then the tool
// each grow it.
func (n *ToolNode) CheckCall(ctx context.Context, id, name, arguments string, opts ...RunOption) (CallCheck, error) {
	if err := ctx.Err(); err != nil {
		return CallCheck{}, err
	}
	stackroom.Make() // one stack growth for the check and the tool after it, not two
	rcfg := newRunConfig(opts)
	if !rcfg.outputLimit && n.acceptsAsSent(n.tools[name], arguments) { // repair's fast path (repair.go)
		return CallCheck{Outcome: OutcomeExecuted, Arguments: arguments}, nil
	}
	return n.checkCall(ctx, id, name, arguments, rcfg)
}

// acceptsAsSent reports whether arguments, as sent, are certainly valid
// for t, a tool with a schema and without validators (which need the
// decoded value), by the schema's precheck on their bytes: the fast path
// of the repair stage (validAsSent) and of CheckCall. It is false for a
// nil t.
func (n *ToolNode) acceptsAsSent(t *boundTool, arguments string) bool {
	if t == nil || t.schema == nil || len(t.validators) > 0 || len(arguments) > n.cfg.maxArgumentBytes {
		return false
	}
	return t.schema.prechecked(arguments, n.cfg.coercion == CoercionLax)
}

// checkCall is CheckCall for a call that did not take the fast path: it
// runs prepare on the call, in a conversation of the AI message holding it
// alone. Its frame, which holds no call, stays off the fast path's stack.
func (n *ToolNode) checkCall(ctx context.Context, id, name, arguments string, rcfg runConfig) (CallCheck, error) {
	one := new(struct {
		c    call
		p    [1]*call
		msgs [1]llms.MessageContent
		part [1]llms.ContentPart
		fc   llms.FunctionCall
	})
	c := &one.c
	*c = call{id: id, name: name, raw: arguments, tool: n.tools[name], outcome: OutcomeExecuted}
	n.classify(c)
	if c.outcome == OutcomeUnknownTool && !rcfg.outputLimit {
		return CallCheck{Outcome: OutcomeUnknownTool, Output: n.unknownToolMessage(name)}, nil
	}
	one.p[0] = c
	one.fc = llms.FunctionCall{Name: name, Arguments: arguments}
	one.part[0] = llms.ToolCall{ID: id, Type: "function", FunctionCall: &one.fc}
	one.msgs[0] = llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: one.part[:]}
	r := &run{messages: one.msgs[:], outputLimit: rcfg.outputLimit, state: StateFromContext(ctx)} // unresolved.go
	if err := n.prepare(ctx, r, one.p[:]); err != nil {
		return CallCheck{}, n.sealErr(r, one.p[:], err)
	}
	n.seal(r, one.p[:]) // scrub.go
	if c.status == statusValid {
		return CallCheck{Outcome: c.outcome, Arguments: c.args}, nil
	}
	return CallCheck{Outcome: c.outcome, Output: c.output}, nil
}

// classify sets the status of a call that the pipeline does not repair: a
// call naming no function, a plain tool's call over the size limit (both
// answered with feedback) and a call of an unknown tool (answered by the
// executor), unless its name glues several tool names together (several
// calls merged into one, answered with feedback: merged.go). c's noFunc,
// name, raw and tool are set. Both collect and CheckCall use it.
func (n *ToolNode) classify(c *call) {
	switch {
	case c.noFunc:
		c.status, c.outcome = statusInvalid, OutcomeFeedback
		c.err = errNoFunctionCall
	case c.tool != nil && c.tool.schema == nil && len(c.raw) > n.cfg.maxArgumentBytes:
		// A plain tool's string is not parsed, but the cap holds for it too.
		c.status, c.outcome = statusInvalid, OutcomeFeedback
		c.err = fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrMalformedArguments, len(c.raw), n.cfg.maxArgumentBytes)
	case c.tool == nil:
		c.unknownSecrets = n.secretsFor(c.name)               // secret.go: masked like any unknown tool's
		if c.merged = n.mergedName(c.name); c.merged != nil { // merged.go
			c.status, c.outcome, c.err = statusInvalid, OutcomeFeedback, ErrMergedCalls
			return
		}
		// Answered by the executor with an error naming the node's tools.
		c.args, c.status, c.outcome = c.raw, statusValid, OutcomeUnknownTool
	}
}
