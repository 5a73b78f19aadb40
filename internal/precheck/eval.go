package precheck

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/saidex/saidex-go/internal/jsonread"
)

// Valid reports whether text is certainly one JSON object, decoded by
// encoding/json to exactly the value jsontext reads, that the schema
// accepts. text is copied once, into bytes of a pooled decoder
// (jsonread.NewStringDecoder), and not retained. A nil Checker reports
// false.
func (c *Checker) Valid(text string) bool {
	return c.valid(text, false)
}

// ValidPlainNumbers is [Checker.Valid] that also reports false when text
// holds a number written with a fraction or an exponent (5.0, 1e2, 0.5),
// which lax coercion may rewrite even in valid arguments.
func (c *Checker) ValidPlainNumbers(text string) bool {
	return c.valid(text, true)
}

func (c *Checker) valid(text string, plain bool) bool {
	if c == nil {
		return false
	}
	if fastValid(c.root, text, plain) {
		return true
	}
	s := newScan(jsonread.NewStringDecoder(text, true), plain)
	defer s.release()
	if s.dec.PeekKind() != '{' {
		return false
	}
	return s.value(c.root) && s.atEOF() && !s.loose
}

// scan is one pass over a JSON text: a jsonread decoder in strict mode
// (repeated names and invalid UTF-8, which encoding/json would read
// differently, are errors).
type scan struct {
	data    []byte // the decoder's text
	dec     *jsonread.Decoder
	scratch []byte // unquoted strings with escapes
	plain   bool   // record numbers written with a fraction or exponent
	loose   bool   // such a number was seen (plain only)
}

var scanPool = sync.Pool{New: func() any { return new(scan) }}

// maxPooledScratch is the largest scratch buffer a pooled scan keeps.
const maxPooledScratch = 64 << 10

// newScan returns a pooled scan over the text of dec, a strict decoder,
// which it releases with the scan; the caller releases the scan.
func newScan(dec *jsonread.Decoder, plain bool) *scan {
	s := scanPool.Get().(*scan)
	s.data, s.plain, s.loose = dec.Bytes(), plain, false
	s.dec = dec
	return s
}

func (s *scan) release() {
	s.dec.Release()
	s.data, s.dec = nil, nil
	if cap(s.scratch) > maxPooledScratch {
		s.scratch = nil
	}
	scanPool.Put(s)
}

// atEOF reports whether nothing but white space follows the value read.
func (s *scan) atEOF() bool {
	_, err := s.dec.ReadValue()
	return err == io.EOF
}

// value reads one value and reports whether n certainly accepts it.
func (s *scan) value(n *node) bool {
	switch {
	case n.never:
		return false
	case len(n.anyOf) > 0:
		return s.alternatives(n)
	case n.free:
		return s.skip()
	}
	return s.own(n)
}

// alternatives checks a value against a node with anyOf: it reads the
// value once, then checks it on a fresh decoder over the same bytes for
// the node's other keywords and for the alternatives of each group.
func (s *scan) alternatives(n *node) bool {
	v, err := s.dec.ReadValue()
	if err != nil {
		return false
	}
	end := int(s.dec.InputOffset())
	raw := s.data[end-len(v) : end] // the text's bytes, not the decoder's view
	if !n.ownFree && !s.pass(raw, n, true) {
		return false
	}
	for _, group := range n.anyOf {
		matched := false
		for _, alt := range group {
			if s.pass(raw, alt, false) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// pass checks the single value raw, part of s's text, against n on a
// decoder of its own reading raw in place; ownOnly checks n without its
// anyOf groups.
func (s *scan) pass(raw []byte, n *node, ownOnly bool) bool {
	p := newScan(jsonread.NewDecoder(raw, true), s.plain)
	defer p.release()
	var ok bool
	if ownOnly {
		ok = p.own(n)
	} else {
		ok = p.value(n)
	}
	ok = ok && p.atEOF()
	s.loose = s.loose || p.loose
	return ok
}

// skip reads one value that no keyword constrains.
func (s *scan) skip() bool {
	if !s.plain {
		return s.dec.SkipValue() == nil
	}
	switch s.dec.PeekKind() {
	case '{', '[':
		if _, err := s.dec.ReadToken(); err != nil {
			return false
		}
		for {
			switch s.dec.PeekKind() {
			case '}', ']':
				_, err := s.dec.ReadToken()
				return err == nil
			case '"':
				if _, err := s.dec.ReadValue(); err != nil { // a name or a string
					return false
				}
			case 0:
				return false
			default:
				if !s.skip() {
					return false
				}
			}
		}
	case '0':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		s.noteNumber(v)
		return true
	case 0:
		return false
	}
	_, err := s.dec.ReadValue()
	return err == nil
}

func (s *scan) noteNumber(lit []byte) {
	if s.plain && bytes.ContainsAny(lit, ".eE") {
		s.loose = true
	}
}

// own reads one value and checks n's keywords other than anyOf.
func (s *scan) own(n *node) bool {
	switch s.dec.PeekKind() {
	case 'n':
		if _, err := s.dec.ReadValue(); err != nil {
			return false
		}
		return n.kinds&kNull != 0 && n.scalarOK(kNull, nil)
	case 't', 'f':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		b := v[0] == 't'
		return n.kinds&kBoolean != 0 && n.scalarOK(kBoolean, b)
	case '"':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		str, ok := s.unquote(v)
		return ok && n.kinds&kString != 0 && n.stringOK(str)
	case '0':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		s.noteNumber(v)
		return n.kinds&(kNumber|kInteger) != 0 && n.numberOK(v)
	case '{':
		return n.kinds&kObject != 0 && !n.compound && s.object(n)
	case '[':
		return n.kinds&kArray != 0 && !n.compound && s.array(n)
	}
	return false
}

// scalarOK checks null and boolean values against the schemas' types,
// enums and formats.
func (n *node) scalarOK(kind uint8, v any) bool {
	for _, o := range n.scalars {
		if o.types != 0 && o.types&kind == 0 {
			return false
		}
		if o.hasEnum && !enumHas(o.enum, v) {
			return false
		}
		if o.format != nil && o.format(v) != nil {
			return false
		}
	}
	return true
}

func enumHas(enum []any, v any) bool {
	for _, w := range enum {
		if v == w {
			return true
		}
	}
	return false
}

// unquote returns the decoded content of a JSON string token. The result
// may alias the decoder's buffer or s.scratch: use it before the next read.
func (s *scan) unquote(v []byte) ([]byte, bool) {
	if len(v) < 2 {
		return nil, false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], true // the decoder checked it is valid UTF-8
	}
	out, err := jsontext.AppendUnquote(s.scratch[:0], v)
	if err != nil {
		return nil, false
	}
	s.scratch = out
	return out, true
}

func (n *node) stringOK(str []byte) bool {
	for _, o := range n.scalars {
		if o.types != 0 && o.types&kString == 0 {
			return false
		}
		if o.strs != nil {
			if _, found := o.strs[string(str)]; !found {
				return false
			}
		} else if o.hasEnum {
			found := false
			for _, w := range o.enum {
				if ws, ok := w.(string); ok && ws == string(str) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		if o.minL >= 0 || o.maxL >= 0 {
			c := utf8.RuneCount(str) // lengths count code points
			if (o.minL >= 0 && c < o.minL) || (o.maxL >= 0 && c > o.maxL) {
				return false
			}
		}
		if o.pattern != nil || o.format != nil {
			v := string(str)
			if o.pattern != nil && !o.pattern.MatchString(v) {
				return false
			}
			if o.format != nil && o.format(v) != nil {
				return false
			}
		}
	}
	return true
}

// num is a JSON number as a node's checks read it: its literal and, when
// dec, the number exactly as (-1 if neg) m / 10^frac, m of at most 15
// digits (a float64 holds m and 10^frac exactly).
type num struct {
	lit  []byte
	m    int64
	frac int8
	neg  bool
	dec  bool
}

// plainInt reports whether v is an integer written without a fraction or
// an exponent, of at most 15 digits.
func (v num) plainInt() bool { return v.dec && v.frac == 0 }

// float returns v as strconv.ParseFloat does; false when it is out of
// float64's range. A dec number is converted without ParseFloat: m and
// 10^frac are exact, so their quotient is correctly rounded.
func (v num) float() (float64, bool) {
	if !v.dec {
		x, err := strconv.ParseFloat(string(v.lit), 64)
		return x, err == nil // out of range: ±Inf and an error
	}
	x := float64(v.m) / pow10[v.frac]
	if v.neg {
		x = -x
	}
	return x, true
}

// numberOK reports whether n certainly accepts the JSON number lit.
func (n *node) numberOK(lit []byte) bool {
	f := fscan{b: lit}
	v, ok := f.number()
	if !ok || f.i != len(lit) {
		v = num{lit: lit} // (not a JSON number: the checks parse it)
	}
	return n.numOK(v)
}

// numOK is numberOK on a number read already. It converts v to a float64
// only for a bound it cannot compare exactly (bound.place).
func (n *node) numOK(v num) bool {
	var x float64
	converted := false
	for _, o := range n.scalars {
		if o.types != 0 && o.types&kNumber == 0 && (o.types&kInteger == 0 || !v.plainInt()) {
			return false
		}
		if o.hasEnum {
			return false // the enum holds no numbers (supported)
		}
		if o.format != nil && o.format(json.Number(v.lit)) != nil {
			return false
		}
		for i := range o.bounds {
			b := &o.bounds[i]
			if p, ok := b.place(v); ok {
				if b.ok&p == 0 {
					return false
				}
				continue
			}
			if !converted {
				var ok bool
				if x, ok = v.float(); !ok {
					return false
				}
				converted = true
			}
			if !b.holds(x, v.plainInt()) {
				return false
			}
		}
	}
	return true
}

// pow10 holds the powers of ten a float64 holds exactly that num.float
// divides by, and pow10i the same as integers.
var (
	pow10  = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
	pow10i = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
)

func (s *scan) object(n *node) bool {
	if !n.hasObj {
		return s.skip()
	}
	if _, err := s.dec.ReadToken(); err != nil { // '{'
		return false
	}
	count := 0
	var seen uint64
	for {
		switch s.dec.PeekKind() {
		case '}':
			if _, err := s.dec.ReadToken(); err != nil {
				return false
			}
			return n.objectCounts(seen, count)
		case '"':
		default:
			return false
		}
		v, err := s.dec.ReadValue() // the member name
		if err != nil {
			return false
		}
		name, ok := s.unquote(v)
		if !ok {
			return false
		}
		count++
		m := n.members[string(name)]
		seen |= m.reqBit
		child := m.child
		if !m.listed {
			if n.rejectOther {
				return false
			}
			child = n.other
		}
		if child == nil {
			ok = s.skip()
		} else {
			ok = s.value(child)
		}
		if !ok {
			return false
		}
	}
}

func (s *scan) array(n *node) bool {
	if !n.hasArr {
		return s.skip()
	}
	if _, err := s.dec.ReadToken(); err != nil { // '['
		return false
	}
	count := 0
	for {
		switch s.dec.PeekKind() {
		case ']':
			if _, err := s.dec.ReadToken(); err != nil {
				return false
			}
			return n.arrayCount(count)
		case 0:
			return false
		}
		count++
		var ok bool
		if n.items == nil {
			ok = s.skip()
		} else {
			ok = s.value(n.items)
		}
		if !ok {
			return false
		}
	}
}
