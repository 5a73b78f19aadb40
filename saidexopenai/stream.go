package saidexopenai

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ChatStream checks the tool calls of a streamed chat completion as each
// one completes, so that repair, validation and correction of a call run
// while the model is still streaming the next ones. It feeds an
// openai.ChatCompletionAccumulator and reads the calls of the first choice
// (index 0) from it.
//
// The accumulator's JustFinishedToolCall reports a call as finished when a
// chunk carries no delta for it, which the SDK says cannot be relied on
// with parallel tool calls. ChatStream does not use it: a call counts as
// complete when a chunk carries a delta for a call with a higher index and
// the call's arguments so far are one complete JSON value. A call whose
// arguments grow after it was checked (a server that interleaves the
// deltas of parallel calls) is checked again at the end, as is every call
// still open when the stream ends; the early checks only save time, they
// never decide a call whose final text they did not see.
//
// Use it from one goroutine: AddChunk for every chunk, then [ChatStream.Run]
// or [ChatStream.Check] once the stream has ended without error (or
// [ChatStream.Close] to give up: the calls of a stream that failed may be
// cut anywhere, and its finish reason is unknown). The early checks run on goroutines of their own; Run, Check and
// Close wait for them, and Close cancels them.
type ChatStream struct {
	g       *Guard
	acc     *openai.ChatCompletionAccumulator
	history []openai.ChatCompletionMessageParamUnion
	conv    []llms.MessageContent // history, converted once
	convErr error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	started map[int]string // call index -> the arguments its early check saw
	early   map[int]earlyCheck
	top     int // the highest call index a delta named, -1 before any
}

// earlyCheck is the result of the check of one call, run as it completed.
type earlyCheck struct {
	args string // the arguments it saw
	rep  saidex.CallReport
	err  error
}

// NewChatStream returns a ChatStream that accumulates into acc (a new
// accumulator when acc is nil) the reply to history, the messages sent.
// ctx bounds the early checks and the run of [ChatStream.Run] (the tools
// run with it); Close cancels the early checks. The early checks start one
// goroutine per completed call of the reply, and run without run options.
func (g *Guard) NewChatStream(ctx context.Context, acc *openai.ChatCompletionAccumulator, history []openai.ChatCompletionMessageParamUnion) *ChatStream {
	if acc == nil {
		acc = &openai.ChatCompletionAccumulator{}
	}
	s := &ChatStream{g: g, acc: acc, history: history, started: map[int]string{}, early: map[int]earlyCheck{}, top: -1}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.conv, s.convErr = chatConversation(history, "", nil)
	if s.convErr == nil {
		s.conv = s.conv[:len(s.conv)-1] // the empty AI message
	}
	return s
}

// Accumulator returns the accumulator the stream feeds: read the text, the
// finish reason or the completion from it.
func (s *ChatStream) Accumulator() *openai.ChatCompletionAccumulator { return s.acc }

// AddChunk adds chunk to the accumulator and starts the check of every call
// of choice 0 that the chunk shows complete. It returns the accumulator's
// AddChunk result: false for a chunk it could not accumulate, which starts
// no check.
func (s *ChatStream) AddChunk(chunk openai.ChatCompletionChunk) bool {
	if !s.acc.AddChunk(chunk) {
		return false
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		for _, d := range ch.Delta.ToolCalls {
			k := int(d.Index)
			if k < 0 {
				k = 0 // as the accumulator reads a single call's index -1
			}
			if k > s.top {
				s.startBefore(k)
				s.top = k
			}
		}
	}
	return true
}

// startBefore starts the check of every call before index k that has
// complete JSON arguments and no check yet.
func (s *ChatStream) startBefore(k int) {
	if s.convErr != nil || len(s.acc.Choices) == 0 {
		return
	}
	msg := s.acc.Choices[0].Message
	for i := 0; i < k && i < len(msg.ToolCalls); i++ {
		tc := msg.ToolCalls[i]
		if _, ok := s.started[i]; ok || tc.Type == "custom" || tc.ID == "" || !json.Valid([]byte(tc.Function.Arguments)) {
			continue
		}
		c := call{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments}
		s.started[i] = c.args
		conv := append(s.conv[:len(s.conv):len(s.conv)], aiMessage("", []call{c}))
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			var e earlyCheck
			e.args = c.args
			reps, err := s.g.node.Check(s.ctx, conv)
			if err == nil && len(reps) == 1 {
				e.rep = reps[0]
			} else if err == nil {
				err = context.Canceled // not expected: one call, one report
			}
			e.err = err
			s.mu.Lock()
			s.early[i] = e
			s.mu.Unlock()
		}()
	}
}

// Close cancels the early checks and waits for them. Call it when the
// stream fails before Run or Check; calling it after them is harmless.
func (s *ChatStream) Close() {
	s.cancel()
	s.wg.Wait()
}

// usable returns the early checks that saw the final arguments of calls,
// once every check has returned; none when the reply was cut, when calls
// repeat an id or hold a custom call (those go through one run of the
// whole message), and when the caller gives run options, which the early
// checks, started before them, did not see.
func (s *ChatStream) usable(calls []call, reason string, opts []saidex.RunOption) map[int]earlyCheck {
	s.wg.Wait()
	if saidex.IsOutputLimit(reason) || len(opts) > 0 {
		return nil
	}
	ids := map[string]bool{}
	for _, c := range calls {
		if c.custom || ids[c.id] {
			return nil
		}
		ids[c.id] = true
	}
	out := map[int]earlyCheck{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.early {
		if i < len(calls) && e.err == nil && e.args == calls[i].args && e.rep.Outcome != saidex.OutcomeUnknownTool {
			out[i] = e
		}
	}
	return out
}

// ErrIncompleteStream is returned by [ChatStream.Run] and
// [ChatStream.Check] when the accumulated reply has tool calls but no
// finish reason: the stream ended before its last chunk (openai-go's
// stream reader ends without an error when the body ends early), so its
// last call may be cut anywhere and no call of it may run. Nothing ran.
var ErrIncompleteStream = fmt.Errorf("%w: the stream ended before the reply's finish reason", ErrIncompleteReply)

// Run waits for the early checks and then does what [Guard.RunChat] does
// with the accumulated choice 0, reusing each early check that saw a
// call's final arguments: a call found ready runs with the arguments that
// check gave it, a call answered with feedback keeps that answer, and the
// other calls go through the node as RunChat sends them. Every call id
// gets one tool message. A reply cut by the output-token limit (finish
// reason "length") discards the early checks and runs no call. opts are
// passed to the node's run. The early checks apply the node's rules to
// each call with history as context, as RunChat does; their reports are
// the ones Calls holds; with opts, which the early checks did not see,
// every call is checked again with them. The state of the ctx given to
// NewChatStream ([saidex.ContextWithState]) reaches every check.
// Errors are those of RunChat, and
// [ErrIncompleteStream] for a reply with calls and no finish reason.
func (s *ChatStream) Run(opts ...saidex.RunOption) (*ChatTurn, error) {
	defer s.Close()
	if len(s.acc.Choices) == 0 {
		s.wg.Wait()
		return &ChatTurn{}, nil
	}
	choice := s.acc.Choices[0]
	calls := chatCalls(choice.Message)
	if len(calls) == 0 {
		s.wg.Wait()
		return &ChatTurn{}, nil
	}
	if choice.FinishReason == "" {
		return nil, ErrIncompleteStream // its last call may be cut anywhere
	}
	if err := chatStopped(string(choice.FinishReason)); err != nil {
		return nil, err
	}
	early := s.usable(calls, string(choice.FinishReason), opts)
	if len(early) == 0 {
		return s.g.RunChat(s.ctx, s.history, choice, opts...)
	}
	if s.convErr != nil {
		return nil, s.convErr
	}
	// The AI message with the clean arguments of the ready calls, then the
	// answers of the calls found invalid: the node's run skips those.
	sent := make([]call, len(calls))
	copy(sent, calls)
	var answers []llms.MessageContent
	for i, e := range early {
		if e.rep.Outcome.Ready() {
			if e.rep.Arguments != nil {
				sent[i].args = string(e.rep.Arguments)
			}
			continue
		}
		answers = append(answers, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: calls[i].id, Name: calls[i].name, Content: e.rep.Output}}})
	}
	conv := append(append(s.conv[:len(s.conv):len(s.conv)], aiMessage(choice.Message.Content, sent)), answers...)
	c, err := s.g.run(s.ctx, conv, sent, finishOptions(string(choice.FinishReason), opts))
	if err != nil {
		return nil, err
	}
	for i, e := range early {
		ran := c.reports[i]
		rep := e.rep
		if e.rep.Outcome.Ready() {
			rep.Arguments, rep.Output, rep.IsError, rep.Err = ran.Arguments, ran.Output, ran.IsError, ran.Err
			rep.Durations.Execute = ran.Durations.Execute
			if ran.Outcome != saidex.OutcomeExecuted {
				rep.Outcome = ran.Outcome
			}
			rep.RawArguments = ran.RawArguments
			if e.rep.RawArguments != "" {
				rep.RawArguments = e.rep.RawArguments // what the model sent
			}
		} else {
			c.outputs[i] = e.rep.Output // the node's run skipped the call, which this answers
		}
		rep.Index = i
		c.reports[i] = rep
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, 1+len(calls))
	msgs = append(msgs, assistantParam(choice.Message, calls, c))
	for i := range calls {
		if c.keep[i] {
			msgs = append(msgs, openai.ToolMessage(c.outputs[i], calls[i].id))
		}
	}
	return &ChatTurn{Messages: msgs, Calls: c.reports}, nil
}

// Check waits for the early checks and then does what [Guard.CheckChat]
// does with the accumulated choice 0, reusing each early check that saw a
// call's final arguments; the calls without one are checked together, with
// history as context. Nothing runs. A reply cut by the output-token limit
// discards the early checks and has no ready call. Errors are those of
// CheckChat, and [ErrIncompleteStream] as for Run.
func (s *ChatStream) Check(opts ...saidex.RunOption) (*ChatCheck, error) {
	defer s.Close()
	if len(s.acc.Choices) == 0 {
		s.wg.Wait()
		return &ChatCheck{}, nil
	}
	choice := s.acc.Choices[0]
	calls := chatCalls(choice.Message)
	if len(calls) == 0 {
		s.wg.Wait()
		return &ChatCheck{}, nil
	}
	if choice.FinishReason == "" {
		return nil, ErrIncompleteStream
	}
	if err := chatStopped(string(choice.FinishReason)); err != nil {
		return nil, err
	}
	early := s.usable(calls, string(choice.FinishReason), opts)
	if len(early) == 0 {
		return s.g.CheckChat(s.ctx, s.history, choice, opts...)
	}
	if s.convErr != nil {
		return nil, s.convErr
	}
	var rest []call
	var restIdx []int
	for i, c := range calls {
		if _, ok := early[i]; !ok {
			rest = append(rest, c)
			restIdx = append(restIdx, i)
		}
	}
	c := &checked{args: make([]string, len(calls)), keep: make([]bool, len(calls)), reports: make([]saidex.CallReport, len(calls))}
	if len(rest) > 0 {
		conv := append(s.conv[:len(s.conv):len(s.conv)], aiMessage(choice.Message.Content, rest))
		part, err := s.g.check(s.ctx, conv, rest, finishOptions(string(choice.FinishReason), opts))
		if err != nil {
			return nil, err
		}
		for k, i := range restIdx {
			c.args[i], c.keep[i] = part.args[k], part.keep[k]
			c.reports[i] = part.reports[k]
			c.reports[i].Index = i
		}
		for _, r := range part.ready {
			r.Index = restIdx[r.Index]
			c.ready = append(c.ready, r)
		}
		for _, a := range part.answers {
			a.Index = restIdx[a.Index]
			c.answers = append(c.answers, a)
		}
	}
	for i, e := range early {
		rep := e.rep
		rep.Index = i
		c.reports[i], c.keep[i] = rep, true
		if rep.Outcome.Ready() {
			args := calls[i].args
			if rep.Arguments != nil {
				args = string(rep.Arguments)
			}
			c.args[i] = args
			c.ready = append(c.ready, ReadyCall{Index: i, ID: calls[i].id, Name: calls[i].name, Arguments: args})
			continue
		}
		c.args[i] = replayable(call{args: rep.RawArguments})
		c.answers = append(c.answers, Answer{Index: i, ID: calls[i].id, Content: rep.Output})
	}
	sortReady(c.ready)
	sortAnswers(c.answers)
	return &ChatCheck{Assistant: assistantParam(choice.Message, calls, c), Ready: c.ready,
		Answered: c.answers, Calls: c.reports, calls: calls, checked: c}, nil
}

func sortReady(r []ReadyCall) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j].Index < r[j-1].Index; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
