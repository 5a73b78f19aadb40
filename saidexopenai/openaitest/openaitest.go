// Package openaitest serves a local stand-in for OpenAI's Chat Completions
// and Responses APIs, for tests and examples that need no API key: the
// real openai-go client talks to it over HTTP, it answers with scripted
// replies, and it rejects, with OpenAI's status (400) and error text, a
// request that breaks OpenAI's tool-call rules:
//
//   - Chat Completions: the tool messages right after an assistant message
//     with tool_calls must answer each of its ids ("An assistant message
//     with 'tool_calls' must be followed by tool messages responding to
//     each 'tool_call_id'. The following tool_call_ids did not have
//     response messages: …"), and a tool message must answer a call of that
//     assistant message; a call's arguments must be a string;
//   - Responses: every function_call item of the input (or of the response
//     named by previous_response_id) must have a function_call_output with
//     its call_id ("No tool output found for function call …"), and every
//     function_call_output must name the call_id of such a call ("No tool
//     call found for function call output with call_id …").
//
// It records every request body, so a test asserts on what the SDK sent.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Call is a tool call of a scripted reply.
type Call struct {
	ID, Name, Arguments string
}

// Reply is one scripted model turn, served to the next request of either
// API, in order.
type Reply struct {
	// Text is the reply's text (an output_text message for Responses).
	Text string
	// Calls are its tool calls (function_call items for Responses).
	Calls []Call
	// Finish is the Chat Completions finish_reason; "" sends "tool_calls"
	// for a reply with calls and "stop" otherwise. For Responses, "length"
	// or "max_output_tokens" make the response incomplete with
	// incomplete_details.reason "max_output_tokens".
	Finish string
	// Interleave, for a streamed chat completion with several calls, sends
	// the argument deltas of the calls in turn (one piece of each call,
	// then the next piece of each) instead of one call after the other.
	Interleave bool
}

// Request is one request the server received.
type Request struct {
	// Path is the request's path: "/chat/completions" or "/responses".
	Path string
	// Body is the JSON body as sent.
	Body []byte
	// Rejected is the error message the server answered with, "" for a
	// request it accepted.
	Rejected string
}

// Server is the local stand-in. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give openai-go (option.WithBaseURL).
	URL string

	srv       *httptest.Server
	mu        sync.Mutex
	replies   []Reply
	requests  []Request
	responses map[string][]Call // response id -> its calls, for previous_response_id
}

// NewServer starts a server that answers with replies, in order. Close it
// when done.
func NewServer(replies ...Reply) *Server {
	s := &Server{replies: replies, responses: map[string][]Call{}}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down and closes its client's connections.
func (s *Server) Close() {
	s.srv.Close()
}

// Client returns an openai-go client that talks to the server, with no
// retries and a fixed test key; opts are appended.
func (s *Server) Client(opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(s.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0),
		option.WithHTTPClient(s.srv.Client()),
	}, opts...)...)
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Rejected returns the error messages of the requests rejected, in order.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		if r.Rejected != "" {
			out = append(out, r.Rejected)
		}
	}
	return out
}

// ServeHTTP answers POST /chat/completions and POST /responses.
// A request is checked and its reply taken under the server's lock; the
// reply is written after, so a long stream holds no lock.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if write := s.handle(w, r, body, err); write != nil {
		write()
	}
}

// handle records and checks a request, writes a rejection, and returns
// the function that writes the reply (nil when it rejected the request).
func (s *Server) handle(w http.ResponseWriter, r *http.Request, body []byte, err error) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.requests) + 1
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	last := &s.requests[len(s.requests)-1]
	reject := func(msg, param string) {
		last.Rejected = msg
		apiError(w, msg, param)
	}
	if err != nil {
		reject("We could not parse the JSON body of your request.", "")
		return nil
	}
	var next func(Reply) func()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			reject("We could not parse the JSON body of your request.", "")
			return nil
		}
		if msg, param := checkChat(req.Messages); msg != "" {
			reject(msg, param)
			return nil
		}
		next = func(rep Reply) func() {
			if req.Stream {
				return func() { streamChat(w, n, rep) }
			}
			return func() { writeChat(w, n, rep) }
		}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		var req responsesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			reject("We could not parse the JSON body of your request.", "")
			return nil
		}
		if msg, param := s.checkResponses(req); msg != "" {
			reject(msg, param)
			return nil
		}
		next = func(rep Reply) func() {
			id := fmt.Sprintf("resp_%d", n)
			s.responses[id] = rep.Calls
			return func() { writeResponse(w, id, rep) }
		}
	default:
		last.Rejected = "unknown path"
		w.WriteHeader(http.StatusNotFound)
		return nil
	}
	if len(s.replies) == 0 {
		reject("openaitest: no reply left", "")
		return nil
	}
	rep := s.replies[0]
	s.replies = s.replies[1:]
	return next(rep)
}

func readBody(r *http.Request) ([]byte, error) {
	return io.ReadAll(r.Body)
}

func apiError(w http.ResponseWriter, msg, param string) {
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

// ---- Chat Completions ----

// ChatToolCall is a tool call of an assistant message, as received.
type ChatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ChatMessage is one message of a chat request, as received.
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []ChatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// ContentText is the message's content as text: a string, or the text
// of its parts.
func (m ChatMessage) ContentText() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

// ArgumentsText is the call's arguments string as received.
func (c ChatToolCall) ArgumentsText() string {
	var s string
	_ = json.Unmarshal(c.Function.Arguments, &s)
	return s
}

type chatRequest struct {
	Messages []ChatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
}

// ChatMessages decodes the messages of a chat request body.
func ChatMessages(body []byte) ([]ChatMessage, error) {
	var req chatRequest
	err := json.Unmarshal(body, &req)
	return req.Messages, err
}

// checkChat applies OpenAI's tool-call rules to the messages of a chat
// request.
func checkChat(msgs []ChatMessage) (msg, param string) {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for k, tc := range m.ToolCalls {
			if tc.Type != "function" && tc.Type != "custom" {
				return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function' and 'custom'.", tc.Type), fmt.Sprintf("messages.[%d].tool_calls.[%d].type", i, k)
			}
			if tc.Type == "function" && (len(tc.Function.Arguments) == 0 || tc.Function.Arguments[0] != '"') {
				return fmt.Sprintf("Invalid type for 'messages.[%d].tool_calls.[%d].function.arguments': expected a string, but got an object instead.", i, k), fmt.Sprintf("messages.[%d].tool_calls.[%d].function.arguments", i, k)
			}
			answered[tc.ID] = false
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			done, ok := answered[msgs[j].ToolCallID]
			if !ok {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", j)
			}
			if done {
				return fmt.Sprintf("openaitest: tool_call_id %s answered twice", msgs[j].ToolCallID), fmt.Sprintf("messages.[%d]", j)
			}
			answered[msgs[j].ToolCallID] = true
		}
		var missing []string
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
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

func finishReason(rep Reply) string {
	switch {
	case rep.Finish != "":
		return rep.Finish
	case len(rep.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func writeChat(w http.ResponseWriter, n int, rep Reply) {
	msg := map[string]any{"role": "assistant", "content": rep.Text, "refusal": nil}
	if len(rep.Calls) > 0 {
		var tcs []map[string]any
		for _, c := range rep.Calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = tcs
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(rep), "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// pieces splits s into pieces of at most 7 bytes, as a stream's deltas
// split arguments.
func pieces(s string) []string {
	var out []string
	for len(s) > 7 {
		out = append(out, s[:7])
		s = s[7:]
	}
	return append(out, s)
}

func streamChat(w http.ResponseWriter, n int, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("chatcmpl-%d", n)
	send := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range pieces(rep.Text) {
		if p != "" {
			send(map[string]any{"content": p}, nil)
		}
	}
	callDelta := func(k int, args string, first bool) map[string]any {
		tc := map[string]any{"index": k, "function": map[string]any{"arguments": args}}
		if first {
			c := rep.Calls[k]
			tc["id"], tc["type"] = c.ID, "function"
			tc["function"] = map[string]any{"name": c.Name, "arguments": args}
		}
		return map[string]any{"tool_calls": []any{tc}}
	}
	if rep.Interleave {
		split := make([][]string, len(rep.Calls))
		most := 0
		for k, c := range rep.Calls {
			split[k] = pieces(c.Arguments)
			most = max(most, len(split[k]))
		}
		for p := range most {
			for k := range rep.Calls {
				if p < len(split[k]) {
					send(callDelta(k, split[k][p], p == 0), nil)
				}
			}
		}
	} else {
		for k, c := range rep.Calls {
			for p, piece := range pieces(c.Arguments) {
				send(callDelta(k, piece, p == 0), nil)
			}
		}
	}
	send(map[string]any{}, finishReason(rep))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// ---- Responses ----

// ResponseItem is one input item of a Responses request, as received.
type ResponseItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
}

type responsesRequest struct {
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
}

// ResponseInput decodes the input items of a Responses request body (none
// for a string input).
func ResponseInput(body []byte) ([]ResponseItem, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var items []ResponseItem
	if len(req.Input) > 0 && req.Input[0] == '[' {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// checkResponses applies the Responses API's call_id pairing.
func (s *Server) checkResponses(req responsesRequest) (msg, param string) {
	var items []ResponseItem
	if len(req.Input) > 0 && req.Input[0] == '[' {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return "Invalid type for 'input': expected a string or an array of input items.", "input"
		}
	}
	calls := map[string]bool{} // call_id -> answered
	var order []string
	if req.PreviousResponseID != "" {
		prev, ok := s.responses[req.PreviousResponseID]
		if !ok {
			return fmt.Sprintf("Previous response with id '%s' not found.", req.PreviousResponseID), "previous_response_id"
		}
		for _, c := range prev {
			calls[c.ID] = false
			order = append(order, c.ID)
		}
	}
	for i, it := range items {
		switch it.Type {
		case "function_call":
			if it.CallID == "" {
				return fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i), fmt.Sprintf("input[%d].call_id", i)
			}
			calls[it.CallID] = false
			order = append(order, it.CallID)
		case "function_call_output":
			if it.CallID == "" {
				return fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i), fmt.Sprintf("input[%d].call_id", i)
			}
			if _, ok := calls[it.CallID]; !ok {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", it.CallID), "input"
			}
			calls[it.CallID] = true
		}
	}
	for _, id := range order {
		if !calls[id] {
			return fmt.Sprintf("No tool output found for function call %s.", id), "input"
		}
	}
	return "", ""
}

func writeResponse(w http.ResponseWriter, id string, rep Reply) {
	var output []any
	if rep.Text != "" {
		output = append(output, map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}})
	}
	for k, c := range rep.Calls {
		output = append(output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, k),
			"call_id": c.ID, "name": c.Name, "arguments": c.Arguments, "status": "completed"})
	}
	status, incomplete := "completed", any(nil)
	if rep.Finish == "length" || rep.Finish == "max_output_tokens" {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	if output == nil {
		output = []any{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": id, "object": "response", "created_at": 1, "model": "gpt-test", "status": status,
		"incomplete_details": incomplete, "output": output, "parallel_tool_calls": true, "tool_choice": "auto",
		"tools": []any{}, "temperature": 1, "top_p": 1, "error": nil, "instructions": nil, "metadata": map[string]any{},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}},
	})
}
