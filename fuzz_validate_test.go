package saidex

import (
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSchemas are the schemas FuzzValidate checks arguments against: the
// common keyword subset (with the precheck), and keywords only
// santhosh-tekuri handles.
var fuzzSchemas = []string{
	orderSchema,
	weatherSchema,
	`{"type": "object", "properties": {
		"n": {"type": "number", "minimum": -2.5, "exclusiveMaximum": 1e3},
		"i": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740993},
		"s": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^[a-zé]*$"},
		"e": {"enum": ["a", true, null]},
		"d": {"type": "string", "format": "date-time"},
		"l": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
		"o": {"type": "object", "minProperties": 1, "maxProperties": 2, "additionalProperties": {"type": "boolean"}}},
	  "required": ["n"], "additionalProperties": false}`,
	`{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
		"properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
		"required": ["v"], "additionalProperties": false}}}`,
	`{"type": "object", "patternProperties": {"^x_": {"type": "string"}}, "additionalProperties": false,
	  "properties": {"u": {"type": "array", "uniqueItems": true}, "m": {"multipleOf": 0.5}, "c": {"const": {"k": [1]}},
	  "n": {"not": {"type": "string"}}, "p": {"type": "object", "propertyNames": {"maxLength": 2}},
	  "q": {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}},
	  "r": {"type": "object", "dependentRequired": {"a": ["b"]}}}}`,
	`{"properties": {"a": {"type": "string"}}}`,
}

func FuzzValidate(f *testing.F) {
	seeds := []string{
		validOrder,
		`{"city": "Oslo", "unit": "celsius"}`,
		`{"town": "Oslo", "unit": "K", "days": 0, "include": {"wnd": 1}}`,
		`{"n": 0, "i": 1, "s": "ab", "e": null, "d": "2024-01-31T09:00:00Z", "l": [1, null], "o": {"x": true}}`,
		`{"n": -2.5, "i": 9007199254740993, "s": "", "l": [], "o": {}}`,
		`{"n": 999.9999999999999999, "i": 1.0, "e": "A"}`,
		`{"v": 1, "kids": [{"v": 2, "kids": [{"v": "3"}]}, {"w": 1}]}`,
		`{"x_a": "s", "x_b": 1, "u": [1, 1.0], "m": 1.25, "c": {"k": [1]}, "n": "s", "p": {"abc": 1}, "q": "a", "r": {"a": 1}}`,
		`{"a/b": {"~": []}}`,
		`null`, `[]`, `"x"`, `1e400`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s, i%2 == 0)
	}
	compiled := make([]*compiledSchema, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		compiled[i] = mustCompile(f, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string, useNumber bool) {
		s := compiled[int(which)%len(compiled)]
		var v any
		if useNumber {
			var err error
			if v, err = decodeJSON(args); err != nil {
				return
			}
		} else if err := json.Unmarshal([]byte(args), &v); err != nil {
			return
		}
		issues := s.validate(v)
		if _, isObj := v.(map[string]any); !isObj {
			if len(issues) != 1 || issues[0].Kind != IssueType || issues[0].Path != "" {
				t.Fatalf("non-object arguments: issues %+v", issues)
			}
			return
		}
		fullErr, ok := s.schemaValidate(v)
		if !ok { // the validator panicked (a number math/big cannot read): the call gets an issue
			if len(issues) != 1 || issues[0].Kind != IssueOther {
				t.Fatalf("the validator panicked, but issues are %+v", issues)
			}
			return
		}
		if (len(issues) == 0) != (fullErr == nil) {
			t.Fatalf("issues %+v, but santhosh-tekuri says %v", issues, fullErr)
		}
		seen := map[string]bool{}
		for i, is := range issues {
			if is.Path != "" && !strings.HasPrefix(is.Path, "/") {
				t.Fatalf("issue path %q is not a JSON pointer", is.Path)
			}
			if _, ok := kindRank[is.Kind]; !ok || is.Message == "" {
				t.Fatalf("issue %+v has an unknown kind or no message", is)
			}
			if key := is.Path + "\x00" + string(is.Kind); seen[key] {
				t.Fatalf("issue (%q, %s) reported twice", is.Path, is.Kind)
			} else {
				seen[key] = true
			}
			if i > 0 && compareIssues(issues[i-1], is) > 0 {
				t.Fatalf("issues not sorted: %+v before %+v", issues[i-1], is)
			}
		}
		if len(issues) > 0 {
			c := &call{name: "fuzz_tool", raw: args, tool: &boundTool{schema: s}, value: v, issues: issues}
			if fb := feedbackFor(c); !strings.HasSuffix(fb, "again with these fields corrected.") {
				t.Fatalf("feedback does not end by asking for the call again:\n%s", fb)
			}
		}
	})
}
