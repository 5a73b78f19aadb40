package saidex

// Provider contract tests: saidex's output goes through langchaingo's real
// openai and anthropic clients to local servers (internal/fakeprovider) that
// enforce the rules the providers apply to the conversation they receive.
// The executor's contract tests are in the agent package.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// naiveTools is the loop a user writes without saidex: arguments that do
// not parse are skipped, unknown tools and tool errors are reported.
func naiveTools(ctx context.Context, ts []tools.Tool, conv []llms.MessageContent) []llms.MessageContent {
	ai := conv[len(conv)-1]
	for _, tc := range toolCallsOf(ai) {
		var args map[string]any
		if json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args) != nil {
			continue // cannot run it: skipped
		}
		out := "unknown tool " + tc.FunctionCall.Name
		for _, t := range ts {
			if t.Name() == tc.FunctionCall.Name {
				var err error
				if out, err = t.Call(ctx, tc.FunctionCall.Arguments); err != nil {
					out = "error: " + err.Error()
				}
			}
		}
		conv = append(conv, llms.MessageContent{Role: llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: out}}})
	}
	return conv
}

func TestContractOpenAIAgentLoop(t *testing.T) {
	ctx := context.Background()
	calls, wantRuns := fakeprovider.BrokenTurn()
	tests := []struct {
		name    string
		execute func(t *testing.T, node *ToolNode, ts []tools.Tool, conv []llms.MessageContent) []llms.MessageContent
		wantErr string // "" when the next turn must be accepted
	}{
		{
			name: "saidex node answers every call",
			execute: func(t *testing.T, node *ToolNode, _ []tools.Tool, conv []llms.MessageContent) []llms.MessageContent {
				out, err := node.Invoke(ctx, conv)
				if err != nil {
					t.Fatalf("Invoke: %v", err)
				}
				return out
			},
		},
		{
			name: "naive executor skips the unparseable call",
			execute: func(_ *testing.T, _ *ToolNode, ts []tools.Tool, conv []llms.MessageContent) []llms.MessageContent {
				return naiveTools(ctx, ts, conv)
			},
			wantErr: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_broken",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			ts := []tools.Tool{weather}
			node := mustNode(t, ts)
			srv, llm := fakeprovider.NewOpenAI(t, fakeprovider.OpenAIReply{Calls: calls}, fakeprovider.OpenAIReply{Text: "Paris is sunny."})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			conv = append(conv, AIMessageFromResponse(resp))
			conv = tt.execute(t, node, ts, conv)
			resp, err = llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("second turn: err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("second turn rejected: %v", err)
			}
			if resp.Choices[0].Content != "Paris is sunny." {
				t.Errorf("second turn = %q", resp.Choices[0].Content)
			}
			if runs.Load() != wantRuns {
				t.Errorf("weather ran %d times, want %d", runs.Load(), wantRuns)
			}
			if n := len(srv.Requests()[1]); n != 2+len(calls) {
				t.Errorf("second request has %d messages, want %d", n, 2+len(calls))
			}
		})
	}
}

func TestContractAnthropicAgentLoop(t *testing.T) {
	ctx := context.Background()
	firstTurn := []map[string]any{
		{"type": "text", "text": "Let me check."},
		{"type": "tool_use", "id": "toolu_valid", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
		{"type": "tool_use", "id": "toolu_invalid", "name": "get_weather", "input": map[string]any{"days": 3}},
		{"type": "tool_use", "id": "toolu_unknown", "name": "teleport", "input": map[string]any{}},
	}
	tests := []struct {
		name    string
		send    func([]llms.MessageContent) []llms.MessageContent
		wantErr string
	}{
		{
			// langchaingo's client serializes only Parts[0] of an AI message
			// (here the text): the tool results then answer nothing.
			name:    "as is, langchaingo drops the tool calls",
			send:    func(m []llms.MessageContent) []llms.MessageContent { return m },
			wantErr: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_valid",
		},
		{name: "split with SplitToolCalls", send: SplitToolCalls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather})
			srv, llm := fakeprovider.NewAnthropic(t, firstTurn, []map[string]any{{"type": "text", "text": "Paris is sunny."}})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			if len(resp.Choices) != 4 {
				t.Fatalf("anthropic client returned %d choices, want one per block (4)", len(resp.Choices))
			}
			conv, err = node.Invoke(ctx, append(conv, AIMessageFromResponse(resp)))
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if n := len(toolResponses(conv)); n != 3 {
				t.Fatalf("%d tool messages, want 3", n)
			}
			resp, err = llm.GenerateContent(ctx, tt.send(conv), llms.WithTools(node.Definitions()))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("second turn: err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("second turn rejected: %v", err)
			}
			if resp.Choices[0].Content != "Paris is sunny." || runs.Load() != 1 {
				t.Errorf("second turn %q, %d runs", resp.Choices[0].Content, runs.Load())
			}
			var uses int
			for _, m := range srv.Requests()[1] {
				for _, b := range m.Content {
					if b.Type == "tool_use" {
						uses++
					}
				}
			}
			if uses != 3 {
				t.Errorf("the provider saw %d tool_use blocks, want 3", uses)
			}
		})
	}
}

// Anthropic's client unmarshals the arguments of every past call. A call
// answered with feedback for unparseable arguments must therefore reach it
// with parseable ones: the sanitize stage's job.
func TestContractAnthropicPastArgumentsParse(t *testing.T) {
	ctx := context.Background()
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	_, llm := fakeprovider.NewAnthropic(t, []map[string]any{{"type": "text", "text": "ok"}})
	// A conversation begun with another provider, whose model sent garbage.
	conv := conversation(tc("call_1", "get_weather", `Paris please`))
	out, err := node.Invoke(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.GenerateContent(ctx, conv); err == nil || !strings.Contains(err.Error(), "failed to unmarshal tool call arguments") {
		t.Fatalf("unsanitized history: err = %v, want langchaingo's unmarshal failure", err)
	}
	if args := toolCallsOf(out[1])[0].FunctionCall.Arguments; args != "{}" {
		t.Fatalf("sanitized arguments = %q, want {}", args)
	}
	if _, err := llm.GenerateContent(ctx, out); err != nil {
		t.Errorf("sanitized history rejected: %v", err)
	}
}
