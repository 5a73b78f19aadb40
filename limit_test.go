package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/corpusfile"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// stubbornModel is an agent model that sends the same invalid call of
// get_weather every turn (with a fresh id, as providers do) until a tool
// message tells it to stop calling the tool, and then answers with text.
func stubbornModel(args string) *saidextest.Model {
	return saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "Stop calling get_weather") {
				return saidextest.TextResponse("I cannot look up the weather for that request."), nil
			}
		}
		id := fmt.Sprintf("call_%d", req.Seq+1)
		return saidextest.ToolCallResponse(saidextest.Call(id, "get_weather", args)), nil
	})
}

// agentLoop runs the README's agent loop for at most turns turns and
// returns the conversation and whether the model answered with text.
func agentLoop(t *testing.T, ctx context.Context, model llms.Model, node *ToolNode, turns int) ([]llms.MessageContent, bool) {
	t.Helper()
	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather for 30 days in Paris?")}
	for range turns {
		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
		if err != nil {
			t.Fatalf("GenerateContent: %v", err)
		}
		ai := AIMessageFromResponse(resp)
		messages = append(messages, ai)
		if !MessageHasToolCalls(ai) {
			return messages, true
		}
		if messages, err = node.Invoke(ctx, messages); err != nil {
			t.Fatalf("Invoke: %v", err)
		}
	}
	return messages, false
}

// assertEveryIDAnswered checks that every tool-call id of the conversation
// is answered by exactly one tool message.
func assertEveryIDAnswered(t *testing.T, messages []llms.MessageContent) {
	t.Helper()
	calls, answers := map[string]int{}, map[string]int{}
	for _, m := range messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.ToolCall:
				calls[p.ID]++
			case llms.ToolCallResponse:
				answers[p.ToolCallID]++
			}
		}
	}
	for id := range calls {
		if answers[id] != 1 {
			t.Errorf("call %q is answered by %d tool messages, want 1", id, answers[id])
		}
	}
	for id := range answers {
		if calls[id] == 0 {
			t.Errorf("tool message answers %q, which no call has", id)
		}
	}
}

func TestFeedbackLimitEndsAStubbornAgentLoop(t *testing.T) {
	for _, limit := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather}, WithFeedbackLimit(limit))
			model := stubbornModel(`{"city": "Paris", "days": 30}`) // days above the maximum of 14
			ctx, stats := CollectStats(context.Background())

			messages, answered := agentLoop(t, ctx, model, node, 10)

			if !answered {
				t.Fatalf("the loop did not end within 10 turns")
			}
			// limit turns of feedback, one turn with the final message, one text answer.
			if got, want := model.CallCount(), limit+2; got != want {
				t.Errorf("the agent model was called %d times, want %d", got, want)
			}
			if got := stats.Count(OutcomeFeedback); got != limit {
				t.Errorf("%d calls got feedback, want %d (the limit)", got, limit)
			}
			if got := stats.Count(OutcomeFeedbackLimit); got != 1 {
				t.Errorf("%d calls got the feedback limit, want 1", got)
			}
			if runs.Load() != 0 {
				t.Errorf("the tool ran %d times, want 0", runs.Load())
			}
			assertEveryIDAnswered(t, messages)
			var contents []string
			for _, m := range messages {
				if m.Role == llms.ChatMessageTypeTool {
					contents = append(contents, response(t, m).Content)
				}
			}
			if len(contents) != limit+1 {
				t.Fatalf("%d tool messages, want %d", len(contents), limit+1)
			}
			for i, c := range contents[:limit] {
				if strings.Contains(c, "Stop calling") || !strings.Contains(c, "days: must be at most 14") {
					t.Errorf("tool message %d is not the feedback:\n%s", i, c)
				}
			}
			rejected := "in the previous turn"
			if limit > 1 {
				rejected = fmt.Sprintf("in each of the previous %d turns", limit)
			}
			want := "Error: get_weather was not executed because its calls were rejected " + rejected + " and this call is still invalid. " +
				"Stop calling get_weather this way: answer the user without get_weather, or ask the user for the information the call needs."
			if got := contents[limit]; got != want {
				t.Errorf("final message:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestFeedbackLimitOffByDefault(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	ctx, stats := CollectStats(context.Background())
	_, answered := agentLoop(t, ctx, stubbornModel(`{"city": "Paris", "days": 30}`), node, 6)
	if answered {
		t.Fatalf("without a limit the stubborn model stopped")
	}
	if got := stats.Count(OutcomeFeedback); got != 6 {
		t.Errorf("%d calls got feedback, want 6", got)
	}
	if got := stats.Count(OutcomeFeedbackLimit); got != 0 {
		t.Errorf("%d calls got the feedback limit, want 0", got)
	}
}

func TestWithFeedbackLimitRejectsANegativeValue(t *testing.T) {
	if _, err := NewToolNode(nil, WithFeedbackLimit(-1)); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("WithFeedbackLimit(-1): err = %v, want ErrInvalidConfig", err)
	}
}

// feedbackOf returns the node's real feedback for an invalid call of
// get_weather with args.
func feedbackOf(t *testing.T, args string) string {
	t.Helper()
	weather, _ := countingWeather()
	res, err := mustNode(t, []tools.Tool{weather}).Run(context.Background(), conversation(tc("x", "get_weather", args)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback {
		t.Fatalf("outcome %q, want feedback", res.Calls[0].Outcome)
	}
	return res.Calls[0].Output
}

// turn is one earlier turn of a conversation: calls and their answers.
type turn struct {
	calls   []llms.ToolCall
	answers []string // one per call
}

func history(t *testing.T, turns ...any) []llms.MessageContent {
	t.Helper()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")}
	for _, x := range turns {
		switch x := x.(type) {
		case turn:
			msgs = append(msgs, saidextest.AIMessage(x.calls...))
			for i, c := range x.calls {
				msgs = append(msgs, saidextest.ToolMessage(c.ID, c.FunctionCall.Name, x.answers[i]))
			}
		case llms.MessageContent:
			msgs = append(msgs, x)
		default:
			t.Fatalf("history: %T", x)
		}
	}
	return msgs
}

func TestFeedbackLimitCountsConsecutiveFeedbackTurnsFromTheConversation(t *testing.T) {
	bad := `{"city": "Paris", "days": 30}`
	fb := feedbackOf(t, `{"city": "Paris", "days": 20}`)
	unreadable := feedbackOf(t, `{"city": "Par`)
	fbTurn := func(id string) turn {
		return turn{[]llms.ToolCall{tc(id, "get_weather", `{"city": "Paris", "days": 20}`)}, []string{fb}}
	}
	cases := []struct {
		name  string
		turns []any
		limit int
		want  Outcome
	}{
		{"no earlier turn", nil, 1, OutcomeFeedback},
		{"one feedback turn, limit 1", []any{fbTurn("a")}, 1, OutcomeFeedbackLimit},
		{"one feedback turn, limit 2", []any{fbTurn("a")}, 2, OutcomeFeedback},
		{"two feedback turns, limit 2", []any{fbTurn("a"), fbTurn("b")}, 2, OutcomeFeedbackLimit},
		{"unreadable arguments count as feedback", []any{
			turn{[]llms.ToolCall{tc("a", "get_weather", `{"city": "Par`)}, []string{unreadable}}, fbTurn("b"),
		}, 2, OutcomeFeedbackLimit},
		{"an execution ends the count", []any{
			fbTurn("a"), turn{[]llms.ToolCall{tc("b", "get_weather", `{"city": "Rome"}`)}, []string{"Rome: sunny"}}, fbTurn("c"),
		}, 2, OutcomeFeedback},
		{"a tool error message is an execution", []any{
			fbTurn("a"), turn{[]llms.ToolCall{tc("b", "get_weather", `{"city": "Rome"}`)}, []string{"Error: upstream timeout"}}, fbTurn("c"),
		}, 2, OutcomeFeedback},
		{"a human message starts the count again", []any{
			fbTurn("a"), llms.TextParts(llms.ChatMessageTypeHuman, "Try 10 days."), fbTurn("b"),
		}, 2, OutcomeFeedback},
		{"turns of other tools neither count nor end the count", []any{
			fbTurn("a"), turn{[]llms.ToolCall{tc("b", "get_time", `{}`)}, []string{"12:00"}}, fbTurn("c"),
		}, 2, OutcomeFeedbackLimit},
		{"a turn with two rejected calls counts once", []any{
			turn{[]llms.ToolCall{tc("a", "get_weather", `{"days": 0}`), tc("b", "get_weather", `{"days": 99}`)}, []string{fb, fb}},
		}, 2, OutcomeFeedback},
		{"feedback of another tool does not count", []any{
			turn{[]llms.ToolCall{tc("a", "get_time", `{"zone": 5}`)}, []string{"Error: get_time was not executed because its arguments do not match the tool's schema:"}},
		}, 1, OutcomeFeedback},
		{"text without the marker does not count", []any{
			turn{[]llms.ToolCall{tc("a", "get_weather", `{"city": "Paris", "days": 20}`)}, []string{"Please use at most 14 days."}},
		}, 1, OutcomeFeedback},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			getTime := NewTool("get_time", "The time.", func(ctx context.Context, a struct {
				Zone string `json:"zone,omitempty"`
			}) (string, error) {
				return "12:00", nil
			})
			node := mustNode(t, []tools.Tool{weather, getTime}, WithFeedbackLimit(tt.limit))
			msgs := append(history(t, tt.turns...), saidextest.AIMessage(tc("now", "get_weather", bad)))
			res, err := node.Run(context.Background(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Calls[0].Outcome; got != tt.want {
				t.Errorf("outcome %q, want %q; output:\n%s", got, tt.want, res.Calls[0].Output)
			}
			if !res.Calls[0].IsError || len(res.ToolMessages) != 1 || runs.Load() != 0 {
				t.Errorf("IsError %v, %d tool messages, %d runs; want an error answer, 1 message, 0 runs",
					res.Calls[0].IsError, len(res.ToolMessages), runs.Load())
			}
		})
	}
}

func TestFeedbackLimitAppliesOnlyToInvalidCalls(t *testing.T) {
	fb := feedbackOf(t, `{"city": "Paris", "days": 20}`)
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithFeedbackLimit(1))
	msgs := append(history(t, turn{[]llms.ToolCall{tc("a", "get_weather", `{"city": "Paris", "days": 20}`)}, []string{fb}}),
		saidextest.AIMessage(tc("b", "get_weather", `{"city": "Paris", "days": 3}`), tc("c", "get_weather", `{"city": "Paris", "days": 40}`)))
	res, err := node.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeExecuted || res.Calls[1].Outcome != OutcomeFeedbackLimit || runs.Load() != 1 {
		t.Errorf("outcomes %q, %q and %d runs; want executed, feedback_limit and 1 run",
			res.Calls[0].Outcome, res.Calls[1].Outcome, runs.Load())
	}
}

func TestFeedbackLimitWithRaiseReturnsATypedError(t *testing.T) {
	fb := feedbackOf(t, `{"city": "Paris", "days": 20}`)
	msgs := append(history(t, turn{[]llms.ToolCall{tc("a", "get_weather", `{"city": "Paris", "days": 20}`)}, []string{fb}}),
		saidextest.AIMessage(tc("b", "get_weather", `{"city": "Paris", "days": 40}`)))
	for _, limit := range []int{0, 1} {
		weather, runs := countingWeather()
		node := mustNode(t, []tools.Tool{weather}, WithOnUnresolved(UnresolvedRaise), WithFeedbackLimit(limit))
		_, err := node.Run(context.Background(), msgs)
		var le *FeedbackLimitError
		var ve *ToolCallValidationError
		if !errors.As(err, &ve) || len(ve.Calls) != 1 || ve.Calls[0].CallID != "b" {
			t.Errorf("limit %d: err = %v, want a *ToolCallValidationError for call b", limit, err)
		}
		if got := errors.As(err, &le); got != (limit == 1) {
			t.Errorf("limit %d: errors.As(err, *FeedbackLimitError) = %v; err = %v", limit, got, err)
		}
		if le != nil && (le.Limit != 1 || len(le.Tools) != 1 || le.Tools[0] != "get_weather") {
			t.Errorf("FeedbackLimitError %+v, want Limit 1 and Tools [get_weather]", le)
		}
		if le != nil && le.Error() != "saidex: the feedback limit of 1 turn was reached for get_weather" {
			t.Errorf("Error() = %q", le.Error())
		}
		if runs.Load() != 0 {
			t.Errorf("limit %d: the tool ran", limit)
		}
	}
}

// failingCorrector is a correction model whose every answer is invalid
// (days stays above the maximum), so correction always fails.
func failingCorrector() *saidextest.Model {
	return saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Paris", "days": 99}`))
}

func TestRepeatedRejectedCallIsAnsweredAtOnceWithoutCorrection(t *testing.T) {
	cases := []struct {
		name, first, again string
		repeated           bool
	}{
		{"identical text", `{"city": "Paris", "days": 30}`, `{"city": "Paris", "days": 30}`, true},
		{"same value, other spelling", `{"city": "Paris", "days": 30}`, "{'days': 30.0,\n 'city': 'Paris',}", true},
		{"different value", `{"city": "Paris", "days": 30}`, `{"city": "Paris", "days": 31}`, false},
		{"other fields", `{"city": "Paris", "days": 30}`, `{"city": "Paris", "days": 30, "unit": "kelvin"}`, false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			corrector := failingCorrector()
			node := mustNode(t, []tools.Tool{weather}, WithCorrectionModel(corrector), WithMaxCorrectionRetries(1))
			ctx := context.Background()
			msgs, err := node.Invoke(ctx, conversation(tc("a", "get_weather", tt.first)))
			if err != nil {
				t.Fatal(err)
			}
			spent := corrector.CallCount()
			if spent == 0 {
				t.Fatalf("the first call was not sent to the correction model")
			}
			res, err := node.Run(ctx, append(msgs, saidextest.AIMessage(tc("b", "get_weather", tt.again))))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if rep.Outcome != OutcomeFeedback || rep.Repeated != tt.repeated || runs.Load() != 0 {
				t.Fatalf("outcome %q, Repeated %v, %d runs; want feedback, %v, 0", rep.Outcome, rep.Repeated, runs.Load(), tt.repeated)
			}
			again := corrector.CallCount() - spent
			if tt.repeated {
				if again != 0 || rep.CorrectionAttempted {
					t.Errorf("the repeated call cost %d correction calls (attempted %v), want none", again, rep.CorrectionAttempted)
				}
				want := "Error: get_weather was not executed because this call is identical to an earlier get_weather call that was already rejected, and it has the same problems:\n" +
					"- days: must be at most 14\n" +
					"Do not send the same call again: change what is listed above, or answer without get_weather."
				if rep.Output != want {
					t.Errorf("output:\n got %q\nwant %q", rep.Output, want)
				}
			} else if again == 0 {
				t.Errorf("a changed call was not sent to the correction model")
			}
		})
	}
}

func TestRepeatedUnreadableCallComparesAsSent(t *testing.T) {
	weather, _ := countingWeather()
	cut := `{"city": "Par`
	for _, keep := range []bool{false, true} {
		node := mustNode(t, []tools.Tool{weather}, WithSanitizeMessages(!keep))
		msgs, err := node.Invoke(context.Background(), conversation(tc("a", "get_weather", cut)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := node.Run(context.Background(), append(msgs, saidextest.AIMessage(tc("b", "get_weather", cut))))
		if err != nil {
			t.Fatal(err)
		}
		// The sanitized history stores {} for arguments that never parsed,
		// so only a history that keeps them shows the repetition.
		if got := res.Calls[0].Repeated; got != keep {
			t.Errorf("history keeps the raw arguments: %v; Repeated = %v, want %v", keep, got, keep)
		}
		if keep && !strings.Contains(res.Calls[0].Output, "- the arguments could not be read as one JSON object (") {
			t.Errorf("output does not repeat the problem:\n%s", res.Calls[0].Output)
		}
	}
}

func TestRepeatedCallReachingTheLimitGetsTheLimit(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithFeedbackLimit(1))
	bad := `{"city": "Paris", "days": 30}`
	msgs, err := node.Invoke(context.Background(), conversation(tc("a", "get_weather", bad)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(context.Background(), append(msgs, saidextest.AIMessage(tc("b", "get_weather", bad))))
	if err != nil {
		t.Fatal(err)
	}
	if rep := res.Calls[0]; rep.Outcome != OutcomeFeedbackLimit || !rep.Repeated || !strings.Contains(rep.Output, "Stop calling get_weather") {
		t.Errorf("outcome %q, Repeated %v, output %q; want feedback_limit, true, the final message", rep.Outcome, rep.Repeated, rep.Output)
	}
}

func TestRepeatedCallSkipsTheHookAndTheLimitReplacesDefaultFeedbackOnly(t *testing.T) {
	fb := feedbackOf(t, `{"city": "Paris", "days": 20}`)
	earlier := turn{[]llms.ToolCall{tc("a", "get_weather", `{"city": "Paris", "days": 20}`)}, []string{fb}}
	cases := []struct {
		name     string
		args     string
		hook     func(UnresolvedToolCall) Resolution
		want     Outcome
		hookRuns int
		contains string
	}{
		{"repeated call: no hook", `{"city": "Paris", "days": 20}`, func(UnresolvedToolCall) Resolution { return Resolution{} }, OutcomeFeedbackLimit, 0, "Stop calling"},
		{"default resolution: the limit", `{"city": "Paris", "days": 40}`, func(UnresolvedToolCall) Resolution { return Resolution{} }, OutcomeFeedbackLimit, 1, "Stop calling"},
		{"hook text wins", `{"city": "Paris", "days": 40}`, func(UnresolvedToolCall) Resolution { return FeedbackText("Ask the user.") }, OutcomeFeedback, 1, "Ask the user."},
		{"salvage wins", `{"city": "Paris", "days": 40}`, func(u UnresolvedToolCall) Resolution {
			u.Args["days"] = 14
			return Salvage(u.Args)
		}, OutcomeSalvaged, 1, "sunny"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			weather, _ := countingWeather()
			hookRuns := 0
			node := mustNode(t, []tools.Tool{weather}, WithFeedbackLimit(1), WithMaxConcurrency(1),
				WithUnresolvedHook(func(ctx context.Context, u UnresolvedToolCall) (Resolution, error) {
					hookRuns++
					return tt.hook(u), nil
				}))
			res, err := node.Run(context.Background(), append(history(t, earlier), saidextest.AIMessage(tc("b", "get_weather", tt.args))))
			if err != nil {
				t.Fatal(err)
			}
			if rep := res.Calls[0]; rep.Outcome != tt.want || hookRuns != tt.hookRuns || !strings.Contains(rep.Output, tt.contains) {
				t.Errorf("outcome %q, hook ran %d times, output %q; want %q, %d, containing %q",
					rep.Outcome, hookRuns, rep.Output, tt.want, tt.hookRuns, tt.contains)
			}
		})
	}
}

// TestEveryFeedbackTextCarriesTheMarker checks the rule WithFeedbackLimit
// documents against every kind of feedback the node writes, and that tool
// output and the unknown-tool answer do not match it.
func TestEveryFeedbackTextCarriesTheMarker(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithMaxArgumentBytes(64))
	calls := []llms.ToolCall{
		tc("1", "get_weather", `{"city": 5}`),                // schema
		tc("2", "get_weather", `{"city": "Par`),              // cut
		tc("3", "get_weather", ``),                           // empty
		tc("4", "get_weather", `prose only`),                 // no object
		tc("5", "get_weather", strings.Repeat(" ", 65)+"{}"), // over the byte limit
		tc("6", "get_weather", `{"days": 3}`),                // missing field
		tc("7", "get_weather", `{"city": "Paris"}`),          // runs
		tc("8", "get_wether", `{"city": "Paris"}`),           // unknown tool
	}
	parts := make([]llms.ContentPart, len(calls))
	for i, c := range calls {
		parts[i] = c
	}
	res, err := node.Run(context.Background(), conversation(parts...))
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range res.Calls {
		want := rep.Outcome == OutcomeFeedback
		if got := isNodeFeedback(rep.Output, rep.Name); got != want {
			t.Errorf("call %s (%s): recognised as feedback %v, want %v:\n%s", rep.ID, rep.Outcome, got, want, rep.Output)
		}
	}
	if isNodeFeedback(repeatedFeedback(&call{name: "get_weather", issues: []Issue{{Path: "/days", Message: "x"}}}), "get_weather") != true ||
		isNodeFeedback(limitFeedback(&call{name: "get_weather"}, 2), "get_weather") != true {
		t.Errorf("the repeated-call or limit message does not carry the marker")
	}
	if isNodeFeedback(limitFeedback(&call{name: "get_weather"}, 2), "get_weathe") {
		t.Errorf("a prefix of the tool name matches the marker")
	}
}

// TestCorpusFeedbackCarriesTheMarkerAndRepeatsAreCaught runs every case of
// the shared dev corpus as a first call, then sends the same call again in
// the next turn: every feedback answer is recognised by the documented
// marker (and no other answer is), and every call answered with feedback is
// caught as repeated the second time and, with a limit of 1, gets the
// limit. It skips when the corpus is absent.
func TestCorpusFeedbackCarriesTheMarkerAndRepeatsAreCaught(t *testing.T) {
	const path = "../shared/corpus/dev.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	cases, err := corpusfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	feedback := 0
	for _, cs := range cases {
		var params map[string]any
		if err := json.Unmarshal(cs.Tool.Parameters, &params); err != nil {
			t.Fatalf("%s: parameters: %v", cs.ID, err)
		}
		tool := ToolWithSchema(plainTool{name: cs.Tool.Name, fn: func(context.Context, string) (string, error) { return "done", nil }}, params)
		// The history keeps the raw arguments, so that arguments that never
		// parsed can be compared too.
		node := mustNode(t, []tools.Tool{tool}, WithFeedbackLimit(1), WithSanitizeMessages(false))
		first := conversation(tc("a", cs.Tool.Name, cs.RawArguments))
		res, err := node.Run(ctx, first)
		if err != nil {
			t.Fatalf("%s: %v", cs.ID, err)
		}
		rep := res.Calls[0]
		if got, want := isNodeFeedback(rep.Output, cs.Tool.Name), rep.Outcome == OutcomeFeedback; got != want {
			t.Errorf("%s (%s): recognised as feedback %v, want %v:\n%s", cs.ID, rep.Outcome, got, want, rep.Output)
		}
		if rep.Outcome != OutcomeFeedback {
			continue
		}
		feedback++
		conv, err := node.Invoke(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		again, err := node.Run(ctx, append(conv, saidextest.AIMessage(tc("b", cs.Tool.Name, cs.RawArguments))))
		if err != nil {
			t.Fatalf("%s: %v", cs.ID, err)
		}
		if rep := again.Calls[0]; rep.Outcome != OutcomeFeedbackLimit || !rep.Repeated {
			t.Errorf("%s: the same call again: outcome %q, Repeated %v; want feedback_limit, true", cs.ID, rep.Outcome, rep.Repeated)
		}
	}
	if feedback == 0 {
		t.Fatalf("no corpus case was answered with feedback")
	}
	t.Logf("%d of %d cases answered with feedback; each caught as repeated", feedback, len(cases))
}
