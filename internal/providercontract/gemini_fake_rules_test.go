package providercontract

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFakeGeminiRules checks that the fake enforces each of Gemini's rules
// the contract tests rely on.
func TestFakeGeminiRules(t *testing.T) {
	contents := func(js string) []geminiContent {
		var cs []geminiContent
		if err := json.Unmarshal([]byte(js), &cs); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	const (
		user  = `{"role":"user","parts":[{"text":"hi"}]}`
		model = `{"role":"model","parts":[{"functionCall":{"name":"a","args":{"x":1}}},{"functionCall":{"name":"b","args":{}}}]}`
	)
	resp := func(names ...string) string {
		var parts []string
		for _, n := range names {
			parts = append(parts, `{"functionResponse":{"name":"`+n+`","response":{"response":"ok"}}}`)
		}
		return `{"role":"user","parts":[` + strings.Join(parts, ",") + `]}`
	}
	tests := []struct {
		name, contents, wantErr string
	}{
		{name: "responses match the calls", contents: "[" + user + "," + model + "," + resp("b", "a") + "]"},
		{name: "one response per Content", contents: "[" + user + "," + model + "," + resp("a") + "," + resp("b") + "]", wantErr: geminiCountError},
		{name: "a call left unanswered", contents: "[" + user + "," + model + "," + user + "]", wantErr: geminiCountError},
		{name: "names differ", contents: "[" + user + "," + model + "," + resp("a", "c") + "]", wantErr: "do not match"},
		{name: "a response without a call turn", contents: "[" + user + "," + resp("a") + "]", wantErr: geminiCountError},
		{name: "past args not an object", contents: `[` + user + `,{"role":"model","parts":[{"functionCall":{"name":"a","args":[1]}}]},` + resp("a") + `]`, wantErr: "function_call.args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkGeminiContents(contents(tt.contents))
			if tt.wantErr == "" && got != "" || !strings.Contains(got, tt.wantErr) {
				t.Errorf("check = %q, want %q", got, tt.wantErr)
			}
		})
	}
}
