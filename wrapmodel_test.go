package saidex

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestWrapModelReportsEveryCallOfEveryChoice(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	// Anthropic's layout: text and each call in their own choice.
	inner := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Checking."},
		{ToolCalls: []llms.ToolCall{tc("a", "get_weather", `{"city":"Paris"}`), tc("b", "get_weather", `%%%`)}},
		{ToolCalls: []llms.ToolCall{tc("c", "get_weather", `{"days":3}`)}, GenerationInfo: map[string]any{"OutputTokens": 7}},
		{ToolCalls: []llms.ToolCall{tc("d", "teleport", `{}`), tc("a", "get_weather", `{"city":"Rome"}`)}},
	}}
	before := cloneResponse(inner)
	model := WrapModel(newScriptModel(inner), node)

	resp, err := model.GenerateContent(context.Background(), conversation()[:1])
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	if !reflect.DeepEqual(inner, before) {
		t.Error("WrapModel modified the inner model's response")
	}
	if runs.Load() != 0 {
		t.Errorf("WrapModel executed a tool %d times", runs.Load())
	}
	if _, ok := CheckedCalls(resp.Choices[0]); ok {
		t.Error("a choice without tool calls got reports")
	}
	if resp.Choices[2].GenerationInfo["OutputTokens"] != 7 {
		t.Error("generation info of the choice was lost")
	}
	want := [][]struct {
		outcome Outcome
		isError bool
	}{
		1: {{OutcomeReady, false}, {OutcomeFeedback, true}},
		2: {{OutcomeFeedback, true}},
		3: {{OutcomeUnknownTool, true}, {OutcomeDropped, false}},
	}
	for i := 1; i < 4; i++ {
		reps, ok := CheckedCalls(resp.Choices[i])
		if !ok || len(reps) != len(want[i]) {
			t.Fatalf("choice %d: reports %+v", i, reps)
		}
		for j, w := range want[i] {
			if reps[j].Outcome != w.outcome || reps[j].IsError != w.isError {
				t.Errorf("choice %d call %d: outcome %s error %t, want %s %t", i, j, reps[j].Outcome, reps[j].IsError, w.outcome, w.isError)
			}
			if reps[j].ID != resp.Choices[i].ToolCalls[j].ID {
				t.Errorf("choice %d call %d: report for %q", i, j, reps[j].ID)
			}
		}
	}
	if reps, _ := CheckedCalls(resp.Choices[2]); !strings.Contains(reps[0].Output, "city") {
		t.Errorf("feedback %q does not name the missing field", reps[0].Output)
	}
	// An unknown tool's report carries the message a node answers it with.
	if reps, _ := CheckedCalls(resp.Choices[3]); reps[0].Output != "Error: teleport is not a valid tool, try one of [get_weather]." {
		t.Errorf("unknown tool: Output %q", reps[0].Output)
	}
	// Invalid calls keep the model's arguments; nothing else changes.
	if got := resp.Choices[1].ToolCalls[1]; !reflect.DeepEqual(got, before.Choices[1].ToolCalls[1]) {
		t.Errorf("invalid call changed: %+v", got)
	}
}

// The verdict travels with the message: a node that receives the checked
// response reaches the same outcomes.
func TestWrapModelVerdictsMatchTheNode(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	inner := callsResponse("", tc("a", "get_weather", `{"city":"Paris"}`), tc("b", "get_weather", `nope`), tc("c", "get_weather", `{"city":1}`))
	resp, err := WrapModel(newScriptModel(inner), node).GenerateContent(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	reps, _ := CheckedCalls(resp.Choices[0])
	ai := AIMessageFromResponse(resp)
	res, err := node.Run(context.Background(), []llms.MessageContent{ai})
	if err != nil {
		t.Fatal(err)
	}
	for i := range reps {
		if reps[i].Outcome == OutcomeReady && res.Calls[i].Outcome == OutcomeExecuted {
			continue // ready before, executed by the node
		}
		if reps[i].Outcome != res.Calls[i].Outcome {
			t.Errorf("call %d: WrapModel says %s, the node did %s", i, reps[i].Outcome, res.Calls[i].Outcome)
		}
		if reps[i].Outcome == OutcomeFeedback && reps[i].Output != res.Calls[i].Output {
			t.Errorf("call %d: feedback differs: %q vs %q", i, reps[i].Output, res.Calls[i].Output)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("weather ran %d times, want 1 (by the node)", runs.Load())
	}
}

func TestWrapModelCarriesRepairedArguments(t *testing.T) {
	const broken = `{'city': 'Paris', 'days': 2,}`
	weather, _ := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	call := tc("a", "get_weather", broken)
	inner := callsResponse("", call)
	inner.Choices[0].FuncCall = call.FunctionCall // as langchaingo's openai client does
	resp, err := WrapModel(newScriptModel(inner), node).GenerateContent(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Choices[0].ToolCalls[0]
	if !isJSONObject(got.FunctionCall.Arguments) || got.ID != "a" || got.Type != "function" {
		t.Errorf("repaired call = %+v", got)
	}
	if resp.Choices[0].FuncCall != got.FunctionCall {
		t.Error("the legacy FuncCall mirror still points to the broken call")
	}
	if call.FunctionCall.Arguments != broken {
		t.Error("the inner response was modified")
	}
}

func TestWrapModelPassesThrough(t *testing.T) {
	node := mustNode(t, nil)
	text := textResponse("hi")
	resp, err := WrapModel(newScriptModel(text), node).GenerateContent(context.Background(), nil)
	if err != nil || resp != text {
		t.Errorf("a response without tool calls should be returned as is: %v, %v", resp, err)
	}
	if _, err := WrapModel(newScriptModel(), node).GenerateContent(context.Background(), nil); !errors.Is(err, errScriptExhausted) {
		t.Errorf("inner error = %v, want it returned", err)
	}
	//lint:ignore SA1019 Call is part of llms.Model: the wrapper must keep it working.
	out, err := WrapModel(newScriptModel(textResponse("hello")), node).Call(context.Background(), "hi")
	if err != nil || out != "hello" {
		t.Errorf("Call = %q, %v", out, err)
	}
}

func cloneResponse(r *llms.ContentResponse) *llms.ContentResponse {
	out := &llms.ContentResponse{}
	for _, c := range r.Choices {
		cp := *c
		cp.ToolCalls = nil
		for _, tc := range c.ToolCalls {
			fc := *tc.FunctionCall
			tc.FunctionCall = &fc
			cp.ToolCalls = append(cp.ToolCalls, tc)
		}
		if c.GenerationInfo != nil {
			cp.GenerationInfo = map[string]any{}
			for k, v := range c.GenerationInfo {
				cp.GenerationInfo[k] = v
			}
		}
		out.Choices = append(out.Choices, &cp)
	}
	return out
}
