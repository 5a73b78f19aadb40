package saidexeino_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
)

const finalAnswer = "Paris is sunny and so is Rome."

// brokenThenAnswer is the script of an agent's model: a turn of broken
// calls (a repairable one, a schema-invalid one, an unknown tool), a turn
// that fixes the invalid one, then the final answer.
func brokenThenAnswer() *scriptedModel {
	return newScripted(
		schema.AssistantMessage("", []schema.ToolCall{
			call("c1", "get_weather", `{'city': 'Paris',}`),
			call("c2", "get_weather", `{"city":"Rome","days":"two"}`),
			call("c3", "get_forecast", `{"city":"Rome"}`),
		}),
		schema.AssistantMessage("", []schema.ToolCall{call("c4", "get_weather", `{"city":"Rome","days":2}`)}),
		schema.AssistantMessage(finalAnswer, nil),
	)
}

// toolMessages returns the tool messages of the input of the model's
// second call, by call id.
func toolMessages(in []*schema.Message) map[string]string {
	out := map[string]string{}
	for _, m := range in {
		if m.Role == schema.Tool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

func TestReactAgentReachesTheAnswerWhereBareEinoFails(t *testing.T) {
	ctx := context.Background()
	question := []*schema.Message{schema.UserMessage("Weather in Paris and Rome?")}

	t.Run("bare", func(t *testing.T) {
		agent, err := react.NewAgent(ctx, &react.AgentConfig{
			ToolCallingModel: brokenThenAnswer(),
			ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool(t, &recorder{})}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := agent.Generate(ctx, question); err == nil {
			t.Fatalf("bare Eino answered %q, want an error", out.Content)
		}
	})

	t.Run("saidex", func(t *testing.T) {
		rec := &recorder{}
		g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)})
		if err != nil {
			t.Fatal(err)
		}
		m := brokenThenAnswer()
		agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: g.Model(m), ToolsConfig: g.ToolsNodeConfig()})
		if err != nil {
			t.Fatal(err)
		}
		out, err := agent.Generate(ctx, question)
		if err != nil {
			t.Fatalf("Generate: %v", err)
		}
		if out.Content != finalAnswer {
			t.Errorf("answer %q, want %q", out.Content, finalAnswer)
		}
		if got := rec.got(); !slices.Equal(got, []string{"Paris/0", "Rome/2"}) {
			t.Errorf("the tool ran on %v, want [Paris/0 Rome/2] (the invalid call never runs)", got)
		}
		inputs := m.calls()
		if len(inputs) != 3 {
			t.Fatalf("the model was called %d times, want 3", len(inputs))
		}
		second := inputs[1]
		answers := toolMessages(second)
		if len(answers) != 3 {
			t.Fatalf("the second model call saw %d tool messages, want one per call: %v", len(answers), answers)
		}
		if !strings.Contains(answers["c2"], "days") || !strings.Contains(answers["c3"], "get_weather") {
			t.Errorf("feedback: %v", answers)
		}
		// History: the AI message the next model call sees carries the
		// repaired arguments; the invalid call keeps the model's own.
		var ai *schema.Message
		for _, msg := range second {
			if msg.Role == schema.Assistant && len(msg.ToolCalls) == 3 {
				ai = msg
			}
		}
		if ai == nil {
			t.Fatal("the second model call did not see the AI message")
		}
		if got := ai.ToolCalls[0].Function.Arguments; got != `{"city":"Paris"}` {
			t.Errorf("history keeps %q for the repaired call, want the repaired arguments", got)
		}
		if got := ai.ToolCalls[1].Function.Arguments; got != `{"city":"Rome","days":"two"}` {
			t.Errorf("history changed the invalid call to %q", got)
		}
	})
}

func TestADKChatModelAgentReachesTheAnswerWhereBareEinoFails(t *testing.T) {
	ctx := context.Background()
	run := func(t *testing.T, m model.ToolCallingChatModel, cfg compose.ToolsNodeConfig, streaming bool) (answer string, err error) {
		t.Helper()
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "weather", Description: "Weather agent.", Instruction: "Answer with the weather.",
			Model: m, ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: cfg},
		})
		if err != nil {
			t.Fatal(err)
		}
		iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).Query(ctx, "Weather in Paris and Rome?")
		for {
			ev, ok := iter.Next()
			if !ok {
				return answer, err
			}
			if ev.Err != nil {
				err = ev.Err
				continue
			}
			if ev.Output != nil && ev.Output.MessageOutput != nil {
				msg, gerr := ev.Output.MessageOutput.GetMessage() // concatenates a stream
				if gerr == nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
					answer = msg.Content
				}
			}
		}
	}

	for _, streaming := range []bool{false, true} {
		mode := map[bool]string{false: "generate", true: "stream"}[streaming]
		t.Run(mode+"/bare", func(t *testing.T) {
			answer, err := run(t, brokenThenAnswer(), compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool(t, &recorder{})}}, streaming)
			if err == nil || answer == finalAnswer {
				t.Fatalf("bare Eino: answer %q, error %v; want an error and no answer", answer, err)
			}
		})
		t.Run(mode+"/saidex", func(t *testing.T) {
			rec := &recorder{}
			g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)})
			if err != nil {
				t.Fatal(err)
			}
			answer, err := run(t, g.Model(brokenThenAnswer()), g.ToolsNodeConfig(), streaming)
			if err != nil || answer != finalAnswer {
				t.Fatalf("answer %q, error %v; want %q", answer, err, finalAnswer)
			}
			if got := rec.got(); !slices.Equal(got, []string{"Paris/0", "Rome/2"}) {
				t.Errorf("the tool ran on %v, want [Paris/0 Rome/2]", got)
			}
		})
	}
}

func TestCorrectionThroughAnEinoModel(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		wrapped bool // the correction model is reached through Guard.Model as well
	}{{"in the ToolsNode", false}, {"in Guard.Model", true}} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			corrector := newScripted(schema.AssistantMessage("", []schema.ToolCall{
				call("fix", "get_weather", `{"city":"Rome","days":2}`),
			}))
			g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, rec)},
				saidex.WithCorrectionModel(saidexeino.ChatModel(corrector)))
			if err != nil {
				t.Fatal(err)
			}
			ai := schema.AssistantMessage("", []schema.ToolCall{call("c", "get_weather", `{"town":"Rome","days":2}`)})
			if c.wrapped {
				m := g.Model(newScripted(ai))
				ai, err = m.Generate(ctx, []*schema.Message{schema.UserMessage("Weather in Rome for two days?")})
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				if got := ai.ToolCalls[0].Function.Arguments; got != `{"city":"Rome","days":2}` {
					t.Fatalf("the model's answer carries %q, want the corrected arguments", got)
				}
			}
			cfg := g.ToolsNodeConfig()
			node, err := compose.NewToolNode(ctx, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := node.Invoke(ctx, ai)
			if err != nil || len(msgs) != 1 || msgs[0].Content != "sunny in Rome" {
				t.Fatalf("Invoke: %v, %v", msgs, err)
			}
			if got := rec.got(); !slices.Equal(got, []string{"Rome/2"}) {
				t.Errorf("the tool ran on %v, want the corrected call", got)
			}
			// The correction model got the tool to answer with, forced.
			calls := corrector.calls()
			if len(calls) != 1 {
				t.Fatalf("the correction model was called %d times, want 1", len(calls))
			}
			if len(corrector.tools) != 1 || corrector.tools[0].Name != "get_weather" {
				t.Errorf("bound tools %v, want get_weather", corrector.tools)
			}
			if tc := corrector.opts[0].ToolChoice; tc == nil || *tc != schema.ToolChoiceForced {
				t.Errorf("tool choice %v, want forced", tc)
			}
			js, err := corrector.tools[0].ParamsOneOf.ToJSONSchema()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(js)
			if !strings.Contains(string(b), `"city"`) {
				t.Errorf("the correction tool's schema %s lacks city", b)
			}
			if p := calls[0][len(calls[0])-1].Content; !strings.Contains(p, "town") {
				t.Errorf("the correction prompt does not quote the invalid arguments: %q", p)
			}
		})
	}
}

func TestModelLeavesCleanAnswersAlone(t *testing.T) {
	ctx := context.Background()
	g, err := saidexeino.New(ctx, []tool.BaseTool{weatherTool(t, &recorder{})})
	if err != nil {
		t.Fatal(err)
	}
	in := schema.AssistantMessage("", []schema.ToolCall{call("c", "get_weather", `{"city":"Paris"}`)})
	inner := newScripted(in, schema.AssistantMessage("done", nil))
	m := g.Model(inner)
	bound, err := m.WithTools(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := bound.Generate(ctx, nil)
	if err != nil || out.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("Generate: %+v, %v", out, err)
	}
	if out, err = bound.Generate(ctx, nil); err != nil || out.Content != "done" {
		t.Fatalf("Generate: %+v, %v", out, err)
	}
}
