package faultinject

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// The operators of issue 22's repair classes: the faults real models
// emit that repair now recovers, each made at every position where it
// makes sense. (Escaped white space between tokens is escapedSpace; a
// swapped or dropped closer, swappedClosers and droppedClosers.)

// literalCase: true, false and null written TRUE, FALSE, NULL, Null,
// none or NONE.
func literalCase(t Text) []edit {
	forms := map[string][]string{"true": {"TRUE"}, "false": {"FALSE"}, "null": {"NULL", "Null", "none", "NONE"}}
	var out []edit
	for _, k := range t.Toks {
		if k.Kind != TokLiteral {
			continue
		}
		for _, f := range forms[t.S[k.Start:k.End]] {
			out = append(out, edit{k.Start, k.End, f, false})
		}
	}
	return out
}

// looseNumber: a number written .5 (for 0.5), 5. (for an integer 5),
// +5 (for a number that is not negative) or 05 (a 0 before its first
// digit, when that is not 0).
func looseNumber(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind != TokNumber {
			continue
		}
		n := t.S[k.Start:k.End]
		if d := strings.TrimPrefix(n, "-"); d[0] >= '1' && d[0] <= '9' {
			at := k.Start + len(n) - len(d)
			out = append(out, edit{at, at, "0", false})
		}
		switch {
		case strings.HasPrefix(n, "0."):
			out = append(out, edit{k.Start, k.Start + 1, "", false})
		case strings.HasPrefix(n, "-0."):
			out = append(out, edit{k.Start + 1, k.Start + 2, "", false})
		}
		if !strings.ContainsAny(n, ".eE") {
			out = append(out, edit{k.End, k.End, ".", false})
		}
		if !strings.HasPrefix(n, "-") {
			out = append(out, edit{k.Start, k.Start, "+", false})
		}
	}
	return out
}

var integerKey = regexp.MustCompile(`^"-?(0|[1-9][0-9]*)"$`)

// numericKey: a key that is an integer written without its quotes.
func numericKey(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind == TokKey && integerKey.MatchString(t.S[k.Start:k.End]) {
			out = append(out, edit{k.Start, k.End, t.S[k.Start+1 : k.End-1], false})
		}
	}
	return out
}

// unclosedKey: a key's closing quote left out, before its colon.
func unclosedKey(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind == TokKey {
			out = append(out, edit{k.End - 1, k.End, "", false})
		}
	}
	return out
}

// strayCloser: a ']' or an extra '}' after the complete object, right
// after it or on a line of its own.
func strayCloser(t Text) []edit {
	n := len(t.S)
	return []edit{{n, n, "]", false}, {n, n, "\n]", false}, {n, n, "}", false}, {n, n, "\n}", false}}
}

// strayBracket: a ']' between tokens.
func strayBracket(t Text) []edit {
	var out []edit
	for _, g := range gaps(t) {
		out = append(out, edit{g, g, "]", false})
	}
	return out
}

// bareValue: a string value written without its quotes where it is a
// bare token (no white space, quote, backslash, bracket, comma, '#' or
// comment, no colon at its ends) that reads as nothing else: not a number, a literal in any
// case, or a word naming another value (NaN, undefined). A schema that
// accepts only a string there reads it back (see SchemaOf); any other
// schema refuses it.
func bareValue(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind != TokString {
			continue
		}
		c := t.S[k.Start+1 : k.End-1]
		if isBareToken(c) {
			out = append(out, edit{k.Start, k.End, c, false})
		}
	}
	return out
}

var otherValue = regexp.MustCompile(`(?i)^([+-]?(nan|inf|infinity)|undefined|nil|none|null|true|false)$`)
var numberLike = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

func isBareToken(c string) bool {
	if c == "" || c[0] == ':' || c[len(c)-1] == ':' || otherValue.MatchString(c) || numberLike.MatchString(c) || strings.Contains(c, "/*") ||
		strings.Contains(c, faultmodel.EntityQuote) {
		return false
	}
	for i, r := range c {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r < 0x20 || r == 0x7f || strings.ContainsRune("\"'\\,{}[]#“”‘’`", r) {
			return false
		}
		if r == '/' && strings.HasPrefix(c[i:], "//") && (i == 0 || c[i-1] != ':') {
			return false
		}
	}
	return true
}

// SchemaOf returns a JSON Schema that v, and only values of its shape,
// validates: each string "type": "string", each number "number", each
// literal its type, each object its members' schemas (no others), each
// array its items' (prefixItems, no others). Under it every string's
// location accepts only a string.
func SchemaOf(v Value) map[string]any {
	switch x := v.(type) {
	case Object:
		props := map[string]any{}
		for _, m := range x {
			props[m.Key] = SchemaOf(m.Val)
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	case Array:
		if len(x) == 0 {
			return map[string]any{"type": "array", "maxItems": 0}
		}
		items := make([]any, len(x))
		for i, it := range x {
			items[i] = SchemaOf(it)
		}
		return map[string]any{"type": "array", "prefixItems": items, "items": false}
	case String:
		return map[string]any{"type": "string"}
	case Number:
		return map[string]any{"type": "number"}
	case Literal:
		if x == "null" {
			return map[string]any{"type": "null"}
		}
		return map[string]any{"type": "boolean"}
	}
	return map[string]any{}
}

// templateQuotes: strings written between Gemma 4's quote tokens, <|"|>,
// their text as it is (no escapes): each string alone (a key or a value),
// and every string at once with the keys bare where they are identifiers
// (the format as Gemma writes it).
func templateQuotes(t Text) []edit {
	var out, all []edit
	for k := range strToks(t) {
		var c string
		if json.Unmarshal([]byte(t.S[k.Start:k.End]), &c) != nil {
			return nil // not reached: the encoder writes JSON strings
		}
		e := edit{k.Start, k.End, `<|"|>` + c + `<|"|>`, false}
		out = append(out, e)
		if k.Kind == TokKey && identifier.MatchString(c) {
			e.repl = c
		}
		all = append(all, e)
	}
	if len(all) > 1 {
		start, end := all[0].start, all[len(all)-1].end
		out = append(out, edit{start, end, apply(t.S[:end], all...)[start:], false})
	}
	return out
}

// templateEscapes: every string between quote tokens with its JSON
// escapes kept (the writer wrote JSON's escapes in a format that has
// none), keys that are identifiers bare, at once; only in a text whose
// strings hold an escape (without one it is templateQuotes' text).
func templateEscapes(t Text) []edit {
	var all []edit
	escaped := false
	for k := range strToks(t) {
		body := t.S[k.Start+1 : k.End-1]
		escaped = escaped || strings.Contains(body, `\`)
		e := edit{k.Start, k.End, `<|"|>` + body + `<|"|>`, false}
		var c string
		if k.Kind == TokKey && json.Unmarshal([]byte(t.S[k.Start:k.End]), &c) == nil && identifier.MatchString(c) {
			e.repl = c
		}
		all = append(all, e)
	}
	if !escaped {
		return nil
	}
	start, end := all[0].start, all[len(all)-1].end
	return []edit{{start, end, apply(t.S[:end], all...)[start:], false}}
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
