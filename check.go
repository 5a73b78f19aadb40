package saidex

import (
	"context"

	"github.com/tmc/langchaingo/llms"
)

// Check runs the stages before execution (repair, validation, correction
// and the unresolved step) on the tool calls of the last message of
// messages, which must be an AI message, and returns one [CallReport] per
// tool call, in order. Nothing is executed. It is what [WrapModel] runs on
// a response, for a caller that executes the calls itself, one at a time
// (a framework's per-call tool middleware, for example): the messages
// before the AI message are the conversation the correction prompt may
// quote, and messages may be just the AI message.
//
// A report's Outcome says what to do with its call:
//
//   - executed, corrected or salvaged: the call is ready to run; Arguments
//     holds the JSON to run it with (the model's own arguments when they
//     were valid as sent, else the repaired, corrected or salvaged ones;
//     nil for a plain tool whose input is not JSON, which runs with
//     RawArguments);
//   - feedback: the call must not run; Output is the feedback text to
//     answer it with;
//   - unknown_tool: the call names a tool the node does not have (the node
//     answers such a call with an error naming its tools; Output is empty);
//   - dropped: the call repeats an earlier call's id (see [ToolNode]).
//
// Check runs without graph state, as WrapModel does, and its reports carry
// no durations. Errors: [ErrNoAIMessage] when the last message is not an
// AI message; ctx.Err(); and those the node returns before execution (a
// *ToolCallValidationError with the raise policy, an interrupt, an
// unresolved hook's error).
func (n *ToolNode) Check(ctx context.Context, messages []llms.MessageContent) ([]CallReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ai := len(messages) - 1
	if ai < 0 || messages[ai].Role != llms.ChatMessageTypeAI {
		return nil, ErrNoAIMessage
	}
	r := &run{messages: messages, aiIndex: ai}
	calls := n.collect(messages[ai])
	if err := n.prepare(ctx, r, calls); err != nil {
		return nil, err
	}
	reports := make([]CallReport, len(calls))
	for i, c := range calls {
		reports[i] = c.report()
		if c.status == statusValid {
			reports[i].Arguments = c.jsonArguments() // nil for an unknown tool
		}
	}
	return reports, nil
}
