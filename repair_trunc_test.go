package saidex

import (
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// jsonTok is one significant token of a JSON value.
type jsonTok struct {
	kind byte   // '{', '}', '[', ']', 's' string, 'n' number, 'l' literal
	text string // decoded string, number text, or "true"/"false"/"null"
}

// jsonTokens lists the significant tokens of valid JSON text. Text holding
// a stream of values gives all their tokens; invalid text, those before
// the error, with the error.
func jsonTokens(text string) ([]jsonTok, error) {
	// Duplicate names and invalid UTF-8 are accepted, as encoding/json
	// does (invalid bytes read as U+FFFD).
	dec := jsontext.NewDecoder(strings.NewReader(text),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var toks []jsonTok
	for {
		t, err := dec.ReadToken()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return toks, err
		}
		switch k := t.Kind(); k {
		case '{', '}', '[', ']':
			toks = append(toks, jsonTok{kind: byte(k)})
		case '"':
			toks = append(toks, jsonTok{kind: 's', text: t.String()})
		case '0':
			toks = append(toks, jsonTok{kind: 'n', text: t.String()})
		default: // true, false, null
			toks = append(toks, jsonTok{kind: 'l', text: t.String()})
		}
	}
}

// valueTokens lists the value tokens of valid JSON text, without closing
// brackets, for the prefix comparison below.
func valueTokens(t *testing.T, text string) []jsonTok {
	t.Helper()
	toks, err := jsonTokens(text)
	if err != nil {
		t.Fatalf("jsonTokens(%q): %v", text, err)
	}
	out := toks[:0:0]
	for _, tk := range toks {
		if tk.kind != '}' && tk.kind != ']' {
			out = append(out, tk)
		}
	}
	return out
}

// ambiguousCut reports whether a differing token is the known, inherent
// ambiguity of a cut: the text ends at a quote inside a string value (an
// apostrophe in a single-quoted string, an unescaped inner quote), which
// reads exactly like the string's closing quote. The value then holds a
// prefix of the meant string.
func ambiguousCut(cut string, k int, got, want []jsonTok) bool {
	r, _ := utf8.DecodeLastRuneInString(cut)
	return strings.ContainsRune(`"'“”‘’`, r) && k == len(got)-1 && got[k].kind == 's' && want[k].kind == 's' &&
		strings.HasPrefix(want[k].text, got[k].text)
}

// checkCutsNeverInvent cuts raw at every byte and checks that each cut is
// either refused or repaired to a prefix of the full value's tokens: a
// stream cut may lose the members after the cut, never change or invent a
// value.
func checkCutsNeverInvent(t *testing.T, raw string) {
	t.Helper()
	opt := defaultRepairOptions()
	full, err := repairArguments(raw, opt)
	if err != nil {
		t.Fatalf("repairArguments(%q): %v", raw, err)
	}
	want := valueTokens(t, full.json)
	for p := 0; p < len(raw); p++ {
		res, err := repairArguments(raw[:p], opt)
		if err != nil {
			continue
		}
		got := valueTokens(t, res.json)
		if len(got) > len(want) {
			t.Errorf("cut %q repaired to %s: more values than %s", raw[:p], res.json, full.json)
			continue
		}
		for k := range got {
			if got[k] != want[k] && !ambiguousCut(raw[:p], k, got, want) {
				t.Errorf("cut %q repaired to %s: value %d differs from %s", raw[:p], res.json, k, full.json)
				break
			}
		}
	}
}

func TestRepairOfACutStreamNeverInventsValues(t *testing.T) {
	for _, raw := range []string{
		`{"city": "Oslo", "days": 12, "tags": ["a b", "c"], "ok": true, "n": null, "geo": {"lat": 59.9, "lon": -10.75e1}}`,
		`{'city': 'Bob's place', 'days': 3, 'ok': True, 'none': None}`,
		`{city: "Oslo", nested: {deep: [1, 2, 3]}, last: false}`,
		`{"title": "the "best" one", "n": 1, "s": "tail"}`,
		"<think>pick {\"n\": 1}</think>\n```json\n{\"n\": 2, \"s\": \"x\\ny\", \"u\": \"\\u00e9\"}\n```\nDone.",
		`{"a": 1} {"a": 1}`,
		`"{\"a\": [1, \"two\"], \"b\": {\"c\": \"d\"}}"`,
		"{\n  \"a\": \"x\", // note\n  \"b\": \"y\" /* c */\n}",
		`{“a”: “quoted”, “b”: 2}`,
	} {
		checkCutsNeverInvent(t, raw)
	}
}

func TestRepairOfACutCorpusStreamNeverInventsValues(t *testing.T) {
	raws := corpusRawArguments(t)
	if raws == nil {
		t.Skip("corpus not present")
	}
	for _, raw := range raws {
		if _, err := repairArguments(raw, defaultRepairOptions()); err != nil {
			continue
		}
		checkCutsNeverInvent(t, raw)
	}
}
