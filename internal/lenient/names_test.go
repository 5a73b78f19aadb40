package lenient

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// repeatsByDecoder reports whether s, a JSON value, holds an object with
// a member name twice, as jsontext's decoder finds it (it compares names
// decoded); ok is false when s is not one JSON value.
func repeatsByDecoder(s string) (repeats, ok bool) {
	if !jsontext.Value(s).IsValid(jsontext.AllowDuplicateNames(true)) {
		return false, false
	}
	return !jsontext.Value(s).IsValid(), true
}

func TestHasRepeatedNames(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"a":1,"a":1}`, `{"a":1,"b":{"a":2}}`, `{"a":{"b":1,"b":2}}`,
		`[{"a":1},{"a":1}]`, `{"a":1,"\u0061":2}`, `{"b":[{"c":1}],"a":2,"b":3}`,
		`{"x":"a\"b","x":1}`, `{"k1":1,"k2":2,"k3":3,"k1":4}`, `{"a":{"x":1},"b":{"x":1}}`,
		`"a"`, `[1,"a",{"a":"a"}]`, `{"a\\":1,"a\\":2}`, `{"a\\\"":1,"a\\":2}`, `{"\"":1,"\u0022":2}`,
	} {
		want, ok := repeatsByDecoder(s)
		if !ok {
			t.Fatalf("%s: not JSON", s)
		}
		if got := hasRepeatedNames(s); got != want {
			t.Errorf("hasRepeatedNames(%s) = %v, want %v", s, got, want)
		}
	}
}

// FuzzHasRepeatedNames checks hasRepeatedNames against jsontext's own
// check of repeated names on every JSON value.
func FuzzHasRepeatedNames(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":1}`, `{"a":{"b":1},"b":[{"a":1,"c":2,"a":3}]}`, `{"\u0062":1,"b":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, ok := repeatsByDecoder(s)
		if !ok {
			return
		}
		if got := hasRepeatedNames(s); got != want {
			t.Errorf("hasRepeatedNames(%q) = %v, want %v", s, got, want)
		}
	})
}
