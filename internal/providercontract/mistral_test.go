package providercontract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/mistral"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// mistralMessage is one message of a chat request, as received.
type mistralMessage struct {
	Role      string `json:"role"`
	Content   any    `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
	ToolCallID *string `json:"tool_call_id,omitempty"`
}

// fakeMistral serves /v1/chat/completions, Mistral's own API and its
// OpenAI-compatible one (the same path), and rejects, with Mistral's
// status and error text, a conversation that breaks the message-structure
// rules Mistral applies (mistral-common's validator): the role order, and
// as many tool messages after an assistant message as it has tool calls.
// It also requires every tool message to name the call it answers; that
// wording is the fake's own.
type fakeMistral struct {
	mu       sync.Mutex
	replies  []fakeprovider.OpenAIReply
	requests [][]mistralMessage
}

func (f *fakeMistral) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		mistralError(w, http.StatusNotFound, "Not Found")
		return
	}
	var req struct {
		Messages []mistralMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		mistralError(w, http.StatusUnprocessableEntity, "Invalid JSON body")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.Messages)
	if msg := checkMistralMessages(req.Messages); msg != "" {
		mistralError(w, http.StatusBadRequest, msg)
		return
	}
	if len(f.replies) == 0 {
		mistralError(w, http.StatusBadRequest, "fake server: no reply left")
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	finish := "stop"
	if len(rep.Calls) > 0 {
		var tcs []map[string]any
		for _, c := range rep.Calls {
			tcs = append(tcs, map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
		}
		msg["tool_calls"], finish = tcs, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("cmpl-%d", len(f.requests)), "object": "chat.completion", "created": 1, "model": "mistral-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func mistralError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "error", "message": msg, "type": "invalid_request_message_order", "param": nil, "code": "3230"})
}

const mistralCountError = "Not the same number of function calls and responses"

func checkMistralMessages(msgs []mistralMessage) string {
	next := map[string][]string{
		"system":    {"user", "assistant", "system"},
		"user":      {"assistant", "system", "user"},
		"assistant": {"assistant", "user", "tool"},
		"tool":      {"assistant", "tool"},
	}
	expected := 0     // tool messages still expected
	var open []string // ids of the calls not yet answered
	prev := ""
	for _, m := range msgs {
		if prev != "" && !slices.Contains(next[prev], m.Role) {
			return fmt.Sprintf("Unexpected role '%s' after role '%s'", m.Role, prev)
		}
		switch m.Role {
		case "tool":
			expected--
			if expected < 0 {
				return "More tool responses than tool calls"
			}
			if m.ToolCallID == nil || !slices.Contains(open, *m.ToolCallID) {
				return "fake server: a tool message must carry the tool_call_id of a call of the assistant message before it"
			}
			open = slices.DeleteFunc(open, func(id string) bool { return id == *m.ToolCallID })
		case "assistant", "user":
			if expected != 0 {
				return mistralCountError
			}
			open = nil
			for _, tc := range m.ToolCalls {
				open = append(open, tc.ID)
			}
			expected = len(m.ToolCalls)
		}
		prev = m.Role
	}
	return ""
}

func (f *fakeMistral) Requests() [][]mistralMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// TestContractMistral runs a broken multi-call turn through langchaingo's
// mistral client, which cannot send it back: it sends each tool call of an
// AI message as an assistant message of its own, and each tool message
// without its tool_call_id (llms/mistral, v0.1.14,
// convertToMistralChatMessages; mistral-go's ChatMessage has no such
// field). The working recipe is langchaingo's openai client against
// Mistral's OpenAI-compatible endpoint (base URL https://api.mistral.ai/v1).
func TestContractMistral(t *testing.T) {
	ctx := context.Background()
	calls, wantRuns := fakeprovider.BrokenTurn()
	tests := []struct {
		name    string
		client  func(t *testing.T, url string) llms.Model
		wantErr string
	}{
		{
			name: "langchaingo's mistral client splits the turn and is rejected",
			client: func(t *testing.T, url string) llms.Model {
				llm, err := mistral.New(mistral.WithEndpoint(url), mistral.WithAPIKey("test"), mistral.WithModel("mistral-test"), mistral.WithMaxRetries(0))
				if err != nil {
					t.Fatal(err)
				}
				return llm
			},
			wantErr: mistralCountError,
		},
		{
			name: "openai client against Mistral's OpenAI-compatible endpoint",
			client: func(t *testing.T, url string) llms.Model {
				llm, err := openai.New(openai.WithBaseURL(url+"/v1"), openai.WithToken("test"), openai.WithModel("mistral-test"))
				if err != nil {
					t.Fatal(err)
				}
				return llm
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeMistral{replies: []fakeprovider.OpenAIReply{{Calls: calls}, {Text: "Paris is sunny."}}}
			srv := httptest.NewServer(f)
			t.Cleanup(srv.Close)
			llm := tt.client(t, srv.URL)
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			if n := len(resp.Choices[0].ToolCalls); n != len(calls) {
				t.Fatalf("first turn has %d calls, want %d", n, len(calls))
			}
			conv, err = node.Invoke(ctx, append(conv, saidex.AIMessageFromResponse(resp)))
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if runs.Load() != wantRuns {
				t.Errorf("get_weather ran %d times, want %d", runs.Load(), wantRuns)
			}
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
			sent := f.Requests()[1]
			if len(sent) != 2+len(calls) || len(sent[1].ToolCalls) != len(calls) {
				t.Errorf("second request: %d messages, %d calls in the assistant message; want %d and %d", len(sent), len(sent[1].ToolCalls), 2+len(calls), len(calls))
			}
		})
	}
}

// TestMistralClientDropsToolCallID shows the second defect of langchaingo's
// mistral client on a turn of one call, which the message-structure rules
// accept: the tool message reaches Mistral without the id of the call it
// answers.
func TestMistralClientDropsToolCallID(t *testing.T) {
	ctx := context.Background()
	f := &fakeMistral{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := mistral.New(mistral.WithEndpoint(srv.URL), mistral.WithAPIKey("test"), mistral.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "abcDEF123", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
	}
	conv, err = node.Invoke(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.GenerateContent(ctx, conv)
	if err == nil || !strings.Contains(err.Error(), "tool_call_id") {
		t.Fatalf("err = %v, want the fake's tool_call_id rejection", err)
	}
	sent := f.Requests()[0]
	if last := sent[len(sent)-1]; last.Role != "tool" || last.ToolCallID != nil {
		t.Errorf("last message sent = %+v, want a tool message without tool_call_id", last)
	}
}
