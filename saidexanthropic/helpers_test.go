package saidexanthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type weatherArgs struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// runs records the arguments each tool call ran with.
type runs struct {
	mu   sync.Mutex
	args []weatherArgs
}

func (r *runs) all() []weatherArgs {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]weatherArgs(nil), r.args...)
}

// newGuard returns a Guard of one tool, get_weather, that records its runs.
func newGuard(t *testing.T, opts ...saidex.Option) (*saidexanthropic.Guard, *runs) {
	t.Helper()
	r := &runs{}
	weather := saidex.NewTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a weatherArgs) (string, error) {
			r.mu.Lock()
			r.args = append(r.args, a)
			r.mu.Unlock()
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		t.Fatal(err)
	}
	return g, r
}

// newServer starts a local Messages API answering with replies, and a real
// client talking to it.
func newServer(t *testing.T, replies ...anthropictest.Reply) (*anthropictest.Server, anthropic.Client) {
	t.Helper()
	srv := anthropictest.NewServer(replies...)
	t.Cleanup(srv.Close)
	return srv, anthropicClient(srv.URL)
}

// anthropicClient returns a real client of the server at url.
func anthropicClient(url string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
}

func firstParams(g *saidexanthropic.Guard) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Tools:     g.Tools(),
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris, Oslo and Rome?"))},
	}
}

// compact returns b as compact JSON, or b itself when it is not JSON.
func compact(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
