package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

// TestCorrection runs the example with the scripted models and checks both
// modes: feedback and a second agent turn, versus a correction inside the
// node that reports its tokens and sends no conversation to the corrector.
func TestCorrection(t *testing.T) {
	m := scriptedModels()
	var out bytes.Buffer
	if err := run(context.Background(), &out, m); err != nil {
		t.Fatal(err)
	}
	agentPart, saidexPart, ok := strings.Cut(out.String(), "== saidex corrects")
	if !ok {
		t.Fatalf("output lacks the saidex section:\n%s", out.String())
	}
	for _, tc := range []struct {
		section, text, want string
	}{
		{"agent", agentPart, `- days: expected an integer, got a string`},
		{"agent", agentPart, `ai:   get_forecast({"city": "Oslo", "days": 3})`},
		{"agent", agentPart, `tool: Oslo: sunny, 18 degrees, for 3 days`},
		{"saidex", saidexPart, `ai:   get_forecast({"city":"Oslo","days":3})`},
		{"saidex", saidexPart, `outcome: corrected`},
		{"saidex", saidexPart, `correction tokens, small-model: input=212 output=14 total=226`},
		{"saidex", saidexPart, `privacy: the user's home address ("12 Larch Street", in the user's message) reached the correction model: no;`},
		{"saidex", saidexPart, `with WithCorrectionContextMessages(0) it is sent the tool, its schema and the broken call, not the conversation`},
	} {
		if !strings.Contains(tc.text, tc.want) {
			t.Errorf("%s section lacks %q:\n%s", tc.section, tc.want, tc.text)
		}
	}
	// With saidex correcting, the broken call and its feedback never reach
	// the conversation.
	if strings.Count(saidexPart, "ai:") != 1 || strings.Count(saidexPart, "tool:") != 1 || strings.Contains(saidexPart, "Error:") {
		t.Errorf("saidex section shows the broken call or feedback:\n%s", saidexPart)
	}

	// The agent's second turn was asked with the feedback in its history,
	// and the correction model was called exactly once.
	reqs := m.agent.(*saidextest.Model).Requests()
	if len(reqs) != 1 || !strings.Contains(lastToolResult(reqs[0]), "days: expected an integer") {
		t.Errorf("agent requests = %d, want 1 whose history ends with the feedback", len(reqs))
	}
	if n := m.corrector.(*saidextest.Model).CallCount(); n != 1 {
		t.Errorf("correction model called %d times, want 1", n)
	}
}

func lastToolResult(req saidextest.Request) string {
	msgs := req.Messages
	if len(msgs) == 0 {
		return ""
	}
	for _, p := range msgs[len(msgs)-1].Parts {
		if r, ok := p.(llms.ToolCallResponse); ok {
			return r.Content
		}
	}
	return ""
}
