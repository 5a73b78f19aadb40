package lenient

import (
	"hash/maphash"
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
	if !hasRepeatedNames(s) {
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

// hasRepeatedNames reports whether an object in s, one JSON value, holds a
// member name twice (names compared as decoded: "a" and "\u0061" are the
// same). It reads s once, in place, each name into one hash set keyed by
// the name and the object that holds it.
func hasRepeatedNames(s string) bool {
	type frame struct {
		obj bool
		id  uint64 // the object's number, in the order objects open
	}
	var frames [16]frame
	stack := frames[:0]
	var first [32]nameSlot // the set's first slots, on the stack (16 names)
	set := nameSet{slots: first[:]}
	objects := uint64(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{', '[':
			if c == '{' {
				objects++
			}
			stack = append(stack, frame{obj: c == '{', id: objects})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			start, esc := i, false
			for i++; ; {
				q := strings.IndexByte(s[i:], '"')
				if q < 0 {
					i = len(s)
					break
				}
				b := strings.IndexByte(s[i:i+q], '\\')
				if b < 0 {
					i += q // at the closing quote
					break
				}
				esc = true
				if i += b + 2; i >= len(s) { // past the escaped byte
					i = len(s)
					break
				}
			}
			if len(stack) == 0 || !stack[len(stack)-1].obj || !strings.HasPrefix(s[skipWhite(s, i+1):], ":") {
				continue
			}
			n := s[start+1 : min(i, len(s))]
			if esc {
				n = jsonread.Unquote(s[start:min(i+1, len(s))])
			}
			if !set.add(stack[len(stack)-1].id, n) {
				return true
			}
		}
	}
	return false
}

// nameSet is a set of member names, each with the number of the object
// that holds it: open addressing, linear probing, a hash of both kept
// beside each name.
type nameSet struct {
	slots []nameSlot // a power of two long, at most half full
	n     int
}

// nameSeed seeds nameSet's hashes.
var nameSeed = maphash.MakeSeed()

type nameSlot struct {
	hash uint64 // 0: empty
	obj  uint64
	name string
}

// add adds the name of object obj, reporting false when it is already in.
func (t *nameSet) add(obj uint64, name string) bool {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.String(nameSeed, name) ^ obj*0x9e3779b97f4a7c15 | 1 // never 0
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		switch {
		case sl.hash == 0:
			*sl = nameSlot{h, obj, name}
			t.n++
			return true
		case sl.hash == h && sl.obj == obj && sl.name == name:
			return false
		}
	}
}

// grow doubles the table and places its names again.
func (t *nameSet) grow() {
	old := t.slots
	t.slots = make([]nameSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, sl := range old {
		if sl.hash == 0 {
			continue
		}
		i := sl.hash & mask
		for t.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}
