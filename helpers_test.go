package saidex

import (
	"context"
	"fmt"
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
