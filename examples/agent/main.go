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
// with feedback (the tool never runs), the model sends a valid call next, and
// the executor run completes with the model's answer.
//
// The model is scripted without an API key; with OPENAI_API_KEY set it is
// OpenAI's OPENAI_MODEL (default gpt-4o-mini).
//
//	go run ./examples/agent
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

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
	call := func(id, args string) saidextest.Reply {
		return func(context.Context, saidextest.Request) (*llms.ContentResponse, error) {
			return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
				ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_forecast", Arguments: args},
			}}}}}, nil
		}
	}
	return saidextest.NewModel(saidextest.Sequence(
		call("call_1", `city="Paris", days=2`),
		call("call_2", `{"city": "Paris", "days": 2}`),
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
	a, err := agent.New(model, node)
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
		fmt.Fprintf(w, "step %d: %s %s %s\n", i+1, s.Action.ToolID, s.Action.Tool, s.Action.ToolInput)
		fmt.Fprintf(w, "  observation: %s\n", strings.ReplaceAll(s.Observation, "\n", "\n               "))
	}
	fmt.Fprintf(w, "answer: %s\n", out["output"])
	return nil
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
