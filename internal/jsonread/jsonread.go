// Package jsonread is saidex's one JSON reader: a pooled
// [jsontext.Decoder] over bytes it reads in place, and the decoding of one
// JSON text into the values encoding/json decodes it to (with UseNumber).
//
// The decoder reads a [bytes.Buffer] wrapped around a byte slice, which
// jsontext documents as read "directly from the buffer without first
// copying the contents". The slice is either the caller's, which must not
// change until the decoder is released ([NewDecoder]), or the decoder's own
// copy of a string ([NewStringDecoder]): one copy per text, reused by every
// pass over it ([Decoder.Rewind]). No unsafe conversion is involved, and
// nothing depends on what jsontext does with the bytes it reads.
package jsonread

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth is the deepest nesting of objects and arrays a decoder reads:
// 10,000 levels, the limit of jsontext and of encoding/json.
const MaxDepth = 10000

// Errors of [Decode] for a text that is not one JSON value.
var (
	ErrNotJSON = errors.New("not one JSON value")
	ErrTooDeep = errors.New("exceeded max depth") // encoding/json's words, for the same limit
)

// lenient makes jsontext read what encoding/json reads: repeated names
// (the last value wins in a decoded map) and invalid UTF-8 in strings
// (read as U+FFFD).
var lenient = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// strict refuses repeated names and invalid UTF-8 (the jsontext defaults,
// spelled out so that a change of default cannot loosen a check).
var strict = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}

// Decoder is a pooled [jsontext.Decoder] positioned before the start of
// one JSON text. Get one with [NewDecoder] or [NewStringDecoder] and give
// it back with [Decoder.Release]. A Decoder is used by one goroutine at a
// time.
type Decoder struct {
	jsontext.Decoder
	in     bytes.Buffer
	b      []byte // the bytes read
	own    []byte // the decoder's copy of a string, reused across pools
	text   string // the same text as a string, when the decoder was made from one
	strict bool
	// members and items are stacks of the members of the objects and the
	// items of the arrays being decoded, so that each map and slice is
	// made at its final size.
	members []member
	items   []any
}

type member struct {
	name  string
	value any
}

// Bounds of what a pooled decoder keeps, so that one huge text does not
// stay allocated: a copy up to 2 MiB (room for saidex's default argument
// limit, 1 MiB; at that size copying into kept bytes takes a tenth of the
// time of copying into new ones, BenchmarkDecode), a stack of 1,024
// members or items.
const (
	maxPooledCopy    = 2 << 20
	maxPooledMembers = 1024
)

var pool = sync.Pool{New: func() any { return new(Decoder) }}

// NewDecoder returns a pooled decoder reading b in place. The caller owns
// b and must not change it until the decoder is released. With strict,
// repeated object member names and invalid UTF-8 are syntax errors; without
// it they are read as encoding/json reads them (the last member wins,
// invalid bytes become U+FFFD). The nesting limit is [MaxDepth] either way.
func NewDecoder(b []byte, strict bool) *Decoder {
	d := pool.Get().(*Decoder)
	d.b, d.text, d.strict = b, "", strict
	d.Rewind()
	return d
}

// NewStringDecoder returns a pooled decoder reading s: it copies s once,
// into bytes it owns (and reuses, up to 2 MiB, across pooled uses), and
// returns strings and numbers that hold no escape as substrings of s
// rather than copies. strict is as for [NewDecoder].
func NewStringDecoder(s string, strict bool) *Decoder {
	d := pool.Get().(*Decoder)
	d.own = append(d.own[:0], s...)
	d.b, d.text, d.strict = d.own, s, strict
	d.Rewind()
	return d
}

// Rewind positions d before the start of its text again, with no copy.
func (d *Decoder) Rewind() {
	d.in = *bytes.NewBuffer(d.b)
	opts := lenient
	if d.strict {
		opts = strict
	}
	d.Reset(&d.in, opts...)
}

// Release returns d to the pool. Neither d nor its text (for
// [NewDecoder], the caller's bytes) may be used by it after.
func (d *Decoder) Release() {
	clear(d.members[:cap(d.members)])
	d.members = d.members[:0]
	if cap(d.members) > maxPooledMembers {
		d.members = nil
	}
	clear(d.items[:cap(d.items)])
	d.items = d.items[:0]
	if cap(d.items) > maxPooledMembers {
		d.items = nil
	}
	if cap(d.own) > maxPooledCopy {
		d.own = nil
	}
	d.b, d.text = nil, ""
	d.in = bytes.Buffer{}
	d.Reset(&d.in)
	pool.Put(d)
}

// Bytes returns the text d reads: the caller's bytes for [NewDecoder], the
// decoder's own copy of the string for [NewStringDecoder]. They stay valid
// until d is released, and must not be changed.
func (d *Decoder) Bytes() []byte { return d.b }

// AtEnd reports whether only JSON white space follows what d has read.
func (d *Decoder) AtEnd() bool {
	for _, c := range d.b[d.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// literal returns the text of the value raw that d just read, as a
// substring of the decoder's string when it has one.
func (d *Decoder) literal(raw jsontext.Value) string {
	if d.text == "" {
		return string(raw)
	}
	end := int(d.InputOffset())
	return d.text[end-len(raw) : end]
}

// Syntax is the verdict of [Check] on a text.
type Syntax int

// Verdicts of [Check].
const (
	OK      Syntax = iota // one JSON value, with only white space around it
	Invalid               // anything else
	TooDeep               // nested deeper than MaxDepth (before any other error)
)

// tooDeep is the error jsontext wraps in a SyntacticError for a text
// nested deeper than its limit, MaxDepth (it exports no sentinel for it).
var tooDeep = sync.OnceValue(func() error {
	err := jsontext.NewDecoder(strings.NewReader(strings.Repeat("[", MaxDepth+1))).SkipValue()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
})

// check is Check on d's text from its start.
func (d *Decoder) check() Syntax {
	switch err := d.SkipValue(); {
	case err == nil:
		if d.AtEnd() {
			return OK
		}
	case d.StackDepth() == MaxDepth && errors.Is(err, tooDeep()):
		return TooDeep
	}
	return Invalid
}

// Check reports whether s is exactly one JSON value with only JSON white
// space around it, by the grammar encoding/json reads: the same texts
// json.Valid accepts (invalid UTF-8 included), and TooDeep where
// encoding/json would first fail with "exceeded max depth". It is linear
// and, beyond the decoder's copy of s, allocates nothing for an accepted
// text.
func Check(s string) Syntax {
	d := NewStringDecoder(s, false)
	defer d.Release()
	return d.check()
}

// Valid reports whether Check(s) is OK.
func Valid(s string) bool { return Check(s) == OK }

// Decode decodes exactly one JSON value into what encoding/json decodes it
// to with UseNumber: objects as map[string]any where a repeated name keeps
// its last value, arrays as non-nil []any, numbers as json.Number, strings
// as [Unquote] reads them. A text that is not one JSON value is refused by
// a syntax check before any decoding, over the same copy of s: ErrTooDeep
// when it is nested deeper than MaxDepth, else ErrNotJSON.
func Decode(s string) (any, error) {
	d := NewStringDecoder(s, false)
	defer d.Release()
	switch d.check() {
	case Invalid:
		return nil, ErrNotJSON
	case TooDeep:
		return nil, ErrTooDeep
	}
	d.Rewind()
	v, err := d.Value()
	if err != nil { // not reached: the check accepted s
		return nil, ErrNotJSON
	}
	return v, nil
}

// Read decodes s, a text its caller has reason to expect to be one JSON
// value (it produced it, or checked it), as Decode does but in one pass,
// without the syntax check first. A text that is not one JSON value after
// all is refused with ErrNotJSON (or ErrTooDeep), possibly after some
// decoding.
func Read(s string) (any, error) {
	d := NewStringDecoder(s, false)
	defer d.Release()
	v, err := d.Value()
	switch {
	case err == nil && d.AtEnd():
		return v, nil
	case err != nil && d.StackDepth() == MaxDepth && errors.Is(err, tooDeep()):
		return nil, ErrTooDeep
	}
	return nil, ErrNotJSON
}

// DecodeString decodes the JSON string at the start of s, followed by
// anything, and returns its value and its length in s. ok is false when s
// does not start with a JSON string.
func DecodeString(s string) (v string, n int, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, false
	}
	d := NewStringDecoder(s, false)
	defer d.Release()
	raw, err := d.ReadValue()
	if err != nil || raw.Kind() != '"' {
		return "", 0, false
	}
	return Unquote(d.literal(raw)), int(d.InputOffset()), true
}

// Value reads the next value, as [Decode] decodes it.
func (d *Decoder) Value() (any, error) {
	switch k := d.PeekKind(); k {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		base := len(d.members)
		for d.PeekKind() == '"' {
			name, err := d.str()
			if err != nil {
				return nil, err
			}
			v, err := d.Value()
			if err != nil {
				return nil, err
			}
			d.members = append(d.members, member{name, v})
		}
		m := make(map[string]any, len(d.members)-base)
		for _, mb := range d.members[base:] {
			m[mb.name] = mb.value // a repeated name: the last one wins, as in encoding/json
		}
		clear(d.members[base:])
		d.members = d.members[:base]
		_, err := d.ReadToken()
		return m, err
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		base := len(d.items)
		for d.PeekKind() != ']' {
			v, err := d.Value()
			if err != nil {
				return nil, err
			}
			d.items = append(d.items, v)
		}
		a := append(make([]any, 0, len(d.items)-base), d.items[base:]...) // non-nil, as in encoding/json
		clear(d.items[base:])
		d.items = d.items[:base]
		_, err := d.ReadToken()
		return a, err
	case '"':
		return d.str()
	case '0':
		raw, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		return json.Number(d.literal(raw)), nil
	case 't', 'f', 'n':
		if _, err := d.ReadValue(); err != nil {
			return nil, err
		}
		switch k {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	}
	_, err := d.ReadToken() // not valid JSON
	return nil, cmp.Or(err, ErrNotJSON)
}

// str reads the next string (a value or an object member's name).
func (d *Decoder) str() (string, error) {
	raw, err := d.ReadValue()
	if err != nil {
		return "", err
	}
	return Unquote(d.literal(raw)), nil
}

// Unquote returns the value of the JSON string literal lit (quotes
// included), which a decoder read or which is otherwise known to be one,
// exactly as encoding/json unquotes it: invalid UTF-8 and unpaired
// surrogate escapes become U+FFFD. jsontext.AppendUnquote does the same,
// reporting them with an error that is of no use here. A literal with
// no escape and valid UTF-8 is returned as its own substring.
func Unquote(lit string) string {
	s := lit[1 : len(lit)-1]
	if strings.IndexByte(s, '\\') < 0 && utf8.ValidString(s) {
		return s // a literal holds no quote or control character
	}
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(s)+2*utf8.UTFMax), lit)
	return string(b)
}
