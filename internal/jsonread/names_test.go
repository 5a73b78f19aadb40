package jsonread

import (
	"encoding/json"
	"strings"
	"testing"
)

// repeatsByDecoder is RepeatsName by encoding/json's tokens: the names of
// each object as it decodes them. ok is false where s is not one JSON
// value as encoding/json reads it.
func repeatsByDecoder(s string) (repeats, ok bool) {
	if !json.Valid([]byte(s)) {
		return false, false
	}
	d := json.NewDecoder(strings.NewReader(s))
	type level struct {
		obj, name bool // an object, whose next string is a name
		names     map[string]bool
	}
	var stack []*level
	for {
		tok, err := d.Token()
		if err != nil {
			return false, true
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch x := tok.(type) {
		case json.Delim:
			if x == '{' || x == '[' {
				stack = append(stack, &level{obj: x == '{', name: true, names: map[string]bool{}})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false, true
			}
			if p := stack[len(stack)-1]; p.obj {
				p.name = true
			}
			continue
		case string:
			if top != nil && top.obj && top.name {
				if top.names[x] {
					return true, true
				}
				top.names[x] = true
				top.name = false
				continue
			}
		}
		if top != nil && top.obj {
			top.name = true
		}
	}
}

func TestRepeatsName(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":1}`, `{"a":1,"a":1}`, `{"a":1,"b":{"a":2}}`, `{"a":{"b":1,"b":2}}`,
		`[{"a":1},{"a":1}]`, `{"a":1,"\u0061":2}`, `{"b":[{"c":1}],"a":2,"b":3}`,
		`{"x":"a\"b","x":1}`, `{"k1":1,"k2":2,"k3":3,"k1":4}`, `{"a":{"x":1},"b":{"x":1}}`,
		`"a"`, `1`, `[1,"a",{"a":"a"}]`, `{"a\\":1,"a\\":2}`, `{"a\\\"":1,"a\\":2}`, `{"\"":1,"\u0022":2}`,
		"{\"a\xff\":1,\"a\xfe\":2}", "{\"a\xff\":1,\"a\":2}", `{"\ud800":1,"\ufffd":2}`, ` {"a" : true , "b" : null , "a" : 0} `,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"q":19}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19}`,
	} {
		want, ok := repeatsByDecoder(s)
		if !ok {
			t.Fatalf("%q: not JSON", s)
		}
		if got := RepeatsName(s); got != want {
			t.Errorf("RepeatsName(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzRepeatsName checks RepeatsName against encoding/json's names on
// every JSON value.
func FuzzRepeatsName(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":1}`, `{"a":{"b":1},"b":[{"a":1,"c":2,"a":3}]}`, `{"\u0062":1,"b":2}`, "{\"\xff\":1,\"\xfe\":2}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, ok := repeatsByDecoder(s)
		if !ok {
			return
		}
		if got := RepeatsName(s); got != want {
			t.Errorf("RepeatsName(%q) = %v, want %v", s, got, want)
		}
	})
}
