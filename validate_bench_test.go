package saidex

import (
	"encoding/json"
	"testing"
)

// benchSchema and benchArgs are a typical 5-property call: enum, range,
// nested object, array.
const (
	benchSchema = `{"type": "object", "properties": {
		"city": {"type": "string"},
		"days": {"type": "integer", "minimum": 1, "maximum": 14},
		"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
		"location": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"], "additionalProperties": false},
		"fields": {"type": "array", "items": {"type": "string"}}},
	  "required": ["city", "days"], "additionalProperties": false}`
	benchArgs = `{"city": "Oslo", "days": 3, "unit": "celsius", "location": {"lat": 59.91, "lon": 10.75}, "fields": ["temp", "wind", "rain"]}`
)

// BenchmarkValidate compares validating a valid call with decoding it:
// the precheck on the raw text (the path of valid and repaired arguments)
// and the full validation of a decoded value (correction and salvage).
func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, benchSchema)
	v := mustDecode(b, benchArgs)
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var x any
			if err := json.Unmarshal([]byte(benchArgs), &x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("precheck", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !s.prechecked(benchArgs, false) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if issues := s.validate(v); issues != nil {
				b.Fatal(issues)
			}
		}
	})
	b.Run("santhosh-tekuri", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.schema.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	bad := mustDecode(b, `{"town": "Oslo", "days": "3", "unit": "C", "location": {"lat": 59.91}, "fields": "temp"}`)
	b.Run("invalid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if issues := s.validate(bad); len(issues) != 6 {
				b.Fatal(issues)
			}
		}
	})
}
