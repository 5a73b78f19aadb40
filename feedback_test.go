package saidex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    "include": {"type": "object", "properties": {"wind": {"type": "boolean"}, "rain": {"type": "boolean"}}, "required": ["wind"], "additionalProperties": false}
  },
  "required": ["city", "unit"],
  "additionalProperties": false
}`

// invalidCall returns a call of get_weather with args validated against
// weatherSchema.
func invalidCall(t *testing.T, args string) *call {
	t.Helper()
	s := mustCompile(t, weatherSchema)
	c := &call{name: "get_weather", raw: args, tool: &boundTool{schema: s}}
	if v, err := decodeJSON(args); err == nil {
		c.value = v
		c.issues = s.validate(v)
	} else {
		c.err = fmt.Errorf("%w: received something else", ErrMalformedArguments)
	}
	return c
}

// goErrorFragments are pieces of raw Go or santhosh-tekuri error strings
// that must never reach the agent.
var goErrorFragments = []string{"jsonschema", "mem://", "invalid character", "validation failed", "%!", "<nil>",
	"saidex:", "unexpected end", "json:", "please fix the error"}

func assertFeedback(t *testing.T, got string, wantLines, wantAbsent []string) {
	t.Helper()
	lines := strings.Split(got, "\n")
	for _, w := range wantLines {
		found := false
		for _, l := range lines {
			if strings.Contains(l, w) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("feedback has no line containing %q:\n%s", w, got)
		}
	}
	for _, a := range append(wantAbsent, goErrorFragments...) {
		if strings.Contains(strings.ToLower(got), strings.ToLower(a)) {
			t.Errorf("feedback contains %q:\n%s", a, got)
		}
	}
}

func TestFeedbackForInvalidArguments(t *testing.T) {
	tests := []struct {
		name       string
		args       string
		wantLines  []string
		wantAbsent []string
	}{
		{"missing field with its type and allowed values", `{"city": "Oslo"}`,
			[]string{`- unit: required field is missing; expected a string, one of "celsius", "fahrenheit"`}, nil},
		{"type error with the expected type", `{"city": "Oslo", "unit": "celsius", "days": "3"}`,
			[]string{"- days: expected an integer, got a string"}, nil},
		{"enum with the allowed values", `{"city": "Oslo", "unit": "kelvin"}`,
			[]string{`- unit: must be one of "celsius", "fahrenheit"`}, []string{"kelvin"}},
		{"unknown key hinted as a misspelling of the one missing field", `{"town": "Oslo", "unit": "celsius"}`,
			[]string{"- city: required field is missing; expected a string", "- town: unknown field; remove it; it may be a misspelling of the missing field city"}, nil},
		{"no misspelling hint when two fields are missing", `{"town": "Oslo"}`,
			[]string{"- town: unknown field; remove it"}, []string{"misspelling"}},
		{"no misspelling hint when two keys are unknown", `{"town": "Oslo", "unit": "celsius", "verbose": true}`,
			[]string{"- town: unknown field; remove it", "- verbose: unknown field; remove it"}, []string{"misspelling"}},
		{"no misspelling hint when nothing is missing", `{"city": "Oslo", "unit": "celsius", "verbose": true}`,
			[]string{"- verbose: unknown field; remove it"}, []string{"misspelling"}},
		{"nested fields are named with dots", `{"city": "Oslo", "unit": "celsius", "include": {"wnd": true}}`,
			[]string{"- include.wind: required field is missing; expected a boolean", "- include.wnd: unknown field; remove it; it may be a misspelling of the missing field include.wind"}, nil},
		{"range", `{"city": "Oslo", "unit": "celsius", "days": 30}`, []string{"- days: must be at most 14"}, nil},
		{"the root", `[{"city": "Oslo"}]`, []string{"- the arguments object: expected an object, got an array"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := invalidCall(t, tt.args)
			if len(c.issues) == 0 {
				t.Fatalf("arguments %s have no issues", tt.args)
			}
			got := feedbackFor(c)
			assertFeedback(t, got, tt.wantLines, tt.wantAbsent)
			lines := strings.Split(got, "\n")
			if !strings.HasPrefix(lines[0], "Error: get_weather was not executed") {
				t.Errorf("first line %q does not say the call was not executed", lines[0])
			}
			if last := lines[len(lines)-1]; last != "Call get_weather again with these fields corrected." {
				t.Errorf("last line %q does not ask for the call again", last)
			}
			if n := len(lines); n != len(c.issues)+2 {
				t.Errorf("feedback has %d lines for %d issues, want one line per issue plus two:\n%s", n, len(c.issues), got)
			}
		})
	}
}

func TestFeedbackIsDeterministic(t *testing.T) {
	args := `{"town": "Oslo", "unit": "K", "days": 0, "include": {"wnd": 1, "rain": "no"}, "extra": null}`
	first := feedbackFor(invalidCall(t, args))
	for range 20 {
		if got := feedbackFor(invalidCall(t, args)); got != first {
			t.Fatalf("feedback changed between runs:\n%s\n---\n%s", first, got)
		}
	}
	// Lines follow the sorted issue order.
	want := []string{"- city:", "- days:", "- extra:", "- include.rain:", "- include.wind:", "- include.wnd:", "- town:", "- unit:"}
	at := 0
	for _, l := range strings.Split(first, "\n") {
		if at < len(want) && strings.HasPrefix(l, want[at]) {
			at++
		}
	}
	if at != len(want) {
		t.Errorf("feedback lines not in path order, want prefixes %q in order:\n%s", want, first)
	}
}

func TestFeedbackForUnparseableArguments(t *testing.T) {
	long := `{"city":  "` + strings.Repeat("Ø", 150) + `", "unit": `
	tests := []struct {
		name       string
		raw        string
		wantLines  []string
		wantAbsent []string
	}{
		{"quotes what was received", "Sure! {\"city\": \"Oslo\"\n",
			[]string{`It received: Sure! {"city": "Oslo"\n`}, nil},
		{"truncates long input on a character boundary", long,
			[]string{"It received (the first 199 of 322 bytes): {\"city\":  \"ØØØ"}, []string{"\uFFFD", `"unit"`}},
		{"says so when nothing was received", "  ", []string{"It received no arguments (an empty string)."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := invalidCall(t, tt.raw)
			if c.err == nil {
				t.Fatalf("%q parsed", tt.raw)
			}
			got := feedbackFor(c)
			assertFeedback(t, got, append(tt.wantLines,
				"Error: the arguments of get_weather could not be read as one JSON object",
				"The arguments must be one JSON object matching the tool's schema, with these fields:",
				"- city: string, required",
				`- unit: string, one of "celsius", "fahrenheit", required`,
				"- days: integer, optional",
				"- include: object, optional",
				"Call get_weather again with its arguments as one JSON object",
			), tt.wantAbsent)
			if strings.Index(got, "- unit:") > strings.Index(got, "- days:") {
				t.Errorf("required fields are not listed first:\n%s", got)
			}
		})
	}
}

func TestFeedbackForCallWithoutFunction(t *testing.T) {
	got := feedbackFor(&call{noFunc: true, err: errNoFunctionCall, status: statusInvalid})
	assertFeedback(t, got, []string{"names no function", "one JSON object"}, []string{"the tool call names no function\n"})
}

func TestFieldName(t *testing.T) {
	tests := map[string]string{
		"":                       "the arguments object",
		"/city":                  "city",
		"/address/postal_code":   "address.postal_code",
		"/line_items/1/quantity": "line_items[1].quantity",
		"/a~1b":                  `["a/b"]`,
		"/m/a.b":                 `m["a.b"]`,
		"/matrix/0/2":            "matrix[0][2]",
		"/~0home":                "~home",
		"/with space/x":          `["with space"].x`,
	}
	for in, want := range tests {
		if got := fieldName(in); got != want {
			t.Errorf("fieldName(%q) = %q, want %q", in, got, want)
		}
	}
}

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
