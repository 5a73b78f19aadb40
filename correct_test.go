package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/saidex/saidex-go/internal/schemawalk"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

// cxForecastArgs is the argument type of the tools in the correction tests.
type cxForecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// cxRecorder is a forecast tool that records the arguments it ran with.
type cxRecorder struct {
	mu   sync.Mutex
	args []cxForecastArgs
}

func (rec *cxRecorder) tool() Tool {
	return NewTool("forecast", "Weather forecast for a city.", func(_ context.Context, a cxForecastArgs) (string, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.args = append(rec.args, a)
		return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
	})
}

func (rec *cxRecorder) ran() []cxForecastArgs {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]cxForecastArgs(nil), rec.args...)
}

func cxCall(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// cxConversation is a user question followed by an AI message with calls.
func cxConversation(calls ...llms.ToolCall) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, c := range calls {
		ai.Parts = append(ai.Parts, c)
	}
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather in Paris for the next 3 days?"),
		ai,
	}
}

func cxNode(t *testing.T, ts []tools.Tool, opts ...Option) *ToolNode {
	t.Helper()
	n, err := NewToolNode(ts, opts...)
	if err != nil {
		t.Fatalf("NewToolNode: %v", err)
	}
	return n
}

func TestCorrectionRunsCorrectedArgumentsInToolCallingMode(t *testing.T) {
	rec := &cxRecorder{}
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Paris", "days": 3}`))
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(model))
	msgs := cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"three"}`))

	out, err := n.Invoke(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(msgs)+1 {
		t.Fatalf("conversation has %d messages, want %d: correction traffic must not enter it", len(out), len(msgs)+1)
	}
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeCorrected || !rep.CorrectionAttempted || rep.CorrectionRetries != 0 || rep.CorrectionErr != nil {
		t.Fatalf("report = %+v, want corrected on the first attempt", rep)
	}
	if got, want := string(rep.Arguments), `{"city":"Paris","days":3}`; got != want {
		t.Errorf("Arguments = %s, want canonical %s", got, want)
	}
	if rep.Output != "Paris: sunny for 3 days" || rep.IsError {
		t.Errorf("Output = %q (error %v)", rep.Output, rep.IsError)
	}
	if got := rec.ran(); len(got) != 2 || got[0] != (cxForecastArgs{"Paris", 3}) {
		t.Errorf("tool ran with %+v", got)
	}

	req := model.Requests()[0]
	if got := req.ToolChoiceName(); got != "forecast" {
		t.Errorf("forced tool = %q, want forecast", got)
	}
	if len(req.Options.Tools) != 1 || req.Options.Tools[0].Function.Name != "forecast" || req.Options.Tools[0].Function.Parameters == nil {
		t.Errorf("bound tools = %+v, want only forecast with its schema", req.Options.Tools)
	}
	if req.Options.JSONMode {
		t.Error("JSON mode set in ToolCalling mode")
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llms.ChatMessageTypeHuman {
		t.Fatalf("messages = %+v, want one human prompt", req.Messages)
	}
	prompt := req.Text()
	for _, want := range []string{`"forecast"`, "Weather forecast for a city.", `{"city":"Paris","days":"three"}`, "- days: expected an integer"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
}

// Corrected arguments are encoded as every other source of arguments is
// (coerced, salvaged, sanitized): compact, keys sorted, "<", ">" and "&"
// as written rather than HTML-escaped.
func TestCorrectedArgumentsAreEncodedLikeOtherArguments(t *testing.T) {
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"days": 3, "city": "Paris <Nord> & co"}`))
	n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(model))
	res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"three"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Calls[0].Arguments), `{"city":"Paris <Nord> & co","days":3}`; got != want {
		t.Errorf("Arguments = %s, want %s", got, want)
	}
}

func TestCorrectionJSONModeParsesText(t *testing.T) {
	rec := &cxRecorder{}
	model := saidextest.NewModel(saidextest.Text(`{"city": "Paris", "days": 3}`))
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(model), WithCorrectionMode(CorrectionJSON))
	res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[0]
	if !req.Options.JSONMode || len(req.Options.Tools) != 0 || req.Options.ToolChoice != nil {
		t.Errorf("options = %+v, want JSON mode without tools", req.Options)
	}
	if !strings.Contains(req.Text(), `"required":["city","days"]`) {
		t.Errorf("JSON-mode prompt lacks the schema:\n%s", req.Text())
	}
	if got := res.Calls[0]; got.Outcome != OutcomeCorrected || string(got.Arguments) != `{"city":"Paris","days":3}` {
		t.Fatalf("report = %+v, want corrected", got)
	}
}

func TestCorrectionReadsAnswerFromAnyChoice(t *testing.T) {
	tests := []struct {
		name string
		resp *llms.ContentResponse
	}{
		{"anthropic blocks in separate choices", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{Content: "I will fix the call."},
			{ToolCalls: []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "forecast", Arguments: `{"city":"Paris","days":3}`}}}},
		}}},
		{"tool choice ignored, answer in text", saidextest.TextResponse(`{"city":"Paris","days":3}`)},
		{"legacy function call", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{FuncCall: &llms.FunctionCall{Name: "forecast", Arguments: `{"city":"Paris","days":3}`}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.Respond(tt.resp))
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(model))
			res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`)))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Calls[0]; got.Outcome != OutcomeCorrected || string(got.Arguments) != `{"city":"Paris","days":3}` {
				t.Fatalf("report = %+v, want corrected", got)
			}
		})
	}
}

func TestCorrectionRouting(t *testing.T) {
	plain := tools.Calculator{}
	tests := []struct {
		name      string
		args      string
		toolName  string
		opts      []Option
		wantSent  bool
		wantOut   Outcome
		modelArgs string
	}{
		{name: "type error is corrected", args: `{"city":"Paris","days":"3"}`, wantSent: true, wantOut: OutcomeCorrected},
		{name: "missing field goes to the agent", args: `{"city":"Paris"}`, wantSent: false, wantOut: OutcomeFeedback},
		{name: "missing field with a misnamed key is corrected", args: `{"town":"Paris","days":3}`, wantSent: true, wantOut: OutcomeCorrected},
		{name: "missing field corrected when allowed", args: `{"city":"Paris"}`, opts: []Option{WithCorrectMissingFields(true)}, wantSent: true, wantOut: OutcomeCorrected},
		{name: "empty arguments go to the agent", args: ``, wantSent: false, wantOut: OutcomeFeedback},
		{name: "unparseable arguments are corrected", args: `city=Paris days=3`, wantSent: true, wantOut: OutcomeCorrected},
		{name: "oversized arguments go to the agent", args: `city=Paris days=3`, opts: []Option{WithMaxArgumentBytes(10)}, wantSent: false, wantOut: OutcomeFeedback},
		{name: "valid call is not sent", args: `{"city":"Paris","days":3}`, wantSent: false, wantOut: OutcomeExecuted},
		{name: "unknown tool is not sent", args: `{}`, toolName: "nope", wantSent: false, wantOut: OutcomeUnknownTool},
		{name: "plain tool is not sent", args: `{"__arg1":"1+1"}`, toolName: plain.Name(), wantSent: false, wantOut: OutcomeExecuted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris","days":3}`))
			name := tt.toolName
			if name == "" {
				name = "forecast"
			}
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool(), plain}, append([]Option{WithCorrectionModel(model)}, tt.opts...)...)
			res, err := n.Run(context.Background(), cxConversation(cxCall("c1", name, tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			if sent := model.CallCount() > 0; sent != tt.wantSent {
				t.Errorf("sent to the correction model = %v, want %v", sent, tt.wantSent)
			}
			if got := res.Calls[0]; got.Outcome != tt.wantOut || got.CorrectionAttempted != tt.wantSent {
				t.Errorf("outcome = %s (attempted %v), want %s", got.Outcome, got.CorrectionAttempted, tt.wantOut)
			}
		})
	}
}

func TestCorrectionPromptContext(t *testing.T) {
	long := strings.Repeat("x", 3000)
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "SYSTEM-SECRET"),
		llms.TextParts(llms.ChatMessageTypeHuman, "first question"),
		llms.TextParts(llms.ChatMessageTypeHuman, long),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{cxCall("t0", "lookup", `{"q":"paris"}`)}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "t0", Name: "lookup", Content: "TOOL-RESULT Paris is in France"}}},
		llms.TextParts(llms.ChatMessageTypeSystem, "LATE-SYSTEM"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "AI-TEXT checking the forecast"},
			cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`),
		}},
	}
	tests := []struct {
		name    string
		opts    []Option
		want    []string
		notWant []string
	}{
		{
			name:    "default keeps ten messages without system ones",
			want:    []string{"first question", "TOOL-RESULT Paris is in France", "called lookup with", "AI-TEXT checking the forecast", strings.Repeat("x", 2000)},
			notWant: []string{"SYSTEM-SECRET", "LATE-SYSTEM", strings.Repeat("x", 2001)},
		},
		{
			name:    "two messages",
			opts:    []Option{WithCorrectionContextMessages(2)},
			want:    []string{"TOOL-RESULT", "called lookup with", "AI-TEXT"},
			notWant: []string{"first question", "xxxxx", "SYSTEM"},
		},
		{
			name:    "zero turns context off",
			opts:    []Option{WithCorrectionContextMessages(0)},
			want:    []string{`{"city":"Paris","days":"3"}`},
			notWant: []string{"first question", "xxxxx", "TOOL-RESULT", "AI-TEXT", "SYSTEM"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris","days":3}`))
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, append([]Option{WithCorrectionModel(model)}, tt.opts...)...)
			if _, err := n.Run(context.Background(), msgs); err != nil {
				t.Fatal(err)
			}
			prompt := model.Requests()[0].Text()
			for _, w := range tt.want {
				if !strings.Contains(prompt, w) {
					t.Errorf("prompt lacks %.40q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(prompt, w) {
					t.Errorf("prompt contains %.40q", w)
				}
			}
		})
	}
}

func TestCorrectionModelErrorFallsThroughToFeedback(t *testing.T) {
	errRate := errors.New("openai: 429 Too Many Requests")
	tests := []struct {
		name string
		fn   saidextest.Reply
		want error
	}{
		{"HTTP 429", saidextest.Fail(errRate), errRate},
		{"timeout", saidextest.Fail(context.DeadlineExceeded), context.DeadlineExceeded},
		{"panic", func(context.Context, saidextest.Request) (*llms.ContentResponse, error) { panic("boom") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &cxRecorder{}
			model := saidextest.NewModel(tt.fn)
			n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(model))
			res, err := n.Run(context.Background(), cxConversation(
				cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`),
				cxCall("c2", "forecast", `{"city":"Rome","days":2}`),
			))
			if err != nil {
				t.Fatalf("Run failed: %v; a correction failure must not fail the node", err)
			}
			bad, good := res.Calls[0], res.Calls[1]
			if bad.Outcome != OutcomeFeedback || !bad.IsError || !bad.CorrectionAttempted || bad.CorrectionErr == nil {
				t.Errorf("failed call = %+v, want feedback with the correction error", bad)
			}
			if len(bad.Issues) == 0 {
				t.Error("failed call lost its issues")
			}
			if model.CallCount() != 1 {
				t.Errorf("model called %d times; provider errors are not retried", model.CallCount())
			}
			if tt.want != nil && (!errors.Is(bad.CorrectionErr, tt.want) || !errors.Is(bad.CorrectionErr, ErrExtraction)) {
				t.Errorf("CorrectionErr = %v, want it to wrap %v and ErrExtraction", bad.CorrectionErr, tt.want)
			}
			if good.Outcome != OutcomeExecuted || good.Output != "Rome: sunny for 2 days" {
				t.Errorf("valid sibling = %+v, want executed", good)
			}
			if len(res.ToolMessages) != 2 {
				t.Errorf("%d tool messages, want 2", len(res.ToolMessages))
			}
		})
	}
}

func TestCorrectionRetries(t *testing.T) {
	bad := `{"city":"Paris","days":3,"country":"FR"}` // issues differ from the call's
	good := `{"city":"Paris","days":3}`
	tests := []struct {
		name        string
		opts        []Option
		answers     []string
		wantCalls   int
		wantOutcome Outcome
		wantRetries int
	}{
		{"retries exhausted with the default of two", nil, []string{bad, bad, good}, 2, OutcomeFeedback, 1},
		{"three attempts", []Option{WithMaxCorrectionRetries(3)}, []string{bad, bad, good}, 3, OutcomeCorrected, 2},
		{"one attempt", []Option{WithMaxCorrectionRetries(1)}, []string{bad, good}, 1, OutcomeFeedback, 0},
		{"second answer valid", nil, []string{bad, good}, 2, OutcomeCorrected, 1},
		{"unparseable answers", nil, []string{"no idea", "still no idea"}, 2, OutcomeFeedback, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fns []saidextest.Reply
			for _, a := range tt.answers {
				fns = append(fns, saidextest.ForcedToolCall(a))
			}
			model := saidextest.NewModel(saidextest.Sequence(fns...))
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, append([]Option{WithCorrectionModel(model)}, tt.opts...)...)
			res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if model.CallCount() != tt.wantCalls || rep.Outcome != tt.wantOutcome || rep.CorrectionRetries != tt.wantRetries {
				t.Fatalf("calls %d, outcome %s, retries %d; want %d, %s, %d",
					model.CallCount(), rep.Outcome, rep.CorrectionRetries, tt.wantCalls, tt.wantOutcome, tt.wantRetries)
			}
			reqs := model.Requests()
			for i := 1; i < len(reqs); i++ {
				prompt := reqs[i].Text()
				prev := tt.answers[i-1]
				if !strings.Contains(prompt, "Your previous answer was:\n"+prev) {
					t.Errorf("retry %d does not carry the previous answer %q:\n%s", i, prev, prompt)
				}
			}
			if tt.wantOutcome == OutcomeFeedback && tt.answers[0] == bad {
				// The report keeps the issues of the agent's own arguments
				// (the first prompt carried them); the issues of the model's
				// last answer are on CorrectionErr, and the retry prompt
				// carried them.
				ee, ok := errors.AsType[*ExtractionError](rep.CorrectionErr)
				if !ok || len(ee.Issues) == 0 || len(rep.Issues) == 0 || !errors.Is(rep.CorrectionErr, ErrExtraction) {
					t.Fatalf("report = %+v, want the agent's issues and the answer's on CorrectionErr", rep)
				}
				if !strings.Contains(reqs[0].Text(), rep.Issues[0].Message) {
					t.Errorf("report issue %q is not the agent's (first prompt):\n%s", rep.Issues[0].Message, reqs[0].Text())
				}
				if strings.Contains(reqs[0].Text(), ee.Issues[0].Message) {
					t.Fatalf("test needs answer issues that differ from the call's: %q", ee.Issues[0].Message)
				}
				if len(reqs) > 1 && !strings.Contains(reqs[1].Text(), ee.Issues[0].Message) {
					t.Errorf("retry prompt lacks the new issue %q", ee.Issues[0].Message)
				}
			}
		})
	}
}

func TestNewToolNodeRejectsInvalidCorrectionOptions(t *testing.T) {
	model := saidextest.NewModel(saidextest.Text("{}"))
	tool := (&cxRecorder{}).tool()
	tests := []struct {
		name    string
		opts    []Option
		wantErr bool
	}{
		{"zero retries with a model", []Option{WithCorrectionModel(model), WithMaxCorrectionRetries(0)}, true},
		{"zero retries without a model", []Option{WithMaxCorrectionRetries(0)}, false},
		{"negative retries", []Option{WithMaxCorrectionRetries(-1)}, true},
		{"negative context", []Option{WithCorrectionContextMessages(-1)}, true},
		{"unknown mode", []Option{WithCorrectionModel(model), WithCorrectionMode(CorrectionMode(7))}, true},
		{"valid", []Option{WithCorrectionModel(model), WithMaxCorrectionRetries(1), WithCorrectionMode(CorrectionJSON), WithCorrectionContextMessages(0)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{tool}, tt.opts...)
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, ErrInvalidConfig)) {
				t.Fatalf("err = %v, want error wrapping ErrInvalidConfig: %v", err, tt.wantErr)
			}
		})
	}
}

func TestCorrectionConcurrencyIsBounded(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want int
	}{
		{"default corrects all at once", nil, 8},
		{"bound of one", []Option{WithMaxConcurrency(1)}, 1},
		{"bound of three", []Option{WithMaxConcurrency(3)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.Delay(100*time.Millisecond, saidextest.ForcedToolCall(`{"city":"Paris","days":3}`)))
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, append([]Option{WithCorrectionModel(model)}, tt.opts...)...)
			var calls []llms.ToolCall
			for i := range 8 {
				calls = append(calls, cxCall(fmt.Sprintf("c%d", i), "forecast", `{"city":"Paris","days":"3"}`))
			}
			res, err := n.Run(context.Background(), cxConversation(calls...))
			if err != nil {
				t.Fatal(err)
			}
			for i, rep := range res.Calls {
				if rep.Outcome != OutcomeCorrected || rep.Index != i {
					t.Errorf("call %d: %+v", i, rep)
				}
			}
			if model.CallCount() != 8 || model.MaxInFlight() != tt.want {
				t.Fatalf("calls %d, max in flight %d; want 8, %d", model.CallCount(), model.MaxInFlight(), tt.want)
			}
		})
	}
}

func TestCorrectionCancelledReturnsCtxErrWithoutLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{}, 8)
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(model))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := n.Run(ctx, cxConversation(
			cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`),
			cxCall("c2", "forecast", `{"city":"Rome","days":"2"}`),
		))
		done <- err
	}()
	<-started
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestCorrectionCountsTokensPerModel(t *testing.T) {
	bad, good := `{"city":"Paris","days":"x"}`, `{"city":"Paris","days":3}`
	openaiUsage := map[string]any{"PromptTokens": 100, "CompletionTokens": 20, "TotalTokens": 120, "ReasoningTokens": 0}
	tests := []struct {
		name string
		opts []llms.CallOption
		fn   saidextest.Reply
		want map[string]TokenUsage
	}{
		{
			name: "openai keys summed over retries, named by llms.WithModel",
			opts: []llms.CallOption{llms.WithModel("small-model")},
			fn:   saidextest.WithUsage(openaiUsage, saidextest.Sequence(saidextest.ForcedToolCall(bad), saidextest.ForcedToolCall(good))),
			want: map[string]TokenUsage{"small-model": {200, 40, 240}},
		},
		{
			name: "anthropic keys counted once across choices, named by type",
			fn: func(context.Context, saidextest.Request) (*llms.ContentResponse, error) {
				info := map[string]any{"InputTokens": 50, "OutputTokens": 7, "CacheReadInputTokens": 3}
				return &llms.ContentResponse{Choices: []*llms.ContentChoice{
					{Content: "fixing", GenerationInfo: info},
					{GenerationInfo: info, ToolCalls: []llms.ToolCall{{FunctionCall: &llms.FunctionCall{Name: "forecast", Arguments: good}}}},
				}}, nil
			},
			want: map[string]TokenUsage{"*saidextest.Model": {50, 7, 57}},
		},
		{
			name: "googleai keys and a model name from the response",
			fn: saidextest.WithUsage(map[string]any{"input_tokens": int32(30), "output_tokens": int32(5), "total_tokens": int32(35), "model": "gemini-x"},
				saidextest.ForcedToolCall(good)),
			want: map[string]TokenUsage{"gemini-x": {30, 5, 35}},
		},
		{
			name: "no usage data",
			fn:   saidextest.ForcedToolCall(good),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(saidextest.NewModel(tt.fn), tt.opts...))
			res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`)))
			if err != nil {
				t.Fatal(err)
			}
			got := res.Calls[0].Tokens
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("Tokens = %v, want %v", got, tt.want)
			}
		})
	}
}

// cxChainRecorder records the chain events of a callbacks.Handler.
type cxChainRecorder struct {
	callbacks.SimpleHandler
	mu     sync.Mutex
	events []string
	inputs []map[string]any
	output []map[string]any
}

func (h *cxChainRecorder) HandleChainStart(_ context.Context, in map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "start")
	h.inputs = append(h.inputs, in)
}

func (h *cxChainRecorder) HandleChainEnd(_ context.Context, out map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "end")
	h.output = append(h.output, out)
}

func (h *cxChainRecorder) HandleChainError(context.Context, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "error")
}

func TestCorrectionReportsChainRunToCallbacks(t *testing.T) {
	tests := []struct {
		name string
		fn   saidextest.Reply
		want string
	}{
		{"success", saidextest.ForcedToolCall(`{"city":"Paris","days":3}`), "start end"},
		{"failure", saidextest.Fail(errors.New("503")), "start error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &cxChainRecorder{}
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(saidextest.NewModel(tt.fn)), WithCallbacks(h))
			if _, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`))); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(h.events, " "); got != tt.want {
				t.Fatalf("events = %q, want %q", got, tt.want)
			}
			if h.inputs[0]["chain"] != ExtractChainName || h.inputs[0]["function"] != "forecast" {
				t.Errorf("inputs = %v", h.inputs[0])
			}
			if len(h.output) > 0 && (h.output[0]["chain"] != ExtractChainName || h.output[0]["arguments"] != `{"city":"Paris","days":3}`) {
				t.Errorf("outputs = %v", h.output[0])
			}
		})
	}
}

func TestCorrectionKeepsOriginalArguments(t *testing.T) {
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris","days":3}`))
	n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(model))
	msgs := cxConversation(cxCall("c1", "forecast", `{"city":"Paris","days":"3"}`))
	r := &run{messages: msgs, aiIndex: 1}
	calls := n.collect(msgs[1])
	for _, c := range calls {
		n.repair(c)
		if err := n.validate(context.Background(), r, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.correct(context.Background(), r, calls); err != nil {
		t.Fatal(err)
	}
	c := calls[0]
	orig, _ := json.Marshal(c.original)
	if c.status != statusValid || c.outcome != OutcomeCorrected || string(orig) != `{"city":"Paris","days":"3"}` {
		t.Fatalf("call = status %v outcome %s original %s", c.status, c.outcome, orig)
	}
}

func TestCorrectionFailureLogsNoArgumentValues(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	tests := []struct {
		name string
		fn   saidextest.Reply
	}{
		{"model error", saidextest.Fail(errors.New("429"))},
		{"unparseable answers", saidextest.Text("SECRET-ANSWER is not json")},
		{"invalid answers", saidextest.ForcedToolCall(`{"city":"SECRET-CITY","days":"SECRET-DAYS"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf.Reset()
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(saidextest.NewModel(tt.fn)), WithLogger(logger))
			res, err := n.Run(context.Background(), cxConversation(cxCall("c1", "forecast", `{"city":"SECRET-ARG","days":"x"}`)))
			if err != nil || res.Calls[0].Outcome != OutcomeFeedback {
				t.Fatalf("Run = %v, %v", res, err)
			}
			out := buf.String()
			if !strings.Contains(out, "correction failed") || !strings.Contains(out, "call_id=c1") {
				t.Errorf("no warning logged: %q", out)
			}
			if strings.Contains(out, "SECRET") {
				t.Errorf("log carries argument values: %q", out)
			}
		})
	}
}

func TestExtractionStopsOnCheckInterrupt(t *testing.T) {
	errStop := errors.New("stop the run")
	cs, err := compileSchema("forecast", reflectSchema[cxForecastArgs]())
	if err != nil {
		t.Fatal(err)
	}
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris","days":3}`))
	s := defaultExtractSettings()
	var gotAttempt, gotMax int
	_, err = s.run(context.Background(), model, cs, "prompt", func(_ context.Context, _ any, attempt, maxAttempts int) ([]Issue, error) {
		gotAttempt, gotMax = attempt, maxAttempts
		return nil, errStop
	})
	if ie, ok := errors.AsType[*interruptError](err); !ok || !errors.Is(ie, errStop) {
		t.Fatalf("err = %v, want the check's error as an interrupt", err)
	}
	if model.CallCount() != 1 || gotAttempt != 1 || gotMax != defaultMaxCorrectionRetries {
		t.Errorf("calls %d, attempt %d of %d", model.CallCount(), gotAttempt, gotMax)
	}
}

// goroutineID returns the id of the calling goroutine, from its stack
// header ("goroutine 7 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// WithMaxConcurrency(1) runs calls one after another on the goroutine that
// called Run, as its doc says: their corrections (the correction model's
// calls) and their unresolved hooks too, not only their execution.
func TestMaxConcurrencyOneCorrectsAndResolvesOnTheCallingGoroutine(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func() {
		mu.Lock()
		seen = append(seen, goroutineID())
		mu.Unlock()
	}
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		record()
		return saidextest.TextResponse(`not an object`), nil
	})
	hook := func(ctx context.Context, uc UnresolvedToolCall) (Resolution, error) {
		record()
		return Resolution{}, nil
	}
	n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(model), WithMaxCorrectionRetries(1),
		WithUnresolvedHook(hook), WithMaxConcurrency(1), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	msgs := cxConversation(
		cxCall("c1", "forecast", `{"city":"Paris","days":"three"}`),
		cxCall("c2", "forecast", `{"city":"Oslo","days":"four"}`),
	)
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback || res.Calls[1].Outcome != OutcomeFeedback {
		t.Fatalf("outcomes %s, %s; want feedback", res.Calls[0].Outcome, res.Calls[1].Outcome)
	}
	caller := goroutineID()
	if len(seen) != 4 {
		t.Fatalf("%d model calls and hooks, want 4", len(seen))
	}
	for i, id := range seen {
		if id != caller {
			t.Errorf("step %d ran on goroutine %s, not on the caller's %s", i, id, caller)
		}
	}
}

// missingRequired and hasUnknownKey judge the root, nested objects and
// array items the schema describes, and nothing the schema does not.
func TestMissingRequiredAndUnknownKey(t *testing.T) {
	set := schemawalk.Of(mustCompile(t, `{"type":"object","required":["city"],
		"properties":{"city":{"type":"string"},
			"loc":{"type":"object","required":["lat"],"properties":{"lat":{},"lon":{}}},
			"stops":{"type":"array","items":{"type":"object","required":["name"],"properties":{"name":{}}}},
			"free":{"type":"object"},
			"pat":{"type":"object","properties":{"a":{}},"patternProperties":{"^x":{}}},
			"any":true}}`).schema)
	tests := []struct {
		name             string
		value            string
		missing, unknown bool
	}{
		{"complete", `{"city":"Oslo","loc":{"lat":1},"stops":[{"name":"a"}]}`, false, false},
		{"root required missing", `{"loc":{"lat":1}}`, true, false},
		{"nested required missing", `{"city":"Oslo","loc":{"lon":1}}`, true, false},
		{"item required missing", `{"city":"Oslo","stops":[{"name":"a"},{}]}`, true, false},
		{"root unknown key", `{"city":"Oslo","town":"x"}`, false, true},
		{"nested unknown key", `{"city":"Oslo","loc":{"lat":1,"alt":2}}`, false, true},
		{"item unknown key", `{"city":"Oslo","stops":[{"name":"a","when":1}]}`, false, true},
		{"object without properties is not judged", `{"city":"Oslo","free":{"k":1}}`, false, false},
		{"pattern properties are not judged", `{"city":"Oslo","pat":{"zz":1}}`, false, false},
		{"a non-object schema is not descended", `{"city":"Oslo","any":{"k":{}}}`, false, false},
		{"not an object", `[1,2]`, false, false},
		{"both", `{"loc":{"lat":1,"alt":2}}`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.value), &v); err != nil {
				t.Fatal(err)
			}
			if got := missingRequired(set, v); got != tt.missing {
				t.Errorf("missingRequired = %v, want %v", got, tt.missing)
			}
			if got := hasUnknownKey(set, v); got != tt.unknown {
				t.Errorf("hasUnknownKey = %v, want %v", got, tt.unknown)
			}
		})
	}
}

// cxChatServer is a local chat-completions endpoint that answers every
// request with a tool call (or, with status set, an error) and records the
// request bodies.
type cxChatServer struct {
	mu       sync.Mutex
	bodies   []map[string]any
	answer   string // arguments of the tool call it answers with
	status   int    // non-zero: answer with this HTTP status
	requests int
}

func (s *cxChatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.requests++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.status != 0 {
		w.WriteHeader(s.status)
		_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
		return
	}
	name := ""
	if tc, ok := body["tool_choice"].(map[string]any); ok {
		if f, ok := tc["function"].(map[string]any); ok {
			name, _ = f["name"].(string)
		}
	}
	resp := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{
				"role": "assistant", "content": nil,
				"tool_calls": []any{map[string]any{
					"id": "call_fix", "type": "function",
					"function": map[string]any{"name": name, "arguments": s.answer},
				}},
			},
		}},
		"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135},
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func cxOpenAI(t *testing.T, srv *httptest.Server) *openai.LLM {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("gpt-test-mini"),
		openai.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

func TestCorrectionThroughOpenAIClient(t *testing.T) {
	cs := &cxChatServer{answer: `{"city":"Paris","days":3}`}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	rec := &cxRecorder{}
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(cxOpenAI(t, srv), llms.WithModel("gpt-test-mini")))

	res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeCorrected || rep.Output != "Paris: sunny for 3 days" {
		t.Fatalf("report = %+v, want the corrected call executed", rep)
	}
	if got := rec.ran(); len(got) != 1 || got[0] != (cxForecastArgs{"Paris", 3}) {
		t.Errorf("tool ran with %+v", got)
	}
	if got, want := rep.Tokens["gpt-test-mini"], (TokenUsage{120, 15, 135}); got != want || len(rep.Tokens) != 1 {
		t.Errorf("Tokens = %v, want gpt-test-mini: %v", rep.Tokens, want)
	}

	if cs.requests != 1 {
		t.Fatalf("%d requests, want 1", cs.requests)
	}
	body := cs.bodies[0]
	choice, _ := json.Marshal(body["tool_choice"])
	if string(choice) != `{"function":{"name":"forecast"},"type":"function"}` {
		t.Errorf("tool_choice = %s, want the forecast function forced", choice)
	}
	toolsJSON, _ := json.Marshal(body["tools"])
	var sent []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(toolsJSON, &sent); err != nil || len(sent) != 1 || sent[0].Function.Name != "forecast" || sent[0].Function.Parameters["properties"] == nil {
		t.Errorf("tools = %s, want only forecast with its schema", toolsJSON)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 1 {
		t.Errorf("%d messages sent, want one prompt", len(msgs))
	}
}

func TestCorrectionThroughOpenAIClientRateLimited(t *testing.T) {
	cs := &cxChatServer{status: http.StatusTooManyRequests}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	rec := &cxRecorder{}
	n := cxNode(t, []tools.Tool{rec.tool()}, WithCorrectionModel(cxOpenAI(t, srv)))

	res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
	if err != nil {
		t.Fatalf("Run = %v; an HTTP 429 must not fail the node", err)
	}
	if rep := res.Calls[0]; rep.Outcome != OutcomeFeedback || rep.CorrectionErr == nil {
		t.Fatalf("report = %+v, want feedback", rep)
	}
	if cs.requests != 1 || len(rec.ran()) != 0 {
		t.Errorf("%d requests, %d tool runs; want 1 and 0 (no network retries)", cs.requests, len(rec.ran()))
	}
}

// Correction tokens are keyed by the model name: the response's, else the
// one passed with llms.WithModel, else (langchaingo's clients expose the
// configured model through no method, and saidex reads no unexported
// field) the client's Go type.
func TestCorrectionTokensKeyedByModelName(t *testing.T) {
	cs := &cxChatServer{answer: `{"city":"Paris","days":3}`}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	bare, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		model llms.Model
		opts  []llms.CallOption
		want  string
	}{
		{"a configured client without llms.WithModel: its Go type", cxOpenAI(t, srv), nil, "*openai.LLM"},
		{"llms.WithModel first", cxOpenAI(t, srv), []llms.CallOption{llms.WithModel("gpt-override")}, "gpt-override"},
		{"a client configured without a model", bare, nil, "*openai.LLM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := cxNode(t, []tools.Tool{(&cxRecorder{}).tool()}, WithCorrectionModel(tt.model, tt.opts...))
			res, err := n.Run(context.Background(), cxConversation(cxCall("call_1", "forecast", `{"city":"Paris","days":"three"}`)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if got, want := rep.Tokens[tt.want], (TokenUsage{120, 15, 135}); rep.Outcome != OutcomeCorrected || got != want || len(rep.Tokens) != 1 {
				t.Errorf("outcome %s, Tokens = %v, want %s: %v", rep.Outcome, rep.Tokens, tt.want, want)
			}
		})
	}
}

// correctionTurn is one scripted answer of the correction model, in a
// provider-neutral form: text, and calls as (name, arguments).
type correctionTurn struct {
	text  string
	calls [][2]string
}

func anthropicTurn(c correctionTurn) []map[string]any {
	var blocks []map[string]any
	if c.text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": c.text})
	}
	for i, call := range c.calls {
		var input map[string]any
		_ = json.Unmarshal([]byte(call[1]), &input)
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_fix" + string(rune('a'+i)), "name": call[0], "input": input})
	}
	return blocks
}

func openAITurn(c correctionTurn) fakeprovider.OpenAIReply {
	r := fakeprovider.OpenAIReply{Text: c.text}
	for i, call := range c.calls {
		r.Calls = append(r.Calls, [3]string{"call_fix" + string(rune('a'+i)), call[0], call[1]})
	}
	return r
}

// correctionProvider starts a fake provider answering turns and returns
// its real langchaingo client and a function returning the text of each
// prompt it received.
type correctionProvider func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string)

var correctionProviders = map[string]correctionProvider{
	"anthropic": func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string) {
		var replies [][]map[string]any
		for _, c := range turns {
			replies = append(replies, anthropicTurn(c))
		}
		srv, llm := fakeprovider.NewAnthropic(t, replies...)
		return llm, func() []string {
			var out []string
			for _, req := range srv.Requests() {
				var b strings.Builder
				for _, m := range req {
					for _, blk := range m.Content {
						b.WriteString(blk.Text)
					}
				}
				out = append(out, b.String())
			}
			return out
		}
	},
	"openai": func(t *testing.T, turns []correctionTurn) (llms.Model, func() []string) {
		var replies []fakeprovider.OpenAIReply
		for _, c := range turns {
			replies = append(replies, openAITurn(c))
		}
		srv, llm := fakeprovider.NewOpenAI(t, replies...)
		return llm, func() []string {
			var out []string
			for _, req := range srv.Requests() {
				var b strings.Builder
				for _, m := range req {
					var s string
					if json.Unmarshal(m.Content, &s) == nil {
						b.WriteString(s)
						continue
					}
					var parts []struct {
						Text string `json:"text"`
					}
					_ = json.Unmarshal(m.Content, &parts)
					for _, p := range parts {
						b.WriteString(p.Text)
					}
				}
				out = append(out, b.String())
			}
			return out
		}
	},
}

func TestCorrectionModelAnswerShapes(t *testing.T) {
	fixed := `{"city": "Paris", "days": 3}`
	sameTool := correctionTurn{calls: [][2]string{{"forecast", fixed}}}
	otherTool := correctionTurn{calls: [][2]string{{"teleport", fixed}}}
	tests := []struct {
		name      string
		providers []string
		turns     []correctionTurn
		want      Outcome
		wantReqs  int
		wantRetry string // text the second prompt must contain
	}{
		{
			name: "a call of the tool being corrected", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{sameTool}, want: OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "text holding the object in a fence is repaired and validated", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: "Here are the corrected arguments:\n```json\n" + fixed + "\n```"}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "text with single quotes and a trailing comma is repaired", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: `{'city': 'Paris', 'days': 3,}`}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "a call of another tool with arguments that would validate is never taken", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{otherTool, otherTool}, want: OutcomeFeedback, wantReqs: 2,
			wantRetry: "teleport",
		},
		{
			name: "a call of another tool, then of the right one", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{otherTool, sameTool}, want: OutcomeCorrected, wantReqs: 2,
			wantRetry: "teleport",
		},
		{
			name: "text and a call of another tool: the text is the answer", providers: []string{"anthropic"},
			turns: []correctionTurn{{text: fixed, calls: [][2]string{{"teleport", `{"to": "Mars"}`}}}},
			want:  OutcomeCorrected, wantReqs: 1,
		},
		{
			name: "prose only is a failed attempt", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: "I cannot help with that."}, {text: "Sorry."}}, want: OutcomeFeedback, wantReqs: 2,
			wantRetry: "I cannot help with that.",
		},
		{
			name: "text whose object still breaks the schema is a failed attempt", providers: []string{"anthropic", "openai"},
			turns: []correctionTurn{{text: `{"city": "Paris", "days": "three"}`}, {text: `{"city": "Paris", "days": "3 days"}`}},
			want:  OutcomeFeedback, wantReqs: 2, wantRetry: "days",
		},
	}
	for _, tt := range tests {
		for _, p := range tt.providers {
			t.Run(p+"/"+tt.name, func(t *testing.T) {
				llm, prompts := correctionProviders[p](t, tt.turns)
				rec := &correctionRecorder{}
				var teleports atomic.Int64
				teleport := plainTool{name: "teleport", fn: func(context.Context, string) (string, error) {
					teleports.Add(1)
					return "teleported", nil
				}}
				node := mustNode(t, []tools.Tool{rec.tool(), teleport},
					WithCorrectionModel(llm), WithMaxCorrectionRetries(2))

				conv := conversation(tc("call_1", "forecast", `{"city": "Paris", "days": "three"}`))
				res, err := node.Run(context.Background(), conv)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				rep := res.Calls[0]
				if rep.Outcome != tt.want {
					t.Errorf("outcome = %v, want %v (report %+v)", rep.Outcome, tt.want, rep)
				}
				if n := teleports.Load(); n != 0 {
					t.Errorf("teleport ran %d times; a correction must never execute another tool", n)
				}
				ran := rec.ran()
				if tt.want == OutcomeCorrected && (len(ran) != 1 || ran[0] != (correctionArgs{"Paris", 3})) {
					t.Errorf("forecast ran with %+v, want once with Paris, 3", ran)
				}
				if tt.want != OutcomeCorrected && len(ran) != 0 {
					t.Errorf("forecast ran with %+v, want not at all", ran)
				}
				got := prompts()
				if len(got) != tt.wantReqs {
					t.Fatalf("%d correction requests, want %d", len(got), tt.wantReqs)
				}
				if tt.wantRetry != "" && !strings.Contains(got[1], tt.wantRetry) {
					t.Errorf("retry prompt does not mention %q:\n%s", tt.wantRetry, got[1])
				}
			})
		}
	}
}

type correctionArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// correctionRecorder is a forecast tool that records the arguments it ran
// with.
type correctionRecorder struct {
	mu   sync.Mutex
	args []correctionArgs
}

func (rec *correctionRecorder) tool() Tool {
	return NewTool("forecast", "Weather forecast for a city.", func(_ context.Context, a correctionArgs) (string, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.args = append(rec.args, a)
		return "sunny", nil
	})
}

func (rec *correctionRecorder) ran() []correctionArgs {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]correctionArgs(nil), rec.args...)
}
