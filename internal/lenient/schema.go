package lenient

import (
	"strings"

	"github.com/saidex/saidex-go/internal/jsonread"
)

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
	// AcceptsString reports whether the schema may accept the string v
	// at path, where OnlyString is true: false only where it certainly
	// does not (v is outside its enum, pattern or format, say).
	AcceptsString(path []Segment, v string) bool
}

// encodedSchema is the Schema of a text inside a JSON string: there a line
// break or tab may be a decoded escape of a value's own ("\n" read once),
// so no unquoted token is read as a string (QuotedBareValue).
type encodedSchema struct{ Schema }

// OnlyString is false: see encodedSchema.
func (encodedSchema) OnlyString([]Segment) bool { return false }

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

// A bare token read as a string ("direction": both) lost its quotes, and
// with them where its value began and ended: spaces next to it may be the
// value's own (" both"). Line breaks and tabs never are, since a JSON
// string holds none unescaped. bareToken refuses a token followed by a
// space (or an escape, or an invisible character); the spaces before one
// are the text's layout only where its other values, after the same kind
// of separator, have exactly as many (bareLayout).

// layout records the spaces before the values of a scan (with a Schema).
type layout struct {
	cur  gap    // the value being read
	bare []gap  // the bare tokens read as strings
	seen [2]int // per separator kind (':' or ','): 1 + the spaces before its other values, or 0
	// mixed: values after that kind of separator have different spaces
	// before them.
	mixed [2]bool
	// shifted[n]: a string value right after a colon, with no space
	// before its quote, starts with n spaces (n ≤ maxBareSpaces).
	shifted [maxBareSpaces + 1]bool
}

// gap is the run of spaces before a value: its length, and the byte
// before it.
type gap struct {
	spaces int
	prev   byte
	set    bool
	// of a bare token: its location and text
	path  []Segment
	token string
}

// kind returns 0 for a gap after ':', 1 after ',', else -1.
func (g gap) kind() int {
	switch g.prev {
	case ':':
		return 0
	case ',':
		return 1
	}
	return -1
}

// gapBefore records the spaces before the value starting at sc.i, and
// counts those of the value before it, which was not a bare token.
func (sc *scanner) gapBefore() {
	sc.commitGap()
	j := sc.i
	for j > 0 && sc.s[j-1] == ' ' {
		j--
	}
	g := gap{spaces: sc.i - j, set: true}
	if j > 0 {
		g.prev = sc.s[j-1]
	}
	sc.layout.cur = g
}

// commitGap counts the gap of the last value started, unless it was a
// bare token.
func (sc *scanner) commitGap() {
	l := &sc.layout
	g := l.cur
	l.cur = gap{}
	k := g.kind()
	if !g.set || k < 0 {
		return
	}
	switch l.seen[k] {
	case 0:
		l.seen[k] = g.spaces + 1
	case g.spaces + 1:
	default:
		l.mixed[k] = true
	}
}

// bareRead records that the value started is a bare token read as a
// string.
func (sc *scanner) bareRead(token string) {
	g := sc.layout.cur
	g.path, g.token = sc.path(), token
	sc.layout.bare = append(sc.layout.bare, g)
	sc.layout.cur = gap{}
}

// stringRead records that the value started is a string, whose text
// (its canonical JSON, quotes included) is q: one right after a colon,
// with no space before its quote but spaces at its start, may hold the
// layout's spaces, its quote moved ("k":" 0.5" from "k": 0.5); it is
// not counted in the layout, and shiftedQuote weighs it at the end.
func (sc *scanner) stringRead(q string) {
	g := sc.layout.cur
	n := len(q) - 1 - len(strings.TrimLeft(q[1:], " "))
	if g.set && g.prev == ':' && g.spaces == 0 && n > 0 && n <= maxBareSpaces {
		sc.layout.shifted[n] = true
		sc.layout.cur = gap{}
	}
}

// shiftedQuote refuses a string value recorded by stringRead whose spaces
// at its start are those the text's other values have after their colon:
// the quote may have moved past them.
func (sc *scanner) shiftedQuote() error {
	sc.commitGap()
	if n := sc.layout.seen[0] - 1; n > 0 && n <= maxBareSpaces && !sc.layout.mixed[0] && sc.layout.shifted[n] {
		return malformed("a string value starts with the spaces the text's other values have after their colon, and has none before its quote; whether its quote moved is ambiguous")
	}
	return nil
}

// maxBareSpaces is the most spaces before a bare token whose readings with
// them bareLayout asks the schema about.
const maxBareSpaces = 8

// bareLayout refuses a bare token right after an escape or an invisible
// character, and one whose spaces before it may be its value's own: spaces
// that the text's other values after the same separator do not all have
// (or any after another byte: an opening bracket, a line's indentation),
// where the schema may accept the token with some of them.
func (sc *scanner) bareLayout() error {
	sc.commitGap()
	for _, g := range sc.layout.bare {
		if strings.IndexByte(":,[\n\r\t", g.prev) < 0 {
			return malformed("an unquoted value follows an escape, an invisible character or a token with no colon, comma, bracket or line break between, which may be its own; where the value starts is ambiguous")
		}
		k := g.kind()
		if g.spaces == 0 || k >= 0 && !sc.layout.mixed[k] && sc.layout.seen[k] == g.spaces+1 {
			continue // the text's layout
		}
		for n := 1; n <= g.spaces; n++ {
			if n > maxBareSpaces || sc.schema.AcceptsString(g.path, strings.Repeat(" ", n)+g.token) {
				return malformed("an unquoted value has spaces before it that the text's other values do not, and the schema accepts it with them; whether they are the value's own is ambiguous")
			}
		}
	}
	return nil
}
