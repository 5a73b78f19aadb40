package saidex

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// ToolError is returned by [ToolNode.Run] and [ToolNode.Invoke] when a tool
// fails and the node is not configured to answer the failure with a
// message (see [WithHandleToolErrors]). It unwraps to the tool's error.
//
// The run stops there, but nothing that ran is lost: Partial holds the tool
// messages of the calls answered before it stopped (their tools ran, side
// effects included), so that the caller can keep them in the history and
// answer the rest — running the node again on that history executes only
// the calls left unanswered (see [ToolNode.Invoke]).
type ToolError struct {
	Tool   string // the tool's name
	CallID string // the call's id, possibly empty
	Err    error  // the tool's error, or a *PanicError

	// Partial is the result of the stopped run: ToolMessages answers, in
	// call order, every call answered before the run stopped; Calls
	// reports on every call, the failing one and those that never started
	// with [OutcomeUnanswered]; AIMessage is the sanitized AI message to
	// keep with them. It is nil in a ToolError not returned by a ToolNode.
	Partial *Result
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
//
// Workers are started one at a time, only while calls are waiting: the
// calling goroutine is the first worker, and a worker about to run a call
// starts one more when calls remain, the bound allows and no worker started
// earlier is still waiting to be scheduled. Calls that block (I/O) thus
// reach the full bound, each new worker starting the next one as it takes
// its first call, while a message
// of calls that finish at once (in-memory tools) runs mostly on the calling
// goroutine, without a goroutine, its stack growth and a wake-up per call.
func (n *ToolNode) execute(ctx context.Context, r *run, calls []*call) error {
	limit := n.cfg.maxConcurrency
	if k := countValid(calls); limit == 0 || limit > k {
		limit = k
	}
	if limit <= 1 {
		return n.executeInline(ctx, r, calls)
	}
	valid := make([]*call, 0, len(calls))
	for _, c := range calls {
		if c.status == statusValid {
			valid = append(valid, c)
		}
	}
	// The first error (of any worker) cancels the others and is the one
	// returned: context.Cause of wctx.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &pool{n: n, r: r, ctx: wctx, cancel: cancel, calls: valid, limit: int32(limit)}
	p.workers.Store(1) // the calling goroutine
	p.work()
	p.wg.Wait()
	if ctxErr := ctx.Err(); ctxErr != nil && (p.failed.Load() || countValid(valid) > 0) {
		return ctxErr // never a partial result; a run whose calls all finished stands
	}
	if p.failed.Load() {
		return context.Cause(wctx)
	}
	return nil
}

// pool runs a message's valid calls on workers that take the next call
// until none is left; see execute.
type pool struct {
	n      *ToolNode
	r      *run
	ctx    context.Context
	cancel context.CancelCauseFunc
	calls  []*call
	limit  int32

	next     atomic.Int32 // index of the next call to take
	workers  atomic.Int32 // workers started, the calling goroutine included
	starting atomic.Bool  // a started worker has not been scheduled yet
	failed   atomic.Bool  // a call returned an error (the cause of ctx)
	wg       sync.WaitGroup
}

// work takes and runs calls until none is left or the run is stopped.
func (p *pool) work() {
	for p.ctx.Err() == nil {
		i := int(p.next.Add(1)) - 1
		if i >= len(p.calls) {
			return
		}
		p.grow()
		if err := p.n.executeOne(p.ctx, p.r, p.calls[i]); err != nil {
			p.failed.Store(true)
			p.cancel(err)
			return
		}
	}
}

// grow starts one more worker when calls are waiting, the bound allows it,
// and every worker started before has been scheduled.
func (p *pool) grow() {
	if int(p.next.Load()) >= len(p.calls) || !p.starting.CompareAndSwap(false, true) {
		return
	}
	// Workers are only added by the holder of starting, which the last
	// added worker released: the count read here is current.
	if p.workers.Load() >= p.limit {
		p.starting.Store(false)
		return
	}
	p.workers.Add(1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.starting.Store(false)
		p.work()
	}()
}

// executeInline runs the valid calls one after another on the calling
// goroutine: what the pool does when at most one call runs at a time.
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
	if c.tool == nil { // OutcomeUnknownTool
		c.output = fmt.Sprintf("Error: %s is not a valid tool, try one of [%s].", quotedName(c.name), n.toolNames())
		c.isError = true
		return nil
	}
	input := c.args
	if c.tool.schema == nil {
		input = unwrapArg1(input)
	}
	tctx := &c.ctx // in the call, so that running it allocates no context
	*tctx = callContext{Context: ctx, info: CallInfo{ID: c.id, Name: c.name, Messages: r.messages}}
	start := r.now()
	out, err := callTool(tctx, c.tool, input)
	c.durations.Execute = r.since(start)
	if err == nil {
		c.output = out
		return nil
	}
	if ctx.Err() != nil {
		c.status, c.err = statusStopped, err
		return ctx.Err()
	}
	if stop := n.answerToolError(c, err); stop != nil {
		c.status, c.err = statusStopped, err
		return stop
	}
	return nil
}

// stopped returns the error that stopped the execution stage. A *ToolError
// gets the run's partial result: the calls answered so far, with their
// messages, and the others reported unanswered.
func (n *ToolNode) stopped(r *run, calls []*call, err error) error {
	te, ok := err.(*ToolError) // as answerToolError made it, not one wrapped by a tool
	if !ok {
		return err
	}
	for _, c := range calls {
		if c.status == statusValid || c.status == statusStopped {
			c.status, c.outcome = statusStopped, OutcomeUnanswered
		}
	}
	res := n.assemble(r, calls)
	n.sanitize(r, res, calls) // sanitize.go
	te.Partial = res
	return te
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
