package saidex

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
	"golang.org/x/sync/errgroup"
)

// ToolError is returned by [ToolNode.Run] when a tool fails and the node is
// not configured to answer the failure with a message (see
// [WithHandleToolErrors]). It unwraps to the tool's error.
type ToolError struct {
	Tool   string // the tool's name
	CallID string // the call's id, possibly empty
	Err    error  // the tool's error, or a *PanicError
}

// Error returns the tool name, the call id and the tool's error.
func (e *ToolError) Error() string {
	return fmt.Sprintf("saidex: tool %q (call %q): %v", e.Tool, e.CallID, e.Err)
}

// Unwrap returns the tool's error.
func (e *ToolError) Unwrap() error { return e.Err }

// PanicError is the error a tool's recovered panic is turned into.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack at the panic
}

// Error returns "panic: " and the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// CallInfo describes the tool call a tool is running for. Tools reach it
// with [CallFromContext].
type CallInfo struct {
	ID   string // the call's id, possibly empty
	Name string // the tool's name
	// Messages is the conversation the node was run on; read it, do not
	// modify it.
	Messages []llms.MessageContent
}

type callKey struct{}

// callContext carries a call's CallInfo, as context.WithValue would, in one
// allocation instead of two.
type callContext struct {
	context.Context
	info CallInfo
}

func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return c.info
	}
	return c.Context.Value(key)
}

// CallFromContext returns the tool call a tool is running for. ok is false
// when ctx does not come from a ToolNode.
func CallFromContext(ctx context.Context) (info CallInfo, ok bool) {
	info, ok = ctx.Value(callKey{}).(CallInfo)
	return info, ok
}

// execute is the execution stage: every valid call runs on the stock
// executor, concurrently, bounded by WithMaxConcurrency.
func (n *ToolNode) execute(ctx context.Context, r *run, calls []*call) error {
	if n.cfg.maxConcurrency == 1 || countValid(calls) <= 1 {
		return n.executeInline(ctx, r, calls)
	}
	// The first error (of a goroutine or of the inline call) cancels the
	// others and is the one returned: context.Cause of gctx.
	ctx2, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g, gctx := errgroup.WithContext(ctx2)
	// Unbounded, the first valid call runs on the calling goroutine, which
	// would otherwise only wait: one goroutine (and its stack growth) less.
	var first *call
	if n.cfg.maxConcurrency > 0 {
		g.SetLimit(n.cfg.maxConcurrency)
	}
	for _, c := range calls {
		if c.status != statusValid {
			continue
		}
		if first == nil && n.cfg.maxConcurrency == 0 {
			first = c
			continue
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return n.executeOne(gctx, r, c) })
	}
	var firstErr error
	if first != nil {
		if firstErr = n.executeOne(gctx, r, first); firstErr != nil {
			cancel(firstErr)
		}
	}
	err := g.Wait()
	if ctxErr := ctx.Err(); ctxErr != nil && (err != nil || firstErr != nil || countValid(calls) > 0) {
		return ctxErr // never a partial result; a run whose calls all finished stands
	}
	if err != nil || firstErr != nil {
		return context.Cause(gctx)
	}
	return nil
}

// executeInline runs the valid calls one after another on the calling
// goroutine: what the errgroup path does when at most one call runs at a
// time, without a goroutine (and its stack growth) per call.
func (n *ToolNode) executeInline(ctx context.Context, r *run, calls []*call) error {
	for _, c := range calls {
		if c.status != statusValid {
			continue
		}
		if err := n.executeOne(ctx, r, c); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr // never a partial result
			}
			return err
		}
	}
	return nil // every call finished: the run stands even if ctx is done by now
}

func countValid(calls []*call) int {
	k := 0
	for _, c := range calls {
		if c.status == statusValid {
			k++
		}
	}
	return k
}

// executeOne runs one call and records its answer.
func (n *ToolNode) executeOne(ctx context.Context, r *run, c *call) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.status = statusAnswered
	if c.tool == nil {
		c.output = fmt.Sprintf("Error: %s is not a valid tool, try one of [%s].", quotedName(c.name), n.toolNames())
		c.isError = true
		return nil
	}
	input := c.args
	if c.tool.schema == nil {
		input = unwrapArg1(input)
	}
	tctx := &callContext{Context: ctx, info: CallInfo{ID: c.id, Name: c.name, Messages: r.messages}}
	start := r.now()
	out, err := callTool(tctx, c.tool, input)
	c.durations.Execute = r.since(start)
	if err == nil {
		c.output = out
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return n.answerToolError(c, err)
}

// answerToolError turns a tool's error into the call's answer, or into the
// error that stops the run. A panic in the caller's callbacks (the error
// formatter, the interrupt test) stops the run as a *ToolError wrapping a
// *PanicError instead of crashing a goroutine.
func (n *ToolNode) answerToolError(c *call, err error) (stop error) {
	defer func() {
		if v := recover(); v != nil {
			stop = &ToolError{Tool: c.name, CallID: c.id, Err: &PanicError{Value: v, Stack: debug.Stack()}}
		}
	}()
	if n.isInterrupt(err) {
		return err // an interrupt always propagates, unchanged
	}
	switch {
	case n.cfg.toolErrorFormat != nil:
		c.output = n.cfg.toolErrorFormat(err)
	case n.cfg.handleToolErrors || errors.Is(err, ErrInvalidArguments):
		c.output = "Error: " + err.Error()
	default:
		return &ToolError{Tool: c.name, CallID: c.id, Err: err}
	}
	c.isError, c.err = true, err
	return nil
}

// maxQuotedName is how much of an unknown tool's name an error message quotes.
const maxQuotedName = 100

// quotedName returns a tool name as an error message may quote it: a clean
// name unchanged, otherwise with control characters and invalid UTF-8
// replaced by U+FFFD and cut to about maxQuotedName bytes.
func quotedName(name string) string {
	clean := len(name) <= maxQuotedName && utf8.ValidString(name)
	for i := 0; clean && i < len(name); i++ {
		clean = name[i] >= 0x20 && name[i] != 0x7f
	}
	if clean {
		return name
	}
	var b strings.Builder
	for i, r := range name {
		if i >= maxQuotedName {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// callTool calls the tool, turning a panic into a *PanicError.
func callTool(ctx context.Context, bt *boundTool, input string) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	if vc, ok := bt.tool.(validatedCaller); ok && bt.schema != nil {
		return vc.callValidated(ctx, input) // a NewTool tool, validated by its own schema
	}
	return bt.tool.Call(ctx, input)
}
