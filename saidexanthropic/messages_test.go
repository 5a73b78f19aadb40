package saidexanthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
)

// brokenReply is a turn of five calls: valid, coercible (a number sent as
// a string), out of range, an unknown tool, and a repeated id.
func brokenReply() anthropictest.Reply {
	return anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.Text("Let me look these up."),
		anthropictest.ToolUse("toolu_valid", "get_weather", `{"city":"Paris","days":2}`),
		anthropictest.ToolUse("toolu_coerce", "get_weather", `{"city":"Oslo","days":"3"}`),
		anthropictest.ToolUse("toolu_range", "get_weather", `{"city":"Rome","days":30}`),
		anthropictest.ToolUse("toolu_unknown", "teleport", `{"to":"Mars"}`),
	}}
}

var done = anthropictest.Reply{Content: []anthropictest.Block{anthropictest.Text("Paris and Oslo are sunny.")}}

// wantCall is what the next request must carry for one call: the input of
// its tool_use, and its tool_result.
type wantCall struct {
	id, input string
	isError   bool
	result    string // a substring of the tool_result's text
}

var brokenWant = []wantCall{
	{"toolu_valid", `{"city":"Paris","days":2}`, false, "Paris: sunny for 2 days"},
	{"toolu_coerce", `{"city":"Oslo","days":3}`, false, "Oslo: sunny for 3 days"},
	{"toolu_range", `{"city":"Rome","days":30}`, true, "days: must be at most 14"},
	{"toolu_unknown", `{"to":"Mars"}`, true, "is not a valid tool, try one of [get_weather]"},
}

// checkNextRequest asserts on the wire request that followed the guarded
// turn: the assistant message with the inputs of want, then one user
// message with one tool_result per call, in order.
func checkNextRequest(t *testing.T, srv *anthropictest.Server, want []wantCall) {
	t.Helper()
	req, ok := srv.Last()
	if !ok {
		t.Fatal("no request")
	}
	if req.Refused != "" {
		t.Fatalf("the next request was refused: %s", req.Refused)
	}
	if len(req.Messages) != 3 {
		t.Fatalf("the next request has %d messages, want 3 (user, assistant, user)", len(req.Messages))
	}
	var uses []anthropictest.WireBlock
	for _, b := range req.Messages[1].Content {
		if b.Type == "tool_use" {
			uses = append(uses, b)
		}
	}
	results := req.Messages[2].Content
	if len(uses) != len(want) || len(results) != len(want) {
		t.Fatalf("the next request has %d tool_use and %d tool_result blocks, want %d of each\n%s", len(uses), len(results), len(want), req.Body)
	}
	for i, w := range want {
		if uses[i].ID != w.id || compact(uses[i].Input) != w.input {
			t.Errorf("tool_use %d sent as %s %s, want %s %s", i, uses[i].ID, compact(uses[i].Input), w.id, w.input)
		}
		r := results[i]
		if r.Type != "tool_result" || r.ToolUseID != w.id || r.IsError != w.isError || !strings.Contains(r.ResultText(), w.result) {
			t.Errorf("block %d of the results is %s for %s (is_error %v): %q, want a tool_result for %s (is_error %v) holding %q",
				i, r.Type, r.ToolUseID, r.IsError, r.ResultText(), w.id, w.isError, w.result)
		}
	}
}

func TestRunAnswersEveryCallAndSendsTheRepairedInput(t *testing.T) {
	ctx := context.Background()
	g, ran := newGuard(t, saidex.WithCoercion(saidex.CoercionLax))
	srv, client := newServer(t, brokenReply(), done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, turn.Messages()...)
	final, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatalf("the next request failed: %v", err)
	}
	if final.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("final stop reason %q", final.StopReason)
	}
	checkNextRequest(t, srv, brokenWant)
	got := ran.all() // the calls run in parallel
	slices.SortFunc(got, func(a, b weatherArgs) int { return strings.Compare(a.City, b.City) })
	if want := []weatherArgs{{"Oslo", 3}, {"Paris", 2}}; !slices.Equal(got, want) {
		t.Errorf("the tool ran with %v, want %v", got, want)
	}
	outcomes := make([]saidex.Outcome, len(turn.Calls))
	for i, c := range turn.Calls {
		outcomes[i] = c.Outcome
	}
	want := []saidex.Outcome{saidex.OutcomeExecuted, saidex.OutcomeExecuted, saidex.OutcomeFeedback, saidex.OutcomeUnknownTool}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	// The model's reply is left as it was: ToParam still gives its input.
	if got := compact(msg.Content[2].Input); got != `{"city":"Oslo","days":"3"}` {
		t.Errorf("the reply's input changed to %s", got)
	}
}

func TestCheckLeavesRunningToTheCaller(t *testing.T) {
	ctx := context.Background()
	g, ran := newGuard(t, saidex.WithCoercion(saidex.CoercionLax))
	srv, client := newServer(t, brokenReply(), done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := g.Check(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	var ready []string
	results := checked.Results(func(c saidexanthropic.CheckedCall) (string, bool) {
		ready = append(ready, c.ID+" "+string(c.Input))
		return "ran " + c.Name + " " + string(c.Input), false
	})
	if want := []string{`toolu_valid {"city":"Paris","days":2}`, `toolu_coerce {"city":"Oslo","days":3}`}; !slices.Equal(ready, want) {
		t.Errorf("ready calls %q, want %q", ready, want)
	}
	if len(ran.all()) != 0 {
		t.Errorf("Check ran the tool: %v", ran.all())
	}
	params.Messages = append(params.Messages, checked.Assistant, results)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatalf("the next request failed: %v", err)
	}
	want := slices.Clone(brokenWant)
	want[0].result, want[1].result = `ran get_weather {"city":"Paris","days":2}`, `ran get_weather {"city":"Oslo","days":3}`
	checkNextRequest(t, srv, want)
}

// A reply cut by max_tokens runs none of its calls, even valid ones, and
// its feedback names no missing field.
func TestOutputLimitRunsNothing(t *testing.T) {
	for _, check := range []bool{false, true} {
		name := "Run"
		if check {
			name = "Check"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g, ran := newGuard(t)
			cut := anthropictest.Reply{StopReason: "max_tokens", Content: []anthropictest.Block{
				anthropictest.ToolUse("toolu_1", "get_weather", `{"city":"Paris","days":2}`),
				anthropictest.ToolUse("toolu_2", "get_weather", `{}`),
			}}
			srv, client := newServer(t, cut, done)
			params := firstParams(g)
			msg, err := client.Messages.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if check {
				c, err := g.Check(ctx, params.Messages, msg)
				if err != nil {
					t.Fatal(err)
				}
				params.Messages = append(params.Messages, c.Assistant, c.Results(func(saidexanthropic.CheckedCall) (string, bool) {
					t.Error("a call of a cut reply is ready")
					return "", false
				}))
			} else {
				turn, err := g.Run(ctx, params.Messages, msg)
				if err != nil {
					t.Fatal(err)
				}
				params.Messages = append(params.Messages, turn.Messages()...)
			}
			if _, err := client.Messages.New(ctx, params); err != nil {
				t.Fatalf("the next request failed: %v", err)
			}
			checkNextRequest(t, srv, []wantCall{
				{"toolu_1", `{"city":"Paris","days":2}`, true, "output-token limit"},
				{"toolu_2", `{}`, true, "output-token limit"},
			})
			req, _ := srv.Last()
			for _, b := range req.Messages[2].Content {
				if text := b.ResultText(); strings.Contains(text, "missing") || strings.Contains(text, "required") {
					t.Errorf("the feedback of a cut call names a missing field: %q", text)
				}
			}
			if len(ran.all()) != 0 {
				t.Errorf("a call of a cut reply ran: %v", ran.all())
			}
		})
	}
}

// A tool_use whose id repeats an earlier one is neither run nor answered,
// and is removed from the assistant message, which the API accepts.
func TestRepeatedIDIsRemoved(t *testing.T) {
	ctx := context.Background()
	g, ran := newGuard(t)
	srv, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "get_weather", `{"city":"Paris"}`),
		anthropictest.ToolUse("toolu_1", "get_weather", `{"city":"Lyon"}`),
	}}, done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, turn.Messages()...)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatalf("the next request failed: %v", err)
	}
	checkNextRequest(t, srv, []wantCall{{"toolu_1", `{"city":"Paris"}`, false, "Paris: sunny"}})
	if got := ran.all(); len(got) != 1 {
		t.Errorf("runs %v, want one", got)
	}
}

// A reply without tool_use blocks is returned as its param, and nothing
// runs.
func TestNoToolUse(t *testing.T) {
	ctx := context.Background()
	g, _ := newGuard(t)
	_, client := newServer(t, done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Calls) != 0 || len(turn.Messages()) != 1 {
		t.Errorf("a reply without calls gives %d calls and %d messages", len(turn.Calls), len(turn.Messages()))
	}
	if _, err := g.Run(ctx, nil, nil); !errors.Is(err, saidexanthropic.ErrNoMessage) {
		t.Errorf("Run(nil) = %v, want ErrNoMessage", err)
	}
}

// The local server refuses, as the API does, the conversations a stock
// loop sends: a call left unanswered, results split over two user
// messages, an input that is not an object.
func TestServerEnforcesToolUseRules(t *testing.T) {
	use := func(id, input string) anthropic.ContentBlockParamUnion {
		return anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{ID: id, Name: "get_weather", Input: json.RawMessage(input)}}
	}
	user := anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))
	assistant := anthropic.NewAssistantMessage(use("toolu_1", `{"city":"Paris"}`), use("toolu_2", `{"city":"Oslo"}`))
	r1, r2 := anthropic.NewToolResultBlock("toolu_1", "ok", false), anthropic.NewToolResultBlock("toolu_2", "ok", false)
	tests := []struct {
		name string
		msgs []anthropic.MessageParam
		want string
	}{
		{"every id answered in one message", []anthropic.MessageParam{user, assistant, anthropic.NewUserMessage(r1, r2)}, ""},
		{"an id unanswered", []anthropic.MessageParam{user, assistant, anthropic.NewUserMessage(r1)},
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"results in two user messages", []anthropic.MessageParam{user, assistant, anthropic.NewUserMessage(r1), anthropic.NewUserMessage(r2)},
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2."},
		{"a result twice", []anthropic.MessageParam{user, assistant, anthropic.NewUserMessage(r1, r2, r1)},
			"each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_1"},
		{"an input that is not an object", []anthropic.MessageParam{user, anthropic.NewAssistantMessage(use("toolu_1", `"{\"city\": \"Paris\"}"`)), anthropic.NewUserMessage(r1)},
			"messages.1.content.0.tool_use.input: Input should be a valid dictionary"},
		{"a repeated id", []anthropic.MessageParam{user, anthropic.NewAssistantMessage(use("toolu_1", `{}`), use("toolu_1", `{}`)), anthropic.NewUserMessage(r1)},
			"messages.1.content.1: `tool_use` ids must be unique"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, client := newServer(t, done)
			_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10, Messages: tt.msgs})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want HTTP 400 with %q", err, tt.want)
			}
		})
	}
}

// What Turn.Assistant works around, in the SDK pinned: ToParam and
// AsToolUse re-decode a block's raw JSON, so an edit to its Input is lost.
func TestSDKToParamDropsAnEditedInput(t *testing.T) {
	_, client := newServer(t, brokenReply())
	g, _ := newGuard(t)
	msg, err := client.Messages.New(context.Background(), firstParams(g))
	if err != nil {
		t.Fatal(err)
	}
	msg.Content[2].Input = json.RawMessage(`{"city":"Oslo","days":3}`)
	p := msg.ToParam()
	sent, err := json.Marshal(p.OfAssistant.Content[2].OfToolUse.Input)
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(sent); got != `{"city":"Oslo","days":"3"}` {
		t.Errorf("ToParam sends %s after an edit to Input; the SDK no longer re-decodes the raw JSON", got)
	}
	if got := compact(msg.Content[2].AsToolUse().Input); got != `{"city":"Oslo","days":"3"}` {
		t.Errorf("AsToolUse gives %s after an edit to Input", got)
	}
}
