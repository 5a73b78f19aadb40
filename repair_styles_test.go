package saidex

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// style is a way models write an object that is not JSON.
type style struct {
	open, close     string // string quotes
	bareKeys        bool
	python          bool // True/False/None
	trailingCommas  bool
	comments        bool
	rawControlChars bool // line breaks and tabs inside strings left unescaped
}

var styles = map[string]style{
	"python repr":    {open: "'", close: "'", python: true},
	"typographic":    {open: "“", close: "”"},
	"javascript":     {open: `"`, close: `"`, bareKeys: true, trailingCommas: true, comments: true},
	"raw line break": {open: `"`, close: `"`, rawControlChars: true},
	"everything":     {open: "'", close: "'", bareKeys: true, python: true, trailingCommas: true, comments: true, rawControlChars: true},
}

// write renders v in style st, the way a model would: inner quotes of the
// other kind are left alone, and an inner quote of the same kind is not
// escaped either (the mistake models make).
func (st style) write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 && !(st.comments && i == 1) {
				b.WriteString(", ")
			}
			if st.bareKeys && isIdent(k) {
				b.WriteString(k)
			} else {
				st.write(b, k)
			}
			b.WriteString(": ")
			st.write(b, x[k])
			if st.comments && i == 0 {
				b.WriteString(", // first\n") // a comment, then a trailing comma when it is the only member
			}
		}
		if st.trailingCommas && len(keys) > 1 {
			b.WriteString(",")
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			st.write(b, e)
		}
		if st.trailingCommas && len(x) > 0 {
			b.WriteString(",")
		}
		b.WriteString("]")
	case string:
		b.WriteString(st.open)
		for _, r := range x {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\n' || r == '\t':
				if st.rawControlChars {
					b.WriteRune(r)
				} else if r == '\n' {
					b.WriteString(`\n`)
				} else {
					b.WriteString(`\t`)
				}
			case r < 0x20:
				e, _ := json.Marshal(string(r))
				b.Write(e[1 : len(e)-1])
			default:
				b.WriteRune(r)
			}
		}
		b.WriteString(st.close)
	case bool:
		switch {
		case st.python && x:
			b.WriteString("True")
		case st.python:
			b.WriteString("False")
		default:
			b.WriteString(map[bool]string{true: "true", false: "false"}[x])
		}
	case nil:
		if st.python {
			b.WriteString("None")
		} else {
			b.WriteString("null")
		}
	case json.Number:
		b.WriteString(x.String())
	}
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// checkStyles renders each object in every style and checks that repair
// returns the same value or refuses: it never returns a different value.
func checkStyles(t *testing.T, objects []any) {
	t.Helper()
	for name, st := range styles {
		refused := 0
		for _, v := range objects {
			var b strings.Builder
			st.write(&b, v)
			res, err := repairArguments(b.String(), defaultRepairOptions())
			if err != nil {
				refused++
				t.Logf("%s: refused %q: %v", name, b.String(), err)
				continue
			}
			if !sameJSON(res.value, v) {
				want, _ := json.Marshal(v)
				t.Errorf("%s: %q repaired to %s, want %s", name, b.String(), res.json, want)
			}
		}
		t.Logf("%s: %d of %d refused", name, refused, len(objects))
	}
}

func TestRepairOfModelStylesNeverChangesAValue(t *testing.T) {
	var objects []any
	for _, s := range []string{
		`{"city": "Oslo", "days": 3, "ok": true, "none": null}`,
		`{"shop": "Bob's Bikes", "quote": "she said \"hi\" twice", "list": ["a", "b's"]}`,
		`{"multi": "line one\nline two\tend", "path": "C:\\temp"}`,
		`{"nested": {"deep": [{"x": 1.5e3}, {"y": -2}]}, "empty": {}, "arr": []}`,
	} {
		objects = append(objects, mustDecode(t, s))
	}
	checkStyles(t, objects)
}

func TestRepairOfCorpusValuesInModelStylesNeverChangesAValue(t *testing.T) {
	var objects []any
	for _, raw := range corpusWantArguments(t) {
		objects = append(objects, mustDecode(t, raw))
	}
	if objects == nil {
		t.Skip("corpus not present")
	}
	checkStyles(t, objects)
}
