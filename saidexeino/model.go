package saidexeino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ChatModel returns m as the llms.Model that saidex.WithCorrectionModel
// takes, so that an Eino chat model corrects invalid calls and no
// langchaingo model is needed:
//
//	g, err := saidexeino.New(ctx, tools, saidex.WithCorrectionModel(saidexeino.ChatModel(small)))
//
// GenerateContent converts the messages (text, tool calls and tool results)
// to Eino messages and calls m.Generate. The tool that saidex's default
// correction mode (saidex.CorrectionToolCalling) binds is given to m with
// WithTools when m is a model.ToolCallingChatModel, else as the
// model.WithTools call option, and forced with model.WithToolChoice.
// llms.WithModel, WithTemperature, WithMaxTokens, WithTopP and
// WithStopWords become the Eino options of the same name; other options
// are ignored. The answer's text and tool calls come back in one choice,
// with the token usage of its ResponseMeta under GenerationInfo's
// PromptTokens, CompletionTokens and TotalTokens, where saidex counts them.
func ChatModel(m model.BaseChatModel) llms.Model {
	return &chatModel{m: m}
}

type chatModel struct{ m model.BaseChatModel }

// GenerateContent calls the Eino model. See [ChatModel].
func (c *chatModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	if c.m == nil {
		return nil, errors.New("saidexeino: ChatModel of a nil model")
	}
	var co llms.CallOptions
	for _, o := range options {
		o(&co)
	}
	opts, infos, err := einoOptions(co)
	if err != nil {
		return nil, err
	}
	m := c.m
	if len(infos) > 0 {
		if tc, ok := m.(model.ToolCallingChatModel); ok {
			bound, err := tc.WithTools(infos)
			if err != nil {
				return nil, fmt.Errorf("saidexeino: bind the correction tool: %w", err)
			}
			m = bound
		} else {
			opts = append(opts, model.WithTools(infos))
		}
	}
	out, err := m.Generate(ctx, toEino(messages), opts...)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{}}}, nil
	}
	ch := &llms.ContentChoice{Content: out.Content}
	for _, tc := range out.ToolCalls {
		ch.ToolCalls = append(ch.ToolCalls, llms.ToolCall{ID: tc.ID, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
	}
	if meta := out.ResponseMeta; meta != nil {
		ch.StopReason = meta.FinishReason
		if u := meta.Usage; u != nil {
			ch.GenerationInfo = map[string]any{
				"PromptTokens": u.PromptTokens, "CompletionTokens": u.CompletionTokens, "TotalTokens": u.TotalTokens,
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{ch}}, nil
}

// Call implements the text-only method of llms.Model through
// GenerateContent.
func (c *chatModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, options...)
}

// einoOptions converts the langchaingo call options to Eino's, and the
// tools to bind.
func einoOptions(co llms.CallOptions) ([]model.Option, []*schema.ToolInfo, error) {
	var opts []model.Option
	if co.Model != "" {
		opts = append(opts, model.WithModel(co.Model))
	}
	if co.Temperature != 0 {
		opts = append(opts, model.WithTemperature(float32(co.Temperature)))
	}
	if co.MaxTokens != 0 {
		opts = append(opts, model.WithMaxTokens(co.MaxTokens))
	}
	if co.TopP != 0 {
		opts = append(opts, model.WithTopP(float32(co.TopP)))
	}
	if len(co.StopWords) > 0 {
		opts = append(opts, model.WithStop(co.StopWords))
	}
	var infos []*schema.ToolInfo
	var names []string
	for _, t := range co.Tools {
		if t.Function == nil {
			continue
		}
		info := &schema.ToolInfo{Name: t.Function.Name, Desc: t.Function.Description}
		if t.Function.Parameters != nil {
			b, err := json.Marshal(t.Function.Parameters)
			if err != nil {
				return nil, nil, fmt.Errorf("saidexeino: tool %q: parameters: %w", t.Function.Name, err)
			}
			js := new(jsonschema.Schema)
			if err := json.Unmarshal(b, js); err != nil {
				return nil, nil, fmt.Errorf("saidexeino: tool %q: parameters: %w", t.Function.Name, err)
			}
			info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(js)
		}
		infos = append(infos, info)
		names = append(names, info.Name)
	}
	if co.ToolChoice != nil && len(names) > 0 {
		opts = append(opts, model.WithToolChoice(schema.ToolChoiceForced, names...))
	}
	return opts, infos, nil
}

// toEino converts langchaingo messages to Eino messages: text, tool calls
// and tool results; other parts (images, binary data) are left out.
func toEino(messages []llms.MessageContent) []*schema.Message {
	out := make([]*schema.Message, 0, len(messages))
	for _, m := range messages {
		var text string
		var calls []schema.ToolCall
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				text += p.Text
			case llms.ToolCall:
				if p.FunctionCall != nil {
					calls = append(calls, schema.ToolCall{ID: p.ID, Type: "function",
						Function: schema.FunctionCall{Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Arguments}})
				}
			case llms.ToolCallResponse:
				out = append(out, schema.ToolMessage(p.Content, p.ToolCallID, schema.WithToolName(p.Name)))
			}
		}
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			out = append(out, schema.SystemMessage(text))
		case llms.ChatMessageTypeAI:
			out = append(out, schema.AssistantMessage(text, calls))
		case llms.ChatMessageTypeTool:
			// its results were added above
		default:
			if text != "" {
				out = append(out, schema.UserMessage(text))
			}
		}
	}
	return out
}

// fromEino converts Eino messages to langchaingo messages: text, tool
// calls and tool results, for the correction prompt's context.
func fromEino(messages []*schema.Message) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(messages)+1)
	for _, m := range messages {
		if m == nil {
			continue
		}
		switch m.Role {
		case schema.System:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, m.Content))
		case schema.User:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, m.Content))
		case schema.Tool:
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.ToolName, Content: m.Content},
			}})
		case schema.Assistant:
			out = append(out, aiMessage(m))
		}
	}
	return out
}

// aiMessage converts an Eino assistant message.
func aiMessage(m *schema.Message) llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if m.Content != "" {
		ai.Parts = append(ai.Parts, llms.TextPart(m.Content))
	}
	for _, tc := range m.ToolCalls {
		ai.Parts = append(ai.Parts, llms.ToolCall{ID: tc.ID, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
	}
	return ai
}

// Model wraps an Eino chat model so that the assistant message it returns
// carries the repaired (and, with a correction model, corrected) arguments
// of its tool calls: the message that an agent keeps in its history, and
// that the next model call sees, is then as clean as the call the tool ran
// with, as the sanitized history of a saidex ToolNode is. Pass it where the
// agent takes its model (react.AgentConfig.ToolCallingModel,
// adk.ChatModelAgentConfig.Model).
//
// Generate calls m, then runs the Guard's stages before execution
// ([saidex.ToolNode.Check]) on the tool calls of the answer, with the input
// messages as the correction prompt's context, and returns a copy of the
// answer in which each call that is ready to run carries its clean
// arguments. A call that stays invalid keeps the model's arguments, so that
// the ToolsNode reaches the same verdict and answers it with feedback that
// quotes what the model sent; ids, names and every other field are left as
// they were. m's own message is not modified. The ToolsNode's middleware
// checks every call again: a call already clean costs only its validation,
// but one left invalid goes through correction again. An error of the
// check (a raise policy, an interrupt) is returned instead of the answer.
//
// With saidex.WithTextToolCalls(true), an answer without tool calls whose
// text holds calls of the Guard's tools (<tool_call>…</tool_call> and the
// other formats that option lists) is returned with them as tool calls,
// each with a fresh id, and their text out of Content.
//
// When out.ResponseMeta.FinishReason says the output-token limit cut the
// answer (saidex.IsOutputLimit), no call is cleaned and the Guard
// remembers the calls' ids, so that its middleware answers each of them
// with the output-limit feedback instead of running it (see
// saidex.WithFinishReason).
//
// Stream is m's stream, unchecked: the history of a streaming agent keeps
// the model's arguments, while the ToolsNode still checks and answers
// every call. WithTools binds the tools on m and wraps the result.
func (g *Guard) Model(m model.ToolCallingChatModel) model.ToolCallingChatModel {
	return &checkedModel{m: m, g: g}
}

type checkedModel struct {
	m model.ToolCallingChatModel
	g *Guard
}

// Generate calls the model and checks the tool calls of its answer. See
// [Guard.Model].
func (c *checkedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := c.m.Generate(ctx, input, opts...)
	if err != nil || out == nil {
		return out, err
	}
	if len(out.ToolCalls) == 0 {
		out = c.g.textToolCalls(out)
	}
	if len(out.ToolCalls) == 0 {
		return out, nil
	}
	conv := append(fromEino(input), aiMessage(out))
	reason := c.g.cut.add(out) // cut.go: the middleware refuses these calls too
	reps, err := c.g.node.Check(ctx, conv, saidex.WithFinishReason(reason))
	if err != nil {
		return nil, err
	}
	var clean *schema.Message
	for i, rep := range reps {
		if !rep.Outcome.Ready() || rep.Arguments == nil || string(rep.Arguments) == rep.RawArguments {
			continue
		}
		if clean == nil {
			cp := *out
			cp.ToolCalls = slices.Clone(out.ToolCalls)
			clean = &cp
		}
		clean.ToolCalls[i].Function.Arguments = string(rep.Arguments)
	}
	if clean == nil {
		return out, nil
	}
	return clean, nil
}

// textToolCalls returns out with the tool calls written in its text as
// tool calls (saidex.WithTextToolCalls), or out itself when there are
// none. out is not modified.
func (g *Guard) textToolCalls(out *schema.Message) *schema.Message {
	calls, rest := g.node.TextToolCalls(out.Content)
	if calls == nil {
		return out
	}
	cp := *out
	cp.Content, cp.ToolCalls = rest, make([]schema.ToolCall, len(calls))
	for i, c := range calls {
		cp.ToolCalls[i] = schema.ToolCall{ID: c.ID, Type: c.Type,
			Function: schema.FunctionCall{Name: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments}}
	}
	return &cp
}

// Stream returns the model's stream, unchecked. See [Guard.Model].
func (c *checkedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return c.m.Stream(ctx, input, opts...)
}

// WithTools binds tools on the wrapped model and wraps the result.
func (c *checkedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m, err := c.m.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &checkedModel{m: m, g: c.g}, nil
}
