package saidexopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=7"`
}

// ran records the arguments each tool call ran with.
type ran struct {
	mu   sync.Mutex
	args []string
}

func (r *ran) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, s)
}

func (r *ran) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.args...)
	slices.Sort(out) // calls run concurrently
	return out
}

// newGuard returns a Guard of one tool, get_weather, that records its runs.
func newGuard(t *testing.T, opts ...saidex.Option) (*saidexopenai.Guard, *ran) {
	t.Helper()
	r := &ran{}
	weather := saidex.NewTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a weatherArgs) (string, error) {
			b, _ := json.Marshal(a)
			r.add(string(b))
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := saidexopenai.New(node)
	if err != nil {
		t.Fatal(err)
	}
	return g, r
}

// brokenTurn is a model turn mixing a valid call, an unparseable one, an
// invalid one, a call to an unknown tool and a repairable one.
var brokenTurn = []openaitest.Call{
	{ID: "call_valid", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
	{ID: "call_broken", Name: "get_weather", Arguments: `I will look up the weather in Paris now.`},
	{ID: "call_invalid", Name: "get_weather", Arguments: `{"days":"three"}`},
	{ID: "call_unknown", Name: "teleport", Arguments: `{"to":"Mars"}`},
	{ID: "call_repairable", Name: "get_weather", Arguments: `{'city': 'Oslo', 'days': 1,}`},
}

// lastChat returns the messages of the server's last request, which it
// must have accepted.
func lastChat(t *testing.T, srv *openaitest.Server) []openaitest.ChatMessage {
	t.Helper()
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Rejected != "" {
		t.Fatalf("the server rejected the request: %s", last.Rejected)
	}
	msgs, err := openaitest.ChatMessages(last.Body)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func userParams(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}
}

// jsonString decodes a JSON string.
func jsonString(raw []byte, s *string) error {
	return json.Unmarshal(raw, s)
}
