package readings

import (
	"encoding/json"
	"testing"
)

// FuzzRepair: the engine never panics, and a text it runs is one JSON
// object whose value is the window's one value.
func FuzzRepair(f *testing.F) {
	for _, s := range []string{`{"a":1 "b":2}`, `{'a': 'x',}`, `{"x": None}`, "```json\n{\"a\":1}\n```", `{"a":"x`, `"{\"a\":1}"`,
		`{"a":1}{"a":1}`, "{\"a\":1, // c\n\"b\":2}", `{a: hello, "n": .5}`, `{"a": [1, 2}`, `{"a":<|"|>x<|"|>}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return // the engine is linear; the fuzzer looks for wrong answers, not slow ones
		}
		r, v := Repair(s)
		if v != Run {
			return
		}
		var x map[string]any
		if err := json.Unmarshal([]byte(r.Text), &x); err != nil {
			t.Fatalf("%q ran %q, not one JSON object: %v", s, r.Text, err)
		}
	})
}
