package saidex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// The secret of the shape tests: long enough to be scrubbed as text.
const shapeSecret = "Xq7-secret-Zp9"

// nestedAuthSchema keeps its secret one level down: auth.password.
const nestedAuthSchema = `{"type":"object","properties":{
	"user":{"type":"string"},
	"auth":{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}},
	"required":["user"]}`

// rootSecretSchema marks the whole arguments write-only.
const rootSecretSchema = `{"type":"object","writeOnly":true,"properties":{
	"key":{"type":"string"},"n":{"type":"integer"}},"required":["key","n"]}`

// storingTool is a tool with a schema that records every input it gets
// and answers with a fixed text.
func storingTool(name, schema string, got *sync.Map) Tool {
	return ToolWithSchema(plainTool{name: name, fn: func(_ context.Context, in string) (string, error) {
		got.Store(in, true)
		return "done", nil
	}}, schema)
}

// nodeTexts runs node on conv by every entry point (Run, Invoke, Check,
// WrapModel) and returns every text the node wrote: tool messages,
// reports, the sanitized history, errors and their calls, events, logs,
// correction prompts and callbacks (recorded by x, which the node's
// options feed), and CheckedCalls.
func nodeTexts(t *testing.T, mk func(x *texts, logs *bytes.Buffer) *ToolNode, conv []llms.MessageContent) *texts {
	t.Helper()
	x := &texts{}
	var logs bytes.Buffer
	node := mk(x, &logs)
	ctx := context.Background()
	res, err := node.Run(ctx, conv)
	x.add("Run error", err)
	if ve, ok := errors.AsType[*ToolCallValidationError](err); ok {
		for _, c := range ve.Calls {
			x.add("raised call", c.ToolName, c.CallID, c.RawArguments, c.Args, c.Issues, c.Error)
		}
	}
	if te, ok := errors.AsType[*ToolError](err); ok && te.Partial != nil {
		x.add("partial", te.Partial.ToolMessages, te.Partial.Calls, te.Partial.AIMessage)
	}
	if res != nil {
		x.add("tool messages", res.ToolMessages)
		x.add("sanitized AI message", res.AIMessage)
		x.add("reports", res.Calls)
		for _, r := range res.Calls {
			x.add("report error", r.Err, r.CorrectionErr)
		}
	}
	out, err := node.Invoke(ctx, conv)
	x.add("Invoke error", err)
	if len(out) > len(conv)-1 {
		x.add("Invoke conversation", out[len(conv)-1:])
	}
	reps, err := node.Check(ctx, conv)
	x.add("Check error", err)
	for _, r := range reps {
		x.add("Check report", r.RawArguments, r.Output, r.Issues, r.Flagged, r.Err, r.CorrectionErr)
	}
	ai := conv[len(conv)-1]
	agent := saidextest.NewModel(saidextest.ToolCalls(toolCallsOf(ai)...))
	resp, err := WrapModel(agent, node).GenerateContent(ctx, conv[:len(conv)-1])
	x.add("WrapModel error", err)
	if resp != nil {
		for _, ch := range resp.Choices {
			reps, _ := CheckedCalls(ch)
			x.add("CheckedCalls", reps)
		}
	}
	for _, c := range toolCallsOf(ai) {
		cc, err := node.CheckCall(ctx, c.ID, c.FunctionCall.Name, c.FunctionCall.Arguments)
		x.add("CheckCall", cc.Output, err)
	}
	x.add("logs", logs.String())
	return x
}

// assertNoSecret fails for every text of x holding secret.
func assertNoSecret(t *testing.T, x *texts, secret string) {
	t.Helper()
	for _, s := range x.all {
		if strings.Contains(s, secret) {
			t.Errorf("the secret leaks through %.1500s", s)
		}
	}
}

// shapeOptions are the node configurations every shape runs under.
var shapeOptions = []struct {
	name string
	opts func(x *texts, answer string) []Option
}{
	{"feedback", func(*texts, string) []Option { return nil }},
	{"raise", func(*texts, string) []Option { return []Option{WithOnUnresolved(UnresolvedRaise)} }},
	{"correction", func(x *texts, answer string) []Option {
		m := saidextest.NewModel(func(_ context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
			x.add("correction prompt", req.Text())
			if name := req.ToolChoiceName(); name != "" {
				return saidextest.ToolCallResponse(saidextest.Call("fix", name, answer)), nil
			}
			return saidextest.TextResponse(answer), nil
		})
		return []Option{WithCorrectionModel(m), WithCorrectMissingFields(true), WithCallbacks(chainTexts{x: x})}
	}},
}

// TestSecretShapesFailClosed reproduces each shape of issue 40: a secret
// sent under a parent that does not match the schema (renamed, wrapped
// in an array, double-encoded), a root writeOnly schema, a call of an
// unknown or misnamed tool, and a tool or validator that quotes the
// arguments. The secret must appear in no text the node writes, by any
// entry point and under any unresolved policy.
func TestSecretShapesFailClosed(t *testing.T) {
	s := shapeSecret
	tests := []struct {
		name, tool, raw string
		answer          string // the correction model's answer
		panics          bool   // the tool panics quoting its input
		validator       bool   // a validator rejects quoting the value
	}{
		{name: "parent renamed", tool: "login", raw: `{"user":"bob","Auth":{"password":"` + s + `"}}`},
		{name: "parent renamed, invalid", tool: "login", raw: `{"user":5,"Auth":{"password":"` + s + `"}}`},
		{name: "parent as an array", tool: "login", raw: `{"user":"bob","auth":[{"password":"` + s + `"}]}`},
		{name: "parent double-encoded", tool: "login", raw: `{"user":"bob","auth":"{\"password\":\"` + s + `\"}"}`},
		{name: "secret key renamed deeper", tool: "login", raw: `{"user":"bob","x":{"y":{"PASS_WORD":"` + s + `"}}}`},
		{name: "root writeOnly, invalid", tool: "vaultkey", raw: `{"key":"` + s + `","n":"x"}`},
		{name: "root writeOnly, valid", tool: "vaultkey", raw: `{"key":"` + s + `","n":1}`},
		{name: "unknown tool, near miss", tool: "auth.login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`},
		{name: "unknown tool, far", tool: "zzz", raw: `{"user":"bob","pass":{"password":"` + s + `"}}`},
		{name: "unknown tool, unparseable", tool: "logn", raw: `{"user":"bob","password":"` + s + ``},
		{name: "MCP server's name, misnamed secret key", tool: "auth.login", raw: `{"user":"bob","passwd":"` + s + `"}`},
		{name: "MCP server's name, short secret", tool: "auth.login", raw: `{"user":"bob","passwd":"ab1"}`},
		{name: "tool panics with its input", tool: "login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`, panics: true},
		{name: "validator quotes the value", tool: "login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`, validator: true},
	}
	for _, opt := range shapeOptions {
		for _, tt := range tests {
			t.Run(opt.name+"/"+tt.name, func(t *testing.T) {
				answer := tt.raw
				if tt.answer != "" {
					answer = tt.answer
				}
				var got sync.Map
				mk := func(x *texts, logs *bytes.Buffer) *ToolNode {
					login := storingTool("login", nestedAuthSchema, &got)
					if tt.panics {
						login = ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
							panic("cannot log in with " + in)
						}}, nestedAuthSchema)
					}
					opts := append(opt.opts(x, answer),
						WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
						WithObserver(func(ev ToolNodeEvent) { x.add("event", ev) }),
						WithHandleToolErrors(true))
					if tt.validator {
						opts = append(opts, WithValidator("login", func(_ context.Context, args map[string]any, _ ValidatorContext) error {
							return &ValidationIssue{Path: "/auth", Message: fmt.Sprintf("%v is not accepted", args["auth"])}
						}))
					}
					authLogin := storingTool("auth_login", `{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","writeOnly":true}}}`, &got)
					return mustNode(t, []tools.Tool{login, storingTool("vaultkey", rootSecretSchema, &got), authLogin}, opts...)
				}
				conv := conversation(tc("c1", tt.tool, tt.raw))
				x := nodeTexts(t, mk, conv)
				assertNoSecret(t, x, s)
				if strings.Contains(tt.raw, "ab1") { // below MinScrubbedSecretLen: masked by location
					for _, text := range x.all {
						if strings.Contains(text, `"passwd":"ab1"`) {
							t.Errorf("the short secret shows at its place: %.500s", text)
						}
					}
				}
			})
		}
	}
}

// A tool that panics, or fails, quoting its input stops the run (the
// default of WithHandleToolErrors): the returned *ToolError, the
// *PanicError it wraps and its Partial result name no secret, and
// errors.As still reaches both.
func TestToolErrorsAreScrubbed(t *testing.T) {
	s := shapeSecret
	raw := `{"user":"bob","auth":{"password":"` + s + `"}}`
	tests := []struct {
		name string
		fn   func(context.Context, string) (string, error)
	}{
		{"panic", func(_ context.Context, in string) (string, error) { panic("cannot log in with " + in) }},
		{"error", func(_ context.Context, in string) (string, error) { return "", fmt.Errorf("cannot log in with %s", in) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			login := ToolWithSchema(plainTool{name: "login", fn: tt.fn}, nestedAuthSchema)
			node := mustNode(t, []tools.Tool{login}, WithLogger(sanDiscard))
			_, err := node.Run(context.Background(), conversation(tc("c1", "login", raw)))
			te, ok := errors.AsType[*ToolError](err)
			if !ok || te.Partial == nil {
				t.Fatalf("err = %v, want a *ToolError with a Partial result", err)
			}
			x := &texts{}
			x.add("error", err, te.Err, te.Partial.Calls, te.Partial.ToolMessages, te.Partial.AIMessage)
			if pe, ok := errors.AsType[*PanicError](err); ok {
				x.add("panic value", pe.Value)
			} else if tt.name == "panic" {
				t.Errorf("errors.As finds no *PanicError in %v", err)
			}
			assertNoSecret(t, x, s)
		})
	}
}

// A root writeOnly makes the whole arguments secret: the raise policy's
// error lists the call with RawArguments masked whole and no Args.
func TestRootWriteOnlyRaise(t *testing.T) {
	var got sync.Map
	node := mustNode(t, []tools.Tool{storingTool("vaultkey", rootSecretSchema, &got)}, WithOnUnresolved(UnresolvedRaise), WithLogger(sanDiscard))
	_, err := node.Run(context.Background(), conversation(tc("c1", "vaultkey", `{"key":"`+shapeSecret+`","n":"x"}`)))
	ve, ok := errors.AsType[*ToolCallValidationError](err)
	if !ok || len(ve.Calls) != 1 {
		t.Fatalf("err = %v, want a *ToolCallValidationError listing the call", err)
	}
	if c := ve.Calls[0]; c.Args != nil || c.RawArguments != quotedMask || strings.Contains(ve.Error(), shapeSecret) {
		t.Errorf("Args %v, RawArguments %s, Error %s; want nil, the mask, no secret", c.Args, c.RawArguments, ve.Error())
	}
}
