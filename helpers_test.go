package saidex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// weatherArgs is the argument struct of the test tools.
type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
}

// countingWeather returns a weather tool and a counter of its calls.
func countingWeather() (Tool, *atomic.Int64) {
	var n atomic.Int64
	return NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			n.Add(1)
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		}), &n
}

// plainTool is a tools.Tool without a schema.
type plainTool struct {
	name string
	fn   func(ctx context.Context, in string) (string, error)
}

func (p plainTool) Name() string        { return p.name }
func (p plainTool) Description() string { return "plain " + p.name }
func (p plainTool) Call(ctx context.Context, in string) (string, error) {
	return p.fn(ctx, in)
}

var _ tools.Tool = plainTool{}

func tc(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// conversation returns a human turn followed by an AI message with parts.
func conversation(parts ...llms.ContentPart) []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather?"),
		{Role: llms.ChatMessageTypeAI, Parts: parts},
	}
}

func mustNode(t testing.TB, ts []tools.Tool, opts ...Option) *ToolNode {
	t.Helper()
	n, err := NewToolNode(ts, opts...)
	if err != nil {
		t.Fatalf("NewToolNode: %v", err)
	}
	return n
}

// response returns the single ToolCallResponse of a tool message.
func response(t testing.TB, m llms.MessageContent) llms.ToolCallResponse {
	t.Helper()
	if m.Role != llms.ChatMessageTypeTool || len(m.Parts) != 1 {
		t.Fatalf("tool message has role %q and %d parts, want tool and 1", m.Role, len(m.Parts))
	}
	r, ok := m.Parts[0].(llms.ToolCallResponse)
	if !ok {
		t.Fatalf("tool message part is %T, want llms.ToolCallResponse", m.Parts[0])
	}
	return r
}

// scriptModel is a goroutine-safe llms.Model test double. Each call answers
// with the next scripted response, or, when respond is set, with
// respond(messages). It records the messages and call options it received.
type scriptModel struct {
	respond func(msgs []llms.MessageContent) (*llms.ContentResponse, error)

	mu        sync.Mutex
	responses []*llms.ContentResponse
	received  [][]llms.MessageContent
	options   []llms.CallOptions
}

var errScriptExhausted = errors.New("scriptModel: no response left")

func newScriptModel(responses ...*llms.ContentResponse) *scriptModel {
	return &scriptModel{responses: responses}
}

func (s *scriptModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	s.mu.Lock()
	s.received = append(s.received, slices.Clone(msgs))
	s.options = append(s.options, opts)
	if s.respond != nil {
		s.mu.Unlock()
		return s.respond(msgs)
	}
	defer s.mu.Unlock()
	if len(s.responses) == 0 {
		return nil, errScriptExhausted
	}
	r := s.responses[0]
	s.responses = s.responses[1:]
	return r, nil
}

func (s *scriptModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, options...)
}

// callsResponse is a one-choice response with text and tool calls.
func callsResponse(text string, calls ...llms.ToolCall) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, ToolCalls: calls}}}
}

// textResponse is a one-choice text response.
func textResponse(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}
}

// toolResponses returns the ToolCallResponse parts of the tool messages of
// msgs, in order.
func toolResponses(msgs []llms.MessageContent) []llms.ToolCallResponse {
	var out []llms.ToolCallResponse
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeTool {
			continue
		}
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r)
			}
		}
	}
	return out
}
