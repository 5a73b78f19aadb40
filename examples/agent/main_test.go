package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// TestAgent runs the executor with the scripted model: the unparseable call
// is answered with feedback instead of aborting the run, the valid call
// runs, and the run ends with the model's answer.
func TestAgent(t *testing.T) {
	model := scriptedModel()
	var out bytes.Buffer
	if err := run(context.Background(), &out, model); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	steps := strings.Split(got, "\nstep ")
	if len(steps) != 2 {
		t.Fatalf("want 2 steps:\n%s", got)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"the broken call is printed as sent", steps[0], `the model sent:    city="Paris", days=2`},
		{"the history holds {} for it", steps[0], `the history holds: {}`},
		{"the broken call gets feedback quoting it", steps[0], `It received: city="Paris", days=2`},
		{"the feedback lists the fields", steps[0], `- days: integer, required`},
		{"the valid call runs", steps[1], "the history holds: {\"city\": \"Paris\", \"days\": 2}\n  observation:       Paris: sunny, 21°C, for 2 days"},
		{"the run ends with the answer", steps[1], "answer: Paris: sunny, 21°C, for the next 2 days.\n"},
	} {
		if !strings.Contains(tc.text, tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.name, tc.want, got)
		}
	}
	if strings.Contains(steps[0], "for 2 days") {
		t.Errorf("the tool ran for the broken call:\n%s", steps[0])
	}

	// The model's second turn was sent the feedback as the broken call's
	// tool message.
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model called %d times, want 3", len(reqs))
	}
	var fed bool
	for _, m := range reqs[1].Messages {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok && r.ToolCallID == "call_1" && strings.HasPrefix(r.Content, "Error:") {
				fed = true
			}
		}
	}
	if !fed {
		t.Errorf("the second model turn did not receive the feedback for call_1: %+v", reqs[1].Messages)
	}
}
