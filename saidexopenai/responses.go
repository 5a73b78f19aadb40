package saidexopenai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
)

// ResponseTurn is what [Guard.RunResponse] did with the function calls of
// a Response.
type ResponseTurn struct {
	// Items are the Response's output items as input items, in order, for
	// a conversation whose history the program keeps itself (store false,
	// or no previous_response_id). Each function_call item carries the
	// arguments of the node's sanitized history (the repaired, corrected
	// or salvaged JSON a call ran with, secret values masked; the model's
	// own when valid as sent; "{}" for a call answered with feedback whose
	// arguments are not one JSON object), and keeps its id, call_id, name
	// and status. The function call's ToParam would replay the raw JSON
	// the API sent, the broken text included; these do not. A call whose
	// call_id repeats an earlier call's is left out, and not answered.
	// Other items (messages, reasoning) are replayed as received.
	Items []responses.ResponseInputItemUnionParam
	// Outputs holds one function_call_output item per call, in call order,
	// with the tool's output, the feedback, or the error the node answers
	// with. With previous_response_id, send Outputs alone: the API keeps
	// the calls as the model sent them.
	Outputs []responses.ResponseInputItemUnionParam
	// Calls reports on every function call of the Response, in order.
	Calls []saidex.CallReport
}

// Input returns Items followed by Outputs: the input items that follow
// the request's own input in the next request of a conversation kept by
// the program.
func (t *ResponseTurn) Input() []responses.ResponseInputItemUnionParam {
	return append(append(make([]responses.ResponseInputItemUnionParam, 0, len(t.Items)+len(t.Outputs)), t.Items...), t.Outputs...)
}

// RunResponse runs the node on the function_call output items of resp, the
// Response the model returned for history (the input items sent; nil with
// previous_response_id or a string input), and returns the items of the
// next request. Every call is repaired, validated and (with a correction
// model) corrected; the calls ready to run run on the node's tools, the
// others are answered with feedback; every call_id gets exactly one
// function_call_output.
//
// A Response incomplete because of its output-token limit
// (incomplete_details.reason "max_output_tokens", see
// [saidex.IsOutputLimit]) runs none of its calls: each is answered with a
// notice that asks for a shorter call. history and opts are as for
// [Guard.RunChat], and so are the errors; no items are returned with an
// error.
func (g *Guard) RunResponse(ctx context.Context, history []responses.ResponseInputItemUnionParam, resp *responses.Response, opts ...saidex.RunOption) (*ResponseTurn, error) {
	if resp == nil {
		return &ResponseTurn{}, nil
	}
	calls, text := responseCalls(resp)
	if len(calls) == 0 {
		return &ResponseTurn{}, nil
	}
	if err := responseStopped(resp); err != nil {
		return nil, err
	}
	conv, err := responseConversation(history, text, calls)
	if err != nil {
		return nil, err
	}
	c, err := g.run(ctx, conv, calls, finishOptions(responseReason(resp), opts))
	if err != nil {
		return nil, err
	}
	items, err := replayItems(resp, c)
	if err != nil {
		return nil, err
	}
	turn := &ResponseTurn{Items: items, Calls: c.reports}
	for i, cl := range calls {
		if !c.keep[i] || c.reports[i].Outcome == saidex.OutcomeAlreadyAnswered {
			continue
		}
		out, err := functionCallOutput(cl.id, c.outputs[i])
		if err != nil {
			return nil, err
		}
		turn.Outputs = append(turn.Outputs, out)
	}
	return turn, nil
}

// ResponseCheck is what [Guard.CheckResponse] found in the function calls
// of a Response: the calls ready to run, and the answers of the others.
// Nothing ran.
type ResponseCheck struct {
	// Items are the Response's output items as input items, as
	// [ResponseTurn].Items, whose function_call items carry the arguments
	// of Ready for the calls ready to run and, for the others, their
	// arguments when they are one JSON object (secret values masked) and
	// "{}" otherwise.
	Items []responses.ResponseInputItemUnionParam
	// Ready are the calls to run, in call order, with the arguments to run
	// them with.
	Ready []ReadyCall
	// Answered are the calls that must not run, in call order, with the
	// output to answer them with.
	Answered []Answer
	// Calls reports on every function call of the Response, in order.
	Calls []saidex.CallReport

	calls   []call
	checked *checked
}

// Outputs returns one function_call_output item per call, in call order:
// outputs[call_id] for each ready call, the answer for the others. It
// returns an error wrapping [ErrNoOutput], and no items, when outputs lacks
// the call_id of a ready call. Send Items followed by them, or them alone
// with previous_response_id.
func (c *ResponseCheck) Outputs(outputs map[string]string) ([]responses.ResponseInputItemUnionParam, error) {
	if c.checked == nil {
		return nil, nil
	}
	answers, err := c.checked.assemble(c.calls, outputs)
	if err != nil {
		return nil, err
	}
	items := make([]responses.ResponseInputItemUnionParam, 0, len(answers))
	for _, a := range answers {
		it, err := functionCallOutput(a.ID, a.Content)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// CheckResponse runs the node's stages before execution on the function
// calls of resp and runs nothing, as [Guard.CheckChat] does for a chat
// completion: run each call of Ready with its Arguments, then send the
// Items and [ResponseCheck.Outputs] of the outputs. history, the
// incomplete reason and opts are treated as by [Guard.RunResponse].
// Errors are those of [saidex.ToolNode.Check].
func (g *Guard) CheckResponse(ctx context.Context, history []responses.ResponseInputItemUnionParam, resp *responses.Response, opts ...saidex.RunOption) (*ResponseCheck, error) {
	if resp == nil {
		return &ResponseCheck{}, nil
	}
	calls, text := responseCalls(resp)
	if len(calls) == 0 {
		return &ResponseCheck{}, nil
	}
	if err := responseStopped(resp); err != nil {
		return nil, err
	}
	conv, err := responseConversation(history, text, calls)
	if err != nil {
		return nil, err
	}
	c, err := g.check(ctx, conv, calls, finishOptions(responseReason(resp), opts))
	if err != nil {
		return nil, err
	}
	items, err := replayItems(resp, c)
	if err != nil {
		return nil, err
	}
	return &ResponseCheck{Items: items, Ready: c.ready, Answered: c.answers, Calls: c.reports,
		calls: calls, checked: c}, nil
}

// responseReason is the reason an incomplete Response stopped, "" for a
// complete one.
func responseReason(resp *responses.Response) string {
	if resp.Status != "incomplete" {
		return ""
	}
	return string(resp.IncompleteDetails.Reason)
}

// responseCalls returns the function calls of resp and the text of its
// output messages.
func responseCalls(resp *responses.Response) ([]call, string) {
	var calls []call
	text := ""
	for _, it := range resp.Output {
		switch it.Type {
		case "function_call":
			fc := it.AsFunctionCall()
			calls = append(calls, call{id: fc.CallID, name: fc.Name, args: fc.Arguments})
		case "message":
			for _, c := range it.AsMessage().Content {
				if c.Type == "output_text" {
					text += c.Text
				}
			}
		}
	}
	return calls, text
}

// replayItems returns the output items of resp as input items, the
// function calls with the arguments c gives them.
func replayItems(resp *responses.Response, c *checked) ([]responses.ResponseInputItemUnionParam, error) {
	items := make([]responses.ResponseInputItemUnionParam, 0, len(resp.Output))
	k := 0
	for _, it := range resp.Output {
		raw := json.RawMessage(it.RawJSON())
		if len(raw) == 0 {
			b, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("saidexopenai: output item: %w", err)
			}
			raw = b
		}
		if it.Type != "function_call" {
			items = append(items, param.Override[responses.ResponseInputItemUnionParam](raw))
			continue
		}
		i := k
		k++
		if !c.keep[i] {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("saidexopenai: function_call item: %w", err)
		}
		args, _ := json.Marshal(c.args[i])
		fields["arguments"] = args
		b, err := json.Marshal(fields)
		if err != nil {
			return nil, fmt.Errorf("saidexopenai: function_call item: %w", err)
		}
		item, err := inputItem(b)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// functionCallOutput is the function_call_output item answering callID.
// It is built through the SDK's JSON decoding because the type of its
// CallID field changed inside v3 (string, then param.Opt[string]).
func functionCallOutput(callID, output string) (responses.ResponseInputItemUnionParam, error) {
	b, err := json.Marshal(map[string]string{"type": "function_call_output", "call_id": callID, "output": output})
	if err != nil {
		return responses.ResponseInputItemUnionParam{}, err
	}
	return inputItem(b)
}

func inputItem(b []byte) (responses.ResponseInputItemUnionParam, error) {
	var item responses.ResponseInputItemUnionParam
	if err := json.Unmarshal(b, &item); err != nil {
		return item, fmt.Errorf("saidexopenai: input item: %w", err)
	}
	return item, nil
}

// responseConversation is history, converted, followed by the AI message
// of the Response.
func responseConversation(history []responses.ResponseInputItemUnionParam, text string, calls []call) ([]llms.MessageContent, error) {
	conv := make([]llms.MessageContent, 0, len(history)+1)
	names := map[string]string{}
	var pending []call // consecutive function_call items form one AI message
	flush := func() {
		if len(pending) > 0 {
			conv = append(conv, aiMessage("", pending))
			pending = nil
		}
	}
	for i, it := range history {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("saidexopenai: history item %d: %w", i, err)
		}
		var w struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return nil, fmt.Errorf("saidexopenai: history item %d: %w", i, err)
		}
		switch {
		case w.Type == "function_call":
			names[w.CallID] = w.Name
			pending = append(pending, call{id: w.CallID, name: w.Name, args: w.Arguments})
			continue
		case w.Type == "function_call_output":
			flush()
			conv = append(conv, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: w.CallID, Name: names[w.CallID], Content: contentText(w.Output)},
			}})
			continue
		case w.Type == "message" || (w.Type == "" && w.Role != ""):
			flush()
			wm := wireMessage{Role: w.Role, Content: w.Content}
			if lm, ok := wm.langchain(names); ok {
				conv = append(conv, lm)
			}
		}
	}
	flush()
	return append(conv, aiMessage(text, calls)), nil
}
