package saidexeino_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexeino"
)

// The ToolsNode configured by a Guard answers every call: the repaired one
// runs with its repaired arguments, the invalid one gets field-level
// feedback and never runs, the unknown tool gets the list of tools.
func ExampleGuard_ToolsNodeConfig() {
	ctx := context.Background()
	type WeatherArgs struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	}
	weather, err := utils.InferTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) {
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})
	if err != nil {
		panic(err)
	}
	g, err := saidexeino.New(ctx, []tool.BaseTool{weather}, saidex.WithHandleToolErrors(true))
	if err != nil {
		panic(err)
	}
	cfg := g.ToolsNodeConfig() // also for react.AgentConfig.ToolsConfig and adk.ToolsConfig
	node, err := compose.NewToolNode(ctx, &cfg)
	if err != nil {
		panic(err)
	}
	call := func(id, name, args string) schema.ToolCall {
		return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
	}
	msgs, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{
		call("call_1", "get_weather", `{'city': 'Paris', 'days': 2,}`),
		call("call_2", "get_weather", `{"city": "Rome", "days": 30}`),
		call("call_3", "get_forecast", `{"city": "Rome"}`),
	}))
	if err != nil {
		panic(err)
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.ToolCallID, strings.ReplaceAll(m.Content, "\n", " "))
	}
	// Output:
	// call_1: Paris: sunny for 2 days
	// call_2: Error: get_weather was not executed because its arguments do not match the tool's schema: - days: must be at most 14 Call get_weather again with these fields corrected.
	// call_3: Error: get_forecast is not a valid tool, try one of [get_weather].
}
