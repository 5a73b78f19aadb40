package saidex

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/internal/fakeprovider"
)

// openAIHistory runs the first turn of the broken scenario on the strict
// OpenAI server and returns the conversation with the model's AI message,
// the server, the client, the node and its run counter.
func openAIHistory(t *testing.T) ([]llms.MessageContent, *fakeprovider.OpenAI, llms.Model, *ToolNode, func() int64) {
	t.Helper()
	calls, _ := fakeprovider.BrokenTurn()
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := fakeprovider.NewOpenAI(t, fakeprovider.OpenAIReply{Calls: calls}, fakeprovider.OpenAIReply{Text: "Paris is sunny."})
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(context.Background(), conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	return append(conv, AIMessageFromResponse(resp)), srv, llm, node, runs.Load
}

// nextTurn sends conv to the server and fails the test when it is rejected.
func nextTurn(t *testing.T, srv *fakeprovider.OpenAI, llm llms.Model, node *ToolNode, conv []llms.MessageContent) {
	t.Helper()
	resp, err := llm.GenerateContent(context.Background(), conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("next turn rejected: %v (server: %v)", err, srv.Rejected())
	}
	if resp.Choices[0].Content != "Paris is sunny." {
		t.Errorf("next turn = %q", resp.Choices[0].Content)
	}
	reqs := srv.Requests()
	if got, want := len(reqs[len(reqs)-1]), len(conv); got != want {
		t.Errorf("the request carried %d messages, want %d", got, want)
	}
}

// A retried tools step (the loop runs the node twice on the same history)
// executes nothing the second time, adds nothing, and the provider accepts
// the next turn.
func TestContractOpenAISecondInvokeExecutesNothing(t *testing.T) {
	ctx := context.Background()
	conv, srv, llm, node, runs := openAIHistory(t)
	calls, wantRuns := fakeprovider.BrokenTurn()
	once, err := node.Invoke(ctx, conv)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	twice, err := node.Invoke(ctx, once)
	if err != nil {
		t.Fatalf("second Invoke: %v", err)
	}
	if !reflect.DeepEqual(twice, once) {
		t.Errorf("second Invoke changed the conversation: %d messages, want %d", len(twice), len(once))
	}
	if runs() != wantRuns {
		t.Errorf("weather ran %d times, want %d", runs(), wantRuns)
	}
	nextTurn(t, srv, llm, node, twice)
	if got, want := len(srv.Requests()[1]), 2+len(calls); got != want {
		t.Errorf("second request has %d messages, want %d", got, want)
	}
}

// A history whose run crashed after some tool messages were stored: the
// resumed run executes only the pending calls, and its messages land where
// the provider accepts them.
func TestContractOpenAIResumedHistoryRunsOnlyPendingCalls(t *testing.T) {
	ctx := context.Background()
	conv, srv, llm, node, runs := openAIHistory(t)
	full, err := node.Invoke(ctx, conv)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	ranFirst := runs()
	// Keep the AI message and the answers of the first two calls only
	// (call_valid ran; call_broken got feedback): the crash lost the rest.
	crashed := full[:4]
	resumed, err := node.Invoke(ctx, crashed)
	if err != nil {
		t.Fatalf("resumed Invoke: %v", err)
	}
	if got := runs() - ranFirst; got != 1 { // call_repairable; call_valid is not run again
		t.Errorf("the resumed run executed %d calls, want 1", got)
	}
	if !reflect.DeepEqual(resumed, full) {
		t.Errorf("resumed conversation differs from the uninterrupted one")
	}
	nextTurn(t, srv, llm, node, resumed)
}

// A human message appended after unanswered calls is refused before
// anything runs; appending the tool messages after it, as the node used
// to, is what the provider rejects.
func TestContractOpenAIMisplacedHumanMessage(t *testing.T) {
	ctx := context.Background()
	conv, _, llm, node, runs := openAIHistory(t)
	conv = append(conv, llms.TextParts(llms.ChatMessageTypeHuman, "Hurry up."))
	out, err := node.Invoke(ctx, conv)
	var me *MisplacedMessageError
	if !errors.Is(err, ErrMisplacedMessage) || !errors.As(err, &me) || me.Index != 2 || out != nil {
		t.Fatalf("Invoke = %d messages, %v; want ErrMisplacedMessage at index 2", len(out), err)
	}
	if runs() != 0 {
		t.Errorf("weather ran %d times before the refusal", runs())
	}
	// What the provider says about tool messages appended after it.
	res, err := node.Run(ctx, conv[:2])
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.GenerateContent(ctx, append(conv, res.ToolMessages...), llms.WithTools(node.Definitions()))
	if err == nil || !strings.Contains(err.Error(), "must be followed by tool messages") {
		t.Errorf("appended after the human message: err = %v, want the provider's rejection", err)
	}
}

// The Anthropic client: a resumed history, split for the client, is
// accepted, every tool_use answered once.
func TestContractAnthropicResumedHistory(t *testing.T) {
	ctx := context.Background()
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	_, llm := fakeprovider.NewAnthropic(t, []map[string]any{
		{"type": "text", "text": "Let me check."},
		{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
		{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": map[string]any{"city": "Rome"}},
		{"type": "tool_use", "id": "toolu_3", "name": "get_weather", "input": map[string]any{"city": "Oslo"}},
	}, []map[string]any{{"type": "text", "text": "Sunny everywhere."}})
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	conv = append(conv, AIMessageFromResponse(resp),
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: "toolu_2", Name: "get_weather", Content: "Rome: rain"},
		}})
	out, err := node.Invoke(ctx, conv)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if runs.Load() != 2 {
		t.Errorf("weather ran %d times, want 2 (toolu_2 was answered)", runs.Load())
	}
	var ids []string
	for _, r := range toolResponses(out) {
		ids = append(ids, r.ToolCallID)
	}
	if strings.Join(ids, ",") != "toolu_1,toolu_2,toolu_3" {
		t.Errorf("tool messages answer %v, want toolu_1,toolu_2,toolu_3 in call order", ids)
	}
	if resp, err = llm.GenerateContent(ctx, SplitToolCalls(out), llms.WithTools(node.Definitions())); err != nil {
		t.Fatalf("next turn rejected: %v", err)
	}
	if resp.Choices[0].Content != "Sunny everywhere." {
		t.Errorf("next turn = %q", resp.Choices[0].Content)
	}
}
