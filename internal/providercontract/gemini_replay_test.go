package providercontract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// exchange is one recorded request and its response.
type exchange struct {
	method, path string
	body         []byte // request body
	status       int
	respBody     []byte
}

// readHTTPRR reads an httprr trace (langchaingo's recorded HTTP exchanges):
// "httprr trace v1\n", then per exchange "N M\n", N bytes of request and M
// bytes of response, both in wire format.
func readHTTPRR(path string) ([]exchange, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(data, []byte("httprr trace v1\n"))
	if !ok {
		return nil, fmt.Errorf("%s: not an httprr trace", path)
	}
	var out []exchange
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("%s: truncated header", path)
		}
		var n, m int
		if _, err := fmt.Sscanf(string(line), "%d %d", &n, &m); err != nil || n+m > len(after) {
			return nil, fmt.Errorf("%s: bad header %q", path, line)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(after[:n])))
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(after[n:n+m])), req)
		if err != nil {
			return nil, err
		}
		respBody, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		out = append(out, exchange{method: req.Method, path: req.URL.Path, body: body, status: resp.StatusCode, respBody: respBody})
		rest = after[n+m:]
	}
	return out, nil
}

// replay answers the i-th request with the i-th recorded response, after
// checking that its method, path and contents are the recorded ones.
type replay struct {
	mu        sync.Mutex
	exchanges []exchange
	next      int
	mismatch  []string
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next >= len(r.exchanges) {
		http.Error(w, "replay: no exchange left", http.StatusBadRequest)
		return
	}
	ex := r.exchanges[r.next]
	r.next++
	body, _ := io.ReadAll(req.Body)
	got, want := contentsOf(body), contentsOf(ex.body)
	if req.Method != ex.method || req.URL.Path != ex.path || !reflect.DeepEqual(got, want) {
		r.mismatch = append(r.mismatch, fmt.Sprintf("request %d: %s %s contents %v\nrecorded: %s %s contents %v", r.next, req.Method, req.URL.Path, got, ex.method, ex.path, want))
		http.Error(w, "replay: request differs from the recording", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ex.status)
	_, _ = w.Write(ex.respBody)
}

func contentsOf(body []byte) any {
	var req struct {
		Contents any `json:"contents"`
	}
	_ = json.Unmarshal(body, &req)
	return req.Contents
}

// TestReplayGeminiToolCallExchange replays langchaingo's own recording of
// a Gemini function-calling exchange (llms/googleai/testdata/
// TestGoogleAIToolCallResponse.httprr, recorded against the real API): the
// node, run on the recorded call, yields a conversation that the googleai
// client serializes to exactly the contents the real Gemini accepted.
func TestReplayGeminiToolCallExchange(t *testing.T) {
	ctx := context.Background()
	exchanges, err := readHTTPRR("testdata/TestGoogleAIToolCallResponse.httprr")
	if err != nil {
		t.Fatal(err)
	}
	rp := &replay{exchanges: exchanges}
	llm := newGeminiClient(t, rp)

	type calcArgs struct {
		Expression string `json:"expression" jsonschema:"description=Mathematical expression to evaluate"`
	}
	calc := saidex.NewTool("calculate", "Perform a calculation", func(_ context.Context, a calcArgs) (string, error) {
		if strings.ReplaceAll(a.Expression, " ", "") != "15*7" {
			return "", fmt.Errorf("unexpected expression %q", a.Expression)
		}
		return "105", nil
	})
	node := mustNode(t, []tools.Tool{calc})

	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "What is 15 * 7?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("first turn: %v (%v)", err, rp.mismatch)
	}
	conv, err = node.Invoke(ctx, append(conv, saidex.AIMessageFromResponse(resp)))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	var streamed strings.Builder
	resp, err = llm.GenerateContent(ctx, saidex.GroupToolResponses(conv), llms.WithTools(node.Definitions()),
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error { streamed.Write(chunk); return nil }))
	if err != nil {
		t.Fatalf("second turn: %v (%v)", err, rp.mismatch)
	}
	if len(rp.mismatch) > 0 {
		t.Fatalf("requests differ from the recording:\n%s", strings.Join(rp.mismatch, "\n"))
	}
	if got := resp.Choices[0].Content; !strings.Contains(got, "105") {
		t.Errorf("second turn = %q, want the recorded answer", got)
	}
	if rp.next != len(exchanges) {
		t.Errorf("replayed %d of %d exchanges", rp.next, len(exchanges))
	}
}
