package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestIsOutputLimit(t *testing.T) {
	tests := []struct {
		reason string
		want   bool
	}{
		{"length", true},                        // OpenAI, OpenAI-compatible servers, Mistral
		{"model_length", true},                  // Mistral
		{"max_tokens", true},                    // Anthropic, Bedrock
		{"MAX_TOKENS", true},                    // Gemini REST, Cohere
		{"FinishReasonMaxTokens", true},         // langchaingo's googleai (genai's String)
		{"max_output_tokens", true},             // OpenAI Responses
		{"model_context_window_exceeded", true}, // Anthropic
		{"Max Tokens", true},
		{"", false},
		{"stop", false},
		{"tool_calls", false},
		{"tool_use", false},
		{"end_turn", false},
		{"STOP", false},
		{"FinishReasonStop", false},
		{"content_filter", false},
		{"lengthy", false},
		{"max_tokens_exceeded_by_a_long_provider_specific_reason_text", false},
	}
	for _, tt := range tests {
		if got := IsOutputLimit(tt.reason); got != tt.want {
			t.Errorf("IsOutputLimit(%q) = %t, want %t", tt.reason, got, tt.want)
		}
	}
}

// cutArguments are argument strings a reply cut by the output limit may
// carry: cut inside the object (closable), cut after a complete value,
// complete and valid, emptied to {} by an accumulator, cut inside a
// string, and empty.
var cutArguments = []string{
	`{"city": "Paris", "unit": "celsius"`,
	`{"city": "Paris", "days": 3`,
	`{"city":"Paris"}`,
	`{}`,
	`{"city": "Par`,
	``,
}

func TestOutputLimitRunsNoCall(t *testing.T) {
	for _, reason := range []string{"length", "max_tokens", "MAX_TOKENS", "FinishReasonMaxTokens"} {
		for _, args := range cutArguments {
			t.Run(reason+"/"+args, func(t *testing.T) {
				weather, runs := countingWeather()
				node := mustNode(t, []tools.Tool{weather})
				conv := []llms.MessageContent{
					llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
					saidextest.AIMessage(
						saidextest.Call("call_1", "get_weather", `{"city":"Rome"}`),
						saidextest.Call("call_2", "get_weather", args)),
				}
				res, err := node.Run(context.Background(), conv, WithFinishReason(reason))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if runs.Load() != 0 {
					t.Fatalf("a tool ran %d times for a reply cut by the output limit", runs.Load())
				}
				if len(res.ToolMessages) != 2 {
					t.Fatalf("%d tool messages, want one per call", len(res.ToolMessages))
				}
				for i, rep := range res.Calls {
					if rep.Outcome != OutcomeOutputLimit || !rep.IsError {
						t.Errorf("call %d: outcome %s, error %t; want output_limit, true", i, rep.Outcome, rep.IsError)
					}
					if !errors.Is(rep.Err, ErrOutputLimit) {
						t.Errorf("call %d: Err %v, want ErrOutputLimit", i, rep.Err)
					}
					if len(rep.Issues) != 1 || rep.Issues[0].Kind != IssueOutputLimit || rep.Issues[0].Path != "" {
						t.Errorf("call %d: issues %+v, want the one output_limit issue", i, rep.Issues)
					}
					if rep.Arguments != nil {
						t.Errorf("call %d: Arguments %s for a call that did not run", i, rep.Arguments)
					}
					out := response(t, res.ToolMessages[i])
					if out.ToolCallID != rep.ID || out.Content != rep.Output {
						t.Errorf("call %d: message answers %q with %q, report says %q", i, out.ToolCallID, out.Content, rep.Output)
					}
					assertOutputLimitFeedback(t, rep.Output)
				}
			})
		}
	}
}

// assertOutputLimitFeedback checks the feedback of a cut call: it says
// what happened and names no missing field.
func assertOutputLimitFeedback(t *testing.T, text string) {
	t.Helper()
	if !strings.HasPrefix(text, "Error: get_weather was not executed because the reply that holds it was cut off by the output-token limit") {
		t.Errorf("feedback %q does not say the reply was cut", text)
	}
	for _, bad := range []string{"missing", "required", "city", "could not be read"} {
		if strings.Contains(text, bad) {
			t.Errorf("feedback %q mentions %q", text, bad)
		}
	}
	if !isNodeFeedback(text, "get_weather") {
		t.Errorf("feedback %q is not recognised as the node's feedback (WithFeedbackLimit)", text)
	}
}

func TestOutputLimitOtherReasonsStillRun(t *testing.T) {
	for _, reason := range []string{"", "stop", "tool_calls", "tool_use", "end_turn", "STOP"} {
		weather, runs := countingWeather()
		node := mustNode(t, []tools.Tool{weather})
		conv := []llms.MessageContent{saidextest.AIMessage(saidextest.Call("call_1", "get_weather", `{"city":"Rome"}`))}
		res, err := node.Run(context.Background(), conv, WithFinishReason(reason))
		if err != nil {
			t.Fatalf("%q: Run: %v", reason, err)
		}
		if runs.Load() != 1 || res.Calls[0].Outcome != OutcomeExecuted {
			t.Errorf("finish reason %q: %d runs, outcome %s; want the call executed", reason, runs.Load(), res.Calls[0].Outcome)
		}
	}
}

func TestOutputLimitCallsAllKinds(t *testing.T) {
	// An unknown tool (its name may be cut), a plain tool, a call without a
	// function and a repeated id: each gets the output-limit answer, except
	// the dropped call, which stays dropped.
	weather, runs := countingWeather()
	var plainRuns atomic.Int64
	plain := plainTool{name: "echo", fn: func(context.Context, string) (string, error) { plainRuns.Add(1); return "ok", nil }}
	node := mustNode(t, []tools.Tool{weather, plain})
	ai := saidextest.AIMessage(
		saidextest.Call("a", "get_wea", `{"city":"Rome"}`),
		saidextest.Call("b", "echo", `hello`),
		saidextest.Call("c", "get_weather", `{"city":"Rome"}`),
		saidextest.Call("c", "get_weather", `{"city":"Oslo"}`),
		llms.ToolCall{ID: "d", Type: "function"},
	)
	res, err := node.Run(context.Background(), []llms.MessageContent{ai}, WithFinishReason("length"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if runs.Load()+plainRuns.Load() != 0 {
		t.Fatal("a tool ran")
	}
	want := []Outcome{OutcomeOutputLimit, OutcomeOutputLimit, OutcomeOutputLimit, OutcomeDropped, OutcomeOutputLimit}
	for i, rep := range res.Calls {
		if rep.Outcome != want[i] {
			t.Errorf("call %d (%s): outcome %s, want %s", i, rep.Name, rep.Outcome, want[i])
		}
	}
	if len(res.ToolMessages) != 4 {
		t.Errorf("%d tool messages, want 4 (the dropped call has none)", len(res.ToolMessages))
	}
	if got := res.Calls[4].Output; !strings.HasPrefix(got, "Error: this tool call was not executed because the reply") {
		t.Errorf("call without a function: %q", got)
	}
}

func TestOutputLimitSkipsCorrectionAndHook(t *testing.T) {
	weather, runs := countingWeather()
	fixer := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris"}`))
	var hooked atomic.Int64
	node := mustNode(t, []tools.Tool{weather},
		WithCorrectionModel(fixer),
		WithUnresolvedHook(func(context.Context, UnresolvedToolCall) (Resolution, error) {
			hooked.Add(1)
			return Salvage(map[string]any{"city": "Paris"}), nil
		}))
	conv := []llms.MessageContent{saidextest.AIMessage(saidextest.Call("a", "get_weather", `{"days": 3`))}
	res, err := node.Run(context.Background(), conv, WithFinishReason("length"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if runs.Load() != 0 || fixer.CallCount() != 0 || hooked.Load() != 0 {
		t.Errorf("runs %d, correction requests %d, hook calls %d; want none", runs.Load(), fixer.CallCount(), hooked.Load())
	}
	if res.Calls[0].Outcome != OutcomeOutputLimit || res.Calls[0].CorrectionAttempted {
		t.Errorf("report %+v", res.Calls[0])
	}
}

func TestOutputLimitWithRaise(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithOnUnresolved(UnresolvedRaise))
	conv := []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("a", "get_weather", `{"city":"Rome"}`),
		saidextest.Call("b", "get_weather", `{"city": "Par`))}
	_, err := node.Run(context.Background(), conv, WithFinishReason("max_tokens"))
	var ve *ToolCallValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err %v, want a *ToolCallValidationError", err)
	}
	if runs.Load() != 0 || ve.Count != 2 || len(ve.Calls) != 2 {
		t.Fatalf("runs %d, error %+v", runs.Load(), ve)
	}
	for _, c := range ve.Calls {
		if len(c.Issues) != 1 || c.Issues[0].Kind != IssueOutputLimit {
			t.Errorf("call %+v: issues %+v", c, c.Issues)
		}
	}
}

func TestOutputLimitSanitizedHistory(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	conv := []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("a", "get_weather", `{"city":"Rome"}`),
		saidextest.Call("b", "get_weather", `{"city": "Par`))}
	res, err := node.Run(context.Background(), conv, WithFinishReason("length"))
	if err != nil {
		t.Fatal(err)
	}
	calls := toolCallsOf(res.AIMessage)
	if got := calls[0].FunctionCall.Arguments; got != `{"city":"Rome"}` {
		t.Errorf("a complete object is stored as %s, want it kept", got)
	}
	if got := calls[1].FunctionCall.Arguments; got != `{}` {
		t.Errorf("cut arguments are stored as %s, want {}", got)
	}
}

func TestOutputLimitCheckAndCheckCall(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	ctx := context.Background()
	reps, err := node.Check(ctx, []llms.MessageContent{saidextest.AIMessage(saidextest.Call("a", "get_weather", `{"city":"Rome"}`))}, WithFinishReason("length"))
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].Outcome != OutcomeOutputLimit || reps[0].Arguments != nil {
		t.Errorf("Check: %+v", reps[0])
	}
	for _, args := range []string{`{"city":"Rome"}`, `{"city": "Ro`} {
		chk, err := node.CheckCall(ctx, "a", "get_weather", args, WithFinishReason("max_tokens"))
		if err != nil {
			t.Fatal(err)
		}
		if chk.Ready() || chk.Outcome != OutcomeOutputLimit || chk.Arguments != "" {
			t.Errorf("CheckCall(%s): %+v", args, chk)
		}
		assertOutputLimitFeedback(t, chk.Output)
		if chk, _ := node.CheckCall(ctx, "a", "teleport", args, WithFinishReason("max_tokens")); chk.Outcome != OutcomeOutputLimit {
			t.Errorf("CheckCall of an unknown tool in a cut reply: %+v", chk)
		}
	}
	if runs.Load() != 0 {
		t.Error("a tool ran")
	}
}

func TestOutputLimitCountsTowardTheFeedbackLimit(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithFeedbackLimit(1))
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?"),
		saidextest.AIMessage(saidextest.Call("a", "get_weather", `{"city": "Par`))}
	conv, err := node.Invoke(ctx, conv) // no finish reason known: the cut text is refused as unreadable
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(ctx, append(conv, saidextest.AIMessage(saidextest.Call("b", "get_weather", `{"city": "Pa`))), WithFinishReason("length"))
	if err != nil {
		t.Fatal(err)
	}
	// The cut call is answered as cut: its answer is not the limit's.
	if res.Calls[0].Outcome != OutcomeOutputLimit {
		t.Fatalf("outcome %s", res.Calls[0].Outcome)
	}
	conv = append(conv, res.AIMessage, res.ToolMessages[0])
	res, err = node.Run(ctx, append(conv, saidextest.AIMessage(saidextest.Call("c", "get_weather", `{"days": 3}`))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedbackLimit {
		t.Errorf("after two turns of feedback, one of them for a cut reply: outcome %s, want feedback_limit", res.Calls[0].Outcome)
	}
}

func TestWrapModelRefusesACutResponse(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := fakeprovider.NewOpenAI(t,
		fakeprovider.OpenAIReply{Calls: [][3]string{
			{"call_1", "get_weather", `{"city":"Rome"}`},
			{"call_2", "get_weather", `{"city": "Paris", "unit": "celsius"`}}, Finish: "length"},
		fakeprovider.OpenAIReply{Text: "I will ask again with shorter calls."})
	model := WrapModel(llm, node)
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Rome and Paris?")}
	resp, err := model.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].StopReason != "length" {
		t.Fatalf("the real client reports StopReason %q", resp.Choices[0].StopReason)
	}
	reps, ok := CheckedCalls(resp.Choices[0])
	if !ok || len(reps) != 2 {
		t.Fatalf("reports %+v", reps)
	}
	for _, rep := range reps {
		if rep.Outcome != OutcomeOutputLimit || !rep.IsError {
			t.Errorf("call %s: %s", rep.ID, rep.Outcome)
		}
		assertOutputLimitFeedback(t, rep.Output)
	}
	if got := resp.Choices[0].ToolCalls[1].FunctionCall.Arguments; got != `{"city": "Paris", "unit": "celsius"` {
		t.Errorf("WrapModel changed a cut call's arguments to %s", got)
	}
	if !strings.HasSuffix(resp.Choices[0].Content, outputLimitNotice) {
		t.Errorf("content %q lacks the output-limit notice", resp.Choices[0].Content)
	}

	// A node given the AI message alone, without the finish reason, still
	// refuses every call: the notice marks the message.
	conv, err = node.Invoke(ctx, append(conv, AIMessageFromResponse(resp)))
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 {
		t.Fatalf("a tool ran %d times", runs.Load())
	}
	if _, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions())); err != nil {
		t.Fatalf("next turn: %v (rejected: %v)", err, srv.Rejected())
	}
	// What the provider received: the notice, the calls with sendable
	// arguments, and an output-limit answer for each id.
	sent := srv.Requests()[1]
	var ai fakeprovider.OpenAIMessage
	var answers []string
	for _, m := range sent {
		switch m.Role {
		case "assistant":
			ai = m
		case "tool":
			var s string
			if err := json.Unmarshal(m.Content, &s); err != nil {
				t.Fatal(err)
			}
			answers = append(answers, m.ToolCallID+": "+s)
		}
	}
	if !strings.Contains(string(ai.Content), "output-token limit cut this reply off") {
		t.Errorf("assistant content sent %s", ai.Content)
	}
	var args []string
	for _, tc := range ai.ToolCalls {
		var s string
		if err := json.Unmarshal(tc.Function.Arguments, &s); err != nil {
			t.Fatal(err)
		}
		args = append(args, s)
	}
	if strings.Join(args, " ") != `{"city":"Rome"} {}` {
		t.Errorf("arguments sent %q", args)
	}
	if len(answers) != 2 {
		t.Fatalf("answers sent %q", answers)
	}
	for _, a := range answers {
		if !strings.Contains(a, "cut off by the output-token limit") {
			t.Errorf("answer sent %q", a)
		}
	}
}

func TestOutputLimitThroughAnthropicClient(t *testing.T) {
	// langchaingo's anthropic client reports stop_reason max_tokens as the
	// StopReason of every choice; the call's input arrived complete.
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := fakeprovider.NewAnthropic(t, []map[string]any{
		{"type": "text", "text": "Let me check."},
		{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
	})
	srv.StopNextWith("max_tokens")
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatal(err)
	}
	reason := ""
	for _, ch := range resp.Choices {
		if IsOutputLimit(ch.StopReason) {
			reason = ch.StopReason
		}
	}
	res, err := node.Run(ctx, append(conv, AIMessageFromResponse(resp)), WithFinishReason(reason))
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 || res.Calls[0].Outcome != OutcomeOutputLimit {
		t.Errorf("finish reason %q: runs %d, outcome %s", reason, runs.Load(), res.Calls[0].Outcome)
	}
	wrapped, err := WrapModel(saidextest.NewModel(saidextest.Respond(resp)), node).GenerateContent(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range wrapped.Choices {
		if reps, ok := CheckedCalls(ch); ok && reps[0].Outcome != OutcomeOutputLimit {
			t.Errorf("WrapModel: %s", reps[0].Outcome)
		}
	}
}
