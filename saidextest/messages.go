package saidextest

import "github.com/tmc/langchaingo/llms"

// Call returns a function tool call with the given id, tool name and
// argument string, which is kept exactly as given: broken JSON, reasoning
// text around it or an empty string.
func Call(id, name, arguments string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: arguments}}
}

// AIMessage returns an AI message holding calls, in order, as the model's
// turn that a saidex.ToolNode answers.
func AIMessage(calls ...llms.ToolCall) llms.MessageContent {
	m := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: make([]llms.ContentPart, 0, len(calls))}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return m
}

// ToolMessage returns a tool message answering the call with the given id
// and tool name with content.
func ToolMessage(id, name, content string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: id, Name: name, Content: content},
	}}
}
