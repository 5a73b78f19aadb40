package saidex

import (
	"testing"

	"github.com/saidex/saidex-go/internal/lenient"
)

// The repair stage's lookup says a location accepts only strings exactly
// when every value the schema accepts there is a string.
func TestStringLookupAcceptsOnlyStringsWhereTheSchemaDoes(t *testing.T) {
	member := func(name string) []lenient.Segment { return []lenient.Segment{{Name: name, Index: -1}} }
	tests := []struct {
		name string
		prop any
		path []lenient.Segment
		want bool
	}{
		{"type string", map[string]any{"type": "string"}, member("p"), true},
		{"type string with a format", map[string]any{"type": "string", "format": "date"}, member("p"), true},
		{"an enum of strings", map[string]any{"enum": []any{"a", "b"}}, member("p"), true},
		{"a string const", map[string]any{"const": "a"}, member("p"), true},
		{"allOf with a string", map[string]any{"allOf": []any{map[string]any{"minLength": 1}, map[string]any{"type": "string"}}}, member("p"), true},
		{"oneOf of strings", map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"const": "x"}}}, member("p"), true},
		{"an array's items", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, []lenient.Segment{{Name: "p", Index: -1}, {Index: 3}}, true},
		{"a nested member through $ref", map[string]any{"$ref": "#/$defs/o"}, []lenient.Segment{{Name: "p", Index: -1}, {Name: "q", Index: -1}}, true},
		{"format alone", map[string]any{"format": "date"}, member("p"), false},
		{"string or null", map[string]any{"type": []any{"string", "null"}}, member("p"), false},
		{"a mixed enum", map[string]any{"enum": []any{"a", 1}}, member("p"), false},
		{"a number const", map[string]any{"const": 1}, member("p"), false},
		{"anyOf with a number", map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}, member("p"), false},
		{"no constraint", map[string]any{}, member("p"), false},
		{"string and integer", map[string]any{"allOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, member("p"), false},
		{"a member not described", map[string]any{"type": "string"}, member("other"), false},
		{"the root", map[string]any{"type": "string"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := compileSchema("t", map[string]any{
				"type":       "object",
				"$defs":      map[string]any{"o": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
				"properties": map[string]any{"p": tt.prop},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.stringOnly.OnlyString(tt.path); got != tt.want {
				t.Errorf("OnlyString(%v) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// A schema accepts {} when it requires nothing: decided by the validator.
func TestAcceptsEmptyIsTheValidatorsAnswer(t *testing.T) {
	for _, tt := range []struct {
		schema map[string]any
		want   bool
	}{
		{map[string]any{"type": "object"}, true},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}, true},
		{map[string]any{"type": "object", "required": []any{"a"}}, false},
		{map[string]any{"type": "object", "minProperties": 1}, false},
		{map[string]any{"type": "object", "allOf": []any{map[string]any{"required": []any{"a"}}}}, false},
	} {
		cs, err := compileSchema("t", tt.schema)
		if err != nil {
			t.Fatal(err)
		}
		if cs.acceptsEmpty != tt.want {
			t.Errorf("%v: acceptsEmpty %v, want %v", tt.schema, cs.acceptsEmpty, tt.want)
		}
	}
}
