package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
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

// fakeOllamaChat serves Ollama's native /api/chat with a text answer and
// records the request bodies.
type fakeOllamaChat struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (f *fakeOllamaChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	if r.URL.Path != "/api/chat" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"model": "llama-test", "created_at": "2026-01-01T00:00:00Z",
		"message": map[string]any{"role": "assistant", "content": "I have no tools."},
		"done":    true, "done_reason": "stop",
	})
}

func (f *fakeOllamaChat) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

func TestOllamaNativeClientHasNoToolCalls(t *testing.T) {
	ctx := context.Background()
	f := &fakeOllamaChat{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := ollama.New(ollama.WithServerURL(srv.URL), ollama.WithModel("llama-test"))
	if err != nil {
		t.Fatal(err)
	}
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})

	// The tools never reach the model.
	if _, err := llm.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")},
		llms.WithTools(node.Definitions())); err != nil {
		t.Fatalf("text turn: %v", err)
	}
	if body := f.requests()[0]; body["tools"] != nil {
		t.Errorf("request carries tools %v; langchaingo v0.1.14's ollama client was expected to drop them", body["tools"])
	}

	// A conversation with a tool call and its answer is refused before any
	// request.
	conv, err := node.Invoke(ctx, conversation(tc("call_1", "get_weather", `{"city":"Paris"}`)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.GenerateContent(ctx, conv)
	if err == nil || !strings.Contains(err.Error(), "only support Text and BinaryContent parts") {
		t.Fatalf("err = %v, want the client's refusal of tool-call parts", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (the tool conversation never sent)", n)
	}
}

// TestContractOllamaOpenAICompatible: the openai client with base URL
// <ollama>/v1 carries a broken turn answered by the node; the local server
// applies OpenAI's tool-call rules on /v1/chat/completions.
func TestContractOllamaOpenAICompatible(t *testing.T) {
	ctx := context.Background()
	calls, wantRuns := fakeprovider.BrokenTurn()
	f, _ := fakeprovider.NewOpenAI(t, fakeprovider.OpenAIReply{Calls: calls}, fakeprovider.OpenAIReply{Text: "Paris is sunny."})
	srv := httptest.NewServer(http.StripPrefix("/v1", f)) // 404 outside /v1
	t.Cleanup(srv.Close)
	llm, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("ollama"), openai.WithModel("llama3.1"))
	if err != nil {
		t.Fatal(err)
	}
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})

	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	conv, err = node.Invoke(ctx, append(conv, AIMessageFromResponse(resp)))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	resp, err = llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("second turn rejected: %v", err)
	}
	if resp.Choices[0].Content != "Paris is sunny." || runs.Load() != wantRuns {
		t.Errorf("second turn %q, %d runs; want the answer and %d runs", resp.Choices[0].Content, runs.Load(), wantRuns)
	}
	if n := len(f.Requests()); n != 2 {
		t.Errorf("server received %d requests on /v1, want 2", n)
	}
}

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
