package saidexeino_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// weatherArgs is the argument struct of the test tools.
type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// recorder records the argument strings a tool received.
type recorder struct {
	mu   sync.Mutex
	args []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, s)
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.args)
	slices.Sort(out)
	return out
}

// weatherTool is an InferTool tool that records the city and days it
// received.
func weatherTool(t testing.TB, rec *recorder) tool.InvokableTool {
	t.Helper()
	w, err := utils.InferTool("get_weather", "Current weather for a city.",
		func(_ context.Context, a weatherArgs) (string, error) {
			rec.add(fmt.Sprintf("%s/%d", a.City, a.Days))
			return fmt.Sprintf("sunny in %s", a.City), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// errFlaky is the error of failingTool.
var errFlaky = errors.New("upstream timed out")

// failingTool is an InferTool tool that always fails.
func failingTool(t testing.TB) tool.InvokableTool {
	t.Helper()
	f, err := utils.InferTool("book_table", "Books a table.",
		func(_ context.Context, a struct {
			Name string `json:"name"`
		}) (string, error) {
			return "", errFlaky
		})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// call is a tool call in Eino's types.
func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// scriptedModel is an Eino ToolCallingChatModel that answers with the
// messages of its script, one per call, and records what it was sent.
type scriptedModel struct {
	mu     sync.Mutex
	script []*schema.Message
	inputs [][]*schema.Message
	tools  []*schema.ToolInfo
	opts   []*model.Options
}

func newScripted(turns ...*schema.Message) *scriptedModel {
	return &scriptedModel{script: turns}
}

func (s *scriptedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, cloneMessages(input))
	s.opts = append(s.opts, model.GetCommonOptions(nil, opts...))
	if len(s.script) == 0 {
		return nil, errors.New("scripted model: script exhausted")
	}
	out := s.script[0]
	s.script = s.script[1:]
	cp := *out
	cp.ToolCalls = slices.Clone(out.ToolCalls)
	return &cp, nil
}

func (s *scriptedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := s.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

// WithTools records the tools and returns the same model, so that the
// script and the records are shared.
func (s *scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = tools
	return s, nil
}

func (s *scriptedModel) calls() [][]*schema.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.inputs)
}

// cloneMessages copies the messages and their tool calls, which an agent
// may modify after the call.
func cloneMessages(in []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(in))
	for i, m := range in {
		cp := *m
		cp.ToolCalls = slices.Clone(m.ToolCalls)
		out[i] = &cp
	}
	return out
}
