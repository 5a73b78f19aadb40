package saidexeino_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
)

func TestReactAgentRunsNoCallOfAnAnswerCutByTheOutputLimit(t *testing.T) {
	ctx := context.Background()
	cut := schema.AssistantMessage("", []schema.ToolCall{
		call("c1", "get_weather", `{"city":"Paris"}`),
		call("c2", "get_weather", `{"city": "Rome", "days": 2`),
		call("c3", "get_wea", `{"city":"Oslo"}`),
	})
	cut.ResponseMeta = &schema.ResponseMeta{FinishReason: "length"}
	m := newScripted(cut, schema.AssistantMessage(finalAnswer, nil))
	rec := &recorder{}
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: g.Model(m), ToolsConfig: g.ToolsNodeConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Weather in Paris, Rome and Oslo?")}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if got := rec.got(); len(got) != 0 {
		t.Errorf("the tool ran on %v for an answer cut by the output limit", got)
	}
	answers := toolMessages(m.calls()[1])
	if len(answers) != 3 {
		t.Fatalf("tool messages %v, want one per call", answers)
	}
	for id, a := range answers {
		if !strings.Contains(a, "cut off by the output-token limit") || strings.Contains(a, "missing") {
			t.Errorf("%s answered %q", id, a)
		}
	}
	// The history keeps the model's own arguments: nothing was cleaned.
	for _, msg := range m.calls()[1] {
		if msg.Role == schema.Assistant && len(msg.ToolCalls) == 3 {
			if got := msg.ToolCalls[1].Function.Arguments; got != `{"city": "Rome", "days": 2` {
				t.Errorf("history changed the cut call to %q", got)
			}
		}
	}
}

func TestMiddlewareAloneRunsCallsItCannotKnowWereCut(t *testing.T) {
	// Without Guard.Model the middleware never sees the finish reason: a
	// complete call runs. This is the documented limit.
	ctx := context.Background()
	rec := &recorder{}
	node := guardedNode(t, []tool.BaseTool{weatherTool(t, rec)})
	in := schema.AssistantMessage("", []schema.ToolCall{call("x1", "get_weather", `{"city":"Paris"}`)})
	in.ResponseMeta = &schema.ResponseMeta{FinishReason: "length"}
	if _, err := node.Invoke(ctx, in); err != nil {
		t.Fatal(err)
	}
	if got := rec.got(); len(got) != 1 {
		t.Errorf("runs %v", got)
	}
}

func TestReactAgentRunsToolCallsWrittenAsText(t *testing.T) {
	ctx := context.Background()
	m := newScripted(
		schema.AssistantMessage("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>", nil),
		schema.AssistantMessage(finalAnswer, nil))
	rec := &recorder{}
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)}, saidex.WithTextToolCalls(true))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: g.Model(m), ToolsConfig: g.ToolsNodeConfig()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Weather in Paris?")})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if out.Content != finalAnswer {
		t.Errorf("answer %q", out.Content)
	}
	if got := rec.got(); len(got) != 1 || got[0] != "Paris/2" {
		t.Errorf("the tool ran on %v, want [Paris/2]", got)
	}
}
