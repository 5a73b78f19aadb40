package saidex

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
)

// Validator checks a call's arguments with context a JSON Schema cannot
// express: the conversation, the caller's state (see [ContextWithState]), a
// database. It runs after the tool's schema accepted args, once on the
// model's own arguments ([PhaseInitial]), on every candidate of the
// correction model ([PhaseCorrection]) and on arguments returned by an
// unresolved hook ([PhaseSalvage]); never when the tool executes.
//
// args is the decoded argument object, JSON numbers as [json.Number]; it
// must not be modified. Return nil to accept. Return an error to reject:
// a [*ValidationIssue] or [ValidationIssues] becomes field issues (an empty
// ValidationIssues accepts), any other error one issue carrying its
// message. Rejected calls follow the normal path: correction when
// configured, then [WithOnUnresolved]. Wrap the error with [Flag] to record
// the issues without rejecting. The parts of a joined error (errors.Join,
// fmt.Errorf with several %w) count one by one: any part not wrapped by
// Flag rejects, and the flagged parts are recorded beside the rejection.
// An error that is an interrupt (see [ErrInterrupt]) stops the run and is
// returned unchanged by [ToolNode.Run]. Once ctx is done Run returns a
// [*CanceledError] without waiting for the validator, which runs on, on a
// goroutine of its own, until it returns. A panic is recovered and stops
// the run as an error wrapping a [*PanicError].
//
// Validators of different calls run concurrently (while calls are
// corrected or salvaged at the same time, and when the node runs for
// several messages at once), so a validator must be safe for concurrent use
// and must not share mutable state without protection. The validators of
// one call never overlap.
type Validator func(ctx context.Context, args map[string]any, vc ValidatorContext) error

// ValidatorContext tells a [Validator] which call it checks and when.
type ValidatorContext struct {
	// ToolName and CallID identify the call; the id may be empty.
	ToolName, CallID string
	// Messages is the conversation the node was run on; read it, do not
	// modify it.
	Messages []llms.MessageContent
	// State is the caller's graph state (see [ContextWithState]), nil when none.
	State any
	// Phase is where in the pipeline the arguments come from.
	Phase Phase
	// Attempt is the 1-based correction attempt and MaxAttempts their
	// number, in PhaseCorrection; both are 0 in the other phases.
	Attempt, MaxAttempts int
	// IsFinal reports whether this is the last correction attempt: a
	// rejection now sends the call to the unresolved policy.
	IsFinal bool
}

// WithValidator adds a validator to the tool named toolName. A tool may have
// several; they run in the order given, and the first that rejects ends the
// check (flagged issues do not), so put cheap checks first and approvals
// (interrupts) last. It is a configuration error when fn is nil or when no
// tool of the node with a schema (a [Tool]) has that name: plain
// tools.Tool values are not validated; attach a schema with [ToolWithSchema].
// Default: none.
func WithValidator(toolName string, fn Validator) Option {
	return optionFunc(func(c *config) {
		c.validators = append(c.validators, namedValidator{tool: toolName, fn: fn})
	})
}

type namedValidator struct {
	tool string
	fn   Validator
}

// bindValidators attaches the validators of WithValidator to their tools.
func (n *ToolNode) bindValidators() error {
	var errs []error
	for _, v := range n.cfg.validators {
		bt := n.tools[v.tool]
		switch {
		case v.fn == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): nil validator", v.tool))
		case bt == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): no such tool (tools: %s)", v.tool, n.toolNames()))
		case bt.schema == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): the tool has no schema, so its calls are not validated; wrap it with ToolWithSchema", v.tool))
		default:
			bt.validators = append(bt.validators, v.fn)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}

// TypedValidator returns a [Validator] that decodes the arguments into a
// fresh A, as a tool made by [NewTool] with the same A does, and calls fn
// with it. Unknown members are ignored, so A may hold only the fields fn
// reads. Arguments that do not decode into A are rejected with the
// decoding error as the issue message; for a NewTool[A] tool that cannot
// happen once the schema passed.
func TypedValidator[A any](fn func(ctx context.Context, args A, vc ValidatorContext) error) Validator {
	return func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
		var a A
		text, err := jsonvalue.Encode(args)
		if err == nil {
			err = jsonv2.Unmarshal([]byte(text), &a, v1Options) // NewTool's decoding (tool.go)
		}
		if err != nil {
			return fmt.Errorf("the arguments do not decode into %T: %v", a, err)
		}
		return fn(ctx, a, vc)
	}
}

// ValidationIssue is an error a [Validator] returns to reject one field.
type ValidationIssue struct {
	// Path is an RFC 6901 JSON Pointer to the field, such as "/order_id"
	// or "/items/0/sku"; "" is the whole argument object. A path without a
	// leading "/" is taken as the name of one top-level member.
	Path string
	// Message says what is wrong, for the model and for humans. It should
	// not repeat secret argument values.
	Message string
}

// Error returns the issue's path and message.
func (e *ValidationIssue) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

func (e *ValidationIssue) issue() Issue {
	p := e.Path
	if p != "" && !strings.HasPrefix(p, "/") {
		p = jsonpointer.Append("", p)
	}
	msg := e.Message
	if msg == "" {
		msg = "invalid value"
	}
	return Issue{Path: p, Kind: IssueValidator, Message: msg}
}

// ValidationIssues is an error a [Validator] returns to reject several
// fields at once. An empty ValidationIssues accepts, so a validator may
// collect issues into one and return it.
type ValidationIssues []ValidationIssue

// Error joins the issues' texts.
func (e ValidationIssues) Error() string {
	parts := make([]string, len(e))
	for i := range e {
		parts[i] = e[i].Error()
	}
	return strings.Join(parts, "; ")
}

// Flag marks a validator's error as recorded only: the call is not rejected,
// and the error's issues (built as for a rejection) appear in
// [CallReport].Flagged, in the Result and in the run's event. Flag(nil) is
// nil. An interrupt stays an interrupt when flagged. Flag covers only the
// error it wraps: errors.Join(Flag(note), issue) rejects the call with
// issue and records note as flagged, in either order.
func Flag(err error) error {
	if err == nil {
		return nil
	}
	return &flaggedError{err: err}
}

type flaggedError struct{ err error }

func (e *flaggedError) Error() string { return e.err.Error() }

func (e *flaggedError) Unwrap() error { return e.err }

// ErrInterrupt marks an error as an interrupt: a [Validator] (or a tool, or
// an unresolved hook) returns an error wrapping it to pause the run, for
// example until a human approves the call. [ToolNode.Run] then returns that
// error unchanged and at once; from a validator or a hook that is before
// any call executes. An interrupt from a tool propagates even with
// [WithHandleToolErrors](true). A graph can pause and later run the node
// again from the start, which runs its validators again too. See
// [WithInterruptErrors] for a framework's own interrupt type.
var ErrInterrupt = errors.New("saidex: interrupt")

// WithInterruptErrors adds a test for interrupts besides errors.Is(err,
// [ErrInterrupt]): an error for which is returns true is an interrupt too,
// for example a graph framework's own pause error. is may be called
// concurrently. Default: nil (only ErrInterrupt).
func WithInterruptErrors(is func(err error) bool) Option {
	return optionFunc(func(c *config) { c.interruptIs = is })
}

// isInterrupt reports whether err is an interrupt.
func (n *ToolNode) isInterrupt(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, ErrInterrupt) || (n.cfg.interruptIs != nil && n.cfg.interruptIs(err))
}

// runValidators runs c's validators on value, which passed the schema.
func (n *ToolNode) runValidators(ctx context.Context, r *run, c *call, value any, ph checkPhase) ([]Issue, error) {
	args, _ := value.(map[string]any)
	vc := ValidatorContext{
		ToolName: c.name, CallID: c.id, Messages: r.messages, State: r.state,
		Phase: ph.phase, Attempt: ph.attempt, MaxAttempts: ph.maxAttempts,
		IsFinal: ph.phase == PhaseCorrection && ph.maxAttempts > 0 && ph.attempt >= ph.maxAttempts,
	}
	for _, fn := range c.tool.validators {
		var panicked *PanicError
		var err error
		if !watchCall(ctx, func() { panicked, err = callValidator(ctx, fn, args, vc) }) { // execute.go
			return nil, ctx.Err() // the validator runs on alone
		}
		switch {
		case panicked != nil:
			return nil, fmt.Errorf("saidex: validator of tool %q (call %q): %w", c.name, c.id, panicked)
		case err == nil:
			continue
		case n.isInterrupt(err):
			if fe, ok := err.(*flaggedError); ok {
				return nil, fe.err // Flag does not mask an interrupt
			}
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		reject, flagged := validatorIssues(err)
		c.flagged = append(c.flagged, flagged...)
		if len(reject) > 0 {
			return reject, nil
		}
	}
	return nil, nil
}

// callValidator calls a validator, recovering a panic.
func callValidator(ctx context.Context, fn Validator, args map[string]any, vc ValidatorContext) (panicked *PanicError, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return nil, fn(ctx, args, vc)
}

// validatorIssues turns a validator's error into the issues that reject
// the call and those it only flags (marked Flagged). Each part of the
// error counts on its own: the branches of a joined error (an Unwrap()
// []error, as errors.Join and fmt.Errorf with several %w make) are
// classified one by one, so a flagged branch never hides a rejecting one,
// and a part is flagged when a [Flag] wraps it, at any depth. An empty
// ValidationIssues and a nil *ValidationIssue give no issue.
func validatorIssues(err error) (reject, flagged []Issue) {
	var walk func(err error, flag bool)
	add := func(is Issue, flag bool) {
		if flag {
			is.Flagged = true
			flagged = append(flagged, is)
		} else {
			reject = append(reject, is)
		}
	}
	walk = func(err error, flag bool) {
		switch e := err.(type) {
		case nil:
			return
		case *flaggedError:
			walk(e.err, true)
			return
		case ValidationIssues:
			for i := range e {
				add(e[i].issue(), flag)
			}
			return
		case *ValidationIssue:
			if e != nil {
				add(e.issue(), flag)
			}
			return
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x, flag)
			}
			return
		}
		if !structured(err) {
			// A plain error, or wrapped plain errors: one issue with
			// the whole text, the wrapping context included.
			add(Issue{Kind: IssueValidator, Message: err.Error()}, flag)
			return
		}
		// A wrapper around a flag or issues (possibly in a joined
		// error): its parts decide.
		if inner := errors.Unwrap(err); inner != nil {
			walk(inner, flag)
			return
		}
		// An error whose As method yields the parts without Unwrap.
		var fe *flaggedError
		var vis ValidationIssues
		var vi *ValidationIssue
		switch {
		case errors.As(err, &fe):
			walk(fe, flag)
		case errors.As(err, &vis):
			walk(vis, flag)
		case errors.As(err, &vi):
			walk(vi, flag)
		}
	}
	walk(err, false)
	return reject, flagged
}

// structured reports whether err's chain holds a [Flag] or validation
// issues, which validatorIssues reads part by part.
func structured(err error) bool {
	var fe *flaggedError
	var vis ValidationIssues
	var vi *ValidationIssue
	return errors.As(err, &fe) || errors.As(err, &vis) || errors.As(err, &vi)
}
