package lenient

import (
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/saidex/saidex-go/internal/jsonread"
)

// repeatedNames makes s, one JSON value, hold each object member name
// once. A name repeated with equal values (see sameValue) is kept once,
// where it first appears; a name repeated with different values is
// refused, naming the key: which value is meant is a guess, and a tool
// that reads the first one would run with a value validation never saw.
// changed is false, and s is returned as it is, when no name repeats.
func repeatedNames(s string) (out string, changed bool, err error) {
	if !jsonread.RepeatsName(s) {
		return s, false, nil
	}
	d := jsonread.NewStringDecoder(s, false)
	defer d.Release()
	var b strings.Builder
	b.Grow(len(s))
	if err := uniqueValue(&d.Decoder, &b); err != nil {
		return "", false, err
	}
	return b.String(), b.Len() != len(s) || b.String() != s, nil
}

// uniqueValue writes the next value of d to b, each object's repeated
// names dropped.
func uniqueValue(d *jsontext.Decoder, b *strings.Builder) error {
	switch d.PeekKind() {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return errNotJSON()
		}
		b.WriteByte('{')
		seen := map[string]string{}
		first := true
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return errNotJSON()
			}
			name := tok.String()
			var v strings.Builder
			if err := uniqueValue(d, &v); err != nil {
				return err
			}
			if prev, ok := seen[name]; ok {
				if !sameValue(prev, v.String()) {
					return malformed("the key %s is sent more than once, with different values; send each key once", keyName(name))
				}
				continue
			}
			seen[name] = v.String()
			if !first {
				b.WriteByte(',')
			}
			first = false
			q, _ := jsontext.AppendQuote(nil, name)
			b.Write(q)
			b.WriteByte(':')
			b.WriteString(v.String())
		}
		if _, err := d.ReadToken(); err != nil {
			return errNotJSON()
		}
		b.WriteByte('}')
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return errNotJSON()
		}
		b.WriteByte('[')
		for i := 0; d.PeekKind() != ']'; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := uniqueValue(d, b); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return errNotJSON()
		}
		b.WriteByte(']')
	default:
		v, err := d.ReadValue()
		if err != nil {
			return errNotJSON()
		}
		b.Write(v)
	}
	return nil
}

func errNotJSON() error { // not reached: the text was checked
	return malformed("the arguments are not valid JSON and could not be repaired without guessing")
}

// keyName quotes a key for a reason, cut to 40 characters.
func keyName(k string) string {
	if utf8.RuneCountInString(k) > 40 {
		r := []rune(k)
		k = string(r[:40]) + "…"
	}
	q, _ := jsontext.AppendQuote(nil, k)
	return string(q)
}
