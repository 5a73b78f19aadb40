package saidexopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openai/openai-go/v3/responses"
	"strings"

	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ReadyCall is a call that [Guard.CheckChat] or [Guard.CheckResponse] found
// ready to run: the caller runs it with Arguments and answers it by its id.
type ReadyCall struct {
	// Index is the call's position among the calls of the reply.
	Index int
	// ID is the call's id (tool_call_id, or the Responses API's call_id)
	// and Name its tool's name.
	ID, Name string
	// Arguments is the JSON to run the call with: the model's own
	// arguments when they were valid as sent, else the repaired, corrected
	// or salvaged ones (a plain tool's text as the node would pass it).
	// Secret values (see [saidex.Secret]) are in clear, since the caller
	// runs the call with them.
	Arguments string
}

// Answer is a call that must not run, with the text that answers it: the
// node's feedback (field-level issues the model can act on), the error
// naming the node's tools for an unknown tool, or the notice that the
// output-token limit cut the reply.
type Answer struct {
	// Index is the call's position among the calls of the reply.
	Index int
	// ID is the call's id.
	ID string
	// Content is the text of the call's tool message or output item.
	Content string
}

// call is one tool call of a reply, as the node sees it.
type call struct {
	id, name, args string
	custom         bool // a Chat Completions custom tool call: its input is never rewritten
}

// checked is what the node decided for the calls of one reply, in the
// form both APIs convert: per call, the arguments the replayed call carries
// (keep false for a dropped call, which is left out of the reply and gets no
// answer), and either an answer or readiness.
type checked struct {
	args    []string // the argument text the replayed call carries
	keep    []bool   // false for a dropped call
	ready   []ReadyCall
	answers []Answer
	outputs []string // Run: the content answering each kept call
	reports []saidex.CallReport
}

// aiMessage is the langchaingo AI message holding text and calls.
func aiMessage(text string, calls []call) llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if text != "" {
		ai.Parts = append(ai.Parts, llms.TextPart(text))
	}
	for _, c := range calls {
		typ := "function"
		if c.custom {
			typ = "custom"
		}
		ai.Parts = append(ai.Parts, llms.ToolCall{ID: c.id, Type: typ,
			FunctionCall: &llms.FunctionCall{Name: c.name, Arguments: c.args}})
	}
	return ai
}

// ErrIncompleteReply is returned, wrapped with the reason, for a reply
// with calls that stopped before it was complete for a reason other than
// the output-token limit (whose calls are answered instead, see
// [saidex.WithFinishReason]): Chat Completions' finish reason
// "content_filter", a Response whose status is "failed", "cancelled",
// "queued" or "in_progress", or "incomplete" for a reason other than
// max_output_tokens. Its calls may be cut or unfinished, so none runs and
// none is answered: the caller decides what the conversation becomes.
var ErrIncompleteReply = errors.New("saidexopenai: the reply stopped before it was complete")

// chatStopped returns the error of a Chat Completions reply that stopped
// early for a reason other than the output limit, nil otherwise.
func chatStopped(reason string) error {
	if reason == "content_filter" {
		return fmt.Errorf("%w: finish reason %q", ErrIncompleteReply, reason)
	}
	return nil
}

// responseStopped is chatStopped for a Response.
func responseStopped(resp *responses.Response) error {
	switch resp.Status {
	case "", "completed":
		return nil
	case "incomplete":
		if saidex.IsOutputLimit(string(resp.IncompleteDetails.Reason)) {
			return nil // answered as cut: WithFinishReason
		}
		return fmt.Errorf("%w: status incomplete (%q)", ErrIncompleteReply, resp.IncompleteDetails.Reason)
	}
	return fmt.Errorf("%w: status %q", ErrIncompleteReply, resp.Status)
}

// finishOptions passes the reply's finish reason to the node (cut.go's
// rule, shared by every adapter), before the caller's options.
func finishOptions(reason string, opts []saidex.RunOption) []saidex.RunOption {
	if reason == "" {
		return opts
	}
	return append([]saidex.RunOption{saidex.WithFinishReason(reason)}, opts...)
}

// run runs the node's tools on calls, the last message of conv, and
// returns each call's answer and replayed arguments.
func (g *Guard) run(ctx context.Context, conv []llms.MessageContent, calls []call, opts []saidex.RunOption) (*checked, error) {
	res, err := g.node.Run(ctx, conv, opts...)
	if err != nil {
		return nil, err
	}
	out := &checked{args: make([]string, len(calls)), keep: make([]bool, len(calls)),
		outputs: make([]string, len(calls)), reports: res.Calls}
	sanitized := toolCallArgs(res.AIMessage) // dropped calls removed
	msgs := res.ToolMessages
	for i, rep := range res.Calls {
		if rep.Outcome == saidex.OutcomeDropped {
			continue
		}
		out.keep[i] = true
		out.args[i] = calls[i].args
		if len(sanitized) > 0 {
			if !calls[i].custom {
				out.args[i] = sanitized[0]
			}
			sanitized = sanitized[1:]
		}
		if rep.Outcome == saidex.OutcomeAlreadyAnswered {
			continue
		}
		if len(msgs) == 0 {
			return nil, fmt.Errorf("saidexopenai: the node answered %d of the calls", i)
		}
		out.outputs[i] = toolResponse(msgs[0]).Content
		msgs = msgs[1:]
	}
	return out, nil
}

// check runs the node's stages before execution on calls, the last
// message of conv: a call ready to run is returned as such, with its
// clean arguments; every other call with its answer.
func (g *Guard) check(ctx context.Context, conv []llms.MessageContent, calls []call, opts []saidex.RunOption) (*checked, error) {
	reps, err := g.node.Check(ctx, conv, opts...)
	if err != nil {
		return nil, err
	}
	out := &checked{args: make([]string, len(calls)), keep: make([]bool, len(calls)), reports: reps}
	for i, rep := range reps {
		c := calls[i]
		switch rep.Outcome {
		case saidex.OutcomeDropped:
			continue
		case saidex.OutcomeExecuted, saidex.OutcomeCorrected, saidex.OutcomeSalvaged:
			args := c.args
			if rep.Arguments != nil && !c.custom {
				args = string(rep.Arguments)
			}
			out.args[i] = args
			out.ready = append(out.ready, ReadyCall{Index: i, ID: c.id, Name: c.name, Arguments: args})
		case saidex.OutcomeUnknownTool: // Output is the node's error naming its tools
			out.args[i] = replayable(call{args: rep.RawArguments, custom: c.custom})
			if c.custom {
				out.args[i] = c.args
			}
			out.answers = append(out.answers, Answer{Index: i, ID: c.id, Content: rep.Output})
		default: // feedback, feedback_limit, output_limit
			// RawArguments masks secret values: the replayed call keeps
			// them masked, as the node's sanitized history does.
			out.args[i] = replayable(call{args: rep.RawArguments, custom: c.custom})
			if c.custom {
				out.args[i] = c.args
			}
			out.answers = append(out.answers, Answer{Index: i, ID: c.id, Content: rep.Output})
		}
		out.keep[i] = true
	}
	sortAnswers(out.answers)
	return out, nil
}

// replayable returns the arguments a call that does not run keeps in the
// replayed reply: its own when they are one JSON object, else "{}", since
// an API or a client that reads the history back may refuse anything else
// (the answer quotes what was wrong). A custom call's input is free text,
// kept as sent.
func replayable(c call) string {
	if c.custom || isJSONObject(c.args) {
		return c.args
	}
	return "{}"
}

func isJSONObject(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(t, "{") && json.Valid([]byte(t))
}

func sortAnswers(a []Answer) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].Index < a[j-1].Index; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// toolCallArgs returns the arguments of the tool calls of m, in order.
func toolCallArgs(m llms.MessageContent) []string {
	var out []string
	for _, p := range m.Parts {
		switch tc := p.(type) {
		case llms.ToolCall:
			if tc.FunctionCall != nil {
				out = append(out, tc.FunctionCall.Arguments)
			} else {
				out = append(out, "{}")
			}
		case *llms.ToolCall:
			if tc != nil && tc.FunctionCall != nil {
				out = append(out, tc.FunctionCall.Arguments)
			} else if tc != nil {
				out = append(out, "{}")
			}
		}
	}
	return out
}

// toolResponse returns the response part of a tool message of the node.
func toolResponse(m llms.MessageContent) llms.ToolCallResponse {
	for _, p := range m.Parts {
		if r, ok := p.(llms.ToolCallResponse); ok {
			return r
		}
	}
	return llms.ToolCallResponse{}
}

// assemble returns, in call order, the answer of every kept call: outputs
// (by call id) for the ready calls, the answers for the others. It returns
// an error wrapping [ErrNoOutput] naming the ready calls outputs does not
// answer.
func (c *checked) assemble(calls []call, outputs map[string]string) ([]Answer, error) {
	answers := make([]Answer, 0, len(calls))
	var missing []string
	r, a := 0, 0
	for i := range calls {
		if !c.keep[i] {
			continue
		}
		switch {
		case r < len(c.ready) && c.ready[r].Index == i:
			out, ok := outputs[calls[i].id]
			if !ok {
				missing = append(missing, calls[i].id)
			}
			answers = append(answers, Answer{Index: i, ID: calls[i].id, Content: out})
			r++
		case a < len(c.answers) && c.answers[a].Index == i:
			answers = append(answers, c.answers[a])
			a++
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoOutput, strings.Join(missing, ", "))
	}
	return answers, nil
}
