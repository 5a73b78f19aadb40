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

// SplitToolCalls returns a copy of messages in which every AI message holds
// at most one part, for langchaingo's Anthropic client (llms/anthropic,
// v0.1.14), which serializes only the first part of an AI message: when
// that part is text every tool call of the message is dropped, and when it
// is a tool call every other call is dropped — and the tool results of the
// dropped calls then make Anthropic reject the request, since a tool_result
// must answer a tool_use of the assistant message before it. Reordering
// the parts cannot fix that; splitting can.
//
// An AI message with text and tool calls c1…cn, followed by its tool
// messages, becomes: an AI message with the text, then for each call an AI
// message holding only that call followed by the call's tool message (found
// among the tool messages that follow, by tool-call id, or by name for a
// call without id). Anthropic merges the consecutive assistant turns, so the
// model sees its text and its first call together, then each further call
// with its result. Tool messages that answer none of the calls stay after
// the last call, in order; a call without a tool message is kept alone.
// Other messages, and AI messages with at most one part, are unchanged.
// messages is not modified.
//
// Use it on the conversation just before calling the Anthropic client; keep
// the unsplit conversation as the history. Other providers' clients send
// every part and need no splitting.
func SplitToolCalls(messages []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(messages))
	for i := 0; i < len(messages); i++ {
		m := messages[i]
		if m.Role != llms.ChatMessageTypeAI || len(m.Parts) <= 1 {
			out = append(out, m)
			continue
		}
		answers, byCall, end := answersAfter(messages, i)
		used := make([]bool, len(answers))
		k := 0 // the index of the next tool call among m's parts
		for _, p := range m.Parts {
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{p}})
			if _, isCall := asToolCall(p); !isCall {
				continue
			}
			if a := byCall[k]; a >= 0 && !used[a] {
				used[a] = true
				out = append(out, answers[a])
			}
			k++
		}
		for a, msg := range answers {
			if !used[a] {
				out = append(out, msg)
			}
		}
		i = end - 1
	}
	return out
}

// GroupToolResponses returns a copy of messages in which the tool messages
// that answer one AI message are merged into a single tool message holding
// every response, in the order of the AI message's calls — the counterpart
// of [SplitToolCalls], for langchaingo's Google AI client (llms/googleai,
// v0.1.14). That client turns each message into its own Content, and Gemini
// rejects a turn whose function-response parts do not match, in number and
// name, the function-call parts of the model turn before it ("Please ensure
// that the number of function response parts is equal to the number of
// function call parts of the function call turn"); the node answers N calls
// with N tool messages, which the client would send as N Contents of one
// part each.
//
// The tool messages right after an AI message with tool calls are matched
// to its calls by tool-call id, or by name for a call without id (Gemini's
// calls have none; calls of one tool are then answered in order). The
// matched messages become one tool message whose parts are theirs, in call
// order; tool messages that answer none of the calls follow it, unchanged.
// Other messages are unchanged, and messages is not modified.
//
// Use it on the conversation just before calling the Google AI client —
// after [ToolNode.Invoke], or in the model node of a graph whose state the
// node updated — and keep the ungrouped conversation as the
// history: the openai client requires exactly one response per tool
// message.
func GroupToolResponses(messages []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(messages))
	for i := 0; i < len(messages); i++ {
		m := messages[i]
		out = append(out, m)
		if m.Role != llms.ChatMessageTypeAI || i+1 == len(messages) || messages[i+1].Role != llms.ChatMessageTypeTool {
			continue
		}
		answers, byCall, end := answersAfter(messages, i)
		used := make([]bool, len(answers))
		var grouped []llms.ContentPart
		for _, a := range byCall {
			if a >= 0 && !used[a] {
				used[a] = true
				grouped = append(grouped, answers[a].Parts...)
			}
		}
		if grouped != nil {
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: grouped})
		}
		for a, msg := range answers {
			if !used[a] {
				out = append(out, msg)
			}
		}
		i = end - 1
	}
	return out
}
