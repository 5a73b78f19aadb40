package saidexeino_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
	"github.com/tmc/langchaingo/llms"
)

func TestEnhancedToolIsChecked(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int64
	photo, err := utils.InferEnhancedTool("get_photo", "A photo of a city.",
		func(_ context.Context, a weatherArgs) (*schema.ToolResult, error) {
			runs.Add(1)
			return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: "photo of " + a.City}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	node := guardedNode(t, []tool.BaseTool{photo})
	msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{
		call("ok", "get_photo", `{'city': 'Paris'}`),
		call("bad", "get_photo", `{"city": 7}`),
	}))
	if err != nil || len(msgs) != 2 {
		t.Fatalf("Invoke: %v, %v", msgs, err)
	}
	text := func(m *schema.Message) string {
		var b strings.Builder
		for _, p := range m.UserInputMultiContent {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	if got := text(msgs[0]); got != "photo of Paris" {
		t.Errorf("valid call: %q", got)
	}
	if got := text(msgs[1]); !strings.Contains(got, "city") || !strings.HasPrefix(got, "Error:") {
		t.Errorf("invalid call: %q, want feedback", got)
	}
	if runs.Load() != 1 {
		t.Errorf("the tool ran %d times, want 1", runs.Load())
	}
}

func TestUnknownToolsHandlerNamesTheTools(t *testing.T) {
	g, err := saidexeino.New(context.Background(), []tool.BaseTool{weatherTool(t, &recorder{}), failingTool(t)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.UnknownToolsHandler(context.Background(), "teleport", `{"to":"Mars"}`)
	if err != nil || got != "Error: teleport is not a valid tool, try one of [get_weather, book_table]." {
		t.Fatalf("UnknownToolsHandler: %q, %v", got, err)
	}
	if strings.Contains(got, "Mars") {
		t.Errorf("the answer quotes the arguments: %q", got)
	}
}

// baseModel is an Eino BaseChatModel (no WithTools) that answers a call
// of the tool it was given in its options, with token usage.
type baseModel struct {
	opts *model.Options
}

func (b *baseModel) Generate(_ context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	b.opts = model.GetCommonOptions(nil, opts...)
	if len(b.opts.Tools) != 1 || len(input) != 1 || input[0].Role != schema.User {
		return nil, errors.New("unexpected request")
	}
	out := schema.AssistantMessage("", []schema.ToolCall{call("x", b.opts.Tools[0].Name, `{"city":"Rome","days":2}`)})
	out.ResponseMeta = &schema.ResponseMeta{FinishReason: "tool_calls",
		Usage: &schema.TokenUsage{PromptTokens: 30, CompletionTokens: 7, TotalTokens: 37}}
	return out, nil
}

func (b *baseModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("not streamed")
}

func TestChatModelAdaptsABaseChatModel(t *testing.T) {
	ctx := context.Background()
	bm := &baseModel{}
	m := saidexeino.ChatModel(bm)
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fix it")},
		llms.WithModel("small"), llms.WithTemperature(0.5), llms.WithMaxTokens(100),
		llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
			Name: "get_weather", Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
		}}}),
		llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}))
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	ch := resp.Choices[0]
	if len(ch.ToolCalls) != 1 || ch.ToolCalls[0].FunctionCall.Arguments != `{"city":"Rome","days":2}` || ch.StopReason != "tool_calls" {
		t.Errorf("choice %+v", ch)
	}
	if ch.GenerationInfo["PromptTokens"] != 30 || ch.GenerationInfo["CompletionTokens"] != 7 || ch.GenerationInfo["TotalTokens"] != 37 {
		t.Errorf("usage %v", ch.GenerationInfo)
	}
	o := bm.opts
	if o.Model == nil || *o.Model != "small" || o.Temperature == nil || *o.Temperature != 0.5 || o.MaxTokens == nil || *o.MaxTokens != 100 {
		t.Errorf("options %+v", o)
	}
	if o.ToolChoice == nil || *o.ToolChoice != schema.ToolChoiceForced || len(o.AllowedToolNames) != 1 || o.AllowedToolNames[0] != "get_weather" {
		t.Errorf("tool choice %v %v, want forced get_weather", o.ToolChoice, o.AllowedToolNames)
	}
	// The adapted model corrects through the node, and its usage is counted.
	rec := &recorder{}
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)}, saidex.WithCorrectionModel(m))
	if err != nil {
		t.Fatal(err)
	}
	reps, err := g.Node().Check(ctx, []llms.MessageContent{{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
		llms.ToolCall{ID: "c", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"town":"Rome"}`}},
	}}})
	if err != nil || reps[0].Outcome != saidex.OutcomeCorrected || string(reps[0].Arguments) != `{"city":"Rome","days":2}` {
		t.Fatalf("Check: %+v, %v", reps, err)
	}
	var total int
	for _, u := range reps[0].Tokens {
		total += u.TotalTokens
	}
	if total != 37 {
		t.Errorf("tokens %v, want 37 in all", reps[0].Tokens)
	}
}

func TestModelReturnsTheCheckError(t *testing.T) {
	ctx := context.Background()
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, &recorder{})}, saidex.WithOnUnresolved(saidex.UnresolvedRaise))
	if err != nil {
		t.Fatal(err)
	}
	m := g.Model(newScripted(schema.AssistantMessage("", []schema.ToolCall{call("c", "get_weather", `{"days":"x"}`)})))
	_, err = m.Generate(ctx, []*schema.Message{schema.UserMessage("hi")})
	var ve *saidex.ToolCallValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Generate: %v, want a *saidex.ToolCallValidationError", err)
	}
	// The ToolsNode returns it too: the raise policy fails the node.
	cfg := g.ToolsNodeConfig()
	node, err := compose.NewToolNode(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{call("c", "get_weather", `{"days":"x"}`)})); !errors.As(err, &ve) {
		t.Errorf("Invoke: %v, want a *saidex.ToolCallValidationError", err)
	}
}
