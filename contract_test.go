package saidex

// Provider contract tests: saidex's output goes through langchaingo's real
// openai and anthropic clients to local servers that enforce the rules the
// providers apply to the conversation they receive.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// ---- OpenAI chat completions ----

type oaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type oaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []oaiToolCall   `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// oaiReply is one scripted assistant turn: text and calls (name, raw
// argument string).
type oaiReply struct {
	text  string
	calls [][3]string // id, name, arguments
}

// fakeOpenAI serves /chat/completions and rejects, with OpenAI's status and
// error text, a conversation that breaks OpenAI's tool-call rules.
type fakeOpenAI struct {
	mu       sync.Mutex
	replies  []oaiReply
	requests [][]oaiMessage
	rejected []string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []oaiMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		oaiError(w, "We could not parse the JSON body of your request.", "")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.Messages)
	if msg, param := checkOpenAIMessages(req.Messages); msg != "" {
		f.rejected = append(f.rejected, msg)
		oaiError(w, msg, param)
		return
	}
	if len(f.replies) == 0 {
		oaiError(w, "fake server: no reply left", "")
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	msg := map[string]any{"role": "assistant", "content": rep.text}
	finish := "stop"
	if len(rep.calls) > 0 {
		var tcs []map[string]any
		for _, c := range rep.calls {
			tcs = append(tcs, map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
		}
		msg["tool_calls"], finish = tcs, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", len(f.requests)), "object": "chat.completion", "created": 1, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func oaiError(w http.ResponseWriter, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	var p any
	if param != "" {
		p = param
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": p, "code": nil,
	}})
}

// checkOpenAIMessages applies OpenAI's rules: a tool call's type is
// "function" and its arguments a JSON string; the tool messages right after
// an assistant message with tool_calls answer each of its ids exactly once;
// a tool message answers a call of that assistant message.
func checkOpenAIMessages(msgs []oaiMessage) (msg, param string) {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]int{}
		for k, tc := range m.ToolCalls {
			if tc.Type != "function" {
				return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function'.", tc.Type), fmt.Sprintf("messages.[%d].tool_calls.[%d].type", i, k)
			}
			if len(tc.Function.Arguments) == 0 || tc.Function.Arguments[0] != '"' {
				return fmt.Sprintf("Invalid type for 'messages.[%d].tool_calls.[%d].function.arguments': expected a string.", i, k), ""
			}
			answered[tc.ID] = 0
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			n, ok := answered[msgs[j].ToolCallID]
			if !ok {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", j)
			}
			if n > 0 {
				// Enforced here; OpenAI's wording for this case is not quoted.
				return fmt.Sprintf("fake server: tool_call_id %s answered twice", msgs[j].ToolCallID), fmt.Sprintf("messages.[%d]", j)
			}
			answered[msgs[j].ToolCallID] = 1
		}
		var missing []string
		for _, tc := range m.ToolCalls {
			if answered[tc.ID] == 0 {
				missing = append(missing, tc.ID)
			}
		}
		if len(missing) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(missing, ", "), fmt.Sprintf("messages.[%d].role", i)
		}
		i = j - 1
	}
	return "", ""
}

func newFakeOpenAI(t *testing.T, replies ...oaiReply) (*fakeOpenAI, llms.Model) {
	t.Helper()
	f := &fakeOpenAI{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := openai.New(openai.WithToken("test-key"), openai.WithBaseURL(srv.URL), openai.WithModel("gpt-test"))
	if err != nil {
		t.Fatalf("openai.New: %v", err)
	}
	return f, llm
}

// ---- Anthropic messages ----

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

type antMessage struct {
	Role    string     `json:"role"`
	Content []antBlock `json:"content"`
}

// fakeAnthropic serves /messages and rejects, with Anthropic's status and
// error text, a conversation that breaks Anthropic's tool-use rules.
type fakeAnthropic struct {
	mu       sync.Mutex
	replies  [][]map[string]any // content blocks per turn
	requests [][]antMessage
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []antMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		antError(w, "messages: invalid JSON body")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.Messages)
	if msg := checkAnthropicMessages(req.Messages); msg != "" {
		antError(w, msg)
		return
	}
	if len(f.replies) == 0 {
		antError(w, "fake server: no reply left")
		return
	}
	content := f.replies[0]
	f.replies = f.replies[1:]
	stop := "end_turn"
	for _, b := range content {
		if b["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%d", len(f.requests)), "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	})
}

func antError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
}

// checkAnthropicMessages applies Anthropic's rules after merging
// consecutive turns of one role: every tool_use of an assistant turn is
// answered by a tool_result in the next turn, every tool_result answers a
// tool_use of the turn before, and every tool_use input is an object.
func checkAnthropicMessages(msgs []antMessage) string {
	var turns []antMessage
	for _, m := range msgs {
		if n := len(turns); n > 0 && turns[n-1].Role == m.Role {
			turns[n-1].Content = append(turns[n-1].Content, m.Content...)
			continue
		}
		turns = append(turns, antMessage{Role: m.Role, Content: append([]antBlock(nil), m.Content...)})
	}
	prevUses := map[string]bool{}
	for i, t := range turns {
		uses := map[string]bool{}
		for k, b := range t.Content {
			switch b.Type {
			case "tool_use":
				var obj map[string]any
				if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, k)
				}
				uses[b.ID] = true
			case "tool_result":
				if !prevUses[b.ToolUseID] {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, k, b.ToolUseID)
				}
				delete(prevUses, b.ToolUseID)
			}
		}
		if len(prevUses) > 0 {
			var ids []string
			for id := range prevUses {
				ids = append(ids, id)
			}
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(ids, ", "))
		}
		prevUses = uses
	}
	return ""
}

func newFakeAnthropic(t *testing.T, replies ...[]map[string]any) (*fakeAnthropic, llms.Model) {
	t.Helper()
	f := &fakeAnthropic{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := anthropic.New(anthropic.WithToken("test-key"), anthropic.WithBaseURL(srv.URL), anthropic.WithModel("claude-test"))
	if err != nil {
		t.Fatalf("anthropic.New: %v", err)
	}
	return f, llm
}

// ---- the agent loops ----

// brokenTurn is a model turn mixing a valid call, an unparseable one, an
// invalid one, a call to an unknown tool and a repairable one.
func brokenTurn() (calls [][3]string, wantRuns int64) {
	return [][3]string{
		{"call_valid", "get_weather", `{"city":"Paris","days":2}`},
		{"call_broken", "get_weather", `I will look up the weather in Paris now.`},
		{"call_invalid", "get_weather", `{"days":"three"}`},
		{"call_unknown", "teleport", `{"to":"Mars"}`},
		{"call_repairable", "get_weather", `{'city': 'Oslo', 'days': 1,}`},
	}, 2
}

// aiFromResponse is what a hand-written agent loop does with a response:
// one AI message with the text and the tool calls of every choice.
func aiFromResponse(resp *llms.ContentResponse) llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, ch := range resp.Choices {
		if ch.Content != "" {
			ai.Parts = append(ai.Parts, llms.TextPart(ch.Content))
		}
	}
	for _, ch := range resp.Choices {
		for _, tc := range ch.ToolCalls {
			ai.Parts = append(ai.Parts, tc)
		}
	}
	return ai
}

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
	calls, wantRuns := brokenTurn()
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
			srv, llm := newFakeOpenAI(t, oaiReply{calls: calls}, oaiReply{text: "Paris is sunny."})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			conv = append(conv, aiFromResponse(resp))
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
			if n := len(srv.requests[1]); n != 2+len(calls) {
				t.Errorf("second request has %d messages, want %d", n, 2+len(calls))
			}
		})
	}
}

func TestContractOpenAIExecutor(t *testing.T) {
	calls, wantRuns := brokenTurn()
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := newFakeOpenAI(t, oaiReply{text: "Let me check.", calls: calls}, oaiReply{text: "Paris is sunny."})
	out, err := agents.NewExecutor(mustAgent(t, llm, node)).Call(context.Background(), map[string]any{"input": "Weather in Paris?"})
	if err != nil {
		t.Fatalf("executor: %v (rejections: %v)", err, srv.rejected)
	}
	if out["output"] != "Paris is sunny." || runs.Load() != wantRuns {
		t.Errorf("output %v, %d runs (want %d)", out["output"], runs.Load(), wantRuns)
	}
	// The unparseable call went back as "{}" and was answered.
	var sawBroken bool
	for _, m := range srv.requests[1] {
		for _, tc := range m.ToolCalls {
			if tc.ID == "call_broken" {
				sawBroken = string(tc.Function.Arguments) == `"{}"`
			}
		}
	}
	if !sawBroken {
		t.Error("the unparseable call was not sent back with {} arguments")
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
			srv, llm := newFakeAnthropic(t, firstTurn, []map[string]any{{"type": "text", "text": "Paris is sunny."}})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			if len(resp.Choices) != 4 {
				t.Fatalf("anthropic client returned %d choices, want one per block (4)", len(resp.Choices))
			}
			conv, err = node.Invoke(ctx, append(conv, aiFromResponse(resp)))
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
			for _, m := range srv.requests[1] {
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

func TestContractAnthropicExecutor(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	_, llm := newFakeAnthropic(t,
		[]map[string]any{
			{"type": "text", "text": "Two cities."},
			{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Lima"}},
			{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": map[string]any{"city": 5}},
		},
		[]map[string]any{{"type": "text", "text": "Lima is sunny."}},
	)
	a := mustAgent(t, llm, node, WithAgentMessageTransform(SplitToolCalls))
	out, err := agents.NewExecutor(a).Call(context.Background(), map[string]any{"input": "Weather?"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if out["output"] != "Lima is sunny." || runs.Load() != 1 {
		t.Errorf("output %v, %d runs", out["output"], runs.Load())
	}
}

// Anthropic's client unmarshals the arguments of every past call. A call
// answered with feedback for unparseable arguments must therefore reach it
// with parseable ones: the sanitize stage's job.
func TestContractAnthropicPastArgumentsParse(t *testing.T) {
	ctx := context.Background()
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	_, llm := newFakeAnthropic(t, []map[string]any{{"type": "text", "text": "ok"}})
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
