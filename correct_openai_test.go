package saidex

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// cxChatServer is a local chat-completions endpoint that answers every
// request with a tool call (or, with status set, an error) and records the
// request bodies.
type cxChatServer struct {
	mu       sync.Mutex
	bodies   []map[string]any
	answer   string // arguments of the tool call it answers with
	status   int    // non-zero: answer with this HTTP status
	requests int
}

func (s *cxChatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.requests++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.status != 0 {
		w.WriteHeader(s.status)
		_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
		return
	}
	name := ""
	if tc, ok := body["tool_choice"].(map[string]any); ok {
		if f, ok := tc["function"].(map[string]any); ok {
			name, _ = f["name"].(string)
		}
	}
	resp := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{
				"role": "assistant", "content": nil,
				"tool_calls": []any{map[string]any{
					"id": "call_fix", "type": "function",
					"function": map[string]any{"name": name, "arguments": s.answer},
				}},
			},
		}},
		"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135},
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func cxOpenAI(t *testing.T, srv *httptest.Server) *openai.LLM {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("gpt-test-mini"),
		openai.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

func TestCorrectionThroughOpenAIClient(t *testing.T) {
	cs := &cxChatServer{answer: `{"city":"Paris","days":3}`}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	rec := &cxRecorder{}
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(cxOpenAI(t, srv), llms.WithModel("gpt-test-mini")))

	res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeCorrected || rep.Output != "Paris: sunny for 3 days" {
		t.Fatalf("report = %+v, want the corrected call executed", rep)
	}
	if got := rec.ran(); len(got) != 1 || got[0] != (cxForecastArgs{"Paris", 3}) {
		t.Errorf("tool ran with %+v", got)
	}
	if got, want := rep.Tokens["gpt-test-mini"], (TokenUsage{120, 15, 135}); got != want || len(rep.Tokens) != 1 {
		t.Errorf("Tokens = %v, want gpt-test-mini: %v", rep.Tokens, want)
	}

	if cs.requests != 1 {
		t.Fatalf("%d requests, want 1", cs.requests)
	}
	body := cs.bodies[0]
	choice, _ := json.Marshal(body["tool_choice"])
	if string(choice) != `{"function":{"name":"forecast"},"type":"function"}` {
		t.Errorf("tool_choice = %s, want the forecast function forced", choice)
	}
	toolsJSON, _ := json.Marshal(body["tools"])
	var sent []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(toolsJSON, &sent); err != nil || len(sent) != 1 || sent[0].Function.Name != "forecast" || sent[0].Function.Parameters["properties"] == nil {
		t.Errorf("tools = %s, want only forecast with its schema", toolsJSON)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 1 {
		t.Errorf("%d messages sent, want one prompt", len(msgs))
	}
}

func TestCorrectionThroughOpenAIClientRateLimited(t *testing.T) {
	cs := &cxChatServer{status: http.StatusTooManyRequests}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	rec := &cxRecorder{}
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(cxOpenAI(t, srv)))

	res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
	if err != nil {
		t.Fatalf("Run = %v; an HTTP 429 must not fail the node", err)
	}
	if rep := res.Calls[0]; rep.Outcome != OutcomeFeedback || rep.CorrectionErr == nil {
		t.Fatalf("report = %+v, want feedback", rep)
	}
	if cs.requests != 1 || len(rec.ran()) != 0 {
		t.Errorf("%d requests, %d tool runs; want 1 and 0 (no network retries)", cs.requests, len(rec.ran()))
	}
}

// Correction tokens are keyed by the model name: the response's, else the
// one passed with llms.WithModel, else (langchaingo's clients expose the
// configured model through no method, and saidex reads no unexported
// field) the client's Go type.
func TestCorrectionTokensKeyedByModelName(t *testing.T) {
	cs := &cxChatServer{answer: `{"city":"Paris","days":3}`}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	bare, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		model llms.Model
		opts  []llms.CallOption
		want  string
	}{
		{"a configured client without llms.WithModel: its Go type", cxOpenAI(t, srv), nil, "*openai.LLM"},
		{"llms.WithModel first", cxOpenAI(t, srv), []llms.CallOption{llms.WithModel("gpt-override")}, "gpt-override"},
		{"a client configured without a model", bare, nil, "*openai.LLM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(tt.model, tt.opts...))
			res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if got, want := rep.Tokens[tt.want], (TokenUsage{120, 15, 135}); rep.Outcome != OutcomeCorrected || got != want || len(rep.Tokens) != 1 {
				t.Errorf("outcome %s, Tokens = %v, want %s: %v", rep.Outcome, rep.Tokens, tt.want, want)
			}
		})
	}
}
