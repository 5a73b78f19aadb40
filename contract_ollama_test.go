package saidex

// Ollama: langchaingo's native client (llms/ollama, v0.1.14) has no tool
// calling — it drops llms.WithTools from the request and refuses a message
// holding a tool call or a tool response — so the recipe is the openai
// client against Ollama's OpenAI-compatible endpoint (base URL
// http://localhost:11434/v1), tested here at the wire.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

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
