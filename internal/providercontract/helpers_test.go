package providercontract

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

type weatherArgs struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// countingWeather is a get_weather tool that counts its runs.
func countingWeather() (saidex.Tool, *atomic.Int64) {
	var n atomic.Int64
	return saidex.NewTool("get_weather", "Current weather for a city.",
		func(_ context.Context, a weatherArgs) (string, error) {
			n.Add(1)
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		}), &n
}

func mustNode(t testing.TB, ts []tools.Tool, opts ...saidex.Option) *saidex.ToolNode {
	t.Helper()
	n, err := saidex.NewToolNode(ts, opts...)
	if err != nil {
		t.Fatalf("NewToolNode: %v", err)
	}
	return n
}

// toolCalls returns the tool calls of an AI message.
func toolCalls(m llms.MessageContent) []llms.ToolCall {
	var out []llms.ToolCall
	for _, p := range m.Parts {
		if tc, ok := p.(llms.ToolCall); ok {
			out = append(out, tc)
		}
	}
	return out
}
