// Package saidexanthropic guards the tool loop of a program that calls
// Claude with github.com/anthropics/anthropic-sdk-go/v2: every tool_use
// block of a reply goes through saidex's pipeline (repair, validation,
// correction, resolve, execute) and is answered by exactly one
// tool_result, all of them in one user message, as the Messages API
// requires.
//
// A stock loop json.Unmarshals each tool_use input, and on an error either
// stops or skips the call, leaving its id unanswered so that the next
// request fails with HTTP 400. With a [Guard], the loop appends what
// [Guard.Run] returns instead:
//
//	g, err := saidexanthropic.New(node) // node: a *saidex.ToolNode of your tools
//	...
//	params.Tools = g.Tools()
//	for {
//		msg, err := client.Messages.New(ctx, params)
//		if err != nil {
//			return err
//		}
//		turn, err := g.Run(ctx, params.Messages, msg)
//		if err != nil {
//			return err
//		}
//		params.Messages = append(params.Messages, turn.Messages()...)
//		if len(turn.Calls) == 0 {
//			break // no tool_use: msg is the answer
//		}
//	}
//
// [Guard.Check] is the form for a loop that runs its calls itself: it
// returns the calls that are ready, with the arguments to run them with,
// and the feedback for the others; [NewChecker] builds a Guard for it from
// the request's own tool definitions. [Accumulator] replaces
// Message.Accumulate for a streamed reply ([Guard.RunStream],
// [Guard.CheckStream]), [BetaTools] guards the tools of the SDK's beta
// tool runner, and [CorrectionModel] lets Claude correct invalid calls
// through the same client (saidex.WithCorrectionModel), with no
// langchaingo model.
//
// A reply whose stop_reason says the output-token limit cut it
// ("max_tokens", see [saidex.IsOutputLimit]) runs none of its calls: each
// is answered with feedback saying so (see [saidex.WithFinishReason]).
//
// It is a module of its own, so that programs that use saidex without the
// Anthropic SDK do not depend on it. Tested with anthropic-sdk-go/v2
// v2.17.0 and v2.18.0.
package saidexanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ErrNoMessage is returned by the methods of [Guard] given a nil message
// or accumulator.
var ErrNoMessage = errors.New("saidexanthropic: no message")

// Guard answers the tool_use blocks of Claude's replies with a
// [saidex.ToolNode]. It is safe for concurrent use; one Guard serves any
// number of conversations.
type Guard struct {
	node *saidex.ToolNode
}

// New returns the Guard of node, whose tools are the ones the model may
// call: [Guard.Run] executes them, [Guard.Check] only checks calls
// against their schemas. Every [saidex.Option] of the node applies, for
// example saidex.WithHandleToolErrors(true), which answers a tool error
// with an is_error tool_result instead of failing the run. It returns an
// error wrapping [saidex.ErrInvalidConfig] for a nil node.
func New(node *saidex.ToolNode) (*Guard, error) {
	if node == nil {
		return nil, fmt.Errorf("%w: saidexanthropic.New: nil node", saidex.ErrInvalidConfig)
	}
	return &Guard{node: node}, nil
}

// Node returns the Guard's node.
func (g *Guard) Node() *saidex.ToolNode { return g.node }

// Tools returns the node's tools as the tool definitions of a request
// (anthropic.MessageNewParams.Tools), so that the model sees the schemas
// the calls are validated against (see [saidex.ToolNode.Definitions]).
func (g *Guard) Tools() []anthropic.ToolUnionParam {
	defs := g.node.Definitions()
	out := make([]anthropic.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		if d.Function == nil {
			continue
		}
		tp := anthropic.ToolParam{Name: d.Function.Name, InputSchema: inputSchema(d.Function.Parameters)}
		if d.Function.Description != "" {
			tp.Description = anthropic.String(d.Function.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out
}

// inputSchema converts a JSON Schema object to the SDK's input schema: its
// properties and required, and its other keywords as extra fields. The
// schema goes through encoding/json first: the SDK's encoder writes a
// json.Number (as the node's schemas hold numbers) as a string, which
// would send "maximum": "14".
func inputSchema(params any) anthropic.ToolInputSchemaParam {
	var m map[string]any
	b, err := json.Marshal(params)
	if err != nil || json.Unmarshal(b, &m) != nil {
		return anthropic.ToolInputSchemaParam{}
	}
	var s anthropic.ToolInputSchemaParam
	for k, v := range m {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			req, _ := v.([]any)
			for _, r := range req {
				if name, ok := r.(string); ok {
					s.Required = append(s.Required, name)
				}
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s
}

// Turn is what [Guard.Run] did with one reply: the two messages to append
// to the conversation, and a report per call.
type Turn struct {
	// Assistant is the reply as the param to send back (msg.ToParam()),
	// with the input of every tool_use block that ran replaced by the
	// arguments its tool received (repaired, corrected or coerced, as
	// canonical JSON; arguments valid as sent are kept verbatim) and
	// secret values masked (see [saidex.Secret]); a call answered with
	// feedback keeps its input when it is a JSON object and gets the
	// repaired object, or {}, otherwise, so the Messages API accepts the
	// history. ToParam alone would send the model's input again, since it
	// re-decodes the reply's raw JSON. A tool_use whose id repeats an
	// earlier block's id is removed (it is not run or answered; a warning
	// is logged).
	Assistant anthropic.MessageParam
	// Results is the user message holding one tool_result per tool_use
	// block of Assistant, in order: the tool's output, or with is_error the feedback,
	// the unknown-tool error or the tool error the node answered with.
	// It is the zero MessageParam when the reply has no tool_use block.
	Results anthropic.MessageParam
	// Calls reports what happened to each tool_use block of the reply, in
	// order, a removed one included (see [saidex.CallReport]); empty when
	// the reply has none.
	Calls []saidex.CallReport
}

// Messages returns the messages to append to the conversation: Assistant,
// and Results when the reply had tool_use blocks.
func (t *Turn) Messages() []anthropic.MessageParam {
	if len(t.Calls) == 0 {
		return []anthropic.MessageParam{t.Assistant}
	}
	return []anthropic.MessageParam{t.Assistant, t.Results}
}

// Run handles the tool_use blocks of msg, a reply to a request whose
// conversation was history (params.Messages, without msg): it runs the
// node on them, executing the calls that are valid or could be made valid
// and answering the others with feedback, and returns the patched reply
// and the tool results to append. history gives the correction model its
// context and lets the node recognise a call it answered before (see
// [saidex.WithFeedbackLimit]); it may be nil. A reply cut by the output
// limit (msg.StopReason "max_tokens") runs no call (see
// [saidex.WithFinishReason]). A reply without tool_use blocks is returned
// as its param alone, and nothing runs.
//
// Errors are those of [saidex.ToolNode.Run] (a tool error the node is not
// configured to answer, a cancelled ctx, ...), with no Turn; and
// [ErrNoMessage] for a nil msg.
func (g *Guard) Run(ctx context.Context, history []anthropic.MessageParam, msg *anthropic.Message) (*Turn, error) {
	if msg == nil {
		return nil, ErrNoMessage
	}
	return g.run(ctx, history, fromMessage(msg))
}

func (g *Guard) run(ctx context.Context, history []anthropic.MessageParam, r reply) (*Turn, error) {
	turn := &Turn{Assistant: r.msg.ToParam()}
	ai, blocks := r.aiMessage()
	if len(blocks) == 0 {
		return turn, nil
	}
	if err := stopped(r.msg.StopReason); err != nil {
		return nil, err
	}
	conv := append(historyMessages(history), ai)
	res, err := g.node.Run(ctx, conv, saidex.WithFinishReason(string(r.msg.StopReason)))
	if err != nil {
		return nil, err
	}
	turn.Calls = res.Calls
	sanitized := toolCallArguments(res.AIMessage) // dropped calls removed
	inputs := make([]json.RawMessage, len(blocks))
	j := 0
	for k, rep := range res.Calls {
		if rep.Outcome == saidex.OutcomeDropped {
			continue
		}
		if j < len(sanitized) && sanitized[j].id == rep.ID {
			inputs[k] = objectOr(sanitized[j].args, nil)
		}
		j++
	}
	turn.Assistant = patch(turn.Assistant, blocks, res.Calls, inputs)
	results := make([]anthropic.ContentBlockParamUnion, 0, len(res.Calls))
	for _, rep := range res.Calls {
		if rep.Outcome == saidex.OutcomeDropped {
			continue
		}
		results = append(results, resultBlock(rep.ID, rep.Output, rep.IsError))
	}
	turn.Results = anthropic.NewUserMessage(results...)
	return turn, nil
}

// CheckedCall is what [Guard.Check] decided for one tool_use block.
type CheckedCall struct {
	// ID and Name are the tool_use block's id and tool name.
	ID, Name string
	// Outcome is saidex.OutcomeExecuted, OutcomeCorrected or
	// OutcomeSalvaged for a call ready to run (see [CheckedCall.Ready]),
	// and otherwise why it must not run: feedback, feedback_limit,
	// output_limit or unknown_tool.
	Outcome saidex.Outcome
	// Input is the JSON a ready call runs with: the model's input when it
	// was valid as sent, else the repaired, corrected or salvaged
	// arguments; secret values in clear, since the caller runs the call.
	// nil when the call is not ready, and for a plain tool (one without a
	// schema) whose input is not JSON: Report.RawArguments holds it.
	Input json.RawMessage
	// Feedback is the text to answer a call that is not ready with, as an
	// is_error tool_result: the node's feedback, or for a tool the node
	// does not have, its error naming the tools.
	Feedback string
	// Report is the node's report on the call (see [saidex.ToolNode.Check]).
	Report saidex.CallReport
}

// Ready reports whether the call may run, with Input.
func (c CheckedCall) Ready() bool {
	return c.Outcome.Ready()
}

// Checked is what [Guard.Check] found in one reply.
type Checked struct {
	// Assistant is the reply as the param to send back, with the input of
	// every ready call replaced by its Input when that is a JSON object
	// (as it runs: secret values in clear, since the caller runs it); any
	// other call keeps its input, secret values masked, when that is a JSON
	// object, and gets {} otherwise. A tool_use whose id repeats an earlier
	// block's id is removed.
	Assistant anthropic.MessageParam
	// Calls holds one entry per tool_use block, in order, but for the
	// removed ones.
	Calls []CheckedCall
}

// Results returns the user message answering every call of c, in order:
// a call that is not ready with its Feedback (is_error), a ready one with
// what answer returns for it (run the call there, or look up a result
// computed beforehand). answer is called once per ready call, in order.
// It returns the zero MessageParam when c has no call.
func (c *Checked) Results(answer func(call CheckedCall) (content string, isError bool)) anthropic.MessageParam {
	if len(c.Calls) == 0 {
		return anthropic.MessageParam{}
	}
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(c.Calls))
	for _, call := range c.Calls {
		if !call.Ready() {
			blocks = append(blocks, resultBlock(call.ID, call.Feedback, true))
			continue
		}
		content, isError := answer(call)
		blocks = append(blocks, resultBlock(call.ID, content, isError))
	}
	return anthropic.NewUserMessage(blocks...)
}

// Check runs the stages before execution (repair, validation, correction,
// the unresolved step) on the tool_use blocks of msg and executes
// nothing: the caller runs the ready calls itself and answers all of them
// with [Checked.Results]. history and the output limit are as for
// [Guard.Run].
//
// Errors are those of [saidex.ToolNode.Check], and [ErrNoMessage] for a
// nil msg.
func (g *Guard) Check(ctx context.Context, history []anthropic.MessageParam, msg *anthropic.Message) (*Checked, error) {
	if msg == nil {
		return nil, ErrNoMessage
	}
	return g.check(ctx, history, fromMessage(msg))
}

func (g *Guard) check(ctx context.Context, history []anthropic.MessageParam, r reply) (*Checked, error) {
	out := &Checked{Assistant: r.msg.ToParam()}
	ai, blocks := r.aiMessage()
	if len(blocks) == 0 {
		return out, nil
	}
	if err := stopped(r.msg.StopReason); err != nil {
		return nil, err
	}
	conv := append(historyMessages(history), ai)
	opt := saidex.WithFinishReason(string(r.msg.StopReason))
	reports, err := g.node.Check(ctx, conv, opt)
	if err != nil {
		return nil, err
	}
	inputs := make([]json.RawMessage, len(blocks))
	for k, rep := range reports {
		if rep.Outcome == saidex.OutcomeDropped {
			continue
		}
		call := CheckedCall{ID: rep.ID, Name: rep.Name, Outcome: rep.Outcome, Report: rep}
		switch {
		case call.Ready():
			call.Input = rep.Arguments
			inputs[k] = objectOr(rep.Arguments, nil)
		default: // feedback of any kind, or an unknown tool's error

			call.Feedback = rep.Output
			inputs[k] = objectOr(json.RawMessage(rep.RawArguments), json.RawMessage(`{}`)) // secret values masked
		}
		out.Calls = append(out.Calls, call)
	}
	out.Assistant = patch(out.Assistant, blocks, reports, inputs)
	return out, nil
}

// reply is a message and the input text of each of its tool_use blocks.
type reply struct {
	msg    *anthropic.Message
	inputs map[int]string // content index -> input text, when it is not the block's Input
}

func fromMessage(msg *anthropic.Message) reply { return reply{msg: msg} }

// aiMessage returns the reply as the AI message the node runs on (its
// text and tool_use blocks, in order) and the content index of each
// tool_use block.
func (r reply) aiMessage() (llms.MessageContent, []int) {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	var blocks []int
	for i, b := range r.msg.Content {
		switch b.Type {
		case "text":
			if b.Text != "" {
				ai.Parts = append(ai.Parts, llms.TextPart(b.Text))
			}
		case "tool_use":
			input, ok := r.inputs[i]
			if !ok {
				input = string(b.Input)
			}
			ai.Parts = append(ai.Parts, llms.ToolCall{ID: b.ID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: b.Name, Arguments: input}})
			blocks = append(blocks, i)
		}
	}
	return ai, blocks
}

// patch returns p, the param of a reply, with the input of the tool_use
// block at blocks[k] set to inputs[k] when that is not nil, and the blocks
// of dropped calls removed.
func patch(p anthropic.MessageParam, blocks []int, reports []saidex.CallReport, inputs []json.RawMessage) anthropic.MessageParam {
	if p.OfAssistant == nil {
		return p
	}
	content := slices.Clone(p.OfAssistant.Content)
	drop := map[int]bool{}
	for k, i := range blocks {
		if i >= len(content) || content[i].OfToolUse == nil {
			continue
		}
		if k < len(reports) && reports[k].Outcome == saidex.OutcomeDropped {
			drop[i] = true
			continue
		}
		tu := *content[i].OfToolUse // a copy: the caller's message stays as it was
		switch {
		case inputs[k] != nil:
			tu.Input = inputs[k]
		case !isObject(tu.Input):
			tu.Input = json.RawMessage(`{}`)
		}
		content[i].OfToolUse = &tu
	}
	if len(drop) > 0 {
		kept := content[:0:0]
		for i, b := range content {
			if !drop[i] {
				kept = append(kept, b)
			}
		}
		content = kept
	}
	a := *p.OfAssistant
	a.Content = content
	return anthropic.MessageParam{OfAssistant: &a}
}

// isObject reports whether the input of a tool_use param marshals to a
// JSON object.
func isObject(input any) bool {
	b, ok := input.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(input); err != nil {
			return false
		}
	}
	return objectOr(b, nil) != nil
}

// objectOr returns b when it is a JSON object, else def.
func objectOr(b json.RawMessage, def json.RawMessage) json.RawMessage {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) > 0 && t[0] == '{' && json.Valid(b) {
		return b
	}
	return def
}

// resultBlock returns a tool_result answering id with content. An empty
// content is sent as no content block, since the API refuses an empty
// text block.
func resultBlock(id, content string, isError bool) anthropic.ContentBlockParamUnion {
	if content != "" {
		return anthropic.NewToolResultBlock(id, content, isError)
	}
	r := anthropic.ToolResultBlockParam{ToolUseID: id}
	if isError {
		r.IsError = anthropic.Bool(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &r}
}

type sanitizedCall struct {
	id   string
	args json.RawMessage
}

// toolCallArguments returns the id and arguments of every tool call of ai,
// in order.
func toolCallArguments(ai llms.MessageContent) []sanitizedCall {
	var out []sanitizedCall
	for _, p := range ai.Parts {
		var tc llms.ToolCall
		switch v := p.(type) {
		case llms.ToolCall:
			tc = v
		case *llms.ToolCall:
			if v == nil {
				continue
			}
			tc = *v
		default:
			continue
		}
		var args json.RawMessage
		if tc.FunctionCall != nil {
			args = json.RawMessage(tc.FunctionCall.Arguments)
		}
		out = append(out, sanitizedCall{id: tc.ID, args: args})
	}
	return out
}

// ErrIncompleteReply is returned, wrapped with the stop reason, for a reply
// with tool_use blocks that the model stopped for a reason that leaves its
// calls unfinished other than the output limit (whose calls are answered
// instead, see saidex.WithFinishReason): "refusal", as the SDK's own tool
// runner refuses to run calls after it. Nothing ran, nothing is answered:
// the caller decides what the conversation becomes.
var ErrIncompleteReply = errors.New("saidexanthropic: the reply stopped before it was complete")

// stopped returns the error of a reply stopped early for a reason other
// than the output limit, nil otherwise.
func stopped(reason anthropic.StopReason) error {
	if reason == "refusal" {
		return fmt.Errorf("%w: stop reason %q", ErrIncompleteReply, reason)
	}
	return nil
}
