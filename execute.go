package saidex

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
// answer the rest — running the node again on that history executes
// exactly the calls Partial has no tool message for: those reported
// [OutcomeFailed], [OutcomeCanceled] and [OutcomeUnanswered].
//
// The calls running beside the failing one have their ctx cancelled, and
// the run waits for them to return (cancel the ctx given to Run to stop
// waiting, see [CanceledError]): one that still succeeds is answered in
// Partial, one that returns an error is reported [OutcomeCanceled].
type ToolError struct {
	Tool   string // the tool's name
	CallID string // the call's id, possibly empty
	Err    error  // the tool's error, or a *PanicError

	// Partial is the result of the stopped run: ToolMessages answers, in
	// call order, every call answered before the run stopped; Calls
	// reports on every call: the failing one with [OutcomeFailed], those
	// cancelled by the stop with [OutcomeCanceled], those that never
	// started with [OutcomeUnanswered]; AIMessage is the sanitized AI
	// message to keep with them. It is nil in a ToolError not returned by
	// a ToolNode.
	Partial *Result
}

// Error returns the tool name, the call id and the tool's error.
func (e *ToolError) Error() string {
	return fmt.Sprintf("saidex: tool %q (call %q): %v", e.Tool, e.CallID, e.Err)
}

// Unwrap returns the tool's error.
func (e *ToolError) Unwrap() error { return e.Err }

// CanceledError is returned by [ToolNode.Run] and [ToolNode.Invoke] when
// ctx is done before every pending call is answered. It unwraps to
// ctx.Err(), so errors.Is(err, context.Canceled) (or
// context.DeadlineExceeded) holds.
//
// Run returns it within moments of ctx being done, whatever its callees
// (tools, validators, unresolved hooks, the correction model) do: a callee
// that ignores ctx is left running on the goroutine the node started for
// it, which ends when the callee returns (a tool's worker when the tools
// still running on the other workers have returned); what it returns then
// is dropped. No goroutine of a Run outlives its callees.
//
// Partial, as in a [ToolError], keeps what already happened: it is nil
// when ctx was done before any call started executing (nothing ran), else
// the stopped run's result: ToolMessages answers every call that finished,
// side effects included; Calls reports the others with [OutcomeRunning]
// (started, not returned when Run returned), [OutcomeCanceled] (returned
// an error after ctx was done), [OutcomeFailed] or [OutcomeUnanswered]
// (never started). Running the node again on the history with those tool
// messages executes exactly the calls Partial has no tool message for,
// the running ones included: make such tools idempotent, or answer those
// calls yourself.
type CanceledError struct {
	Err     error   // ctx.Err()
	Partial *Result // nil when no call had started executing
}

// Error returns "saidex: run stopped: " and ctx's error.
func (e *CanceledError) Error() string { return "saidex: run stopped: " + e.Err.Error() }

// Unwrap returns ctx's error.
func (e *CanceledError) Unwrap() error { return e.Err }

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
// Workers are started one at a time, only while calls are waiting. The
// first worker runs calls alone until it has run for growDelay with calls
// still waiting (a timer armed once per Run); from then on every worker
// starts one more when it is about to run a call, calls remain, the bound
// allows and no worker started earlier is still waiting to be scheduled.
// Calls that block (I/O) thus reach the full bound after growDelay, each
// new worker starting the next one as it takes its first call, while a
// message of calls that finish at once (in-memory tools) runs on the first
// worker, without a goroutine, its stack growth and a wake-up.
//
// When ctx cannot be cancelled (ctx.Done() is nil) the calling goroutine
// is the first worker, and runs every call itself when at most one runs at
// a time. Otherwise the first worker is a goroutine and the calling
// goroutine watches ctx: once ctx is done it abandons the calls still
// running (a worker's result is committed under p.mu, and no more once the
// pool is abandoned) and returns at once, the workers ending as their
// calls return. That costs one goroutine and one wake-up per Run, not per
// call.
//
// A tool error that stops the run cancels the workers' ctx (wctx), not
// ctx: the workers wait for the calls they started to return, so that
// their outcome is known, and start no more.
func (n *ToolNode) execute(ctx context.Context, r *run, calls []*call) error {
	limit := n.cfg.maxConcurrency
	k := countValid(calls)
	if limit == 0 || limit > k {
		limit = k
	}
	watched := ctx.Done() != nil
	if !watched && limit <= 1 {
		return n.executeInline(ctx, r, calls)
	}
	if k == 0 {
		return nil
	}
	valid := make([]*call, 0, k)
	for _, c := range calls {
		if c.status == statusValid {
			valid = append(valid, c)
		}
	}
	// The first error (of any worker) cancels the others and is the one
	// returned: context.Cause of wctx.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &pool{n: n, r: r, ctx: wctx, cancel: cancel, calls: valid, limit: int32(max(limit, 1)), watched: watched}
	p.workers.Store(1) // the first worker
	if limit > 1 {
		p.timer = time.AfterFunc(growDelay, p.growLater)
	}
	if watched {
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			defer p.wg.Wait()
			p.work()
			p.stopGrowing()
		}()
		select {
		case <-finished:
		case <-ctx.Done():
			p.abandon()
		}
	} else {
		p.work()
		p.stopGrowing()
		p.wg.Wait()
	}
	if ctxErr := ctx.Err(); ctxErr != nil && unfinished(valid) {
		return ctxErr // a run whose calls all finished stands
	}
	if p.failed.Load() {
		return context.Cause(wctx)
	}
	return nil
}

// unfinished reports whether a call is not answered.
func unfinished(calls []*call) bool {
	for _, c := range calls {
		if c.status != statusAnswered {
			return true
		}
	}
	return false
}

// pool runs a message's valid calls on workers that take the next call
// until none is left; see execute.
type pool struct {
	n       *ToolNode
	r       *run
	ctx     context.Context // the calls' ctx: cancelled by a tool error or with Run's
	cancel  context.CancelCauseFunc
	calls   []*call
	limit   int32
	watched bool // the calling goroutine watches ctx; results go through commit

	next     atomic.Int32 // index of the next call to take
	workers  atomic.Int32 // workers started, the first included
	starting atomic.Bool  // a started worker has not been scheduled yet
	failed   atomic.Bool  // a call returned an error (the cause of ctx)
	wg       sync.WaitGroup

	// Growth: the first worker runs alone until timer fires (growLater).
	timer   *time.Timer // nil when one worker is the bound
	eager   atomic.Bool // growLater ran: every worker grows the pool
	growMu  sync.Mutex  // orders growLater before stopGrowing, so that wg.Add precedes wg.Wait
	stopped bool        // the first worker returned: growLater starts no worker

	mu        sync.Mutex // guards the calls' state, when watched
	abandoned bool       // Run returned: no result is committed any more
}

// work takes and runs calls until none is left or the run is stopped.
func (p *pool) work() {
	for p.ctx.Err() == nil {
		i := int(p.next.Add(1)) - 1
		if i >= len(p.calls) {
			return
		}
		if p.eager.Load() {
			p.grow()
		}
		if err := p.n.executeOne(p.ctx, p.r, p.calls[i], p); err != nil {
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

// growDelay is how long the first worker runs calls alone, calls still
// waiting, before the pool grows: a call that blocks (I/O, a tool waiting
// on another call) takes longer, while in-memory calls, which take
// microseconds, finish on the first worker without waking another.
const growDelay = 50 * time.Microsecond

// growLater is the timer's: calls are still waiting after growDelay, so
// the pool grows from now on. It starts no worker once the first worker
// has returned (stopGrowing).
func (p *pool) growLater() {
	p.growMu.Lock()
	defer p.growMu.Unlock()
	if p.stopped {
		return
	}
	p.eager.Store(true)
	p.grow()
}

// stopGrowing is called by the first worker when it returns, before the
// pool waits for the other workers: no worker starts after it.
func (p *pool) stopGrowing() {
	if p.timer == nil {
		return
	}
	p.timer.Stop()
	p.growMu.Lock()
	p.stopped = true
	p.growMu.Unlock()
}

// commit applies set, which writes a call's state, unless the pool was
// abandoned; it reports whether it did. A nil or unwatched pool applies it
// directly: nobody reads the calls before the workers are done.
func (p *pool) commit(set func()) bool {
	if p == nil || !p.watched {
		set()
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return false
	}
	set()
	return true
}

// abandon stops the workers from writing the calls' state: Run returns
// with the state as it is.
func (p *pool) abandon() {
	p.mu.Lock()
	p.abandoned = true
	p.mu.Unlock()
}

// executeInline runs the valid calls one after another on the calling
// goroutine: what the pool does when at most one call runs at a time and
// ctx cannot be cancelled.
func (n *ToolNode) executeInline(ctx context.Context, r *run, calls []*call) error {
	for _, c := range calls {
		if c.status != statusValid {
			continue
		}
		if err := n.executeOne(ctx, r, c, nil); err != nil {
			return err
		}
	}
	return nil
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

// executeOne runs one call and records its answer through p.commit. A call
// whose tool has started is statusRunning until its result is committed;
// when the pool was abandoned meanwhile, the result is dropped and ctx's
// error returned.
func (n *ToolNode) executeOne(ctx context.Context, r *run, c *call, p *pool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.tool == nil { // OutcomeUnknownTool
		out := n.unknownToolMessage(c.name) // bounds.go
		p.commit(func() { c.status, c.output, c.isError = statusAnswered, out, true })
		return nil
	}
	if !p.commit(func() { c.status = statusRunning }) {
		return ctx.Err()
	}
	input := c.args
	if c.tool.schema == nil {
		input = unwrapArg1(input)
	}
	tctx := &c.ctx // in the call, so that running it allocates no context
	*tctx = callContext{Context: ctx, info: CallInfo{ID: c.id, Name: c.name, Messages: r.messages}}
	start := r.now()
	out, err := callTool(tctx, c.tool, input, c.decoded)
	took := r.since(start)
	canceled := err != nil && ctx.Err() != nil
	var stop error
	if err != nil && !canceled {
		out, stop = n.answerToolError(c, err)
	}
	committed := p.commit(func() {
		c.durations.Execute = took
		switch {
		case err == nil:
			c.status, c.output = statusAnswered, out
		case canceled:
			c.status, c.outcome, c.err = statusStopped, OutcomeCanceled, err
		case stop != nil:
			c.status, c.outcome, c.err = statusStopped, OutcomeFailed, err
		default:
			c.status, c.output, c.isError, c.err = statusAnswered, out, true, err
		}
	})
	switch {
	case !committed:
		return ctx.Err() // Run returned while the tool ran: reported OutcomeRunning
	case canceled:
		return ctx.Err()
	}
	return stop
}

// stopped returns the error that stopped the execution stage. A *ToolError
// made by answerToolError and the ctx error of Run (as a *CanceledError)
// get the run's partial result.
func (n *ToolNode) stopped(ctx context.Context, r *run, calls []*call, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
		return &CanceledError{Err: ctxErr, Partial: n.partial(r, calls)}
	}
	te, ok := err.(*ToolError) // as answerToolError made it, not one wrapped by a tool
	if !ok {
		return err
	}
	te.Partial = n.partial(r, calls)
	return te
}

// partial builds the result of a stopped run: the calls that finished are
// answered; the others are reported with what happened to them.
func (n *ToolNode) partial(r *run, calls []*call) *Result {
	for _, c := range calls {
		switch c.status {
		case statusValid:
			c.status, c.outcome = statusStopped, OutcomeUnanswered
		case statusRunning:
			c.status, c.outcome = statusStopped, OutcomeRunning
		}
	}
	res := n.assemble(r, calls)
	n.sanitize(r, res, calls) // sanitize.go
	return res
}

// answerToolError turns a tool's error into the content of the call's
// error message, or into the error that stops the run. A panic in the
// caller's callbacks (the error formatter, the interrupt test) stops the
// run as a *ToolError wrapping a *PanicError instead of crashing a
// goroutine. It does not write c.
func (n *ToolNode) answerToolError(c *call, err error) (output string, stop error) {
	defer func() {
		if v := recover(); v != nil {
			stop = &ToolError{Tool: c.name, CallID: c.id, Err: &PanicError{Value: v, Stack: debug.Stack()}}
		}
	}()
	if n.isInterrupt(err) {
		return "", err // an interrupt always propagates, unchanged
	}
	switch {
	case n.cfg.toolErrorFormat != nil:
		return n.cfg.toolErrorFormat(err), nil
	case n.cfg.handleToolErrors || errors.Is(err, ErrInvalidArguments):
		return boundMessage("Error: " + err.Error()), nil
	default:
		return "", &ToolError{Tool: c.name, CallID: c.id, Err: err}
	}
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

// watchCall runs fn and reports whether it returned. When ctx can be
// cancelled (ctx.Done() is not nil) fn runs on a goroutine of its own
// while watchCall waits for it or for ctx: once ctx is done first,
// watchCall returns false at once, and fn runs on alone until it returns,
// when its goroutine ends; the caller must then not read what fn writes.
// When ctx cannot be cancelled fn runs on the calling goroutine. fn is not
// started, and false returned, when ctx is done already. A panic in fn
// propagates to the caller of a watchCall still waiting; after it stopped
// waiting the panic is dropped with fn's results.
//
// The validators, unresolved hooks and correction-model requests of a
// Run go through watchCall, so Run returns promptly once ctx is done
// whatever the callee does; tools are watched by their pool (see execute),
// at one goroutine per Run rather than per call.
func watchCall(ctx context.Context, fn func()) bool {
	done := ctx.Done()
	if done == nil {
		fn()
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	ended := make(chan any, 1) // fn's panic value, nil when it returned
	go func() {
		defer func() { ended <- recover() }()
		fn()
	}()
	select {
	case p := <-ended:
		if p != nil {
			panic(p)
		}
		return true
	case <-done:
		select {
		case p := <-ended: // it returned as ctx ended: keep what it did
			if p != nil {
				panic(p)
			}
			return true
		default:
			return false
		}
	}
}

// callTool calls the tool, turning a panic into a *PanicError. decoded is
// the call's arguments as the repair stage decoded them for a NewTool tool
// (see validAsSent), nil when it did not.
func callTool(ctx context.Context, bt *boundTool, input string, decoded any) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	if decoded != nil {
		if dc, ok := bt.tool.(decodedCaller); ok {
			return dc.callDecoded(ctx, decoded)
		}
	}
	if vc, ok := bt.tool.(validatedCaller); ok && bt.schema != nil {
		return vc.callValidated(ctx, input) // a NewTool tool, validated by its own schema
	}
	return bt.tool.Call(ctx, input)
}
