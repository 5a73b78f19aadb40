package saidex

import (
	"encoding/json"
	"testing"

	"github.com/saidex/saidex-go/internal/schemawalk"
)

// missingRequired and hasUnknownKey judge the root, nested objects and
// array items the schema describes, and nothing the schema does not.
func TestMissingRequiredAndUnknownKey(t *testing.T) {
	set := schemawalk.Of(mustCompile(t, `{"type":"object","required":["city"],
		"properties":{"city":{"type":"string"},
			"loc":{"type":"object","required":["lat"],"properties":{"lat":{},"lon":{}}},
			"stops":{"type":"array","items":{"type":"object","required":["name"],"properties":{"name":{}}}},
			"free":{"type":"object"},
			"pat":{"type":"object","properties":{"a":{}},"patternProperties":{"^x":{}}},
			"any":true}}`).schema)
	tests := []struct {
		name             string
		value            string
		missing, unknown bool
	}{
		{"complete", `{"city":"Oslo","loc":{"lat":1},"stops":[{"name":"a"}]}`, false, false},
		{"root required missing", `{"loc":{"lat":1}}`, true, false},
		{"nested required missing", `{"city":"Oslo","loc":{"lon":1}}`, true, false},
		{"item required missing", `{"city":"Oslo","stops":[{"name":"a"},{}]}`, true, false},
		{"root unknown key", `{"city":"Oslo","town":"x"}`, false, true},
		{"nested unknown key", `{"city":"Oslo","loc":{"lat":1,"alt":2}}`, false, true},
		{"item unknown key", `{"city":"Oslo","stops":[{"name":"a","when":1}]}`, false, true},
		{"object without properties is not judged", `{"city":"Oslo","free":{"k":1}}`, false, false},
		{"pattern properties are not judged", `{"city":"Oslo","pat":{"zz":1}}`, false, false},
		{"a non-object schema is not descended", `{"city":"Oslo","any":{"k":{}}}`, false, false},
		{"not an object", `[1,2]`, false, false},
		{"both", `{"loc":{"lat":1,"alt":2}}`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.value), &v); err != nil {
				t.Fatal(err)
			}
			if got := missingRequired(set, v); got != tt.missing {
				t.Errorf("missingRequired = %v, want %v", got, tt.missing)
			}
			if got := hasUnknownKey(set, v); got != tt.unknown {
				t.Errorf("hasUnknownKey = %v, want %v", got, tt.unknown)
			}
		})
	}
}
