package saidexanthropic

import (
	"encoding/json"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tmc/langchaingo/llms"
)

// historyMessages converts a conversation of the SDK into the messages the
// node reads for context: an assistant message's text and tool_use blocks
// become an AI message, a user message's tool_result blocks one tool
// message each (named after the tool_use they answer) and its text a human
// message after them. Other blocks (images, documents, thinking, server
// tools) and system messages are left out.
func historyMessages(history []anthropic.MessageParam) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(history)+1)
	names := map[string]string{} // tool_use id -> tool name
	for _, m := range history {
		switch {
		case m.OfAssistant != nil:
			ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			for _, b := range m.OfAssistant.Content {
				switch {
				case b.OfText != nil && b.OfText.Text != "":
					ai.Parts = append(ai.Parts, llms.TextPart(b.OfText.Text))
				case b.OfToolUse != nil:
					tu := b.OfToolUse
					names[tu.ID] = tu.Name
					ai.Parts = append(ai.Parts, llms.ToolCall{ID: tu.ID, Type: "function",
						FunctionCall: &llms.FunctionCall{Name: tu.Name, Arguments: inputText(tu.Input)}})
				}
			}
			if len(ai.Parts) > 0 {
				out = append(out, ai)
			}
		case m.OfUser != nil:
			human := llms.MessageContent{Role: llms.ChatMessageTypeHuman}
			for _, b := range m.OfUser.Content {
				switch {
				case b.OfToolResult != nil:
					tr := b.OfToolResult
					out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
						llms.ToolCallResponse{ToolCallID: tr.ToolUseID, Name: names[tr.ToolUseID], Content: resultText(tr)},
					}})
				case b.OfText != nil && b.OfText.Text != "":
					human.Parts = append(human.Parts, llms.TextPart(b.OfText.Text))
				}
			}
			if len(human.Parts) > 0 {
				out = append(out, human)
			}
		}
	}
	return out
}

// inputText returns a tool_use param's input as JSON text.
func inputText(input any) string {
	switch v := input.(type) {
	case json.RawMessage:
		return string(v)
	case []byte:
		return string(v)
	case nil:
		return "{}"
	}
	b, err := json.Marshal(input)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// resultText returns the text of a tool_result param's text blocks.
func resultText(tr *anthropic.ToolResultBlockParam) string {
	var b strings.Builder
	for _, c := range tr.Content {
		if c.OfText != nil {
			b.WriteString(c.OfText.Text)
		}
	}
	return b.String()
}
