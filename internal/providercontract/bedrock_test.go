package providercontract

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/bedrock"
	"github.com/tmc/langchaingo/tools"
)

const bedrockClaude = "anthropic.claude-3-haiku-20240307-v1:0"

// newBedrockAnthropic returns langchaingo's bedrock client for a Claude
// model, its InvokeModel requests served by a fake Anthropic messages
// endpoint (Bedrock's Claude models take and return the Messages API body)
// that enforces Anthropic's tool-use rules.
func newBedrockAnthropic(t *testing.T, replies ...[]map[string]any) (*fakeprovider.Anthropic, llms.Model) {
	f, llm, _ := newBedrockAnthropicBodies(t, replies...)
	return f, llm
}

// newBedrockAnthropicBodies is newBedrockAnthropic that also returns a
// function giving the raw body of every request received.
func newBedrockAnthropicBodies(t *testing.T, replies ...[]map[string]any) (*fakeprovider.Anthropic, llms.Model, func() [][]byte) {
	t.Helper()
	f, _ := fakeprovider.NewAnthropic(t, replies...)
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/model/"+bedrockClaude+"/invoke" {
			http.Error(w, `{"message":"unexpected path `+r.URL.Path+`"}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	client := bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   srv.Client(),
	})
	llm, err := bedrock.New(bedrock.WithClient(client), bedrock.WithModel(bedrockClaude))
	if err != nil {
		t.Fatalf("bedrock.New: %v", err)
	}
	return f, llm, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(bodies)
	}
}

// TestContractBedrockAnthropic runs a turn with a valid, an unparseable and
// an invalid call, after text, through langchaingo's bedrock client
// (Claude's Messages API). Unlike llms/anthropic it sends every part, and
// merges consecutive messages of one role, so no SplitToolCalls is needed;
// but it sends unparseable past arguments as {"arguments": "<raw>"}, an
// input the model never produced, which the node's sanitized history
// avoids.
func TestContractBedrockAnthropic(t *testing.T) {
	ctx := context.Background()
	const cut = `{"city": "Os`
	firstTurn := []map[string]any{
		{"type": "text", "text": "Let me check."},
		{"type": "tool_use", "id": "toolu_valid", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
		{"type": "tool_use", "id": "toolu_broken", "name": "get_weather", "input": map[string]any{"city": "Oslo"}},
		{"type": "tool_use", "id": "toolu_invalid", "name": "get_weather", "input": map[string]any{"days": 3}},
	}
	tests := []struct {
		name      string
		opts      []saidex.Option
		wantInput string // the broken call's input as sent in the second request
	}{
		{name: "sanitized history", wantInput: `{}`},
		{name: "unsanitized history", opts: []saidex.Option{saidex.WithSanitizeMessages(false)}, wantInput: `{"arguments":"{\"city\": \"Os"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather}, tt.opts...)
			srv, llm := newBedrockAnthropic(t, firstTurn, []map[string]any{{"type": "text", "text": "Paris is sunny."}})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			ai := saidex.AIMessageFromResponse(resp)
			// Claude's tool_use input is an object on the wire; the cut
			// argument string stands for one from a streamed turn or a
			// history started elsewhere (see breakThird).
			for i, p := range ai.Parts {
				if tc, ok := p.(llms.ToolCall); ok && tc.ID == "toolu_broken" {
					fc := *tc.FunctionCall
					fc.Arguments = cut
					tc.FunctionCall = &fc
					ai.Parts[i] = tc
				}
			}
			conv, err = node.Invoke(ctx, append(conv, ai))
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			resp, err = llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("second turn rejected: %v", err)
			}
			if resp.Choices[0].Content != "Paris is sunny." {
				t.Errorf("second turn = %q", resp.Choices[0].Content)
			}
			if runs.Load() != 1 {
				t.Errorf("get_weather ran %d times, want 1", runs.Load())
			}
			sent := srv.Requests()[1]
			var input string
			for _, m := range sent {
				for _, b := range m.Content {
					if b.Type == "tool_use" && b.ID == "toolu_broken" {
						input = string(b.Input)
					}
				}
			}
			if input != tt.wantInput {
				t.Errorf("broken call's input sent = %s, want %s", input, tt.wantInput)
			}
			if n := len(sent); n != 3 {
				t.Errorf("second request has %d messages, want user, assistant, user (tool results merged)", n)
			}
		})
	}
}

// TestContractBedrockNaiveExecutorRejected: an executor that skips the
// unparseable call leaves its tool_use unanswered, which Anthropic rejects
// through Bedrock too.
func TestContractBedrockNaiveExecutorRejected(t *testing.T) {
	ctx := context.Background()
	_, llm := newBedrockAnthropic(t, []map[string]any{
		{"type": "tool_use", "id": "toolu_valid", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
		{"type": "tool_use", "id": "toolu_broken", "name": "get_weather", "input": map[string]any{"city": "Oslo"}},
	})
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")}
	resp, err := llm.GenerateContent(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	conv = append(conv, saidex.AIMessageFromResponse(resp), llms.MessageContent{Role: llms.ChatMessageTypeTool,
		Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "toolu_valid", Name: "get_weather", Content: "sunny"}}})
	_, err = llm.GenerateContent(ctx, conv)
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("err = %v, want HTTP 400 for the unanswered tool_use", err)
	}
}
