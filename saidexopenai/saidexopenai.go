// Package saidexopenai guards the tool calls of a tool loop written with
// OpenAI's own Go SDK, github.com/openai/openai-go/v3, with saidex: every
// call is repaired, validated and (with a correction model) corrected
// against its tool's schema, and every call id gets exactly one answer, so
// the next request is one the API accepts.
//
// The stock loop decodes Message.ToolCalls[i].Function.Arguments itself
// (the SDK's own example panics when that fails), answers the calls it
// knows, and leaves any other call id unanswered, which fails the next
// request with HTTP 400. With a [Guard] the loop becomes:
//
//	g, err := saidexopenai.New(node) // node: a *saidex.ToolNode of saidex tools
//	if err != nil {
//		return err
//	}
//	params.Tools = g.ChatTools()
//	completion, err := client.Chat.Completions.New(ctx, params)
//	if err != nil {
//		return err
//	}
//	turn, err := g.RunChat(ctx, params.Messages, completion.Choices[0])
//	if err != nil {
//		return err
//	}
//	params.Messages = append(params.Messages, turn.Messages...)
//
// Nothing of the pipeline is written here: [Guard.RunChat] and
// [Guard.CheckChat] hand the choice's calls to the node as a langchaingo AI
// message ([saidex.ToolNode.Run], [saidex.ToolNode.Check]) and convert what
// it returns back to openai-go params. The same holds for the Responses API
// ([Guard.RunResponse], [Guard.CheckResponse]), for streamed chat
// completions ([Guard.NewChatStream]) and for the correction model
// ([CorrectionModel]), so that a raw-SDK program needs no langchaingo
// model.
//
// A reply cut by the output-token limit (finish_reason "length", or a
// Response incomplete for "max_output_tokens") runs none of its calls: the
// finish reason goes to the node with [saidex.WithFinishReason], whose rule
// ([saidex.IsOutputLimit]) is the one every saidex adapter shares.
//
// Supported versions: github.com/openai/openai-go/v3 from v3.1.0 through
// v3.105.0, the newest the module proxy served when this was written. The
// module's go.mod pins v3.102.0; its tests also pass against v3.1.0,
// v3.53.0 (the last whose function_call_output CallID is a string),
// v3.54.0 (the first where it is a param.Opt[string], and
// ResponseInputItemParamOfFunctionCallOutput lost its callID parameter)
// and v3.105.0, with the module files in testdata:
//
//	go test -modfile=testdata/go.openai-v3.1.0.mod ./...
//
// Fields whose type changed inside v3 are set through the SDK's own JSON
// decoding of the item, so the same code builds against every version.
//
// It is a module of its own, so that programs that use saidex without
// openai-go do not depend on it.
package saidexopenai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go"
)

// Guard runs a [saidex.ToolNode] on the tool calls of openai-go replies. It
// holds nothing but the node and is safe for concurrent use, as the node
// is.
type Guard struct {
	node *saidex.ToolNode
}

// New returns the Guard of node, whose tools are the ones the model may
// call. It returns an error wrapping [saidex.ErrInvalidConfig] for a nil
// node.
func New(node *saidex.ToolNode) (*Guard, error) {
	if node == nil {
		return nil, fmt.Errorf("%w: saidexopenai: nil ToolNode", saidex.ErrInvalidConfig)
	}
	return &Guard{node: node}, nil
}

// Node returns the node the Guard runs.
func (g *Guard) Node() *saidex.ToolNode { return g.node }

// ChatTools returns the node's tools as Chat Completions tool definitions,
// for ChatCompletionNewParams.Tools: each is a function tool whose
// parameters are the schema the node validates against (see
// [saidex.ToolNode.Definitions]; a plain tool without a schema takes one
// string parameter "__arg1"). Strict mode is not set: saidex checks the
// arguments itself.
func (g *Guard) ChatTools() []openai.ChatCompletionToolUnionParam {
	defs := g.node.Definitions()
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(defs))
	for _, d := range defs {
		f := openai.FunctionDefinitionParam{Name: d.Function.Name, Parameters: parameters(d.Function.Parameters)}
		if d.Function.Description != "" {
			f.Description = openai.String(d.Function.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(f))
	}
	return out
}

// ResponseTools returns the node's tools as Responses API function tools,
// for ResponseNewParams.Tools, with the same parameters as [Guard.ChatTools]
// and strict mode off.
func (g *Guard) ResponseTools() []responses.ToolUnionParam {
	defs := g.node.Definitions()
	out := make([]responses.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		t := responses.ToolParamOfFunction(d.Function.Name, parameters(d.Function.Parameters), false)
		if d.Function.Description != "" {
			t.OfFunction.Description = openai.String(d.Function.Description)
		}
		out = append(out, t)
	}
	return out
}

// parameters returns a definition's parameters as the map openai-go takes
// (Definitions always gives one). The schema goes through encoding/json
// first: the SDK's encoder writes a json.Number (as the node's schemas hold
// numbers) as a string, which would send "maximum": "14", a schema OpenAI
// refuses.
func parameters(p any) map[string]any {
	var m map[string]any
	b, err := json.Marshal(p)
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	return m
}

// ErrNoOutput is the error of [ChatCheck.Messages] and
// [ResponseCheck.Input] when the outputs given do not answer a call that is
// ready to run: the API rejects a conversation with an unanswered call id.
var ErrNoOutput = errors.New("saidexopenai: no output for a call ready to run")
