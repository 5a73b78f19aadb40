package saidex

import (
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

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
