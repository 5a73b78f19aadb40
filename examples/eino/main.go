// Command eino runs an Eino ReAct agent (github.com/cloudwego/eino's
// flow/agent/react) whose model sends broken tool calls, first on bare Eino,
// whose ToolsNode fails the run, then with the ToolsNode configured by
// saidexeino, which repairs the calls it can, answers the others with
// field-level feedback, and lets the agent reach its answer. The model is
// scripted, so it runs without an API key:
//
//	cd examples/eino && go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
)

// WeatherArgs are the arguments of the weather tool.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	weather, err := utils.InferTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) {
			fmt.Fprintf(w, "  tool ran: get_weather city=%s days=%d\n", a.City, a.Days)
			return fmt.Sprintf("%s: sunny for %d days", a.City, max(a.Days, 1)), nil
		})
	if err != nil {
		return err
	}
	tools := []tool.BaseTool{weather}
	question := []*schema.Message{schema.UserMessage("Weather in Paris and Rome for two days?")}

	fmt.Fprintln(w, "bare Eino:")
	bare, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: newScripted(w),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
	})
	if err != nil {
		return err
	}
	if _, err := bare.Generate(ctx, question); err != nil {
		fmt.Fprintf(w, "  the run fails: %s\n", firstLine(err))
	}

	fmt.Fprintln(w, "with saidex:")
	g, err := saidexeino.New(ctx, tools, saidex.WithHandleToolErrors(true))
	if err != nil {
		return err
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: g.Model(newScripted(w)), // the history keeps the repaired arguments
		ToolsConfig:      g.ToolsNodeConfig(),
	})
	if err != nil {
		return err
	}
	out, err := agent.Generate(ctx, question)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  the model answers: %s\n", out.Content)
	return nil
}

// firstLine is the first line of err's text, cut to 100 bytes.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// scripted is the agent's model: a turn of broken calls, a turn that fixes
// the call the feedback named, then the answer. It prints what it reads:
// the tool messages and the arguments of its own calls in the history.
type scripted struct {
	mu    sync.Mutex
	w     io.Writer
	turns []*schema.Message
	read  int // messages of the input printed so far
}

func newScripted(w io.Writer) *scripted {
	call := func(id, name, args string) schema.ToolCall {
		return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
	}
	return &scripted{w: w, turns: []*schema.Message{
		schema.AssistantMessage("", []schema.ToolCall{
			call("call_1", "get_weather", `{'city': 'Paris', 'days': 2,}`),   // Python-style quotes, trailing comma
			call("call_2", "get_weather", `{"city": "Rome", "days": "two"}`), // a string where an integer belongs
			call("call_3", "get_forecast", `{"city": "Rome"}`),               // a tool that does not exist
		}),
		schema.AssistantMessage("", []schema.ToolCall{call("call_4", "get_weather", `{"city": "Rome", "days": 2}`)}),
		schema.AssistantMessage("Paris and Rome: sunny for two days.", nil),
	}}
}

func (s *scripted) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range input[min(s.read, len(input)):] { // what is new since the last turn
		switch {
		case m.Role == schema.Tool:
			fmt.Fprintf(s.w, "  the model reads %s: %s\n", m.ToolCallID, strings.ReplaceAll(m.Content, "\n", " "))
		case m.Role == schema.Assistant:
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(s.w, "  history: %s %s\n", tc.ID, tc.Function.Arguments)
			}
		}
	}
	s.read = len(input)
	if len(s.turns) == 0 {
		return nil, errors.New("script exhausted")
	}
	out := s.turns[0]
	s.turns = s.turns[1:]
	cp := *out
	cp.ToolCalls = append([]schema.ToolCall(nil), out.ToolCalls...)
	return &cp, nil
}

func (s *scripted) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := s.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func (s *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }
