// Package saidexeino guards the tool calls of github.com/cloudwego/eino
// agents with saidex: the compose.ToolsNode of a graph, of the ReAct agent
// (flow/agent/react) and of the ADK ChatModelAgent repairs, validates and
// (optionally) corrects every call against the tool's schema before the
// tool runs, and answers a call that stays invalid, an unknown tool and
// (optionally) a tool error with a tool message instead of failing the
// node.
//
//	g, err := saidexeino.New(ctx, []tool.BaseTool{weather}, saidex.WithHandleToolErrors(true))
//	if err != nil {
//		return err
//	}
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: g.Model(chatModel), // optional: repaired arguments in the history
//		ToolsConfig:      g.ToolsNodeConfig(),
//	})
//
// Nothing of the pipeline is written here: every call goes through a
// [saidex.ToolNode] built from the Eino tools (their schema is
// Info(ctx).ParamsOneOf as JSON Schema), which runs repair, validation,
// correction, the unresolved step and the tool-error policy, and whose
// executor is the Eino tool endpoint. Every [saidex.Option] applies.
//
// It is a module of its own, so that programs that use saidex without Eino
// do not depend on Eino.
package saidexeino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Guard holds the saidex node that checks the calls of a set of Eino
// tools, and hands out what an Eino ToolsNode needs to use it. It is safe
// for concurrent use; one Guard serves any number of ToolsNodes and runs.
type Guard struct {
	node  *saidex.ToolNode
	tools []tool.BaseTool
	known map[string]bool
	cut   cutIDs // ids of calls of replies the output limit cut (cut.go)
}

// New returns the Guard of tools. It reads every tool's Info(ctx): the
// tool's name, its description and its ParamsOneOf, converted to the JSON
// Schema its calls are validated against (a tool whose ParamsOneOf is nil
// takes any JSON object). Tools made by utils.InferTool and tools with a
// hand-written schema.ToolInfo (NewParamsOneOfByParams or
// NewParamsOneOfByJSONSchema) both work.
//
// opts configure the node as for [saidex.NewToolNode]; for example
// saidex.WithHandleToolErrors(true) answers a tool error with an
// "Error: …" tool message instead of failing the Eino node, and
// saidex.WithCorrectionModel([ChatModel](m)) corrects invalid calls with an
// Eino chat model. An Eino interrupt (compose.Interrupt,
// compose.StatefulInterrupt) returned by a tool always propagates
// unchanged; returned by a validator or an unresolved hook it is an
// interrupt of the node (saidex.ErrInterrupt), unless opts hold a
// saidex.WithInterruptErrors of their own, which replaces that test.
//
// It returns an error wrapping [saidex.ErrInvalidConfig] for an invalid
// option, a nil tool, an empty or duplicate name, or a schema that does not
// compile, and the error of a tool's Info or of its ParamsOneOf conversion.
func New(ctx context.Context, ts []tool.BaseTool, opts ...saidex.Option) (*Guard, error) {
	g := &Guard{tools: slices.Clone(ts), known: make(map[string]bool, len(ts))}
	lc := make([]tools.Tool, 0, len(ts))
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("%w: tool %d is nil", saidex.ErrInvalidConfig, i)
		}
		info, err := t.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("saidexeino: tool %d: Info: %w", i, err)
		}
		if info == nil {
			return nil, fmt.Errorf("%w: tool %d: Info returned no ToolInfo", saidex.ErrInvalidConfig, i)
		}
		s, err := jsonSchema(info)
		if err != nil {
			return nil, fmt.Errorf("saidexeino: tool %q: %w", info.Name, err)
		}
		lc = append(lc, &einoTool{name: info.Name, desc: info.Desc, schema: s})
		g.known[info.Name] = true
	}
	// Eino interrupts from validators and hooks are interrupts; an option
	// of the caller's own replaces the test.
	all := append([]saidex.Option{saidex.WithInterruptErrors(isEinoInterrupt)}, opts...)
	node, err := saidex.NewToolNode(lc, all...)
	if err != nil {
		return nil, err
	}
	g.node = node
	return g, nil
}

// jsonSchema returns the tool's parameters as JSON Schema.
func jsonSchema(info *schema.ToolInfo) (json.RawMessage, error) {
	if info.ParamsOneOf == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil {
		return nil, fmt.Errorf("ParamsOneOf to JSON Schema: %w", err)
	}
	if js == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(js)
	if err != nil {
		return nil, fmt.Errorf("ParamsOneOf to JSON Schema: %w", err)
	}
	return b, nil
}

// Node returns the saidex node that checks the calls: for its Definitions
// (the schemas it validates against), or to run it on langchaingo messages.
// Its tools run only inside an Eino ToolsNode configured by the Guard; a
// call run elsewhere fails with an error.
func (g *Guard) Node() *saidex.ToolNode { return g.node }

// ToolsNodeConfig returns the configuration of an Eino ToolsNode that runs
// the Guard's tools through saidex: Tools are the tools given to [New],
// ToolCallMiddlewares holds [Guard.Middleware] and UnknownToolsHandler is
// [Guard.UnknownToolsHandler]. Set ExecuteSequentially, or add middlewares,
// on the result as usual: middlewares appended after the Guard's see the
// repaired arguments. Pass it to compose.NewToolNode (its address:
// cfg := g.ToolsNodeConfig(); compose.NewToolNode(ctx, &cfg)), to
// react.AgentConfig.ToolsConfig or to adk.ToolsConfig.ToolsNodeConfig.
//
// Eino keeps doing what its ToolsNode does: it runs the calls of a message
// in parallel (one goroutine per call after the first) unless
// ExecuteSequentially is set, and each call goes through the Guard on its
// own goroutine, so saidex's WithMaxConcurrency does not bound it; it
// builds the tool messages, in call order, one per call id; it runs a
// ToolArgumentsHandler, if one is set, before the Guard sees the arguments,
// and an error from that handler still fails the node.
func (g *Guard) ToolsNodeConfig() compose.ToolsNodeConfig {
	return compose.ToolsNodeConfig{
		Tools:               slices.Clone(g.tools),
		UnknownToolsHandler: g.UnknownToolsHandler,
		ToolCallMiddlewares: []compose.ToolMiddleware{g.Middleware()},
	}
}

// Middleware returns the tool-call middleware that checks each call before
// its tool runs, for invokable, streamable and enhanced tools alike. For a
// call of one of the Guard's tools it runs the saidex node's stages before
// execution on that call ([saidex.ToolNode.CheckCall]): repair, validation,
// correction (with a correction model) and the unresolved step. Then
//
//   - a call ready to run goes on to the next endpoint (the tool, or the
//     next middleware) with the repaired or corrected arguments, or with
//     the model's own when they were valid as sent;
//   - a call that stays invalid is answered with saidex's field-level
//     feedback as its tool message (a one-element stream for a streamable
//     tool), and its tool never runs;
//   - a tool error, or a panic in the tool (recovered into a
//     *saidex.PanicError), is answered with a tool message when the node's
//     options say so (saidex.WithHandleToolErrors,
//     saidex.WithToolErrorFormatter); otherwise the error is returned and
//     fails the Eino node, as it does without the Guard. An Eino interrupt
//     is always returned unchanged.
//
// A call of a reply that [Guard.Model] saw cut by the output-token limit
// (its ResponseMeta.FinishReason, see saidex.WithFinishReason) never runs:
// the middleware knows it by its call id, which the Guard remembers for
// the last 4,096 such calls, and answers it with feedback that says the
// reply was cut. Without Guard.Model, or for a call without an id, the
// middleware cannot see the finish reason.
//
// A streamable tool is checked before it starts: the stream it returns is
// passed on as is, and an error inside that stream is Eino's to handle. A
// call of a tool the Guard does not know (one added with
// compose.WithToolList at run time) passes through unchecked.
//
// The correction prompt quotes no conversation (a middleware sees one
// call): to correct with the conversation as context, and to give the next
// model call the repaired arguments, also wrap the model with
// [Guard.Model]. The node's observers (saidex.WithObserver) get no events
// from the middleware, which runs no [saidex.ToolNode.Run], except for a
// tool error, which is answered by one.
func (g *Guard) Middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return guarded(g, next, func(text string) *compose.ToolOutput {
				return &compose.ToolOutput{Result: text}
			})
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return guarded(g, next, func(text string) *compose.StreamToolOutput {
				return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{text})}
			})
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return guarded(g, next, func(text string) *compose.EnhancedInvokableToolOutput {
				return &compose.EnhancedInvokableToolOutput{Result: textResult(text)}
			})
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return guarded(g, next, func(text string) *compose.EnhancedStreamableToolOutput {
				return &compose.EnhancedStreamableToolOutput{
					Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(text)}),
				}
			})
		},
	}
}

// guarded is the middleware's endpoint for each kind of tool: next runs
// the call, answer turns the text of a tool message into the kind's output.
// A call of a tool the Guard does not know passes through; any other goes
// through the node's stages before execution and then runs, or is
// answered.
func guarded[O any](g *Guard, next func(context.Context, *compose.ToolInput) (*O, error), answer func(string) *O) func(context.Context, *compose.ToolInput) (*O, error) {
	return func(ctx context.Context, in *compose.ToolInput) (out *O, err error) {
		cut := g.cut.options(in.CallID) // cut.go
		if !g.known[in.Name] && cut == nil {
			return next(ctx, in)
		}
		chk, err := g.node.CheckCall(ctx, in.CallID, in.Name, in.Arguments, cut...)
		if err != nil {
			return nil, err
		}
		if !chk.Ready() { // feedback
			return answer(chk.Output), nil
		}
		run := in
		if chk.Arguments != in.Arguments {
			cp := *in
			cp.Arguments = chk.Arguments
			run = &cp
		}
		defer func() {
			if v := recover(); v != nil {
				out, err = afterToolError(ctx, g, answer, run, &saidex.PanicError{Value: v, Stack: debug.Stack()})
			}
		}()
		if out, err = next(ctx, run); err != nil {
			return afterToolError(ctx, g, answer, run, err)
		}
		return out, nil
	}
}

// afterToolError answers the tool error err of the call in: an Eino
// interrupt is returned unchanged, any other error as the node answers it.
func afterToolError[O any](ctx context.Context, g *Guard, answer func(string) *O, in *compose.ToolInput, err error) (*O, error) {
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return nil, err
	}
	text, err := g.answerToolError(ctx, in, err)
	if err != nil {
		return nil, err
	}
	return answer(text), nil
}

func textResult(text string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: text}}}
}

// oneCall is the AI message holding the call of in alone.
func oneCall(in *compose.ToolInput) []llms.MessageContent {
	return []llms.MessageContent{{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
		ID: in.CallID, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: in.Name, Arguments: in.Arguments},
	}}}}
}

// answerToolError answers the tool error err of the call in as the node
// does: its text, or the error that fails the Eino node (err itself when
// the node does not answer tool errors). The node runs the call, whose
// tool returns err.
func (g *Guard) answerToolError(ctx context.Context, in *compose.ToolInput, err error) (string, error) {
	res, rerr := g.node.Run(context.WithValue(ctx, failKey{}, err), oneCall(in))
	if rerr != nil {
		if errors.Is(rerr, err) {
			return "", err // as Eino would have seen it
		}
		return "", rerr
	}
	return res.Calls[0].Output, nil
}

// UnknownToolsHandler answers a call of a tool the ToolsNode does not have
// with the saidex node's message naming its tools, instead of failing the
// node: "Error: NAME is not a valid tool, try one of [a, b]." (with more
// than 20 tools, the 5 whose names are closest and the count), or, for a
// call of an answer cut by the output limit (see [Guard.Middleware]), with
// the output-limit feedback. Its error is nil unless ctx is done.
func (g *Guard) UnknownToolsHandler(ctx context.Context, name, input string) (string, error) {
	id := compose.GetToolCallID(ctx)
	res, err := g.node.Run(ctx, oneCall(&compose.ToolInput{Name: name, Arguments: input, CallID: id}), g.cut.options(id)...) // cut.go
	if err != nil {
		return "", err
	}
	return res.Calls[0].Output, nil
}

type failKey struct{}

// einoTool is an Eino tool as the saidex node sees it: its name,
// description and schema. The middleware runs the tool itself; the node
// runs a call only to answer the error the tool returned, which Call
// returns.
type einoTool struct {
	name, desc string
	schema     json.RawMessage
}

func (t *einoTool) Name() string        { return t.name }
func (t *einoTool) Description() string { return t.desc }
func (t *einoTool) Schema() any         { return t.schema }

// errOutsideToolsNode is returned by the tools of [Guard.Node] when they
// are called outside an Eino ToolsNode configured by the Guard.
var errOutsideToolsNode = errors.New("saidexeino: the tool runs only inside an Eino ToolsNode configured by its Guard")

// Call returns the error of the call in progress.
func (t *einoTool) Call(ctx context.Context, _ string) (string, error) {
	if err, ok := ctx.Value(failKey{}).(error); ok {
		return "", err
	}
	return "", errOutsideToolsNode
}

// isEinoInterrupt reports whether err is an Eino interrupt.
func isEinoInterrupt(err error) bool {
	_, ok := compose.IsInterruptRerunError(err)
	return ok
}
