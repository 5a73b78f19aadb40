package agent

import (
	"context"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// TestAgentPassesTheExecutorsInputsAsState pins the Agent doc: hooks,
// validators and tools see the executor's inputs map as the run's state.
func TestAgentPassesTheExecutorsInputsAsState(t *testing.T) {
	var toolSaw, validatorSaw, hookSaw any
	tool := saidex.NewTool("get_weather", "Weather.", func(ctx context.Context, a weatherArgs) (string, error) {
		toolSaw = saidex.StateFromContext(ctx)
		return "sunny in " + a.City, nil
	})
	node := mustNode(t, []tools.Tool{tool},
		saidex.WithValidator("get_weather", func(_ context.Context, _ map[string]any, vc saidex.ValidatorContext) error {
			validatorSaw = vc.State
			return nil
		}),
		saidex.WithUnresolvedHook(func(ctx context.Context, c saidex.UnresolvedToolCall) (saidex.Resolution, error) {
			hookSaw = c.State
			return saidex.Resolution{}, nil
		}))
	model := script(
		callsResponse("", tc("a", "get_weather", `{"city":"Oslo"}`), tc("b", "get_weather", `{"days":2}`)),
		textResponse("Sunny."),
	)
	exec := agents.NewExecutor(mustAgent(t, model, node))
	if _, err := exec.Call(context.Background(), map[string]any{"input": "Weather?", "user_id": "u-42"}); err != nil {
		t.Fatal(err)
	}
	for who, saw := range map[string]any{"tool": toolSaw, "validator": validatorSaw, "hook": hookSaw} {
		st, ok := saw.(map[string]string)
		if !ok || st["user_id"] != "u-42" || st["input"] != "Weather?" {
			t.Errorf("the %s saw state %#v, want the executor's inputs", who, saw)
		}
	}
}

// TestAgentGivesADroppedCallNoAction pins the Agent doc: a call the node
// drops (its id repeats an earlier id of the same message) yields no
// action and is left out of the history rebuilt from the steps.
func TestAgentGivesADroppedCallNoAction(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	model := script(
		callsResponse("", tc("a", "get_weather", `{"city":"Oslo"}`), tc("a", "get_weather", `{"city":"Rome"}`), tc("b", "get_weather", `{"city":"Lima"}`)),
		textResponse("done"),
	)
	exec := agents.NewExecutor(mustAgent(t, model, node), agents.WithReturnIntermediateSteps())
	out, err := exec.Call(context.Background(), map[string]any{"input": "go"})
	if err != nil {
		t.Fatal(err)
	}
	steps := out["intermediateSteps"].([]schema.AgentStep)
	if len(steps) != 2 || steps[0].Action.ToolID != "a" || steps[0].Action.ToolInput != `{"city":"Oslo"}` || steps[1].Action.ToolID != "b" {
		t.Fatalf("steps = %+v, want actions a (Oslo) and b only", steps)
	}
	if runs.Load() != 2 {
		t.Errorf("weather ran %d times, want 2", runs.Load())
	}
	msgs, _ := model.calls()
	last := msgs[len(msgs)-1]
	var ids []string
	for _, m := range last {
		for _, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok {
				ids = append(ids, c.ID)
			}
		}
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
		t.Errorf("the rebuilt history's calls are %v, want [a b]", ids)
	}
	if rs := toolResponses(last); len(rs) != 2 {
		t.Errorf("the rebuilt history has %d tool messages, want 2: %+v", len(rs), rs)
	}
}

// TestWithCallOptions pins WithCallOptions' doc: its options reach every
// model call of the agent, after llms.WithTools and before the options the
// executor's caller passes (chains.WithModel and the like), which win.
func TestWithCallOptions(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	tests := []struct {
		name      string
		opts      []Option
		chainOpts []chains.ChainCallOption
		wantModel string
		wantTemp  float64
	}{
		{"none", nil, nil, "", 0},
		{"agent options", []Option{WithCallOptions(llms.WithModel("agent-model"), llms.WithTemperature(0.25))}, nil, "agent-model", 0.25},
		{"given twice, added up", []Option{WithCallOptions(llms.WithModel("agent-model")), WithCallOptions(llms.WithTemperature(0.25))}, nil, "agent-model", 0.25},
		{"the caller's options win", []Option{WithCallOptions(llms.WithModel("agent-model"), llms.WithTemperature(0.25))},
			[]chains.ChainCallOption{chains.WithModel("caller-model")}, "caller-model", 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := script(callsResponse("", tc("a", "get_weather", `{"city":"Oslo"}`)), textResponse("done"))
			a := mustAgent(t, model, node, tt.opts...)
			steps := []schema.AgentStep(nil)
			for range 2 {
				actions, finish, err := a.Plan(context.Background(), steps, map[string]string{"input": "go"}, tt.chainOpts...)
				if err != nil {
					t.Fatal(err)
				}
				if finish != nil {
					break
				}
				for _, act := range actions {
					obs, err := a.GetTools()[0].Call(context.Background(), act.ToolInput)
					if err != nil {
						t.Fatal(err)
					}
					steps = append(steps, schema.AgentStep{Action: act, Observation: obs})
				}
			}
			_, opts := model.calls()
			if len(opts) != 2 {
				t.Fatalf("%d model calls, want 2", len(opts))
			}
			for i, o := range opts {
				if o.Model != tt.wantModel || o.Temperature != tt.wantTemp || len(o.Tools) != 1 {
					t.Errorf("call %d: model %q, temperature %v, %d tools; want %q, %v, 1", i, o.Model, o.Temperature, len(o.Tools), tt.wantModel, tt.wantTemp)
				}
			}
		})
	}
	// Options after llms.WithTools: they may replace the tools sent.
	model := script(textResponse("done"))
	a := mustAgent(t, model, node, WithCallOptions(llms.WithTools(nil)))
	if _, _, err := a.Plan(context.Background(), nil, map[string]string{"input": "go"}); err != nil {
		t.Fatal(err)
	}
	if _, opts := model.calls(); len(opts[0].Tools) != 0 {
		t.Errorf("WithCallOptions(llms.WithTools(nil)) sent %d tools, want 0: the agent's options come after WithTools", len(opts[0].Tools))
	}
}
