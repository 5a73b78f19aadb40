// Package anthropictest serves a local stand-in for Anthropic's Messages
// API (POST /v1/messages), for tests and examples that drive the real
// anthropic-sdk-go client with no API key and no network.
//
// A [Server] answers each request with the next scripted [Reply], as one
// JSON message or, when the request asks for a stream, as the
// server-sent events the API sends (message_start, content_block_start,
// content_block_delta with text_delta and input_json_delta,
// content_block_stop, message_delta, message_stop). Before answering it
// checks the request's conversation against Anthropic's tool-use rules and
// refuses one that breaks them with HTTP 400 and the API's own error
// text, as the API does:
//
//   - every tool_use input is a JSON object ("Input should be a valid
//     dictionary");
//   - tool_use ids are unique in the request;
//   - every tool_use of an assistant message is answered by a tool_result
//     in the very next message ("`tool_use` ids were found without
//     `tool_result` blocks immediately after"), so all the results of a
//     turn go in one user message;
//   - every tool_result answers a tool_use of the message right before it,
//     once.
//
// It records every request it receives, refused or not, for assertions on
// what the client sent.
package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Block is one content block of a scripted reply.
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is a text block's text.
	Text string
	// ID, Name and Input are a tool_use block's id, tool name and input,
	// as the model wrote it. A streamed reply sends Input as it is, in
	// input_json_delta chunks, so it may be any text (a call cut off
	// mid-way, malformed JSON); a JSON reply embeds it when it is valid
	// JSON and sends {} otherwise.
	ID, Name, Input string
}

// Text returns a text block.
func Text(text string) Block { return Block{Type: "text", Text: text} }

// ToolUse returns a tool_use block.
func ToolUse(id, name, input string) Block {
	return Block{Type: "tool_use", ID: id, Name: name, Input: input}
}

// Reply is one scripted assistant turn.
type Reply struct {
	Content []Block
	// StopReason is the reply's stop_reason; "" sends "tool_use" for a
	// reply with a tool_use block and "end_turn" otherwise. "max_tokens"
	// scripts a reply cut by the output-token limit.
	StopReason string
}

// WireBlock is one content block of a request, as received.
type WireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// Content is a tool_result's content: a string or an array of blocks.
	Content json.RawMessage `json:"content,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// ResultText returns a tool_result's content as text: the string, or the
// text of its text blocks, joined.
func (b WireBlock) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []WireBlock
	_ = json.Unmarshal(b.Content, &parts)
	var out strings.Builder
	for _, p := range parts {
		out.WriteString(p.Text)
	}
	return out.String()
}

// WireMessage is one message of a request, as received; a message whose
// content is a string has one text block.
type WireMessage struct {
	Role    string      `json:"role"`
	Content []WireBlock `json:"content"`
}

// UnmarshalJSON reads a message whose content is a string or an array of
// blocks.
func (m *WireMessage) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role, m.Content = raw.Role, nil
	var s string
	if json.Unmarshal(raw.Content, &s) == nil {
		m.Content = []WireBlock{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Content)
}

// Request is one request the server received.
type Request struct {
	// Body is the request body, as sent.
	Body []byte
	// Messages is its conversation, decoded.
	Messages []WireMessage
	// Stream reports whether it asked for a stream.
	Stream bool
	// Refused is the error message the server answered it with (HTTP 400);
	// "" when it was answered with a reply.
	Refused string
}

// Server is a local Messages API. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give the client (option.WithBaseURL).
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// NewServer starts a server that answers with replies, in order; a
// request that comes when none is left is refused with HTTP 400. Close it
// when done.
func NewServer(replies ...Reply) *Server {
	s := &Server{replies: slices.Clone(replies)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down and waits for the requests in progress.
func (s *Server) Close() { s.srv.Close() }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Last returns the last request received; ok is false before the first.
func (s *Server) Last() (req Request, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}, false
	}
	return s.requests[len(s.requests)-1], true
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		refuse(w, "could not read the request body")
		return
	}
	var req struct {
		Messages []WireMessage `json:"messages"`
		Stream   bool          `json:"stream"`
	}
	rec := Request{Body: buf.Bytes()}
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		rec.Refused = "messages: the request body is not valid JSON: " + err.Error()
	} else {
		rec.Messages, rec.Stream = req.Messages, req.Stream
		rec.Refused = CheckConversation(req.Messages)
	}
	s.mu.Lock()
	var reply Reply
	if rec.Refused == "" {
		if len(s.replies) == 0 {
			rec.Refused = "anthropictest: no scripted reply left"
		} else {
			reply, s.replies = s.replies[0], s.replies[1:]
		}
	}
	s.requests = append(s.requests, rec)
	n := len(s.requests)
	s.mu.Unlock()
	if rec.Refused != "" {
		refuse(w, rec.Refused)
		return
	}
	id := fmt.Sprintf("msg_%02d", n)
	if rec.Stream {
		stream(w, id, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-test",
		"content": wireContent(reply.Content), "stop_reason": stopReason(reply), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	})
}

// refuse answers with HTTP 400 and Anthropic's error body.
func refuse(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg},
	})
}

func stopReason(r Reply) string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Content {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func wireContent(blocks []Block) []any {
	out := make([]any, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "tool_use" {
			input := json.RawMessage(`{}`)
			if json.Valid([]byte(b.Input)) {
				input = json.RawMessage(b.Input)
			}
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input})
			continue
		}
		out = append(out, map[string]any{"type": "text", "text": b.Text})
	}
	return out
}

// chunkSize is how many bytes of a tool_use input each input_json_delta
// carries.
const chunkSize = 7

// stream answers with the reply as server-sent events.
func stream(w http.ResponseWriter, id string, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range reply.Content {
		if b.Type == "tool_use" {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			for in := b.Input; in != ""; {
				n := min(chunkSize, len(in))
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": in[:n]}})
				in = in[n:]
			}
		} else {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(reply), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// CheckConversation applies Anthropic's tool-use rules (see the package
// documentation) to the messages of a request and returns the API's error
// message for the first rule broken, "" when none is.
func CheckConversation(msgs []WireMessage) string {
	seen := map[string]bool{} // tool_use ids of the request
	for i, m := range msgs {
		uses := map[string]bool{}
		var order []string
		for k, b := range m.Content {
			if b.Type != "tool_use" {
				continue
			}
			var obj map[string]any
			if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
				return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, k)
			}
			if seen[b.ID] {
				return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, k)
			}
			seen[b.ID], uses[b.ID] = true, true
			order = append(order, b.ID)
		}
		var prev map[string]bool
		if i > 0 && msgs[i-1].Role == "assistant" {
			prev = map[string]bool{}
			for _, b := range msgs[i-1].Content {
				if b.Type == "tool_use" {
					prev[b.ID] = true
				}
			}
		}
		answered := map[string]bool{}
		for k, b := range m.Content {
			if b.Type != "tool_result" {
				continue
			}
			if !prev[b.ToolUseID] {
				return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
					"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, k, b.ToolUseID)
			}
			if answered[b.ToolUseID] {
				return fmt.Sprintf("messages.%d.content.%d: each tool_use must have a single result. "+
					"Found multiple `tool_result` blocks with id: %s", i, k, b.ToolUseID)
			}
			answered[b.ToolUseID] = true
		}
		if len(order) == 0 || m.Role != "assistant" {
			continue
		}
		var next map[string]bool
		if i+1 < len(msgs) && msgs[i+1].Role == "user" {
			next = map[string]bool{}
			for _, b := range msgs[i+1].Content {
				if b.Type == "tool_result" {
					next[b.ToolUseID] = true
				}
			}
		}
		var missing []string
		for _, id := range order {
			if !next[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return ""
}
