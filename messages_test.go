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

func TestSplitToolCalls(t *testing.T) {
	human := llms.TextParts(llms.ChatMessageTypeHuman, "hi")
	ans := func(id, name string) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: name, Content: "r" + id + name}}}
	}
	ai := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
	}
	a, b := tc("a", "f", `{}`), tc("b", "g", `{}`)
	noID := tc("", "h", `{}`)
	tests := []struct {
		name string
		in   []llms.MessageContent
		want []llms.MessageContent
	}{
		{
			name: "text and two calls become one part per AI message, each call followed by its answer",
			in:   []llms.MessageContent{human, ai(llms.TextPart("x"), a, b), ans("b", "g"), ans("a", "f"), human},
			want: []llms.MessageContent{human, ai(llms.TextPart("x")), ai(a), ans("a", "f"), ai(b), ans("b", "g"), human},
		},
		{
			name: "single-part messages are unchanged",
			in:   []llms.MessageContent{human, ai(a), ans("a", "f")},
			want: []llms.MessageContent{human, ai(a), ans("a", "f")},
		},
		{
			name: "a call without id is matched by name",
			in:   []llms.MessageContent{ai(a, noID), ans("", "h"), ans("a", "f")},
			want: []llms.MessageContent{ai(a), ans("a", "f"), ai(noID), ans("", "h")},
		},
		{
			name: "unanswered calls stay alone, stray answers keep their order at the end",
			in:   []llms.MessageContent{ai(a, b), ans("z", "q"), ans("a", "f")},
			want: []llms.MessageContent{ai(a), ans("a", "f"), ai(b), ans("z", "q")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.in)
			got := SplitToolCalls(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.in, before) {
				t.Error("input modified")
			}
		})
	}
}

func TestGroupToolResponses(t *testing.T) {
	human := llms.TextParts(llms.ChatMessageTypeHuman, "hi")
	resp := func(id, name string) llms.ToolCallResponse {
		return llms.ToolCallResponse{ToolCallID: id, Name: name, Content: "r" + id + name}
	}
	ans := func(rs ...llms.ToolCallResponse) llms.MessageContent {
		m := llms.MessageContent{Role: llms.ChatMessageTypeTool}
		for _, r := range rs {
			m.Parts = append(m.Parts, r)
		}
		return m
	}
	ai := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
	}
	a, b := tc("a", "f", `{}`), tc("b", "g", `{}`)
	h1, h2, g1 := tc("", "h", `{"n":1}`), tc("", "h", `{"n":2}`), tc("", "g", `{}`)
	tests := []struct {
		name string
		in   []llms.MessageContent
		want []llms.MessageContent
	}{
		{
			name: "answers out of order become one message in call order",
			in:   []llms.MessageContent{human, ai(llms.TextPart("x"), a, b), ans(resp("b", "g")), ans(resp("a", "f")), human},
			want: []llms.MessageContent{human, ai(llms.TextPart("x"), a, b), ans(resp("a", "f"), resp("b", "g")), human},
		},
		{
			name: "calls without id (Gemini) are matched by name, calls of one tool in order",
			in:   []llms.MessageContent{ai(h1, g1, h2), ans(resp("", "h")), ans(resp("", "g")), ans(resp("", "h"))},
			want: []llms.MessageContent{ai(h1, g1, h2), ans(resp("", "h"), resp("", "g"), resp("", "h"))},
		},
		{
			name: "a single answered call is one tool message as before",
			in:   []llms.MessageContent{human, ai(a), ans(resp("a", "f"))},
			want: []llms.MessageContent{human, ai(a), ans(resp("a", "f"))},
		},
		{
			name: "stray answers follow the grouped message, in order",
			in:   []llms.MessageContent{ai(a, b), ans(resp("z", "q")), ans(resp("b", "g")), ans(resp("y", "q"))},
			want: []llms.MessageContent{ai(a, b), ans(resp("b", "g")), ans(resp("z", "q")), ans(resp("y", "q"))},
		},
		{
			name: "every turn of a conversation is grouped; messages without calls are unchanged",
			in: []llms.MessageContent{human, ai(a, b), ans(resp("a", "f")), ans(resp("b", "g")),
				ai(llms.TextPart("ok")), human, ai(b, a), ans(resp("a", "f")), ans(resp("b", "g"))},
			want: []llms.MessageContent{human, ai(a, b), ans(resp("a", "f"), resp("b", "g")),
				ai(llms.TextPart("ok")), human, ai(b, a), ans(resp("b", "g"), resp("a", "f"))},
		},
		{
			name: "an AI message without tool messages after it is unchanged",
			in:   []llms.MessageContent{ai(a, b), human},
			want: []llms.MessageContent{ai(a, b), human},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.in)
			got := GroupToolResponses(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.in, before) {
				t.Error("input modified")
			}
		})
	}
}
