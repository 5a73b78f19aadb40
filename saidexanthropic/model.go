package saidexanthropic

import (
	"context"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/tmc/langchaingo/llms"
)

// DefaultCorrectionMaxTokens is the max_tokens of a request of
// [CorrectionModel] when the call options set none.
const DefaultCorrectionMaxTokens = 1024

// CorrectionModel returns an llms.Model that calls model through client's
// Messages API, for saidex.WithCorrectionModel: a program that talks to
// Claude with the SDK needs no langchaingo model to have invalid calls
// corrected. opts apply to every request, after the client's.
//
// It supports what the correction asks for: the messages' text (system
// messages go in the request's system field), llms.WithTools (as custom
// tools, their parameters as input_schema), llms.WithToolChoice (a
// function name, as langchaingo writes it, becomes {"type":"tool"};
// "none", "auto" and "required" are mapped), llms.WithModel,
// llms.WithMaxTokens (default [DefaultCorrectionMaxTokens]) and
// llms.WithStopWords; llms.WithJSONMode and llms.WithTemperature are
// ignored (the Messages API has no JSON mode, and this SDK's
// MessageNewParams no temperature). The response has one choice: its
// text, its tool_use blocks as tool calls, the stop reason, and the token
// usage and model name in GenerationInfo ("InputTokens", "OutputTokens",
// "model"), which saidex reports per model.
func CorrectionModel(client anthropic.Client, model anthropic.Model, opts ...option.RequestOption) llms.Model {
	return &correctionModel{client: client, model: model, opts: opts}
}

type correctionModel struct {
	client anthropic.Client
	model  anthropic.Model
	opts   []option.RequestOption
}

// GenerateContent sends messages as one request. See [CorrectionModel].
func (m *correctionModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var co llms.CallOptions
	for _, o := range options {
		if o != nil {
			o(&co)
		}
	}
	params := anthropic.MessageNewParams{Model: m.model, MaxTokens: DefaultCorrectionMaxTokens}
	if co.Model != "" {
		params.Model = anthropic.Model(co.Model)
	}
	if co.MaxTokens > 0 {
		params.MaxTokens = int64(co.MaxTokens)
	}
	params.StopSequences = co.StopWords
	for _, t := range co.Tools {
		if t.Function == nil {
			continue
		}
		tp := anthropic.ToolParam{Name: t.Function.Name, InputSchema: inputSchema(t.Function.Parameters)}
		if t.Function.Description != "" {
			tp.Description = anthropic.String(t.Function.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	params.ToolChoice = toolChoice(co.ToolChoice)
	for _, msg := range messages {
		text := partsText(msg.Parts)
		switch msg.Role {
		case llms.ChatMessageTypeSystem:
			params.System = append(params.System, anthropic.TextBlockParam{Text: text})
		case llms.ChatMessageTypeAI:
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(text)))
		default:
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
		}
	}
	resp, err := m.client.Messages.New(ctx, params, m.opts...)
	if err != nil {
		return nil, err
	}
	choice := &llms.ContentChoice{StopReason: string(resp.StopReason), GenerationInfo: map[string]any{
		"InputTokens": int(resp.Usage.InputTokens), "OutputTokens": int(resp.Usage.OutputTokens), "model": string(resp.Model),
	}}
	var b strings.Builder
	for _, block := range resp.Content {
		switch block.Type {
		case "text":
			b.WriteString(block.Text)
		case "tool_use":
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: block.ID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: block.Name, Arguments: string(block.Input)}})
		}
	}
	choice.Content = b.String()
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// Call implements the deprecated text-only method of llms.Model through
// GenerateContent.
func (m *correctionModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// toolChoice maps langchaingo's tool choice to the Messages API's.
func toolChoice(c any) anthropic.ToolChoiceUnionParam {
	switch v := c.(type) {
	case string:
		switch v {
		case "none":
			return anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
		case "required", "any":
			return anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{}}
		case "auto":
			return anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}}
		}
	case map[string]any:
		if fn, ok := v["function"].(map[string]any); ok {
			if name, ok := fn["name"].(string); ok && name != "" {
				return anthropic.ToolChoiceParamOfTool(name)
			}
		}
	case llms.ToolChoice:
		if v.Function != nil && v.Function.Name != "" {
			return anthropic.ToolChoiceParamOfTool(v.Function.Name)
		}
	}
	return anthropic.ToolChoiceUnionParam{}
}

// partsText joins the text parts of a message.
func partsText(parts []llms.ContentPart) string {
	var b strings.Builder
	for _, p := range parts {
		switch t := p.(type) {
		case llms.TextContent:
			b.WriteString(t.Text)
		case *llms.TextContent:
			if t != nil {
				b.WriteString(t.Text)
			}
		}
	}
	return b.String()
}
