package saidex

import (
	"context"
	"maps"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// WrapModel returns an llms.Model that checks the tool calls of every
// response of m right after the model call, before any consumer sees them.
// It is for consumers that dispatch tool calls one by one and so never show
// a tool node the whole AI message; it works with any consumer of
// llms.Model.
//
// GenerateContent calls m, then takes the tool calls of all choices of the
// response together as one AI message (the conversation sent to m before
// it, for context) and runs node's stages before execution on them: repair,
// validation, correction, and the unresolved step. Nothing is executed. The
// response returned is a copy (m's response is not modified) in which:
//
//   - a call that is ready to execute carries clean arguments: its
//     Arguments are the repaired, corrected or salvaged JSON;
//   - a call that stays invalid keeps the model's arguments unchanged, so a
//     node that receives it (node.Invoke, a state graph's node, an agent.Agent)
//     reaches the same verdict and answers it with feedback instead of
//     executing it, and its feedback can quote what the model sent;
//   - no other field changes: ids, names and Type stay as the model sent
//     them, so the history stays acceptable to the provider (a response the
//     output limit cut also gets a notice in its Content, see below).
//
// What WrapModel found is attached to each choice that has tool calls and
// read with [CheckedCalls]: one [CallReport] per tool call, whose Outcome
// is feedback (or feedback_limit) for a call that must not run (its Output
// is the feedback text to answer it with), unknown_tool for a call naming
// a tool the node does not have (its Output is the error a node answers it
// with), and otherwise says where the arguments of a call ready to run
// came from: [OutcomeReady] (the model's own, possibly repaired; nothing
// ran), corrected or salvaged.
// Calls whose id repeats an earlier id are reported dropped and left in
// place. When a choice's StopReason says the output-token limit cut the
// response ([IsOutputLimit]), every call is reported [OutcomeOutputLimit],
// keeps its arguments, and carries in Output the feedback to answer it
// with (see [WithFinishReason]); a node that receives such a call without
// the finish reason still refuses it, because WrapModel appends a notice
// line to the Content of the first choice with tool calls ("[saidex: the
// output-token limit cut this reply off, so none of its tool calls was
// executed]"): a [ToolNode] that runs an AI message whose text ends with
// that line answers every call of it as [WithFinishReason] does. The
// notice also tells the model, in the next turn, why its calls did not
// run.
//
// With [WithTextToolCalls](true), a response without tool calls whose
// text holds calls of the node's tools written out as text gets them as
// tool calls first (see [ToolNode.TextToolCalls]), and they are checked
// like any other.
//
// A downstream node checks the calls again: that costs little for valid
// calls, but a call WrapModel left invalid goes through the node's
// correction model and unresolved hook once more. WrapModel runs without
// graph state, so validators that need state may judge differently there;
// the node's verdict is the one that counts.
//
// Errors: those of m; and those the node is configured to return before
// execution (a *ToolCallValidationError with the raise policy, an
// interrupt, ctx), in which case no response is returned.
func WrapModel(m llms.Model, node *ToolNode) llms.Model {
	return &checkedModel{inner: m, node: node}
}

type checkedModel struct {
	inner llms.Model
	node  *ToolNode
}

// GenerateContent calls the wrapped model and checks the tool calls of its
// response. See [WrapModel].
func (w *checkedModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := w.inner.GenerateContent(ctx, messages, options...)
	if err != nil || resp == nil {
		return resp, err
	}
	return w.node.checkResponse(ctx, messages, resp)
}

// Call implements the deprecated text-only method of llms.Model through
// GenerateContent.
func (w *checkedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, w, prompt, options...)
}

// checkedCallsKey is the GenerationInfo key of the reports WrapModel
// attaches to a choice.
const checkedCallsKey = "saidex.checked_calls"

// CheckedCalls returns the reports [WrapModel] attached to a choice: one
// per entry of choice.ToolCalls, in order. ok is false for a choice that
// WrapModel did not check (it has no tool calls, or comes from another
// model).
func CheckedCalls(choice *llms.ContentChoice) (reports []CallReport, ok bool) {
	if choice == nil {
		return nil, false
	}
	reports, ok = choice.GenerationInfo[checkedCallsKey].([]CallReport)
	return reports, ok
}

// checkResponse runs the stages before execution on the tool calls of all
// choices of resp and returns the checked copy.
func (n *ToolNode) checkResponse(ctx context.Context, messages []llms.MessageContent, resp *llms.ContentResponse) (*llms.ContentResponse, error) {
	resp = n.promoteTextCalls(resp) // textcalls.go: WithTextToolCalls
	type loc struct{ choice, index int }
	var locs []loc
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	var calls []llms.ContentPart
	var opts []RunOption
	for i, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if opts == nil && IsOutputLimit(ch.StopReason) {
			opts = []RunOption{WithFinishReason(ch.StopReason)} // cut.go
		}
		if ch.Content != "" {
			ai.Parts = append(ai.Parts, llms.TextPart(ch.Content))
		}
		for j, tc := range ch.ToolCalls {
			calls = append(calls, tc)
			locs = append(locs, loc{i, j})
		}
	}
	if len(locs) == 0 {
		return resp, nil
	}
	ai.Parts = append(ai.Parts, calls...)
	conv := make([]llms.MessageContent, 0, len(messages)+1)
	conv = append(append(conv, messages...), ai)
	reports, cs, err := n.checkCalls(ctx, conv, newRunConfig(opts)) // reports masked; the calls carry the arguments to run
	if err != nil {
		return nil, err
	}

	out := &llms.ContentResponse{Choices: slices.Clone(resp.Choices)}
	marked := false // the output-limit notice is on one choice
	for i, ch := range resp.Choices {
		if ch == nil || len(ch.ToolCalls) == 0 {
			continue
		}
		cp := *ch
		cp.ToolCalls = slices.Clone(ch.ToolCalls)
		cp.GenerationInfo = maps.Clone(ch.GenerationInfo)
		if cp.GenerationInfo == nil {
			cp.GenerationInfo = map[string]any{}
		}
		cp.GenerationInfo[checkedCallsKey] = make([]CallReport, 0, len(ch.ToolCalls))
		if opts != nil && !marked {
			if cp.Content == "" {
				cp.Content = outputLimitNotice // cut.go
			} else {
				cp.Content += "\n\n" + outputLimitNotice
			}
			marked = true
		}
		out.Choices[i] = &cp
	}
	for k, rep := range reports {
		l := locs[k]
		ch := out.Choices[l.choice]
		if rep.Outcome == OutcomeExecuted {
			rep.Outcome = OutcomeReady // nothing ran
		}
		if c := cs[k]; c.status == statusValid && c.runArguments() != nil {
			if args := c.args; args != c.raw {
				old := ch.ToolCalls[l.index]
				tc := old
				tc.FunctionCall = &llms.FunctionCall{Name: old.FunctionCall.Name, Arguments: args}
				ch.ToolCalls[l.index] = tc
				if resp.Choices[l.choice].FuncCall == old.FunctionCall {
					// openai mirrors the first tool call in the legacy field.
					ch.FuncCall = tc.FunctionCall
				}
			}
		}
		ch.GenerationInfo[checkedCallsKey] = append(ch.GenerationInfo[checkedCallsKey].([]CallReport), rep)
	}
	return out, nil
}
