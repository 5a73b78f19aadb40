package saidex

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// MessageHasToolCalls reports whether m is an AI message with at least one
// tool call (an llms.ToolCall part or a non-nil *llms.ToolCall part): the
// message a [ToolNode] answers. Use it to decide, after a model turn,
// whether to run the node or stop.
func MessageHasToolCalls(m llms.MessageContent) bool {
	if m.Role != llms.ChatMessageTypeAI {
		return false
	}
	for _, p := range m.Parts {
		if _, ok := asToolCall(p); ok {
			return true
		}
	}
	return false
}

// AIMessageFromResponse returns the AI message for a model response, to
// append to the conversation before running a [ToolNode]: the text of
// every choice (joined by newlines) as one text part, then the tool calls
// of every choice, in order. langchaingo's Anthropic client returns each
// content block as its own choice, so merging them is what restores the
// assistant turn. A choice that carries only a legacy FuncCall contributes
// it as a tool call without id, of Type "function". Nil choices are
// skipped; a nil resp yields an AI message without parts. resp is not
// modified; the tool calls' FunctionCall pointers are shared with it.
func AIMessageFromResponse(resp *llms.ContentResponse) llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if resp == nil {
		return ai
	}
	var texts []string
	var calls []llms.ContentPart
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if ch.Content != "" {
			texts = append(texts, ch.Content)
		}
		for _, tc := range ch.ToolCalls {
			calls = append(calls, tc)
		}
		if len(ch.ToolCalls) == 0 && ch.FuncCall != nil {
			fc := *ch.FuncCall
			calls = append(calls, llms.ToolCall{Type: "function", FunctionCall: &fc})
		}
	}
	if len(texts) > 0 {
		ai.Parts = append(ai.Parts, llms.TextPart(strings.Join(texts, "\n")))
	}
	ai.Parts = append(ai.Parts, calls...)
	return ai
}
