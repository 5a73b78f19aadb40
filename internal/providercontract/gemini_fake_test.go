package providercontract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms/googleai"
)

// geminiPart is one part of a Content, as received over REST.
type geminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args,omitempty"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// geminiContent is one Content of a request, as received.
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiCall is one scripted function call: a name and its args object.
type geminiCall struct {
	Name string
	Args map[string]any
}

// geminiReply is one scripted model turn.
type geminiReply struct {
	Text  string
	Calls []geminiCall
}

// fakeGemini serves generateContent and rejects, with Gemini's status and
// error text, a conversation that breaks Gemini's function-calling rules.
type fakeGemini struct {
	mu       sync.Mutex
	replies  []geminiReply
	requests [][]geminiContent
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []geminiContent `json:"contents"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		geminiError(w, "Invalid JSON payload received.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.Contents)
	if msg := checkGeminiContents(req.Contents); msg != "" {
		geminiError(w, msg)
		return
	}
	if len(f.replies) == 0 {
		geminiError(w, "fake server: no reply left")
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	var parts []map[string]any
	if rep.Text != "" {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	for _, c := range rep.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}})
	}
	var body any = map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": 1, // STOP
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-test",
	}
	// The chat session (every request of more than one message) streams:
	// streamGenerateContent answers a JSON array of responses.
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		body = []any{body}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func geminiError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": 400, "message": msg, "status": "INVALID_ARGUMENT",
	}})
}

// The text Gemini answers a function-response turn that does not match the
// call turn with.
const geminiCountError = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."

// checkGeminiContents applies Gemini's rules: the Content right after a
// model turn with N function calls is a user turn with N function
// responses whose names are the calls' names; a function response answers
// a call of the turn right before; every past function call's args is an
// object.
func checkGeminiContents(cs []geminiContent) string {
	var pendingCalls []string // names of the calls of the turn before
	for i, c := range cs {
		var calls, responses []string
		for k, p := range c.Parts {
			if p.FunctionCall != nil {
				if len(p.FunctionCall.Args) > 0 {
					var obj map[string]any
					if json.Unmarshal(p.FunctionCall.Args, &obj) != nil || obj == nil {
						return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].function_call.args' (type.googleapis.com/google.protobuf.Struct): not an object", i, k)
					}
				}
				calls = append(calls, p.FunctionCall.Name)
			}
			if p.FunctionResponse != nil {
				responses = append(responses, p.FunctionResponse.Name)
			}
		}
		if pendingCalls != nil || len(responses) > 0 {
			if len(responses) != len(pendingCalls) {
				return geminiCountError
			}
			a, b := slices.Clone(pendingCalls), slices.Clone(responses)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				return fmt.Sprintf("contents[%d]: function response names %v do not match the function calls %v of the function call turn", i, responses, pendingCalls)
			}
		}
		pendingCalls = nil
		if c.Role == "model" && len(calls) > 0 {
			pendingCalls = calls
		}
	}
	return ""
}

// Requests returns the contents of every request received, in order.
func (f *fakeGemini) Requests() [][]geminiContent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// toServer is a transport that sends every request to one local server,
// whatever host the client targets.
type toServer struct {
	base *url.URL
	rt   http.RoundTripper
}

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.base.Scheme, t.base.Host, t.base.Host
	return t.rt.RoundTrip(r)
}

// newGeminiClient returns langchaingo's real googleai client (REST) whose
// requests go to h.
func newGeminiClient(t testing.TB, h http.Handler) *googleai.GoogleAI {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	hc := &http.Client{Transport: toServer{base: base, rt: srv.Client().Transport}}
	llm, err := googleai.New(context.Background(), googleai.WithRest(), googleai.WithHTTPClient(hc), googleai.WithAPIKey("test"))
	if err != nil {
		t.Fatalf("googleai.New: %v", err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	return llm
}

// newFakeGemini starts a fake Gemini server answering with replies and
// returns it with a googleai client talking to it.
func newFakeGemini(t testing.TB, replies ...geminiReply) (*fakeGemini, *googleai.GoogleAI) {
	t.Helper()
	f := &fakeGemini{replies: replies}
	return f, newGeminiClient(t, f)
}
