package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

// TestGraph runs both loops of the example with scripted models: each ends
// with the model's text answer after repairing one call, answering a
// misnamed one with feedback and running the model's fixed call.
func TestGraph(t *testing.T) {
	loopModel, graphModel := scriptedModel(), scriptedModel()
	var out bytes.Buffer
	if err := run(context.Background(), &out, loopModel, graphModel); err != nil {
		t.Fatal(err)
	}
	loopPart, graphPart, ok := strings.Cut(out.String(), "== state graph")
	if !ok {
		t.Fatalf("output lacks the state-graph section:\n%s", out.String())
	}
	want := []string{
		`ai:   call_1 get_weather({"city":"Paris"})`, // repaired in the history
		`tool: call_1 Paris: sunny, 21°C`,
		`tool: call_2 Error: get_weather was not executed`,
		`- town: unknown field`,
		`tool: call_3 Rome: cloudy, 17°C`,
		`ai:   Paris is sunny (21°C); Rome is cloudy (17°C).`,
	}
	for name, part := range map[string]string{"ReAct loop": loopPart, "state graph": graphPart} {
		last := -1
		for _, w := range want {
			i := strings.Index(part, w)
			if i < 0 || i < last {
				t.Errorf("%s: %q missing or out of order:\n%s", name, w, part)
			}
			last = i
		}
		if !strings.HasSuffix(strings.TrimSpace(part), "Rome is cloudy (17°C).") {
			t.Errorf("%s: the conversation does not end with the answer:\n%s", name, part)
		}
	}

	// Each model turn after the first was sent the previous turn's calls
	// with every id answered, the broken one in its repaired form.
	for name, m := range map[string]*saidextest.Model{"ReAct loop": loopModel, "state graph": graphModel} {
		reqs := m.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%s: %d model turns, want 3", name, len(reqs))
		}
		second := reqs[1].Messages
		if len(second) != 4 {
			t.Fatalf("%s: second turn sent %d messages, want human, ai, 2 tool", name, len(second))
		}
		tc, _ := second[1].Parts[0].(llms.ToolCall)
		if tc.FunctionCall == nil || tc.FunctionCall.Arguments != `{"city":"Paris"}` {
			t.Errorf("%s: second turn's history holds %+v, want the repaired call", name, second[1].Parts[0])
		}
		for i, id := range []string{"call_1", "call_2"} {
			if r, _ := second[2+i].Parts[0].(llms.ToolCallResponse); r.ToolCallID != id {
				t.Errorf("%s: message %d answers %q, want %q", name, 2+i, r.ToolCallID, id)
			}
		}
	}
}
