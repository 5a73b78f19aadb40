package saidexopenai

import (
	"context"
	"errors"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tmc/langchaingo/llms"
)

// CorrectionModel returns an llms.Model that calls model through client's
// Chat Completions API, for saidex.WithCorrectionModel, so that a program
// built on openai-go needs no langchaingo model to correct invalid calls:
//
//	node, err := saidex.NewToolNode(tools,
//		saidex.WithCorrectionModel(saidexopenai.CorrectionModel(client, "gpt-4.1-mini")))
//
// GenerateContent converts the messages (system, human, AI text and tool
// calls, tool results) to chat messages and sends them with opts. The
// tool that saidex's default correction mode binds (llms.WithTools) becomes
// a function tool, and llms.WithToolChoice (a tool name, the map
// {"type":"function","function":{"name":…}}, an *llms.ToolChoice or
// "auto"/"none"/"required") the tool_choice; llms.WithModel replaces
// model, llms.WithTemperature, WithMaxTokens (as max_completion_tokens),
// WithTopP, WithStopWords, WithSeed and WithJSONMode (response_format
// json_object) are sent; other options are ignored. Each choice of the
// completion becomes a choice of the response with its text, tool calls and
// finish reason (StopReason), and GenerationInfo holding the completion's
// "model" name and token usage (PromptTokens, CompletionTokens,
// TotalTokens), which saidex reports per call in CallReport.Tokens.
//
// Errors are the client's (an *openai.Error for an HTTP error). Correction
// never fails the node: saidex answers the call with feedback instead.
func CorrectionModel(client openai.Client, model string, opts ...option.RequestOption) llms.Model {
	return &correctionModel{client: client, model: model, opts: opts}
}

type correctionModel struct {
	client openai.Client
	model  string
	opts   []option.RequestOption
}

// GenerateContent calls the Chat Completions API. See [CorrectionModel].
func (m *correctionModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var co llms.CallOptions
	for _, o := range options {
		if o != nil {
			o(&co)
		}
	}
	params := openai.ChatCompletionNewParams{Model: m.model, Messages: chatMessages(messages)}
	if co.Model != "" {
		params.Model = co.Model
	}
	if params.Model == "" {
		return nil, errors.New("saidexopenai: CorrectionModel needs a model name")
	}
	if co.Temperature != 0 {
		params.Temperature = openai.Float(co.Temperature)
	}
	if co.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(co.MaxTokens))
	}
	if co.TopP != 0 {
		params.TopP = openai.Float(co.TopP)
	}
	if co.Seed != 0 {
		params.Seed = openai.Int(int64(co.Seed))
	}
	if len(co.StopWords) > 0 {
		params.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: co.StopWords}
	}
	if co.JSONMode {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	for _, t := range co.Tools {
		if t.Function == nil {
			continue
		}
		f := openai.FunctionDefinitionParam{Name: t.Function.Name}
		if t.Function.Description != "" {
			f.Description = openai.String(t.Function.Description)
		}
		if t.Function.Parameters != nil {
			f.Parameters = parameters(t.Function.Parameters) // numbers as JSON numbers (saidexopenai.go)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(f))
	}
	if choice, ok := toolChoice(co.ToolChoice); ok && len(params.Tools) > 0 {
		params.ToolChoice = choice
	}
	resp, err := m.client.Chat.Completions.New(ctx, params, m.opts...)
	if err != nil {
		return nil, err
	}
	out := &llms.ContentResponse{}
	for _, ch := range resp.Choices {
		c := &llms.ContentChoice{Content: ch.Message.Content, StopReason: string(ch.FinishReason),
			GenerationInfo: map[string]any{"model": resp.Model,
				"PromptTokens": int(resp.Usage.PromptTokens), "CompletionTokens": int(resp.Usage.CompletionTokens),
				"TotalTokens": int(resp.Usage.TotalTokens)}}
		for _, tc := range chatCalls(ch.Message) {
			c.ToolCalls = append(c.ToolCalls, llms.ToolCall{ID: tc.id, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: tc.name, Arguments: tc.args}})
		}
		if len(c.ToolCalls) > 0 {
			c.FuncCall = c.ToolCalls[0].FunctionCall
		}
		out.Choices = append(out.Choices, c)
	}
	return out, nil
}

// Call implements the text-only method of llms.Model through
// GenerateContent.
func (m *correctionModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// toolChoice converts langchaingo's tool choice.
func toolChoice(v any) (openai.ChatCompletionToolChoiceOptionUnionParam, bool) {
	named := func(name string) (openai.ChatCompletionToolChoiceOptionUnionParam, bool) {
		return openai.ChatCompletionToolChoiceOptionUnionParam{OfFunctionToolChoice: &openai.ChatCompletionNamedToolChoiceParam{
			Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: name}}}, true
	}
	switch c := v.(type) {
	case string:
		switch c {
		case "":
			return openai.ChatCompletionToolChoiceOptionUnionParam{}, false
		case "auto", "none", "required":
			return openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(c)}, true
		}
		return named(c)
	case map[string]any:
		if f, ok := c["function"].(map[string]any); ok {
			if name, ok := f["name"].(string); ok && name != "" {
				return named(name)
			}
		}
	case llms.ToolChoice:
		if c.Function != nil && c.Function.Name != "" {
			return named(c.Function.Name)
		}
		if c.Type != "" {
			return toolChoice(c.Type)
		}
	case *llms.ToolChoice:
		if c != nil {
			return toolChoice(*c)
		}
	}
	return openai.ChatCompletionToolChoiceOptionUnionParam{}, false
}

// chatMessages converts langchaingo messages to chat messages: text, tool
// calls and tool results; other parts are left out.
func chatMessages(messages []llms.MessageContent) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(messages))
	for _, m := range messages {
		var text strings.Builder
		var calls []openai.ChatCompletionMessageToolCallUnionParam
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				text.WriteString(p.Text)
			case llms.ToolCall:
				if p.FunctionCall != nil {
					calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: p.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Arguments}}})
				}
			case llms.ToolCallResponse:
				out = append(out, openai.ToolMessage(p.Content, p.ToolCallID))
			}
		}
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			out = append(out, openai.SystemMessage(text.String()))
		case llms.ChatMessageTypeAI:
			a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
			if text.Len() > 0 {
				a.Content.OfString = openai.String(text.String())
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case llms.ChatMessageTypeTool:
			// its results were added above
		default:
			if text.Len() > 0 {
				out = append(out, openai.UserMessage(text.String()))
			}
		}
	}
	return out
}
