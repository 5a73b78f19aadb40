package corpus

import (
	"context"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/corpusfile"
)

func TestEqualComparesJSONValues(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a": 1, "b": [1, 2]}`, `{"b": [1, 2], "a": 1}`, true},
		{`{"x": 1}`, `{"x": 1.0}`, true},
		{`{"x": 1e2}`, `{"x": 100}`, true},
		{`{"x": 1}`, `{"x": "1"}`, false},
		{`[1, 2]`, `[2, 1]`, false},
		{`{"a": null}`, `{}`, false},
		{`{"a": {"b": true}}`, `{"a": {"b": false}}`, false},
		{`not json`, `not json`, false},
		// One value and nothing else: trailing data is not ignored, so
		// arguments that carry it never score as the wanted ones.
		{`{"a": 1} {"a": 2}`, `{"a": 1}`, false},
		{`{"a": 1}garbage`, `{"a": 1}`, false},
		{`{"a": 1}` + "\n\t ", `{"a": 1}`, true},
	}
	for _, tt := range tests {
		if got := Equal([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

const schema = `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"], "additionalProperties": false}`

func caseLine(raw, expect, want, issues string) string {
	q := func(s string) string {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
		return `"` + r.Replace(s) + `"`
	}
	return `{"id": "t", "category": "c", "tool": {"name": "lookup", "parameters": ` + schema + `}, "raw_arguments": ` + q(raw) +
		`, "expect": "` + expect + `", "want_arguments": ` + want + `, "want_issues": ` + issues + `}`
}

func TestScoreClassifiesOutcomes(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Verdict
	}{
		{"valid case executed as meant", caseLine(`{"city": "Oslo"}`, "valid", `{"city": "Oslo"}`, `[]`), Pass},
		{"repaired case executed as meant", caseLine(`{'city': 'Oslo', 'days': 2}`, "repaired", `{"days": 2, "city": "Oslo"}`, `[]`), Pass},
		{"repaired case executed with other values", caseLine(`{"city": "Rome"}`, "repaired", `{"city": "Oslo"}`, `[]`), Silent},
		{"repaired case refused", caseLine(`{"city": "Os`, "repaired", `{"city": "Oslo"}`, `[]`), OverStrict},
		{"unrepairable case refused", caseLine(`{"city": "Os`, "unrepairable", `null`, `[]`), Pass},
		{"unrepairable case executed", caseLine(`{"city": "Oslo"}`, "unrepairable", `null`, `[]`), Silent},
		{"invalid case executed", caseLine(`{"city": "Oslo"}`, "invalid", `null`, `[{"path": "/city", "kind": "type"}]`), Silent},
		{"invalid case refused by repair", caseLine(``, "invalid", `null`, `[{"path": "/city", "kind": "required"}]`), OverStrict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := corpusfile.Read(strings.NewReader(tt.line))
			if err != nil || len(cases) != 1 {
				t.Fatalf("Read: %v (%d cases)", err, len(cases))
			}
			o := Score(context.Background(), &cases[0])
			if o.Verdict != tt.want {
				t.Errorf("verdict %s (%s), want %s", o.Verdict, o.Detail, tt.want)
			}
		})
	}
}

func TestSummaryLine(t *testing.T) {
	var s Summary
	for _, v := range []Verdict{Pass, Pass, Silent, OverStrict, WrongIssue, Invented} {
		s.Add(Outcome{Verdict: v})
	}
	want := "corpus: 6 cases, 2 passed, 1 silent corruptions, 1 over-strict, 1 wrong issue sets"
	if got := s.Line(); got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}
