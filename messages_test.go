package saidex

import (
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// TestAIMessageFromResponse pins AIMessageFromResponse's doc, which the
// README's loop rests on: the text of every choice joined by newlines as
// one text part, then every choice's tool calls in order; a legacy FuncCall
// becomes a call without id (only in a choice without tool calls); nil
// choices and empty texts are skipped; resp is not modified.
func TestAIMessageFromResponse(t *testing.T) {
	fc := func(name, args string) *llms.FunctionCall { return &llms.FunctionCall{Name: name, Arguments: args} }
	call := func(id, name, args string) llms.ToolCall {
		return llms.ToolCall{ID: id, Type: "function", FunctionCall: fc(name, args)}
	}
	tests := []struct {
		name string
		resp *llms.ContentResponse
		want []llms.ContentPart
	}{
		{"nil response", nil, nil},
		{"no choices", &llms.ContentResponse{}, nil},
		{"texts of every choice, joined", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{Content: "first"}, nil, {Content: ""}, {Content: "second"}, {Content: "third"},
		}}, []llms.ContentPart{llms.TextPart("first\nsecond\nthird")}},
		{"text first, then the calls of every choice in order", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{ToolCalls: []llms.ToolCall{call("a", "f", `{"x":1}`), call("b", "g", `{}`)}},
			{Content: "thinking"},
			{Content: "more", ToolCalls: []llms.ToolCall{call("c", "f", `{"x":2}`)}},
		}}, []llms.ContentPart{llms.TextPart("thinking\nmore"), call("a", "f", `{"x":1}`), call("b", "g", `{}`), call("c", "f", `{"x":2}`)}},
		{"a legacy FuncCall is a call without id", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{Content: "ok", FuncCall: fc("legacy", `{"y":true}`)},
			{ToolCalls: []llms.ToolCall{call("d", "f", `{}`)}},
		}}, []llms.ContentPart{llms.TextPart("ok"), llms.ToolCall{Type: "function", FunctionCall: fc("legacy", `{"y":true}`)}, call("d", "f", `{}`)}},
		{"a FuncCall beside tool calls is not a second call", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{ToolCalls: []llms.ToolCall{call("e", "f", `{}`)}, FuncCall: fc("f", `{}`)},
		}}, []llms.ContentPart{call("e", "f", `{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before []llms.ContentChoice
			if tt.resp != nil {
				for _, ch := range tt.resp.Choices {
					if ch != nil {
						c := *ch
						if c.FuncCall != nil {
							f := *c.FuncCall
							c.FuncCall = &f
						}
						before = append(before, c)
					}
				}
			}
			got := AIMessageFromResponse(tt.resp)
			if got.Role != llms.ChatMessageTypeAI || !reflect.DeepEqual(got.Parts, tt.want) {
				t.Fatalf("AIMessageFromResponse = %s %#v\nwant ai %#v", got.Role, got.Parts, tt.want)
			}
			var after []llms.ContentChoice
			if tt.resp != nil {
				for _, ch := range tt.resp.Choices {
					if ch != nil {
						after = append(after, *ch)
					}
				}
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("resp modified: %#v, was %#v", after, before)
			}
			// A legacy call is a copy: changing it leaves resp alone.
			for _, p := range got.Parts {
				if c, ok := p.(llms.ToolCall); ok && c.ID == "" {
					c.FunctionCall.Arguments = "changed"
				}
			}
			for _, ch := range after {
				if ch.FuncCall != nil && ch.FuncCall.Arguments == "changed" {
					t.Errorf("the legacy FuncCall is shared with resp")
				}
			}
		})
	}
}
