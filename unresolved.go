package saidex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
)

// UnresolvedPolicy says what the node does with a call that is still invalid
// after validation and correction. See [WithOnUnresolved].
type UnresolvedPolicy int

// The policies for calls that stay invalid.
const (
	// UnresolvedFeedback, the default, answers each unresolved call with an
	// error tool message carrying field-level guidance, so the agent fixes
	// the call in its next turn. The call is not executed; valid sibling
	// calls are.
	UnresolvedFeedback UnresolvedPolicy = iota
	// UnresolvedRaise makes [ToolNode.Run] and [ToolNode.Invoke] return a
	// [*ToolCallValidationError] before any call executes, after correction
	// (when configured) was tried, when a call stays invalid or a call is
	// dropped because its id repeats an earlier call's id: a repeated id
	// alone raises, even when every call is valid.
	UnresolvedRaise
)

// String returns "feedback" or "raise".
func (p UnresolvedPolicy) String() string {
	switch p {
	case UnresolvedFeedback:
		return "feedback"
	case UnresolvedRaise:
		return "raise"
	}
	return fmt.Sprintf("UnresolvedPolicy(%d)", int(p))
}

// WithOnUnresolved sets what happens to calls that are still invalid after
// validation and correction: [UnresolvedFeedback] (the default) or
// [UnresolvedRaise]. Any other value, or UnresolvedRaise together with
// [WithUnresolvedHook], is a configuration error.
//
// Prefer UnresolvedFeedback in agent loops. With UnresolvedRaise the node
// returns an error instead of tool messages, so a graph does not apply the
// node's update and a checkpointed thread keeps an AI message whose
// tool-call ids are never answered: the next model call on that thread is
// rejected by OpenAI-compatible providers. UnresolvedRaise suits one-shot
// pipelines where an invalid call is a hard failure.
func WithOnUnresolved(p UnresolvedPolicy) Option {
	return optionFunc(func(c *config) { c.onUnresolved = p })
}

// UnresolvedHook decides what to do with one unresolved call; see
// [WithUnresolvedHook]. Once ctx is done [ToolNode.Run] returns a
// [*CanceledError] without waiting for the hook, which runs on, on a
// goroutine of its own, until it returns; its Resolution is then dropped.
type UnresolvedHook func(ctx context.Context, call UnresolvedToolCall) (Resolution, error)

// WithUnresolvedHook sets a hook that is called once per call that is still
// invalid after validation and correction, before anything executes. The
// hook returns a [Resolution]: salvaged arguments ([Salvage]), custom
// feedback text ([FeedbackText]) or, as the zero Resolution, the default
// feedback.
//
// Hooks of the calls of one message run concurrently (bounded by
// [WithMaxConcurrency]), and one hook may run for several messages at once
// when the node is shared, so a hook must be safe for concurrent use.
// An error returned by a hook stops the run: [ToolNode.Run] returns it,
// wrapped with the tool name and call id (an interrupt, see [ErrInterrupt],
// is returned unchanged). A panic in a hook is recovered and returned the
// same way, as a [*PanicError]. A nil hook restores the default.
func WithUnresolvedHook(hook UnresolvedHook) Option {
	return optionFunc(func(c *config) { c.unresolvedHook = hook })
}

// validateUnresolved checks the on_unresolved options.
func (c *config) validateUnresolved() error {
	switch {
	case c.onUnresolved != UnresolvedFeedback && c.onUnresolved != UnresolvedRaise:
		return fmt.Errorf("WithOnUnresolved(%d): must be UnresolvedFeedback or UnresolvedRaise", int(c.onUnresolved))
	case c.onUnresolved == UnresolvedRaise && c.unresolvedHook != nil:
		return errors.New("WithOnUnresolved(UnresolvedRaise) and WithUnresolvedHook exclude each other")
	}
	return nil
}

// UnresolvedToolCall describes a call that is still invalid after
// validation and correction. A hook receives it; a
// [*ToolCallValidationError] lists it.
type UnresolvedToolCall struct {
	// ToolName and CallID are the call's tool name and id (the id may be
	// empty for a hook; a ToolCallValidationError lists only calls with one).
	ToolName, CallID string
	// Args are the arguments as they were before any correction: the
	// repaired argument object, JSON numbers as [json.Number]. It is nil
	// when the arguments never parsed or are not a JSON object, and in a
	// ToolCallValidationError when the schema marks the whole arguments
	// secret (a root "writeOnly"). It is the receiver's own copy: a hook may modify it and return it to [Salvage].
	Args map[string]any
	// RawArguments is the argument string exactly as the model sent it.
	// A hook receives Args and RawArguments with secret values in clear,
	// as a tool does (so that it can salvage them), and must keep them
	// out of what it logs or returns as feedback; a
	// ToolCallValidationError masks them.
	RawArguments string
	// Issues are the field-level problems of the arguments, from the schema
	// and the tool's validators; empty when they never parsed. At most 50,
	// as in CallReport.Issues; Error says how many more there were.
	Issues []Issue
	// Error says in one line why the call is invalid.
	Error string
	// CorrectionAttempted reports whether a correction model tried to fix
	// the call.
	CorrectionAttempted bool
	// Messages is the conversation the node was run on; read it, do not
	// modify it.
	Messages []llms.MessageContent
	// State is the caller's graph state (see [ContextWithState]), nil when none.
	State any
}

// Resolution is a hook's decision for one unresolved call. The zero value
// answers the call with the default feedback; [Salvage] and [FeedbackText]
// make the other two.
type Resolution struct {
	kind     resolutionKind
	args     map[string]any
	feedback string
}

type resolutionKind int

const (
	resolveDefault resolutionKind = iota
	resolveSalvage
	resolveText
)

// Salvage resolves a call by replacing its arguments with args. The
// arguments are re-validated (schema, then validators in [PhaseSalvage]);
// when valid, the call executes with them, in canonical JSON form, and its
// outcome is [OutcomeSalvaged]. When still invalid (or not encodable as
// JSON), the call gets the default feedback and a warning is logged with
// the tool name and call id, never the argument values. The node does not
// keep args after the run; the hook must not modify it after returning.
func Salvage(args map[string]any) Resolution {
	return Resolution{kind: resolveSalvage, args: args}
}

// FeedbackText resolves a call by answering it with text as an error tool
// message instead of the default feedback. The call is not executed; its
// outcome is [OutcomeFeedback].
func FeedbackText(text string) Resolution {
	return Resolution{kind: resolveText, feedback: text}
}

// ToolCallValidationError is returned by [ToolNode.Run] and
// [ToolNode.Invoke] with [WithOnUnresolved]([UnresolvedRaise]) when calls are still
// invalid after validation and correction. Nothing has executed. Use
// errors.As to reach it. The RawArguments and Args of the calls it lists
// have secret values masked, as in [CallReport].RawArguments; their
// Messages are the conversation given to Run, as it was.
type ToolCallValidationError struct {
	// Calls lists the unresolved calls that have an id, in call order.
	Calls []UnresolvedToolCall
	// Count is the number of failed calls: those listed, those without an
	// id, and those dropped because their id repeats an earlier call's id.
	// The last two cannot be listed, as nothing could answer them.
	Count int
}

// Error counts the failed calls and lists the listed ones with their problems.
func (e *ToolCallValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "saidex: %d tool call", e.Count)
	if e.Count != 1 {
		b.WriteString("s")
	}
	b.WriteString(" stayed invalid")
	for i, c := range e.Calls {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		fmt.Fprintf(&b, "%s%s (call %q): %s", sep, c.ToolName, c.CallID, c.Error)
	}
	if n := e.Count - len(e.Calls); n > 0 {
		fmt.Fprintf(&b, "; %d without a usable id", n)
	}
	return b.String()
}

type runOptionFunc func(*runConfig)

func (f runOptionFunc) applyRun(c *runConfig) { f(c) }

type stateKey struct{}

// ContextWithState returns a copy of ctx that carries state: the caller's
// graph state (for example a user id) for the runs of [ToolNode.Run],
// [ToolNode.Invoke], [ToolNode.Check] and [ToolNode.CheckCall] with that
// ctx. Validators see it in [ValidatorContext].State, hooks in
// [UnresolvedToolCall].State, and tools, validators and hooks through
// [StateFromContext]. The node never modifies the state; share it between
// goroutines only if it is safe to read concurrently. A tool that runs a
// ToolNode of its own with the ctx it was given passes the outer run's
// state on, unless it sets another. Without it a run's state is nil.
func ContextWithState(ctx context.Context, state any) context.Context {
	return context.WithValue(ctx, stateKey{}, state)
}

// StateFromContext returns the state ctx carries, set with
// [ContextWithState], or nil. Tools, validators and hooks
// called by a [ToolNode] receive a ctx that carries it, so a type
// assertion reads it:
//
//	st, ok := saidex.StateFromContext(ctx).(MyState)
func StateFromContext(ctx context.Context) any {
	return ctx.Value(stateKey{})
}

// resolve is the resolve stage: every call still invalid follows the
// on_unresolved policy. With UnresolvedRaise it returns a *ToolCallValidationError;
// with a hook, each invalid call is salvaged (and becomes valid), answered
// with custom text, or answered with the default feedback; otherwise each
// is answered with the default feedback. Nothing has executed yet.
func (n *ToolNode) resolve(ctx context.Context, r *run, calls []*call) error {
	var invalid []*call
	dropped := 0
	for _, c := range calls {
		switch c.status {
		case statusInvalid:
			invalid = append(invalid, c)
		case statusDropped:
			dropped++
		}
	}
	if n.cfg.onUnresolved == UnresolvedRaise {
		if len(invalid) == 0 && dropped == 0 {
			return nil
		}
		e := &ToolCallValidationError{Count: len(invalid) + dropped}
		var over []string
		n.seal(r, invalid) // scrub.go: an error is text, no secret in it
		for _, c := range invalid {
			if c.id != "" {
				uc := unresolvedCall(r, c)
				uc.RawArguments = c.shown(uc.RawArguments)
				uc.Error = c.scrub.text(uc.Error)
				if uc.Args != nil {
					masked, _ := c.secrets().mask(uc.Args)
					uc.Args, _ = c.scrub.value(masked).(map[string]any) // nil when the whole arguments are secret
				}
				e.Calls = append(e.Calls, uc)
			}
			if c.overLimit && !slices.Contains(over, c.name) {
				over = append(over, c.name)
			}
		}
		if over != nil {
			return &FeedbackLimitError{Limit: n.cfg.feedbackLimit, Tools: over, Validation: e} // limit.go
		}
		return e
	}
	if n.cfg.unresolvedHook == nil || len(invalid) == 0 {
		for _, c := range invalid {
			answerUnresolved(c) // limit.go
		}
		return nil
	}
	for _, c := range invalid {
		if c.repeated || c.cut || errors.Is(c.err, ErrMergedCalls) { // answered at once, without the hook (limit.go, cut.go, merged.go)
			answerUnresolved(c)
		}
	}
	hooked := func(c *call) bool { return c.status == statusInvalid }
	err := n.eachCall(ctx, invalid, hooked, func(ctx context.Context, c *call) error { return n.resolveOne(ctx, r, c) }) // correct.go
	if err != nil && n.isInterrupt(err) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr // never a partial result
	}
	return err
}

// resolveOne calls the hook for one invalid call and applies its Resolution.
func (n *ToolNode) resolveOne(ctx context.Context, r *run, c *call) error {
	uc := unresolvedCall(r, c)
	var res Resolution
	var err error
	if !watchCall(ctx, func() { res, err = callHook(ctx, n.cfg.unresolvedHook, uc) }) { // execute.go
		return ctx.Err() // the hook runs on alone
	}
	if err != nil {
		if n.isInterrupt(err) {
			return err
		}
		return fmt.Errorf("saidex: unresolved hook for tool %q (call %q): %w", c.name, c.id, err)
	}
	switch res.kind {
	case resolveText:
		answerFeedback(c, res.feedback)
	case resolveSalvage:
		return n.salvage(ctx, r, c, res.args)
	default:
		answerUnresolved(c) // limit.go
	}
	return nil
}

// salvage re-validates arguments returned by a hook: valid ones make the
// call valid with outcome salvaged; invalid ones get the default feedback
// and a warning.
func (n *ToolNode) salvage(ctx context.Context, r *run, c *call, args map[string]any) error {
	reject := func(reason string, issues int) {
		n.cfg.log().Warn("saidex: arguments salvaged by the unresolved hook are invalid; answering with feedback",
			slog.String("tool", c.name), slog.String("call_id", c.id), slog.String("outcome", string(OutcomeFeedback)),
			slog.String("reason", reason), slog.Int("issues", issues))
		answerUnresolved(c) // limit.go
	}
	if c.tool == nil || c.tool.schema == nil {
		reject("the call names no tool with a schema", 0)
		return nil
	}
	text, value, err := canonicalArgs(args)
	if err != nil {
		reject("the arguments cannot be encoded as JSON", 0)
		return nil
	}
	issues, err := n.check(ctx, r, c, value, "", checkPhase{phase: PhaseSalvage})
	if err != nil {
		return err
	}
	if len(issues) > 0 {
		reject("the arguments do not validate", len(issues))
		return nil
	}
	c.value, c.args, c.err = value, text, nil
	c.status, c.outcome, c.isError = statusValid, OutcomeSalvaged, false
	return nil
}

// canonicalArgs encodes args as a model would send them (no HTML escaping)
// and decodes them back into the value the schema and validators check.
func canonicalArgs(args map[string]any) (string, any, error) {
	text, err := jsonvalue.Encode(args)
	if err != nil {
		return "", nil, err
	}
	value, err := decodeJSON(text)
	if err != nil {
		return "", nil, err
	}
	return text, value, nil
}

// callHook calls a hook, turning a panic into a *PanicError.
func callHook(ctx context.Context, hook UnresolvedHook, uc UnresolvedToolCall) (res Resolution, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return hook(ctx, uc)
}

// answerFeedback answers c with an error tool message; c is not executed.
func answerFeedback(c *call, text string) {
	c.output = text
	c.status, c.outcome, c.isError = statusAnswered, OutcomeFeedback, true
}

// unresolvedCall describes c for a hook or a ToolCallValidationError.
// Its Args are the model's own (repaired) arguments, as they were before
// any correction attempt.
func unresolvedCall(r *run, c *call) UnresolvedToolCall {
	uc := UnresolvedToolCall{
		ToolName:            c.name,
		CallID:              c.id,
		RawArguments:        c.raw,
		Issues:              append([]Issue(nil), c.issues...),
		Error:               unresolvedError(c),
		CorrectionAttempted: c.correctionAttempted,
		Messages:            r.messages,
		State:               r.state,
	}
	before := c.value
	if c.correctionAttempted {
		before = c.original
	}
	if m, ok := before.(map[string]any); ok && c.err == nil {
		uc.Args = deepCopyJSON(m).(map[string]any)
	}
	return uc
}

// unresolvedError says in one line why c is invalid, without values.
func unresolvedError(c *call) string {
	switch {
	case c.noFunc:
		return errNoFunctionCall.Error()
	case c.err != nil:
		return c.err.Error()
	case len(c.issues) == 0:
		return "invalid arguments"
	}
	parts := make([]string, 0, len(c.issues))
	for _, is := range c.issues {
		p := is.Path
		if p == "" {
			p = "(root)"
		}
		parts = append(parts, p+": "+is.Message)
	}
	if c.moreIssues > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", c.moreIssues))
	}
	return strings.Join(parts, "; ")
}

// deepCopyJSON copies a decoded JSON value (maps, slices, scalars).
func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopyJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopyJSON(e)
		}
		return s
	}
	return v
}
