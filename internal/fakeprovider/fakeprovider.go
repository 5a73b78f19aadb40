// Package fakeprovider serves local stand-ins for OpenAI's chat
// completions API and Anthropic's messages API, for the provider contract
// tests of saidex and its agent package: langchaingo's real openai and
// anthropic clients talk to them, and they reject, with the provider's
// status and error text, a conversation that breaks the provider's
// tool-call rules. Each answers with scripted turns, in order.
package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// ---- OpenAI chat completions ----

// OpenAIToolCall is a tool call of an assistant message, as received.
type OpenAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// OpenAIMessage is one message of a request, as received.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIReply is one scripted assistant turn: its text and its calls (id,
// name, raw argument string).
type OpenAIReply struct {
	Text  string
	Calls [][3]string // id, name, arguments
	// Finish is the reply's finish_reason; "" sends "tool_calls" for a
	// reply with calls and "stop" otherwise.
	Finish string
	// Deltas, for a streamed request, are the tool_calls deltas to send,
	// one chunk each, as a server that streams calls in pieces sends them;
	// nil sends each of Calls whole, with its index and type, in one chunk.
	Deltas []map[string]any
}

// OpenAI serves /chat/completions and rejects, with OpenAI's status and
// error text, a conversation that breaks OpenAI's tool-call rules.
type OpenAI struct {
	mu       sync.Mutex
	replies  []OpenAIReply
	requests [][]OpenAIMessage
	rejected []string
}

func (f *OpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []OpenAIMessage `json:"messages"`
		Stream   bool            `json:"stream"`
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
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	finish := "stop"
	if len(rep.Calls) > 0 {
		var tcs []map[string]any
		for _, c := range rep.Calls {
			tcs = append(tcs, map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
		}
		msg["tool_calls"], finish = tcs, "tool_calls"
	}
	if rep.Finish != "" {
		finish = rep.Finish
	}
	if req.Stream {
		streamOpenAI(w, len(f.requests), rep, finish)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", len(f.requests)), "object": "chat.completion", "created": 1, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// streamOpenAI writes rep as server-sent chat.completion.chunk events: its
// text, its tool-call deltas (rep.Deltas, or each call whole), then the
// finish reason and [DONE].
func streamOpenAI(w http.ResponseWriter, n int, rep OpenAIReply, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": rep.Text}, nil)
	deltas := rep.Deltas
	if deltas == nil {
		for i, c := range rep.Calls {
			deltas = append(deltas, map[string]any{"index": i, "id": c[0], "type": "function",
				"function": map[string]any{"name": c[1], "arguments": c[2]}})
		}
	}
	for _, d := range deltas {
		chunk(map[string]any{"tool_calls": []any{d}}, nil)
	}
	chunk(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
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
func checkOpenAIMessages(msgs []OpenAIMessage) (msg, param string) {
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

// Requests returns the messages of every request received, in order.
func (f *OpenAI) Requests() [][]OpenAIMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// Rejected returns the error messages of the requests rejected, in order.
func (f *OpenAI) Rejected() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.rejected)
}

// NewOpenAI starts a fake OpenAI server answering with replies, closed
// when the test ends, and returns it with a langchaingo openai client
// talking to it.
func NewOpenAI(t testing.TB, replies ...OpenAIReply) (*OpenAI, llms.Model) {
	t.Helper()
	f := &OpenAI{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := openai.New(openai.WithToken("test-key"), openai.WithBaseURL(srv.URL), openai.WithModel("gpt-test"))
	if err != nil {
		t.Fatalf("openai.New: %v", err)
	}
	return f, llm
}

// ---- Anthropic messages ----

// AnthropicBlock is one content block of a message, as received.
type AnthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// AnthropicMessage is one message of a request, as received.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// Anthropic serves /messages and rejects, with Anthropic's status and
// error text, a conversation that breaks Anthropic's tool-use rules.
type Anthropic struct {
	mu       sync.Mutex
	replies  [][]map[string]any // content blocks per turn
	requests [][]AnthropicMessage
	stop     string // the next reply's stop_reason, when set (StopNextWith)
}

// StopNextWith makes the next reply's stop_reason reason (for example
// "max_tokens") instead of "tool_use" or "end_turn".
func (f *Anthropic) StopNextWith(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stop = reason
}

func (f *Anthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []AnthropicMessage `json:"messages"`
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
	if f.stop != "" {
		stop, f.stop = f.stop, ""
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
func checkAnthropicMessages(msgs []AnthropicMessage) string {
	var turns []AnthropicMessage
	for _, m := range msgs {
		if n := len(turns); n > 0 && turns[n-1].Role == m.Role {
			turns[n-1].Content = append(turns[n-1].Content, m.Content...)
			continue
		}
		turns = append(turns, AnthropicMessage{Role: m.Role, Content: append([]AnthropicBlock(nil), m.Content...)})
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

// Requests returns the messages of every request received, in order.
func (f *Anthropic) Requests() [][]AnthropicMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// NewAnthropic starts a fake Anthropic server answering with replies (the
// content blocks of each turn), closed when the test ends, and returns it
// with a langchaingo anthropic client talking to it.
func NewAnthropic(t testing.TB, replies ...[]map[string]any) (*Anthropic, llms.Model) {
	t.Helper()
	f := &Anthropic{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	llm, err := anthropic.New(anthropic.WithToken("test-key"), anthropic.WithBaseURL(srv.URL), anthropic.WithModel("claude-test"))
	if err != nil {
		t.Fatalf("anthropic.New: %v", err)
	}
	return f, llm
}

// ---- scenarios ----

// BrokenTurn is a model turn mixing a valid call, an unparseable one, an
// invalid one, a call to an unknown tool and a repairable one (id, name,
// arguments), and how many of them run: the valid and the repaired call.
func BrokenTurn() (calls [][3]string, wantRuns int64) {
	return [][3]string{
		{"call_valid", "get_weather", `{"city":"Paris","days":2}`},
		{"call_broken", "get_weather", `I will look up the weather in Paris now.`},
		{"call_invalid", "get_weather", `{"days":"three"}`},
		{"call_unknown", "teleport", `{"to":"Mars"}`},
		{"call_repairable", "get_weather", `{'city': 'Oslo', 'days': 1,}`},
	}, 2
}
