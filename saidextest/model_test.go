package saidextest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

func human(text string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeHuman, text) }

func TestRepliesAnswerInOrder(t *testing.T) {
	errProvider := errors.New("provider: 429")
	m := saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(saidextest.Call("call_1", "f", `{"a": 1,}`), saidextest.Call("call_2", "g", ``)),
		saidextest.Fail(errProvider),
		saidextest.WithUsage(saidextest.Usage(3, 4), saidextest.Text("done")),
	))
	ctx := context.Background()

	r, err := m.GenerateContent(ctx, []llms.MessageContent{human("hi")})
	if err != nil {
		t.Fatal(err)
	}
	calls := r.Choices[0].ToolCalls
	if len(calls) != 2 || calls[0].FunctionCall.Arguments != `{"a": 1,}` || calls[1].ID != "call_2" || calls[1].FunctionCall.Arguments != "" {
		t.Errorf("first reply: tool calls %+v", calls)
	}
	if r.Choices[0].StopReason != "tool_calls" {
		t.Errorf("first reply: stop reason %q", r.Choices[0].StopReason)
	}
	if _, err := m.GenerateContent(ctx, nil); !errors.Is(err, errProvider) {
		t.Errorf("second reply: err = %v, want the scripted error", err)
	}
	r, err = m.GenerateContent(ctx, nil)
	if err != nil || r.Choices[0].Content != "done" || r.Choices[0].GenerationInfo["TotalTokens"] != 7 {
		t.Errorf("third reply = %+v, %v", r.Choices[0], err)
	}
	if _, err := m.GenerateContent(ctx, nil); !errors.Is(err, saidextest.ErrUnexpectedCall) {
		t.Errorf("call beyond the script: err = %v, want ErrUnexpectedCall", err)
	}
	if m.CallCount() != 4 {
		t.Errorf("CallCount = %d, want 4", m.CallCount())
	}
}

func TestMatchChoosesByRequest(t *testing.T) {
	afterTools := func(r saidextest.Request) bool { return len(r.ToolResults()) > 0 }
	m := saidextest.NewModel(saidextest.Match(
		saidextest.When(afterTools, saidextest.Text("answer")),
		saidextest.When(func(r saidextest.Request) bool { return r.ToolChoiceName() != "" }, saidextest.ForcedToolCall(`{"x": 1}`)),
		saidextest.When(nil, saidextest.ToolCalls(saidextest.Call("c1", "f", `{}`))),
	))
	ctx := context.Background()
	tests := []struct {
		name     string
		messages []llms.MessageContent
		opts     []llms.CallOption
		wantText string
		wantCall string // "name args"
	}{
		{name: "first turn", messages: []llms.MessageContent{human("q")}, wantCall: "f {}"},
		{
			name: "after tool results",
			messages: []llms.MessageContent{
				human("q"), saidextest.AIMessage(saidextest.Call("c1", "f", `{}`)), saidextest.ToolMessage("c1", "f", "42"),
			},
			wantText: "answer",
		},
		{
			name:     "forced map choice",
			messages: []llms.MessageContent{human("fix")},
			opts:     []llms.CallOption{llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": "g"}})},
			wantCall: `g {"x": 1}`,
		},
		{
			name:     "forced struct choice",
			messages: []llms.MessageContent{human("fix")},
			opts:     []llms.CallOption{llms.WithToolChoice(llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: "h"}})},
			wantCall: `h {"x": 1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := m.GenerateContent(ctx, tt.messages, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := r.Choices[0]
			if tt.wantText != "" && c.Content != tt.wantText {
				t.Errorf("text = %q, want %q", c.Content, tt.wantText)
			}
			if tt.wantCall != "" {
				if len(c.ToolCalls) != 1 {
					t.Fatalf("tool calls = %+v, want one", c.ToolCalls)
				}
				if got := c.ToolCalls[0].FunctionCall.Name + " " + c.ToolCalls[0].FunctionCall.Arguments; got != tt.wantCall {
					t.Errorf("call = %q, want %q", got, tt.wantCall)
				}
			}
		})
	}

	none := saidextest.NewModel(saidextest.Match(saidextest.When(afterTools, saidextest.Text("x"))))
	if _, err := none.GenerateContent(ctx, []llms.MessageContent{human("q")}); !errors.Is(err, saidextest.ErrUnexpectedCall) {
		t.Errorf("no case matches: err = %v, want ErrUnexpectedCall", err)
	}
	if _, err := saidextest.NewModel(nil).GenerateContent(ctx, nil); !errors.Is(err, saidextest.ErrUnexpectedCall) {
		t.Errorf("nil reply: err = %v, want ErrUnexpectedCall", err)
	}
}

func TestForcedToolCallWithoutChoiceAnswersText(t *testing.T) {
	s, err := saidextest.NewModel(saidextest.ForcedToolCall(`{"a":1}`)).Call(context.Background(), "fix it")
	if err != nil || s != `{"a":1}` {
		t.Errorf("Call = %q, %v; want the arguments as text", s, err)
	}
}

func TestModelRecordsConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	m := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		<-release
		return saidextest.TextResponse("ok"), nil
	})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			_, err := m.GenerateContent(context.Background(), []llms.MessageContent{human("hi")}, llms.WithModel("m1"))
			if err != nil {
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
		if r.Options.Model != "m1" || r.Text() != "hi" {
			t.Errorf("request = %+v", r)
		}
	}
	if len(seen) != 5 {
		t.Errorf("sequence numbers %v, want 0..4", seen)
	}
}

func TestSequenceUnderConcurrencyAnswersEachReplyOnce(t *testing.T) {
	const n = 50
	replies := make([]saidextest.Reply, n)
	for i := range replies {
		replies[i] = saidextest.Text(string(rune('A' + i%26)))
	}
	m := saidextest.NewModel(saidextest.Sequence(replies...))
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range n + 5 {
		wg.Go(func() {
			if _, err := m.GenerateContent(context.Background(), nil); err == nil {
				mu.Lock()
				got++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got != n {
		t.Errorf("%d calls answered, want %d", got, n)
	}
}

func TestDelayHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := saidextest.NewModel(saidextest.Delay(time.Hour, saidextest.Text("late"))).GenerateContent(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	r, err := saidextest.NewModel(saidextest.Delay(time.Millisecond, saidextest.Text("ok"))).GenerateContent(context.Background(), nil)
	if err != nil || r.Choices[0].Content != "ok" {
		t.Errorf("Delay = %v, %v", r, err)
	}
}

func TestResponsesShareNoFunctionCall(t *testing.T) {
	m := saidextest.NewModel(saidextest.ToolCalls(saidextest.Call("c", "f", `{}`)))
	a, _ := m.GenerateContent(context.Background(), nil)
	b, _ := m.GenerateContent(context.Background(), nil)
	a.Choices[0].ToolCalls[0].FunctionCall.Arguments = "changed"
	if b.Choices[0].ToolCalls[0].FunctionCall.Arguments != `{}` {
		t.Error("two responses share a FunctionCall")
	}
}

func TestMessages(t *testing.T) {
	ai := saidextest.AIMessage(saidextest.Call("c1", "f", `{"a":1}`), saidextest.Call("c2", "g", "oops"))
	if ai.Role != llms.ChatMessageTypeAI || len(ai.Parts) != 2 {
		t.Fatalf("AIMessage = %+v", ai)
	}
	if tc := ai.Parts[1].(llms.ToolCall); tc.ID != "c2" || tc.Type != "function" || tc.FunctionCall.Name != "g" || tc.FunctionCall.Arguments != "oops" {
		t.Errorf("second call = %+v", tc)
	}
	tm := saidextest.ToolMessage("c1", "f", "result")
	if tm.Role != llms.ChatMessageTypeTool || tm.Parts[0] != (llms.ToolCallResponse{ToolCallID: "c1", Name: "f", Content: "result"}) {
		t.Errorf("ToolMessage = %+v", tm)
	}
	req := saidextest.Request{Messages: []llms.MessageContent{human("q"), ai, tm, saidextest.ToolMessage("c2", "g", "err")}}
	if got := req.ToolResults(); len(got) != 2 || got[1].ToolCallID != "c2" {
		t.Errorf("ToolResults = %+v", got)
	}
	req.Messages = append(req.Messages, human("again"))
	if got := req.ToolResults(); len(got) != 0 {
		t.Errorf("ToolResults after a human message = %+v, want none", got)
	}
}

func TestRespondAnswersWithFreshCopies(t *testing.T) {
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me look.", GenerationInfo: map[string]any{"InputTokens": 3}},
		{ToolCalls: []llms.ToolCall{saidextest.Call("toolu_1", "f", `{"a":`)}},
	}}
	m := saidextest.NewModel(saidextest.Respond(resp))
	a, err := m.GenerateContent(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Choices) != 2 || a.Choices[0].Content != "Let me look." || a.Choices[1].ToolCalls[0].FunctionCall.Arguments != `{"a":` {
		t.Fatalf("answer = %+v", a.Choices)
	}
	a.Choices[0].Content = "changed"
	a.Choices[0].GenerationInfo["InputTokens"] = 99
	a.Choices[1].ToolCalls[0].FunctionCall.Arguments = "changed"
	b, _ := m.GenerateContent(context.Background(), nil)
	if b.Choices[0].Content != "Let me look." || b.Choices[0].GenerationInfo["InputTokens"] != 3 || b.Choices[1].ToolCalls[0].FunctionCall.Arguments != `{"a":` {
		t.Errorf("a changed answer leaked into the next one: %+v %+v", b.Choices[0], b.Choices[1].ToolCalls[0].FunctionCall)
	}
	if resp.Choices[1].ToolCalls[0].FunctionCall.Arguments != `{"a":` {
		t.Error("the scripted response itself was changed")
	}
}

// Each response of WithUsage has GenerationInfo maps of its own: a
// consumer that annotates one (as WrapModel does on its copy) changes no
// other response, and neither does a later change of the caller's map.
func TestWithUsageSharesNoMap(t *testing.T) {
	usage := saidextest.Usage(3, 4)
	reply := saidextest.WithUsage(usage, saidextest.Text("done"))
	m := saidextest.NewModel(saidextest.Sequence(reply, reply))
	ctx := context.Background()
	first, err := m.GenerateContent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	first.Choices[0].GenerationInfo["TotalTokens"] = 99
	usage["TotalTokens"] = 98
	second, err := m.GenerateContent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.Choices[0].GenerationInfo["TotalTokens"]; got != 7 {
		t.Errorf("second response's TotalTokens = %v, want 7", got)
	}
}
