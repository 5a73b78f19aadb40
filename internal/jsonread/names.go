package jsonread

import (
	"hash/maphash"
	"strings"
)

// RepeatsName reports whether an object in s, one JSON value, holds a
// member name twice, names compared as encoding/json decodes them ("a"
// and "\u0061" are the same, and so are two names whose invalid UTF-8
// both decode to U+FFFD). It reads s once, in place, each name into one
// hash set keyed by the name and the object that holds it; it allocates
// only for a text of more than 16 names.
func RepeatsName(s string) bool {
	// The open containers: each object's number, in the order objects
	// open (from 1), and 0 for an array.
	var frames [16]uint64
	stack := frames[:0]
	var first [32]nameSlot // the set's first slots, on the stack (16 names)
	set := nameSet{slots: first[:]}
	objects := uint64(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{', '[':
			id := uint64(0)
			if c == '{' {
				objects++
				id = objects
			}
			stack = append(stack, id)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			start := i
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
				if i += b + 2; i >= len(s) { // past the escaped byte
					i = len(s)
					break
				}
			}
			if i >= len(s) || len(stack) == 0 || stack[len(stack)-1] == 0 || !nameFollows(s, i+1) {
				continue
			}
			if !set.add(stack[len(stack)-1], Unquote(s[start:i+1])) {
				return true
			}
		}
	}
	return false
}

// nameFollows reports whether a colon follows s[i:], white space aside.
func nameFollows(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i < len(s) && s[i] == ':'
}

// nameSet is a set of member names, each with the number of the object
// that holds it: open addressing, linear probing, a hash of both kept
// beside each name.
type nameSet struct {
	slots []nameSlot // a power of two long, at most half full
	n     int
}

type nameSlot struct {
	hash uint64 // 0: empty
	obj  uint64
	name string
}

// nameSeed seeds nameSet's hashes.
var nameSeed = maphash.MakeSeed()

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
