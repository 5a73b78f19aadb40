package lenient

import "github.com/saidex/saidex-go/internal/jsonread"

// Schema tells the scanner what the tool's schema accepts at a location of
// the object it reads. The repair stage builds it on the schema walker
// (internal/schemawalk); this package knows no schema library. A nil
// Schema in [Options] is no schema: no repair is guided by one.
type Schema interface {
	// OnlyString reports whether every value the schema accepts at path
	// is a string (a "type": "string", a string const, or an enum of
	// strings only), so that an unquoted token there can only be meant as
	// one. It is false where the schema allows other types, names none,
	// or forbids the member. path is not retained.
	OnlyString(path []Segment) bool
}

// Segment is one step of a location from the root object: the member
// Name of an object when Index is negative, else item Index of an array.
type Segment struct {
	Name  string
	Index int
}

// level is what the scanner knows of one open container for a Schema
// lookup: the canonical text of its last key (out[keyStart:keyEnd]), or
// the index of its current item.
type level struct {
	keyStart, keyEnd int
	index            int
}

// pushLevel records a container opened; only with a Schema.
func (sc *scanner) pushLevel() {
	if sc.schema != nil {
		sc.levels = append(sc.levels, level{index: -1})
	}
}

// popLevel records a container closed.
func (sc *scanner) popLevel() {
	if sc.schema != nil && len(sc.levels) > 0 {
		sc.levels = sc.levels[:len(sc.levels)-1]
	}
}

// keyRead records that the key whose canonical text starts at out[start]
// and ends at the end of out was read.
func (sc *scanner) keyRead(start int) {
	if sc.schema != nil && len(sc.levels) > 0 {
		l := &sc.levels[len(sc.levels)-1]
		l.keyStart, l.keyEnd = start, sc.out.Len()
	}
}

// itemStarted records that a value starts in the open container.
func (sc *scanner) itemStarted() {
	if sc.schema != nil && len(sc.levels) > 0 && sc.top() == '[' {
		sc.levels[len(sc.levels)-1].index++
	}
}

// path returns the location of the value being read.
func (sc *scanner) path() []Segment {
	out := make([]Segment, len(sc.levels))
	for k, l := range sc.levels {
		if sc.stack[k] == '[' {
			out[k] = Segment{Index: l.index}
			continue
		}
		out[k] = Segment{Name: jsonread.Unquote(sc.out.String()[l.keyStart:l.keyEnd]), Index: -1}
	}
	return out
}
