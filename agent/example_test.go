package agent_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/agent"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// agentExampleModel answers with scripted responses, in order.
type agentExampleModel struct {
	mu        sync.Mutex
	responses []*llms.ContentResponse
}

func (m *agentExampleModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.responses[0]
	m.responses = m.responses[1:]
	return r, nil
}

func (m *agentExampleModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// An agents.Executor runs an [agent.Agent] like any langchaingo agent. The
// model's first turn holds a valid call and one whose arguments miss the
// required city: the valid call runs, the other is answered with feedback,
// and the run goes on instead of aborting.
func ExampleNew() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(id, args string) llms.ToolCall {
		return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: args}}
	}
	model := &agentExampleModel{responses: []*llms.ContentResponse{
		{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
			call("call_1", `{"city":"Paris"}`),
			call("call_2", `{"town":"Rome"}`),
		}}}},
		{Choices: []*llms.ContentChoice{{Content: "It is sunny in Paris."}}},
	}}

	a, err := agent.New(model, node)
	if err != nil {
		fmt.Println(err)
		return
	}
	executor := agents.NewExecutor(a, agents.WithReturnIntermediateSteps())
	out, err := executor.Call(context.Background(), map[string]any{"input": "Weather in Paris and Rome?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, step := range out["intermediateSteps"].([]schema.AgentStep) {
		fmt.Printf("%s %s -> feedback: %t\n", step.Action.ToolID, step.Action.ToolInput, step.Observation != "sunny in Paris")
	}
	fmt.Println(out["output"])
	// Output:
	// call_1 {"city":"Paris"} -> feedback: false
	// call_2 {"town":"Rome"} -> feedback: true
	// It is sunny in Paris.
}
