package saidex

import "github.com/tmc/langchaingo/llms"

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
		// The tool messages that follow the AI message.
		j := i + 1
		for j < len(messages) && messages[j].Role == llms.ChatMessageTypeTool {
			j++
		}
		answers := messages[i+1 : j]
		used := make([]bool, len(answers))
		for _, p := range m.Parts {
			tc, isCall := asToolCall(p)
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{p}})
			if !isCall {
				continue
			}
			for k, a := range answers {
				if !used[k] && answersCall(a, tc) {
					used[k] = true
					out = append(out, a)
					break
				}
			}
		}
		for k, a := range answers {
			if !used[k] {
				out = append(out, a)
			}
		}
		i = j - 1
	}
	return out
}

// asToolCall returns the tool call a content part holds, by value or by a
// non-nil pointer.
func asToolCall(p llms.ContentPart) (llms.ToolCall, bool) {
	switch p := p.(type) {
	case llms.ToolCall:
		return p, true
	case *llms.ToolCall:
		if p != nil {
			return *p, true
		}
	}
	return llms.ToolCall{}, false
}

// answersCall reports whether tool message m answers call tc.
func answersCall(m llms.MessageContent, tc llms.ToolCall) bool {
	for _, p := range m.Parts {
		r, ok := p.(llms.ToolCallResponse)
		if !ok {
			continue
		}
		if tc.ID != "" {
			return r.ToolCallID == tc.ID
		}
		return r.ToolCallID == "" && tc.FunctionCall != nil && r.Name == tc.FunctionCall.Name
	}
	return false
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
// node's StateNode updated — and keep the ungrouped conversation as the
// history: the openai client requires exactly one response per tool
// message.
func GroupToolResponses(messages []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(messages))
	for i := 0; i < len(messages); i++ {
		m := messages[i]
		out = append(out, m)
		if m.Role != llms.ChatMessageTypeAI {
			continue
		}
		j := i + 1
		for j < len(messages) && messages[j].Role == llms.ChatMessageTypeTool {
			j++
		}
		answers := messages[i+1 : j]
		if len(answers) == 0 {
			continue
		}
		used := make([]bool, len(answers))
		var grouped []llms.ContentPart
		for _, p := range m.Parts {
			tc, isCall := asToolCall(p)
			if !isCall {
				continue
			}
			for k, a := range answers {
				if !used[k] && answersCall(a, tc) {
					used[k] = true
					grouped = append(grouped, a.Parts...)
					break
				}
			}
		}
		if grouped != nil {
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: grouped})
		}
		for k, a := range answers {
			if !used[k] {
				out = append(out, a)
			}
		}
		i = j - 1
	}
	return out
}
