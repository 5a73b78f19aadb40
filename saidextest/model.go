// Package saidextest provides a scripted [llms.Model] and message builders
// for tests and examples of code that uses saidex, in the spirit of
// net/http/httptest.
//
// A [Model] answers every GenerateContent call with a [Reply] chosen by the
// test: replies in order ([Sequence]), chosen by a matcher over the request
// ([Match]), or any function of the request. Replies return text ([Text]),
// tool calls with argument strings as broken as the test needs
// ([ToolCalls]), any response ([Respond]), errors ([Fail]) and token usage
// ([WithUsage]). The model records every request. Unlike langchaingo's
// llms/fake it returns tool calls, and it is safe for concurrent use.
//
//	model := saidextest.NewModel(saidextest.Sequence(
//		saidextest.ToolCalls(saidextest.Call("call_1", "get_weather", `{"city": "Paris",}`)),
//		saidextest.Text("It is sunny in Paris."),
//	))
//
// [AIMessage], [ToolMessage] and [Call] build the messages of a
// conversation by hand.
package saidextest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Request is one GenerateContent call as the model received it.
type Request struct {
	// Seq is the 0-based number of the call on its model, in arrival order.
	Seq int
	// Messages are the messages passed to GenerateContent (the slice is a
	// copy; the messages themselves are shared with the caller).
	Messages []llms.MessageContent
	// Options are the call options after applying every llms.CallOption.
	Options llms.CallOptions
}

// Text returns the text parts of all messages, joined by newlines.
func (r Request) Text() string {
	var parts []string
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				parts = append(parts, t.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResults returns the tool results of the tool messages at the end of
// the conversation (after its last non-tool message), in order: the answers
// to the model's previous turn. It is empty when the last message is not a
// tool message, as in the first turn of an agent loop.
func (r Request) ToolResults() []llms.ToolCallResponse {
	i := len(r.Messages)
	for i > 0 && r.Messages[i-1].Role == llms.ChatMessageTypeTool {
		i--
	}
	var out []llms.ToolCallResponse
	for _, m := range r.Messages[i:] {
		for _, p := range m.Parts {
			if tr, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, tr)
			}
		}
	}
	return out
}

// ToolChoiceName returns the function name forced with llms.WithToolChoice
// in the map form {"type":"function","function":{"name":...}} or as an
// llms.ToolChoice, and "" when no function is forced. A saidex correction
// model in its default mode receives such a forced choice.
func (r Request) ToolChoiceName() string {
	switch tc := r.Options.ToolChoice.(type) {
	case map[string]any:
		if f, ok := tc["function"].(map[string]any); ok {
			name, _ := f["name"].(string)
			return name
		}
	case llms.ToolChoice:
		if tc.Function != nil {
			return tc.Function.Name
		}
	case *llms.ToolChoice:
		if tc != nil && tc.Function != nil {
			return tc.Function.Name
		}
	}
	return ""
}

// Reply answers one request: a response or an error. A Model may call its
// Reply concurrently; a Reply that blocks must honour ctx.
type Reply func(ctx context.Context, req Request) (*llms.ContentResponse, error)

// ErrUnexpectedCall is returned (wrapped) for a request that the script does
// not answer: a call after the last reply of a [Sequence], a request no case
// of a [Match] accepts, or any call to a Model without a Reply.
var ErrUnexpectedCall = errors.New("saidextest: unexpected model call")

// Model is a scripted llms.Model. Its methods are safe for concurrent use.
type Model struct {
	reply Reply

	mu          sync.Mutex
	requests    []Request
	inFlight    int
	maxInFlight int
}

var _ llms.Model = (*Model)(nil)

// NewModel returns a model that answers every call with reply. A nil reply
// answers every call with an error wrapping [ErrUnexpectedCall].
func NewModel(reply Reply) *Model {
	return &Model{reply: reply}
}

// GenerateContent records the request and answers it with the model's
// Reply. A panic in the Reply is not recovered.
func (m *Model) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		if o != nil {
			o(&opts)
		}
	}
	m.mu.Lock()
	req := Request{Seq: len(m.requests), Messages: append([]llms.MessageContent(nil), messages...), Options: opts}
	m.requests = append(m.requests, req)
	m.inFlight++
	m.maxInFlight = max(m.maxInFlight, m.inFlight)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
	}()
	if m.reply == nil {
		return nil, fmt.Errorf("%w: the model has no reply", ErrUnexpectedCall)
	}
	return m.reply(ctx, req)
}

// Call implements the single-prompt method of llms.Model on top of
// GenerateContent; it returns the first choice's text.
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// Requests returns a copy of the requests received so far, in arrival order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// CallCount returns the number of GenerateContent calls received so far.
func (m *Model) CallCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// InFlight returns the number of GenerateContent calls running now.
func (m *Model) InFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inFlight
}

// MaxInFlight returns the largest number of GenerateContent calls that were
// running at the same time.
func (m *Model) MaxInFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maxInFlight
}

// Text answers with a response whose one choice holds text (stop reason
// "stop").
func Text(text string) Reply {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return TextResponse(text), nil
	}
}

// ToolCalls answers with a response whose one choice holds calls (stop
// reason "tool_calls"). Build the calls with [Call]; their argument strings
// are sent exactly as given, broken or not.
func ToolCalls(calls ...llms.ToolCall) Reply {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return ToolCallResponse(calls...), nil
	}
}

// Respond answers with a copy of resp, for responses [Text] and [ToolCalls]
// do not build: text and tool calls in one choice, or several choices (as
// langchaingo's Anthropic client returns one choice per content block).
// Each answer is a fresh copy, so callers that modify a response do not
// affect later answers; GenerationInfo maps are copied one level deep.
func Respond(resp *llms.ContentResponse) Reply {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return copyResponse(resp), nil
	}
}

func copyResponse(resp *llms.ContentResponse) *llms.ContentResponse {
	if resp == nil {
		return nil
	}
	out := &llms.ContentResponse{Choices: make([]*llms.ContentChoice, len(resp.Choices))}
	for i, c := range resp.Choices {
		if c == nil {
			continue
		}
		cc := *c
		cc.ToolCalls = copyCalls(c.ToolCalls)
		if c.FuncCall != nil {
			fc := *c.FuncCall
			cc.FuncCall = &fc
		}
		cc.GenerationInfo = maps.Clone(c.GenerationInfo)
		out.Choices[i] = &cc
	}
	return out
}

// copyCalls copies calls and their FunctionCall values; nil stays nil.
func copyCalls(calls []llms.ToolCall) []llms.ToolCall {
	if calls == nil {
		return nil
	}
	out := make([]llms.ToolCall, len(calls))
	for i, c := range calls {
		if c.FunctionCall != nil {
			fc := *c.FunctionCall
			c.FunctionCall = &fc
		}
		out[i] = c
	}
	return out
}

// ForcedToolCall answers with a call, with id "forced_call" and the given
// argument string, of the function the request forces with
// llms.WithToolChoice, as a saidex correction model in its default mode is
// asked to; without a forced function it answers with arguments as text,
// as a correction model in JSON mode does.
func ForcedToolCall(arguments string) Reply {
	return func(_ context.Context, req Request) (*llms.ContentResponse, error) {
		if name := req.ToolChoiceName(); name != "" {
			return ToolCallResponse(Call("forced_call", name, arguments)), nil
		}
		return TextResponse(arguments), nil
	}
}

// Fail answers with err.
func Fail(err error) Reply {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return nil, err
	}
}

// Sequence answers its i-th request with replies[i], in the order requests
// reach it, and every request after the last reply with an error wrapping
// [ErrUnexpectedCall]. It counts the requests that reach it, so it may be
// a case of a [Match]; give each Model its own Sequence. With concurrent
// callers, which caller gets which reply depends on arrival order.
func Sequence(replies ...Reply) Reply {
	var n atomic.Int64
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		i := int(n.Add(1) - 1)
		if i >= len(replies) {
			return nil, fmt.Errorf("%w: call %d of a sequence of %d", ErrUnexpectedCall, i+1, len(replies))
		}
		return replies[i](ctx, req)
	}
}

// Case is one branch of a [Match], made by [When].
type Case struct {
	when  func(Request) bool
	reply Reply
}

// When returns the Case that answers the requests pred selects with reply.
// A nil pred selects every request, for a last, default case.
func When(pred func(Request) bool, reply Reply) Case {
	return Case{when: pred, reply: reply}
}

// Match answers each request with the Reply of the first case that selects
// it, so the answer depends on the request and not on the arrival order of
// concurrent callers; a request no case selects gets an error wrapping
// [ErrUnexpectedCall].
func Match(cases ...Case) Reply {
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		for _, c := range cases {
			if c.when == nil || c.when(req) {
				return c.reply(ctx, req)
			}
		}
		return nil, fmt.Errorf("%w: no case matches request %d", ErrUnexpectedCall, req.Seq)
	}
}

// Delay waits d, or until ctx is done, then answers with reply. It returns
// ctx.Err() when ctx is done first.
func Delay(d time.Duration, reply Reply) Reply {
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
		return reply(ctx, req)
	}
}

// WithUsage answers with reply and sets a copy of usage as the
// GenerationInfo of every choice of its response, so that no two choices
// or responses share one map. [Usage] builds the map langchaingo's OpenAI
// client reports.
func WithUsage(usage map[string]any, reply Reply) Reply {
	usage = maps.Clone(usage)
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		resp, err := reply(ctx, req)
		if err != nil || resp == nil {
			return resp, err
		}
		for _, c := range resp.Choices {
			if c != nil {
				c.GenerationInfo = maps.Clone(usage)
			}
		}
		return resp, nil
	}
}

// Usage returns token usage as langchaingo's OpenAI client puts it in a
// choice's GenerationInfo: PromptTokens, CompletionTokens and TotalTokens.
func Usage(input, output int) map[string]any {
	return map[string]any{"PromptTokens": input, "CompletionTokens": output, "TotalTokens": input + output}
}

// TextResponse returns a response whose one choice holds text (stop reason
// "stop").
func TextResponse(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, StopReason: "stop"}}}
}

// ToolCallResponse returns a response whose one choice holds copies of
// calls (stop reason "tool_calls"), so that responses built from the same
// calls share no FunctionCall.
func ToolCallResponse(calls ...llms.ToolCall) *llms.ContentResponse {
	if calls == nil {
		calls = []llms.ToolCall{}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "tool_calls", ToolCalls: copyCalls(calls)}}}
}
