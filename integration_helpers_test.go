package saidex

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

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

// calls returns what the model received, per call.
func (s *scriptModel) calls() ([][]llms.MessageContent, []llms.CallOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.received), slices.Clone(s.options)
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
