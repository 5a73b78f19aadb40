package jsonvalue

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`1`, `1.0`, true},
		{`1e2`, `100`, true},
		{`1`, `2`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":null}`, `{}`, false},
		{`"1"`, `1`, false},
		{`true`, `true`, true},
		{`null`, `false`, false},
	} {
		if got := Equal(decode(t, tt.a), decode(t, tt.b)); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestEncodeWritesCompactSortedUnescapedJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted, compact", map[string]any{"b": []any{true, nil}, "a": map[string]any{"d": "x", "c": "y"}}, `{"a":{"c":"y","d":"x"},"b":[true,null]}`},
		{"numbers as written", []any{json.Number("1.50"), json.Number("1e999"), json.Number("-0")}, `[1.50,1e999,-0]`},
		{"float64", 2.5, `2.5`},
		{"no HTML escaping", map[string]any{"q": "a<b & c>d"}, `{"q":"a<b & c>d"}`},
		{"control characters and quotes escaped", "tab\t\"q\"\\", `"tab\t\"q\"\\"`},
		{"line and paragraph separators escaped", "\u2028\u2029", `"\u2028\u2029"`},
		{"empty containers", map[string]any{"a": []any{}, "o": map[string]any{}}, `{"a":[],"o":{}}`},
		{"null", nil, `null`},
		{"decoded input round-trips", decode(t, ` { "z" : [ 1 , 2.0 ] , "a" : "é" } `), `{"a":"é","z":[1,2.0]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Encode = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestEncodeReportsValuesJSONCannotHold(t *testing.T) {
	for _, v := range []any{math.NaN(), make(chan int), func() {}, map[string]any{"x": json.Number("1x")}} {
		if got, err := Encode(v); err == nil {
			t.Errorf("Encode(%T) = %s, want an error", v, got)
		}
	}
}

// Encode's text decodes back to the value it encoded, and encoding that
// again gives the same text.
func FuzzEncodeRoundTrip(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x<y"]}`, `1.50`, `"\u2028"`, `[]`, `{"":{"":[{}]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		text, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode(decoded %q): %v", s, err)
		}
		back := decode(t, text)
		if Equal(v, v) && !Equal(v, back) { // Equal cannot read exponents beyond big.Rat's range

			t.Fatalf("Encode(%q) = %s, which decodes to a different value", s, text)
		}
		if again, _ := Encode(back); again != text {
			t.Fatalf("re-encoding %s gives %s", text, again)
		}
	})
}

func TestHasLooseNumber(t *testing.T) {
	tests := []struct {
		in   any
		want bool
	}{
		{json.Number("3"), false},
		{json.Number("-12"), false},
		{json.Number("3.0"), true},
		{json.Number("1e2"), true},
		{json.Number("1E2"), true},
		{map[string]any{"a": []any{"x", json.Number("2"), map[string]any{"b": json.Number("0.5")}}}, true},
		{map[string]any{"a": []any{"1.5", true, nil}}, false}, // a string is not a number
		{float64(1.5), false}, // only json.Number values are written numbers
	}
	for _, tt := range tests {
		if got := HasLooseNumber(tt.in); got != tt.want {
			t.Errorf("HasLooseNumber(%#v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDeeperThan(t *testing.T) {
	nest := func(depth int) any {
		var v any = "leaf"
		for i := range depth {
			if i%2 == 0 {
				v = []any{v}
			} else {
				v = map[string]any{"k": v}
			}
		}
		return v
	}
	for _, tt := range []struct {
		v     any
		limit int
		want  bool
	}{
		{"x", 0, false},
		{nil, 0, false},
		{map[string]any{}, 0, true},
		{[]any{}, 1, false},
		{nest(3), 2, true},
		{nest(3), 3, false},
		{map[string]any{"a": 1, "b": nest(5)}, 5, true},
		{map[string]any{"a": 1, "b": nest(5)}, 6, false},
		{[]any{nest(1), nest(1000)}, 999, true},
		{nest(1000), 1000, false},
		{"x", -1, true},
	} {
		if got := DeeperThan(tt.v, tt.limit); got != tt.want {
			t.Errorf("DeeperThan(%.30v, %d) = %v, want %v", tt.v, tt.limit, got, tt.want)
		}
	}
}
