package saidexopenai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ChatTurn is what [Guard.RunChat] did with the tool calls of a chat
// completion choice.
type ChatTurn struct {
	// Messages are the messages to append to the conversation: the
	// assistant message, then one tool message per call, in call order.
	//
	// The assistant message is the choice's message as ToParam would give
	// it (content, refusal, audio id), with tool calls that carry the
	// arguments the node's sanitized history holds ([saidex.Result]
	// AIMessage): the repaired, corrected or salvaged JSON a call ran
	// with, secret values masked ([saidex.Secret]); the model's own
	// arguments when they were valid as sent; and, for a call answered
	// with feedback whose arguments are not one JSON object, the repaired
	// object or "{}". A call whose id repeats an earlier call's id is left
	// out, and not answered. Each tool message is
	// openai.ToolMessage(content, id) with the tool's output, the
	// feedback, or the error the node answers with.
	//
	// Messages is empty for a choice without tool calls.
	Messages []openai.ChatCompletionMessageParamUnion
	// Calls reports on every tool call of the choice, in order (see
	// [saidex.CallReport]).
	Calls []saidex.CallReport
}

// RunChat runs the node on the tool calls of choice, a choice of the
// completion the model returned for history (the messages sent), and
// returns the messages to append to history before the next request.
// Every call is repaired, validated and (with a correction model)
// corrected; the calls ready to run run on the node's tools, the others are
// answered with feedback; every call id gets exactly one tool message.
//
// When choice.FinishReason says that the output-token limit cut the reply
// ("length", see [saidex.IsOutputLimit]), no call runs: each is answered
// with a notice that asks for a shorter call ([saidex.OutcomeOutputLimit]).
// history is the context the correction prompt quotes and where the node
// recognises its own earlier feedback ([saidex.WithFeedbackLimit]); it may
// be nil. opts are passed to [saidex.ToolNode.Run].
//
// Errors are those of [saidex.ToolNode.Run]: a [*saidex.ToolError] when a
// tool fails and the node does not answer tool errors, a
// [*saidex.CanceledError] when ctx is done, and those returned before any
// call runs. No messages are returned with an error: appending some of the
// answers would leave call ids unanswered.
func (g *Guard) RunChat(ctx context.Context, history []openai.ChatCompletionMessageParamUnion, choice openai.ChatCompletionChoice, opts ...saidex.RunOption) (*ChatTurn, error) {
	calls := chatCalls(choice.Message)
	if len(calls) == 0 {
		return &ChatTurn{}, nil
	}
	if err := chatStopped(string(choice.FinishReason)); err != nil {
		return nil, err
	}
	conv, err := chatConversation(history, choice.Message.Content, calls)
	if err != nil {
		return nil, err
	}
	c, err := g.run(ctx, conv, calls, finishOptions(string(choice.FinishReason), opts))
	if err != nil {
		return nil, err
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, 1+len(calls))
	msgs = append(msgs, assistantParam(choice.Message, calls, c))
	for i := range calls {
		if c.keep[i] && c.reports[i].Outcome != saidex.OutcomeAlreadyAnswered {
			msgs = append(msgs, openai.ToolMessage(c.outputs[i], calls[i].id))
		}
	}
	return &ChatTurn{Messages: msgs, Calls: c.reports}, nil
}

// ChatCheck is what [Guard.CheckChat] found in the tool calls of a chat
// completion choice: the calls ready to run, and the answers of the
// others. Nothing ran.
type ChatCheck struct {
	// Assistant is the assistant message to append to the conversation:
	// the choice's message as ToParam would give it, whose tool calls carry
	// the arguments of Ready for the calls ready to run, and, for the
	// others, their arguments when they are one JSON object (secret values
	// masked) and "{}" otherwise. A call whose id repeats an earlier call's
	// id is left out. Unlike RunChat's, the arguments of a ready call hold
	// its secret values (see [saidex.Secret]) in clear, as Ready does: the
	// node masks only the arguments of calls it runs.
	Assistant openai.ChatCompletionMessageParamUnion
	// Ready are the calls to run, in call order, with the arguments to run
	// them with.
	Ready []ReadyCall
	// Answered are the calls that must not run, in call order, with the
	// content of their tool message.
	Answered []Answer
	// Calls reports on every tool call of the choice, in order; Output
	// holds the answer of a call that must not run.
	Calls []saidex.CallReport

	calls   []call
	checked *checked
}

// Messages returns Assistant followed by one tool message per call, in
// call order: outputs[id] for each ready call, the answer for the others.
// It returns an error wrapping [ErrNoOutput], and no messages, when outputs
// lacks the id of a ready call. A choice without tool calls gives no
// messages.
func (c *ChatCheck) Messages(outputs map[string]string) ([]openai.ChatCompletionMessageParamUnion, error) {
	if c.checked == nil {
		return nil, nil
	}
	answers, err := c.checked.assemble(c.calls, outputs)
	if err != nil {
		return nil, err
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, 1+len(answers))
	msgs = append(msgs, c.Assistant)
	for _, a := range answers {
		msgs = append(msgs, openai.ToolMessage(a.Content, a.ID))
	}
	return msgs, nil
}

// CheckChat runs the node's stages before execution (repair, validation,
// correction, the unresolved step) on the tool calls of choice and runs
// nothing: for a loop that runs its tools itself, as
// [saidex.ToolNode.Check] is for a langchaingo program. Run each call of
// Ready with its Arguments, then append [ChatCheck.Messages] of the
// outputs. history, the finish reason and opts are treated as by
// [Guard.RunChat]; a reply cut by the output-token limit has no ready
// call. Errors are those of [saidex.ToolNode.Check].
func (g *Guard) CheckChat(ctx context.Context, history []openai.ChatCompletionMessageParamUnion, choice openai.ChatCompletionChoice, opts ...saidex.RunOption) (*ChatCheck, error) {
	calls := chatCalls(choice.Message)
	if len(calls) == 0 {
		return &ChatCheck{}, nil
	}
	if err := chatStopped(string(choice.FinishReason)); err != nil {
		return nil, err
	}
	conv, err := chatConversation(history, choice.Message.Content, calls)
	if err != nil {
		return nil, err
	}
	c, err := g.check(ctx, conv, calls, finishOptions(string(choice.FinishReason), opts))
	if err != nil {
		return nil, err
	}
	return &ChatCheck{Assistant: assistantParam(choice.Message, calls, c), Ready: c.ready,
		Answered: c.answers, Calls: c.reports, calls: calls, checked: c}, nil
}

// chatCalls returns the tool calls of a message: function calls, and
// custom tool calls (name and free-text input). A call whose Type is empty
// is read as a function call.
func chatCalls(m openai.ChatCompletionMessage) []call {
	var calls []call
	for _, tc := range m.ToolCalls {
		if tc.Type == "custom" {
			calls = append(calls, call{id: tc.ID, name: tc.Custom.Name, args: tc.Custom.Input, custom: true})
			continue
		}
		calls = append(calls, call{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
	}
	return calls
}

// assistantParam is m as ToParam gives it, with the tool calls replayed
// with the arguments c gives them.
func assistantParam(m openai.ChatCompletionMessage, calls []call, c *checked) openai.ChatCompletionMessageParamUnion {
	p := m.ToAssistantMessageParam()
	p.ToolCalls = make([]openai.ChatCompletionMessageToolCallUnionParam, 0, len(calls))
	for i, tc := range calls {
		if !c.keep[i] {
			continue
		}
		if tc.custom {
			p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{ID: tc.id,
					Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: tc.name, Input: tc.args}}})
			continue
		}
		p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.id,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.name, Arguments: c.args[i]}}})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &p}
}

// chatConversation is history, converted, followed by the AI message of the
// reply.
func chatConversation(history []openai.ChatCompletionMessageParamUnion, text string, calls []call) ([]llms.MessageContent, error) {
	conv := make([]llms.MessageContent, 0, len(history)+1)
	names := map[string]string{} // call id -> tool name, for tool messages
	for i, m := range history {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("saidexopenai: history message %d: %w", i, err)
		}
		var w wireMessage
		if err := json.Unmarshal(b, &w); err != nil {
			return nil, fmt.Errorf("saidexopenai: history message %d: %w", i, err)
		}
		if lm, ok := w.langchain(names); ok {
			conv = append(conv, lm)
		}
	}
	return append(conv, aiMessage(text, calls)), nil
}

// wireMessage is a chat message as the API receives it.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
		Custom struct {
			Name  string `json:"name"`
			Input string `json:"input"`
		} `json:"custom"`
	} `json:"tool_calls"`
}

// langchain converts w; false for a message the node has no use for (the
// deprecated function role).
func (w wireMessage) langchain(names map[string]string) (llms.MessageContent, bool) {
	text := contentText(w.Content)
	switch w.Role {
	case "system", "developer":
		return llms.TextParts(llms.ChatMessageTypeSystem, text), true
	case "user":
		return llms.TextParts(llms.ChatMessageTypeHuman, text), true
	case "assistant":
		var calls []call
		for _, tc := range w.ToolCalls {
			c := call{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments}
			if tc.Type == "custom" {
				c = call{id: tc.ID, name: tc.Custom.Name, args: tc.Custom.Input, custom: true}
			}
			names[c.id] = c.name
			calls = append(calls, c)
		}
		return aiMessage(text, calls), true
	case "tool":
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: w.ToolCallID, Name: names[w.ToolCallID], Content: text},
		}}, true
	}
	return llms.MessageContent{}, false
}

// contentText is the text of a message's content: a string, or the text
// (and refusal) parts of an array.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	text := ""
	for _, p := range parts {
		text += p.Text + p.Refusal
	}
	return text
}
