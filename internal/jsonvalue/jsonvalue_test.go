package jsonvalue

import (
	"encoding/json"
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
