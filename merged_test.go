package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestMergedArgumentsNeverRun(t *testing.T) {
	tests := []struct {
		name, args string
		merged     bool // answered as merged calls; else runs once
	}{
		{"glued", `{"city":"Paris"}{"city":"Rome"}`, true},
		{"spaced", `{"city":"Paris"} {"city":"Rome","days":2}`, true},
		{"lines", "{\"city\":\"Paris\"}\n{\"city\":\"Rome\"}\n", true},
		{"three", `{"city":"Paris"}{"city":"Paris"}{"city":"Rome"}`, true},
		{"one more member", `{"city":"Paris"}{"city":"Paris","days":2}`, true},
		{"copies of one object", `{"city":"Paris"}{"city":"Paris"}`, false},
		{"copies, keys reordered", `{"city":"Paris","days":2} {"days":2,"city":"Paris"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			fixer := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Paris"}`))
			var hooked atomic.Int64
			node := mustNode(t, []tools.Tool{weather}, WithCorrectionModel(fixer),
				WithUnresolvedHook(func(context.Context, UnresolvedToolCall) (Resolution, error) {
					hooked.Add(1)
					return Salvage(map[string]any{"city": "Paris"}), nil
				}))
			res, err := node.Run(context.Background(), []llms.MessageContent{
				saidextest.AIMessage(saidextest.Call("a", "get_weather", tt.args))})
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if !tt.merged {
				if runs.Load() != 1 || !slices.Contains(rep.RepairSteps, RepairRepeatedObject) {
					t.Errorf("runs %d, steps %v; want copies read as one object", runs.Load(), rep.RepairSteps)
				}
				return
			}
			if runs.Load() != 0 || fixer.CallCount() != 0 || hooked.Load() != 0 {
				t.Errorf("runs %d, correction requests %d, hook calls %d: a merged call must not run as one of its calls",
					runs.Load(), fixer.CallCount(), hooked.Load())
			}
			if rep.Outcome != OutcomeFeedback || !errors.Is(rep.Err, ErrMergedCalls) || !errors.Is(rep.Err, ErrMalformedArguments) {
				t.Errorf("outcome %s, err %v", rep.Outcome, rep.Err)
			}
			for _, want := range []string{"several tool calls were merged into this one", "Send each of the merged calls as a separate tool call"} {
				if !strings.Contains(rep.Output, want) {
					t.Errorf("feedback %q lacks %q", rep.Output, want)
				}
			}
			if !isNodeFeedback(rep.Output, "get_weather") {
				t.Errorf("feedback %q is not recognised as the node's", rep.Output)
			}
		})
	}
}

func TestMergedNames(t *testing.T) {
	var runs atomic.Int64
	mk := func(name string) tools.Tool {
		return plainTool{name: name, fn: func(context.Context, string) (string, error) { runs.Add(1); return "ok", nil }}
	}
	node := mustNode(t, []tools.Tool{mk("get_weather"), mk("get_time"), mk("a"), mk("ab"), mk("b")})
	tests := []struct {
		name string
		want []string // nil: not a merge
	}{
		{"get_weatherget_time", []string{"get_weather", "get_time"}},
		{"get_weatherget_weather", []string{"get_weather", "get_weather"}},
		{"get_timeget_weatherget_time", []string{"get_time", "get_weather", "get_time"}},
		{"abab", []string{"ab", "ab"}}, // the fewest pieces
		{"aab", []string{"a", "ab"}},
		{"get_weather", nil},
		{"get_weatherx", nil},
		{"get_weather_get_time", nil},
		{"", nil},
		{strings.Repeat("ab", 200), nil}, // longer than maxMergedName
	}
	for _, tt := range tests {
		if got := node.mergedName(tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("mergedName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}

	res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("c1", "get_weatherget_time", `{"city":"Paris"}{}`),
		saidextest.Call("c2", "teleport", `{}`))})
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 {
		t.Errorf("%d tools ran", runs.Load())
	}
	if rep := res.Calls[0]; rep.Outcome != OutcomeFeedback || !errors.Is(rep.Err, ErrMergedCalls) ||
		rep.Output != "Error: get_weatherget_time was not executed because its name is the names of several tools glued together (get_weather, get_time): several tool calls were merged into one. Send each call as a separate tool call, with its own name and its arguments as one JSON object." {
		t.Errorf("glued name: %+v", rep)
	}
	if rep := res.Calls[1]; rep.Outcome != OutcomeUnknownTool {
		t.Errorf("unknown tool: %s", rep.Outcome)
	}
	if chk, err := node.CheckCall(context.Background(), "c", "get_timeget_time", `{}`); err != nil || chk.Outcome != OutcomeFeedback {
		t.Errorf("CheckCall: %+v, %v", chk, err)
	}
}

// TestMergedThroughLangchaingoStreaming streams two parallel calls whose
// second one starts without a type, which langchaingo's openai
// accumulator appends to the first call's arguments: the merged call is
// answered, never run, and the next request is accepted.
func TestMergedThroughLangchaingoStreaming(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := fakeprovider.NewOpenAI(t,
		fakeprovider.OpenAIReply{Finish: "tool_calls", Deltas: []map[string]any{
			{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": ""}},
			{"index": 0, "function": map[string]any{"arguments": `{"city":"Paris"}`}},
			{"index": 1, "id": "call_2", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Rome"}`}},
		}},
		fakeprovider.OpenAIReply{Text: "I will call them one by one."})
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()),
		llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].ToolCalls
	if len(calls) != 1 || calls[0].FunctionCall.Arguments != `{"city":"Paris"}{"city":"Rome"}` {
		t.Fatalf("langchaingo's accumulator no longer merges the calls this way: %+v", calls)
	}
	conv, err = node.Invoke(ctx, append(conv, AIMessageFromResponse(resp)))
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 {
		t.Fatalf("the merged call ran %d times", runs.Load())
	}
	if _, err := llm.GenerateContent(ctx, conv); err != nil {
		t.Fatalf("next turn: %v (rejected %v)", err, srv.Rejected())
	}
	for _, m := range srv.Requests()[1] {
		if m.Role == "tool" {
			var s string
			_ = json.Unmarshal(m.Content, &s)
			if !strings.Contains(s, "several tool calls were merged into this one") {
				t.Errorf("answer sent: %q", s)
			}
		}
	}
}

func TestMergedCallsOfAPlainToolNeverRun(t *testing.T) {
	var runs atomic.Int64
	echo := plainTool{name: "echo", fn: func(context.Context, string) (string, error) { runs.Add(1); return "ok", nil }}
	node := mustNode(t, []tools.Tool{echo})
	res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("a", "echo", `{"x":1}{"y":2}`),
		saidextest.Call("b", "echo", `free text {with braces}`))})
	if err != nil {
		t.Fatal(err)
	}
	if rep := res.Calls[0]; rep.Outcome != OutcomeFeedback || !errors.Is(rep.Err, ErrMergedCalls) {
		t.Errorf("merged objects to a plain tool: %s, %v", rep.Outcome, rep.Err)
	}
	if rep := res.Calls[1]; rep.Outcome != OutcomeExecuted || runs.Load() != 1 {
		t.Errorf("free text to a plain tool: %s, runs %d", rep.Outcome, runs.Load())
	}
}

func TestMergedNameMasksSecrets(t *testing.T) {
	login := NewTool("login", "Log in.", func(context.Context, secretLogin) (string, error) { return "ok", nil })
	clock := plainTool{name: "get_time", fn: func(context.Context, string) (string, error) { return "noon", nil }}
	for _, policy := range []UnresolvedPolicy{UnresolvedFeedback, UnresolvedRaise} {
		node := mustNode(t, []tools.Tool{login, clock}, WithOnUnresolved(policy))
		res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
			saidextest.Call("a", "loginget_time", `{"user":"bob","password":"hunter2-SECRET"}`))})
		var texts []string
		if res != nil {
			texts = append(texts, res.Calls[0].RawArguments, res.Calls[0].Output, toolCallsOf(res.AIMessage)[0].FunctionCall.Arguments)
		}
		if err != nil {
			texts = append(texts, err.Error())
			var ve *ToolCallValidationError
			if errors.As(err, &ve) {
				for _, c := range ve.Calls {
					texts = append(texts, c.RawArguments)
				}
			}
		}
		for _, s := range texts {
			if strings.Contains(s, "hunter2") {
				t.Errorf("%v: the secret shows in %q", policy, s)
			}
		}
	}
}

// TestCheckAnswersAnUnknownToolAsRunDoes: Check and CheckCall give an
// unknown tool's call the error Run answers it with, so a caller that runs
// calls itself needs no run of its own to answer it.
func TestCheckAnswersAnUnknownToolAsRunDoes(t *testing.T) {
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	ctx := context.Background()
	conv := []llms.MessageContent{saidextest.AIMessage(saidextest.Call("a", "get_wether", `{"city":"Rome"}`))}
	res, err := node.Run(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Calls[0].Output
	reps, err := node.Check(ctx, conv)
	if err != nil || reps[0].Outcome != OutcomeUnknownTool || reps[0].Output != want || !reps[0].IsError {
		t.Errorf("Check: %+v, %v; want Output %q", reps[0], err, want)
	}
	chk, err := node.CheckCall(ctx, "a", "get_wether", `{"city":"Rome"}`)
	if err != nil || chk.Outcome != OutcomeUnknownTool || chk.Output != want {
		t.Errorf("CheckCall: %+v, %v; want Output %q", chk, err, want)
	}
}
