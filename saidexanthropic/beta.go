package saidexanthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/tools"
)

// FeedbackError is the error a tool of [BetaTools] returns for a call that
// must not run: its input does not match the tool's schema and could not
// be repaired or corrected (Outcome saidex.OutcomeFeedback, or
// OutcomeFeedbackLimit). The beta tool runner answers it with an is_error
// tool_result whose text is "Error: " followed by Error(): the node's
// feedback, which names each field to fix.
type FeedbackError struct {
	// Tool is the tool's name.
	Tool string
	// Outcome is why the call did not run.
	Outcome saidex.Outcome
	// Feedback is the node's feedback text, as [saidex.CallCheck].Output
	// holds it.
	Feedback string
}

// Error returns Feedback without its leading "Error: ", which the runner
// adds again.
func (e *FeedbackError) Error() string {
	return strings.TrimPrefix(e.Feedback, "Error: ")
}

// BetaTools returns the tools ts, each wrapped so that its Execute first
// checks the input the beta tool runner gives it (from
// client.Beta.Messages.NewToolRunner) with a [saidex.ToolNode] built from
// the tools' own InputSchema: it repairs, validates and (with
// saidex.WithCorrectionModel) corrects the input, then runs the tool's
// Execute with the arguments that passed (the model's own when they were
// valid as sent), or returns a [*FeedbackError] without running it. The
// runner answers that error with an is_error tool_result holding the
// feedback, so the model can send the call again, fixed. The SDK's own
// runner only json.Unmarshals the input: a call that breaks the schema
// reaches the tool, and an unmarshal error is answered with a bare Go
// error text.
//
// The wrapped tools keep their name, description and InputSchema. opts
// configure the node as for [saidex.NewToolNode] (coercion, validators,
// correction, ...). The runner already runs no call of a reply whose stop
// reason is max_tokens, and answers a call of a tool it does not have.
//
// It returns an error wrapping [saidex.ErrInvalidConfig] for a nil tool, a
// duplicate or invalid name, a schema that does not compile, or an
// invalid option.
func BetaTools(ts []anthropic.BetaTool, opts ...saidex.Option) ([]anthropic.BetaTool, error) {
	schemaTools := make([]tools.Tool, 0, len(ts))
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("%w: beta tool %d is nil", saidex.ErrInvalidConfig, i)
		}
		schema, err := json.Marshal(t.InputSchema())
		if err != nil {
			return nil, fmt.Errorf("%w: beta tool %q: its InputSchema does not marshal: %w", saidex.ErrInvalidConfig, t.Name(), err)
		}
		schemaTools = append(schemaTools, &schemaTool{name: t.Name(), desc: t.Description(), schema: schema})
	}
	node, err := saidex.NewToolNode(schemaTools, opts...)
	if err != nil {
		return nil, err
	}
	out := make([]anthropic.BetaTool, len(ts))
	for i, t := range ts {
		out[i] = &guardedBetaTool{BetaTool: t, node: node}
	}
	return out, nil
}

// guardedBetaTool is a BetaTool whose Execute checks its input first.
type guardedBetaTool struct {
	anthropic.BetaTool
	node *saidex.ToolNode
}

// Execute checks input with the node and runs the tool with the
// arguments that passed, or returns a *FeedbackError. See [BetaTools].
func (t *guardedBetaTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	name := t.Name()
	c, err := t.node.CheckCall(ctx, "", name, string(input))
	if err != nil {
		return nil, err
	}
	if !c.Ready() {
		return nil, &FeedbackError{Tool: name, Outcome: c.Outcome, Feedback: c.Output}
	}
	return t.BetaTool.Execute(ctx, json.RawMessage(c.Arguments))
}

// NewChecker returns a Guard whose node knows the tools of defs, the tool
// definitions of a request (anthropic.MessageNewParams.Tools), by their
// input_schema: for a loop that runs its calls itself and keeps its tool
// definitions as the SDK writes them. Use [Guard.Check] and
// [Guard.CheckStream] with it; its node cannot execute a call, so
// [Guard.Run] answers each valid call with a tool error (an is_error
// tool_result with saidex.WithHandleToolErrors(true), else the run's
// error). Definitions other than custom tools (OfTool), such as server
// tools, are left out: their calls are unknown tools to the node.
//
// opts configure the node as for [saidex.NewToolNode]. It returns an
// error wrapping [saidex.ErrInvalidConfig] for a duplicate or invalid
// name, a schema that does not compile, or an invalid option.
func NewChecker(defs []anthropic.ToolUnionParam, opts ...saidex.Option) (*Guard, error) {
	ts := make([]tools.Tool, 0, len(defs))
	for _, d := range defs {
		tp := d.OfTool
		if tp == nil {
			continue
		}
		schema, err := json.Marshal(tp.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: its input_schema does not marshal: %w", saidex.ErrInvalidConfig, tp.Name, err)
		}
		ts = append(ts, &schemaTool{name: tp.Name, desc: tp.Description.Value, schema: schema})
	}
	node, err := saidex.NewToolNode(ts, opts...)
	if err != nil {
		return nil, err
	}
	return New(node)
}

// errCheckOnly is returned by a schemaTool's Call, which the adapters
// never reach: they only check calls against its schema.
var errCheckOnly = errors.New("saidexanthropic: a schema-only tool does not run")

// schemaTool is a tool as the node sees it when it only checks calls: a
// name, a description and a schema.
type schemaTool struct {
	name, desc string
	schema     json.RawMessage
}

func (t *schemaTool) Name() string        { return t.name }
func (t *schemaTool) Description() string { return t.desc }
func (t *schemaTool) Schema() any         { return t.schema }
func (t *schemaTool) Call(context.Context, string) (string, error) {
	return "", errCheckOnly
}
