package saidex

import (
	"slices"
	"strings"
	"testing"
)

// openFileSchema is published as most MCP servers publish theirs (zod's
// and the Go SDK's defaults): unknown members are allowed.
const openFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "content": {"type": "string"},
    "file_name": {"type": "string"},
    "meta": {"type": "object", "properties": {"owner": {"type": "string"}}, "required": ["owner"]}
  },
  "patternProperties": {"^x-": {}},
  "required": ["path", "content"]
}`

// TestMissingFieldNamesTheKeySentInstead: the issue of a missing required
// member names the member the model sent in its place, and the feedback
// says so, whether or not the schema forbids unknown members.
func TestMissingFieldNamesTheKeySentInstead(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               map[string]string // issue path -> Instead, for every required issue
		wantLine           string            // a feedback line, "" for none to check
	}{
		{"plural of the missing name", openFileSchema, `{"path": "a", "contents": "x"}`,
			map[string]string{"/content": "contents"},
			`- content: required field is missing; expected a string (the arguments have "contents" instead, which the tool does not define)`},
		{"camelCase for snake_case", openFileSchema, `{"path": "a", "content": "x", "fileName": "b", "meta": {"owner": "o"}}`,
			nil, ""}, // file_name is optional: nothing is missing
		{"case, '_' and '-' are folded", `{"type":"object","properties":{"file_name":{"type":"string"}},"required":["file_name"]}`,
			`{"File-Name": "b"}`, map[string]string{"/file_name": "File-Name"}, ""},
		{"one unknown for one missing, however far the names", openFileSchema, `{"path": "a", "body": "x"}`,
			map[string]string{"/content": "body"}, `(the arguments have "body" instead`},
		{"two missing: only a close name is taken", openFileSchema, `{"paths": "a", "body": "x"}`,
			map[string]string{"/path": "paths", "/content": ""}, ""},
		{"a member a pattern describes is not unknown", openFileSchema, `{"path": "a", "x-content": "x"}`,
			map[string]string{"/content": ""}, ""},
		{"a described member is not taken", openFileSchema, `{"path": "a", "file_name": "x"}`,
			map[string]string{"/content": ""}, ""},
		{"nested object", openFileSchema, `{"path": "a", "content": "x", "meta": {"owners": "o"}}`,
			map[string]string{"/meta/owner": "owners"}, `- meta.owner: required field is missing; expected a string (the arguments have "owners" instead`},
		{"closed schema: both lines name the pair", weatherSchema, `{"town": "Oslo", "unit": "celsius"}`,
			map[string]string{"/city": "town"}, `- town: unknown field; remove it; it may be a misspelling of the missing field city`},
		{"nothing sent", openFileSchema, `{}`,
			map[string]string{"/path": "", "/content": ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			v, err := decodeJSON(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			issues := s.validate(v)
			got := map[string]string{}
			for _, is := range issues {
				if is.Kind == IssueRequired {
					got[is.Path] = is.Instead
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("required issues %v, want %v", got, tt.want)
			}
			for p, w := range tt.want {
				if g, ok := got[p]; !ok || g != w {
					t.Errorf("%s: Instead = %q, want %q (all: %v)", p, g, w, got)
				}
			}
			if tt.wantLine == "" {
				return
			}
			c := &call{name: "write_file", raw: tt.args, tool: &boundTool{schema: s}, value: v, issues: issues}
			fb := feedbackFor(c)
			if !slices.ContainsFunc(strings.Split(fb, "\n"), func(l string) bool { return strings.Contains(l, tt.wantLine) }) {
				t.Errorf("feedback has no line containing %q:\n%s", tt.wantLine, fb)
			}
		})
	}
}
