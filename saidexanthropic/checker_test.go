package saidexanthropic_test

import (
	"context"
	"errors"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"github.com/tmc/langchaingo/tools"
)

// A Guard built from the request's own tool definitions checks calls
// against their input_schema; the loop runs the ready ones.
func TestNewCheckerFromToolDefinitions(t *testing.T) {
	ctx := context.Background()
	defs := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name: "get_weather", Description: anthropic.String("Weather forecast for a city."),
		InputSchema: anthropic.ToolInputSchemaParam{
			Properties: map[string]any{
				"city": map[string]any{"type": "string"},
				"days": map[string]any{"type": "integer", "minimum": 1, "maximum": 14},
			},
			Required:    []string{"city"},
			ExtraFields: map[string]any{"additionalProperties": false},
		},
	}}}
	g, err := saidexanthropic.NewChecker(defs, saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		t.Fatal(err)
	}
	srv, client := newServer(t, brokenReply(), done)
	params := anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 1024, Tools: defs,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather?"))}}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := g.Check(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	results := checked.Results(func(c saidexanthropic.CheckedCall) (string, bool) {
		return "ran " + c.Name + " " + string(c.Input), false
	})
	params.Messages = append(params.Messages, checked.Assistant, results)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	want := append([]wantCall(nil), brokenWant...)
	want[0].result, want[1].result = `ran get_weather {"city":"Paris","days":2}`, `ran get_weather {"city":"Oslo","days":3}`
	checkNextRequest(t, srv, want)

	if _, err := saidexanthropic.NewChecker(append(defs, defs...)); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("NewChecker with a duplicate name = %v, want ErrInvalidConfig", err)
	}
}

// A tool error the node is not configured to answer fails Run, with no
// turn; configured, it is an is_error tool_result. A cancelled ctx fails
// Run before anything runs.
func TestRunToolErrorsAndCancel(t *testing.T) {
	ctx := context.Background()
	failing := func(handle bool) *saidexanthropic.Guard {
		tool := saidex.NewTool("get_weather", "Weather.", func(context.Context, weatherArgs) (string, error) {
			return "", errors.New("weather service down")
		})
		node, err := saidex.NewToolNode([]tools.Tool{tool}, saidex.WithHandleToolErrors(handle))
		if err != nil {
			t.Fatal(err)
		}
		g, err := saidexanthropic.New(node)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	reply := anthropictest.Reply{Content: []anthropictest.Block{anthropictest.ToolUse("toolu_1", "get_weather", `{"city":"Paris"}`)}}
	_, client := newServer(t, reply, reply, reply)
	params := firstParams(failing(false))
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	var te *saidex.ToolError
	if turn, err := failing(false).Run(ctx, params.Messages, msg); !errors.As(err, &te) || turn != nil {
		t.Errorf("Run with a failing tool = %v, %v; want a *saidex.ToolError and no turn", turn, err)
	}
	turn, err := failing(true).Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	if r := turn.Results.OfUser.Content[0].OfToolResult; r == nil || !r.IsError.Value {
		t.Errorf("a handled tool error is not an is_error tool_result: %+v", turn.Results)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := failing(true).Run(cctx, params.Messages, msg); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled ctx = %v, want context.Canceled", err)
	}
	if _, err := saidexanthropic.New(nil); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("New(nil) = %v, want ErrInvalidConfig", err)
	}
}
