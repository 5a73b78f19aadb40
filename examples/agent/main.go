// Command agent runs a saidex agent.Agent in langchaingo's agents.Executor.
//
// The stock OpenAIFunctionsAgent advertises every tool with a single
// "__arg1" string, hands unparseable arguments to the tool unchanged, and the
// executor aborts the whole run when a tool returns an error. agent.New
// (package github.com/saidex/saidex-go/agent) advertises the tools' real
// schemas and runs each model turn through a saidex.ToolNode, so a broken
// call becomes an observation the model reads.
//
// What to notice: the model's first call is not JSON at all; it is answered
// with feedback (the tool never runs) and kept in the history as "{}", so
// that no later request carries text that is not JSON; the model sends a
// valid call next, and the executor run completes with the model's answer.
// Each step prints the arguments as the model sent them and as the history
// holds them.
//
// The model is scripted without an API key; with OPENAI_API_KEY set it is
// OpenAI's OPENAI_MODEL (default gpt-4o-mini).
//
//	go run ./examples/agent              # from the repository root
//	cd examples/agent && go run .        # or from this directory
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/agent"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// ForecastArgs is the argument object of get_forecast.
type ForecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
}

func main() {
	var model llms.Model = scriptedModel()
	if os.Getenv("OPENAI_API_KEY") != "" {
		var err error
		if model, err = openai.New(openai.WithModel(env("OPENAI_MODEL", "gpt-4o-mini"))); err != nil {
			log.Fatal(err)
		}
	}
	if err := run(context.Background(), os.Stdout, model); err != nil {
		log.Fatal(err)
	}
}

// scriptedModel plays three turns: a call in Python keyword syntax, the
// valid call, the answer.
func scriptedModel() *saidextest.Model {
	return saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(saidextest.Call("call_1", "get_forecast", `city="Paris", days=2`)),
		saidextest.ToolCalls(saidextest.Call("call_2", "get_forecast", `{"city": "Paris", "days": 2}`)),
		saidextest.Text("Paris: sunny, 21°C, for the next 2 days."),
	))
}

func run(ctx context.Context, w io.Writer, model llms.Model) error {
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(_ context.Context, a ForecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny, 21°C, for %d days", a.City, a.Days), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		return err
	}
	sent := &sentCalls{Model: model, args: map[string]string{}}
	a, err := agent.New(sent, node)
	if err != nil {
		return err
	}
	executor := agents.NewExecutor(a, agents.WithMaxIterations(5), agents.WithReturnIntermediateSteps())

	out, err := executor.Call(ctx, map[string]any{"input": "Weather in Paris for the next two days?"})
	if err != nil {
		return err // a broken tool call never gets here
	}
	steps, _ := out["intermediateSteps"].([]schema.AgentStep)
	for i, s := range steps {
		fmt.Fprintf(w, "step %d: %s, call %s\n", i+1, s.Action.Tool, s.Action.ToolID)
		fmt.Fprintf(w, "  the model sent:    %s\n", sent.arguments(s.Action.ToolID))
		fmt.Fprintf(w, "  the history holds: %s\n", s.Action.ToolInput)
		fmt.Fprintf(w, "  observation:       %s\n", strings.ReplaceAll(s.Observation, "\n", "\n                     "))
	}
	fmt.Fprintf(w, "answer: %s\n", out["output"])
	return nil
}

// sentCalls is an llms.Model that passes every request to Model and keeps
// the argument string of each tool call the model sends, by call id: the
// executor's steps hold the arguments as the history keeps them, which for
// a call that is not JSON is "{}".
type sentCalls struct {
	llms.Model
	mu   sync.Mutex
	args map[string]string
}

// GenerateContent calls the wrapped model and records its tool calls.
func (m *sentCalls) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, messages, options...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range resp.Choices {
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall != nil {
				m.args[tc.ID] = tc.FunctionCall.Arguments
			}
		}
	}
	return resp, nil
}

func (m *sentCalls) arguments(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.args[id]
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
