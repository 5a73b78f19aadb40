package scripted

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
)

func TestModelRecordsConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	m := New(func(ctx context.Context, req Request) (*llms.ContentResponse, error) {
		<-release
		return TextResponse("ok", nil), nil
	})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
				llms.WithModel("m1"), llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": "f"}})); err != nil {
				t.Error(err)
			}
		})
	}
	for m.InFlight() < 5 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if m.CallCount() != 5 || m.MaxInFlight() != 5 || m.InFlight() != 0 {
		t.Fatalf("calls %d, max in flight %d, in flight %d", m.CallCount(), m.MaxInFlight(), m.InFlight())
	}
	seen := map[int]bool{}
	for _, r := range m.Requests() {
		seen[r.Seq] = true
		if r.Options.Model != "m1" || r.ToolChoiceName() != "f" || r.Text() != "hi" {
			t.Errorf("request = %+v", r)
		}
	}
	if len(seen) != 5 {
		t.Errorf("sequence numbers %v", seen)
	}
}

func TestScripts(t *testing.T) {
	errX := errors.New("x")
	ctx := context.Background()
	m := New(Sequence(ToolCall("f", `{}`), Fail(errX), Text("t")))
	if r, err := m.GenerateContent(ctx, nil); err != nil || r.Choices[0].ToolCalls[0].FunctionCall.Name != "f" {
		t.Errorf("first = %v, %v", r, err)
	}
	if _, err := m.GenerateContent(ctx, nil); !errors.Is(err, errX) {
		t.Errorf("second err = %v", err)
	}
	if s, err := m.Call(ctx, "p"); err != nil || s != "t" {
		t.Errorf("third = %q, %v", s, err)
	}
	if _, err := m.GenerateContent(ctx, nil); err == nil {
		t.Error("call beyond the script succeeded")
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(Delay(time.Hour, Text("late"))).GenerateContent(cctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Delay ignored ctx: %v", err)
	}
	r, err := New(WithUsage(map[string]any{"InputTokens": 1}, ForcedToolCall(`{"a":1}`))).GenerateContent(ctx, nil)
	if err != nil || r.Choices[0].Content != `{"a":1}` || r.Choices[0].GenerationInfo["InputTokens"] != 1 {
		t.Errorf("ForcedToolCall without a choice = %+v, %v", r.Choices[0], err)
	}
}
