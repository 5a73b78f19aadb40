// Package scripted provides a goroutine-safe, scripted [llms.Model] for
// tests and examples.
//
// A [Model] answers every GenerateContent call with a [Func] chosen by the
// test: it sees the messages and the applied call options of the request and
// returns a response or an error. The model records every request, counts
// the calls in flight (and the largest number seen at once), and can delay
// or fail. Unlike langchaingo's llms/fake it returns tool calls as well as
// text, and it is safe for concurrent use.
package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// ToolChoiceName returns the function name forced with llms.WithToolChoice
// in the map form {"type":"function","function":{"name":...}} or as an
// llms.ToolChoice, and "" when no function is forced.
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

// Func answers one request. It may be called concurrently and must honour
// ctx if it blocks.
type Func func(ctx context.Context, req Request) (*llms.ContentResponse, error)

// Model is a scripted llms.Model. Its methods are safe for concurrent use.
type Model struct {
	fn Func

	mu          sync.Mutex
	requests    []Request
	inFlight    int
	maxInFlight int
}

var _ llms.Model = (*Model)(nil)

// New returns a model that answers every call with fn. A nil fn answers
// with an error.
func New(fn Func) *Model {
	return &Model{fn: fn}
}

// GenerateContent records the request and answers it with the model's Func.
// A panic in the Func is not recovered.
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
	if m.fn == nil {
		return nil, errors.New("scripted: no script")
	}
	return m.fn(ctx, req)
}

// Call implements the deprecated single-prompt method of llms.Model on top
// of GenerateContent; it returns the first choice's text.
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

// MaxInFlight returns the largest number of GenerateContent calls that were
// running at the same time.
func (m *Model) MaxInFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maxInFlight
}

// InFlight returns the number of GenerateContent calls running now.
func (m *Model) InFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inFlight
}

// ToolCallResponse returns a response with one choice holding one tool call
// of function name with the given argument string, and usage (may be nil)
// as its GenerationInfo.
func ToolCallResponse(name, arguments string, usage map[string]any) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason:     "tool_calls",
		GenerationInfo: usage,
		ToolCalls: []llms.ToolCall{{
			ID:           "scripted-call",
			Type:         "function",
			FunctionCall: &llms.FunctionCall{Name: name, Arguments: arguments},
		}},
	}}}
}

// TextResponse returns a response with one choice holding text, and usage
// (may be nil) as its GenerationInfo.
func TextResponse(text string, usage map[string]any) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content: text, StopReason: "stop", GenerationInfo: usage,
	}}}
}

// ToolCall answers every request with a tool call of function name with the
// given argument string.
func ToolCall(name, arguments string) Func {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return ToolCallResponse(name, arguments, nil), nil
	}
}

// ForcedToolCall answers every request with a tool call of the function the
// request forces with llms.WithToolChoice, with the given argument string;
// without a forced function it answers with arguments as text.
func ForcedToolCall(arguments string) Func {
	return func(_ context.Context, req Request) (*llms.ContentResponse, error) {
		if name := req.ToolChoiceName(); name != "" {
			return ToolCallResponse(name, arguments, nil), nil
		}
		return TextResponse(arguments, nil), nil
	}
}

// Text answers every request with text.
func Text(text string) Func {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return TextResponse(text, nil), nil
	}
}

// Fail answers every request with err.
func Fail(err error) Func {
	return func(context.Context, Request) (*llms.ContentResponse, error) {
		return nil, err
	}
}

// Sequence answers the i-th request (by Seq) with fns[i] and fails every
// request after the last one. With concurrent callers, which caller gets
// which answer depends on arrival order.
func Sequence(fns ...Func) Func {
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		if req.Seq >= len(fns) {
			return nil, fmt.Errorf("scripted: unexpected call %d (script has %d)", req.Seq+1, len(fns))
		}
		return fns[req.Seq](ctx, req)
	}
}

// Delay waits d, or until ctx is done, then answers with fn. It returns
// ctx.Err() when ctx is done first.
func Delay(d time.Duration, fn Func) Func {
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
		return fn(ctx, req)
	}
}

// WithUsage answers with fn and sets usage as the GenerationInfo of every
// choice of its response.
func WithUsage(usage map[string]any, fn Func) Func {
	return func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		resp, err := fn(ctx, req)
		if err != nil || resp == nil {
			return resp, err
		}
		for _, c := range resp.Choices {
			if c != nil {
				c.GenerationInfo = usage
			}
		}
		return resp, nil
	}
}
