package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// weatherArgs is the argument struct of the test tools.
type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// countingWeather returns a weather tool and a counter of its calls.
func countingWeather() (saidex.Tool, *atomic.Int64) {
	var n atomic.Int64
	return saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
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

func mustAgent(t testing.TB, m llms.Model, node *saidex.ToolNode, opts ...Option) *Agent {
	t.Helper()
	a, err := New(m, node, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

// scriptModel is a scripted model whose requests the tests read back.
type scriptModel struct{ *saidextest.Model }

// script returns a model answering the i-th request with responses[i].
func script(responses ...*llms.ContentResponse) *scriptModel {
	fns := make([]saidextest.Reply, len(responses))
	for i, r := range responses {
		fns[i] = saidextest.Respond(r)
	}
	return &scriptModel{saidextest.NewModel(saidextest.Sequence(fns...))}
}

// calls returns what the model received, per call.
func (m *scriptModel) calls() ([][]llms.MessageContent, []llms.CallOptions) {
	var msgs [][]llms.MessageContent
	var opts []llms.CallOptions
	for _, r := range m.Requests() {
		msgs = append(msgs, r.Messages)
		opts = append(opts, r.Options)
	}
	return msgs, opts
}

func tc(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// callsResponse is a one-choice response with text and tool calls.
func callsResponse(text string, calls ...llms.ToolCall) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, ToolCalls: calls}}}
}

// textResponse is a one-choice text response.
func textResponse(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}
}

// toolResponses returns the ToolCallResponse parts of the tool messages of
// msgs, in order.
func toolResponses(msgs []llms.MessageContent) []llms.ToolCallResponse {
	var out []llms.ToolCallResponse
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeTool {
			continue
		}
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// isObject reports whether s decodes as one JSON object, as the providers'
// clients read past arguments back.
func isObject(s string) bool {
	var m map[string]any
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}
