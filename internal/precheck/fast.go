package precheck

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"unicode/utf8"
	"unsafe"
)

// fastValid is the precheck of a text of the common shape, read by a
// scanner of its own rather than by jsontext: member names and strings
// without escapes, at most maxFastMembers members per object that its schema does not list, nesting at
// most maxFastDepth levels, no anyOf to check. It reads the same JSON
// grammar as jsontext in strict mode (white space, literals, numbers,
// strings of valid UTF-8 without control characters, repeated names
// refused) and checks the same keywords with the same node methods, so
// its true is the scan's true; its false means only that the scan must
// decide (Checker.valid then runs it).
func fastValid(root *node, text string, plain bool) bool {
	f := fscan{b: unsafe.Slice(unsafe.StringData(text), len(text)), plain: plain}
	f.ws()
	if f.i >= len(f.b) || f.b[f.i] != '{' || !f.value(root) {
		return false
	}
	f.ws()
	return f.i == len(f.b) && !f.loose
}

// maxFastDepth and maxFastMembers bound what fastValid reads: deeper or
// wider texts go to the jsontext scan.
const (
	maxFastDepth   = 32
	maxFastMembers = 16
)

// fscan is one pass of fastValid over b, which it never writes (it may be
// a string's bytes).
type fscan struct {
	b     []byte
	i     int
	depth int
	plain bool // record numbers written with a fraction or exponent
	loose bool // such a number was seen (plain only)
}

func (f *fscan) ws() {
	for f.i < len(f.b) && f.b[f.i] <= ' ' && (f.b[f.i] == ' ' || f.b[f.i] == '\n' || f.b[f.i] == '\r' || f.b[f.i] == '\t') {
		f.i++
	}
}

// value reads one value after white space and reports whether n (nil:
// unconstrained) certainly accepts it, as scan.value does.
func (f *fscan) value(n *node) bool {
	if n != nil {
		switch {
		case n.never || len(n.anyOf) > 0:
			return false
		case n.free:
			n = nil
		}
	}
	f.ws()
	if f.i >= len(f.b) {
		return false
	}
	switch c := f.b[f.i]; c {
	case '{':
		return (n == nil || n.kinds&kObject != 0 && !n.compound) && f.object(n)
	case '[':
		return (n == nil || n.kinds&kArray != 0 && !n.compound) && f.array(n)
	case '"':
		str, ok := f.str()
		return ok && (n == nil || n.kinds&kString != 0 && n.stringOK(str))
	case 't', 'f':
		lit := "false"
		if c == 't' {
			lit = "true"
		}
		if !f.literal(lit) {
			return false
		}
		return n == nil || n.kinds&kBoolean != 0 && n.scalarOK(kBoolean, c == 't')
	case 'n':
		if !f.literal("null") {
			return false
		}
		return n == nil || n.kinds&kNull != 0 && n.scalarOK(kNull, nil)
	}
	v, ok := f.number()
	return ok && (n == nil || n.kinds&(kNumber|kInteger) != 0 && n.numOK(v))
}

func (f *fscan) literal(lit string) bool {
	if len(f.b)-f.i < len(lit) || string(f.b[f.i:f.i+len(lit)]) != lit {
		return false
	}
	f.i += len(lit)
	return true
}

// plainByte marks the bytes a string holds as they are: not '"', '\\', a
// control character or a byte of a multi-byte UTF-8 sequence.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// The bytes of a word, for reading 8 bytes of a string at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks the bytes of w (little-endian) that are not plain: '"',
// '\\', a control character or a byte of a multi-byte UTF-8 sequence. Its
// lowest set bit is the high bit of the first such byte; bits above it
// may be false alarms (a borrow), never below it.
func special(w uint64) uint64 {
	zeroIn := func(x uint64) uint64 { return (x - ones) &^ x & highs }
	return zeroIn(w^('"'*ones)) | zeroIn(w^('\\'*ones)) | (w-0x20*ones)&^w&highs | w&highs
}

// str reads a string without escapes and returns its content. It skips
// plain bytes 8 at a time (special) while 8 remain, then one at a time
// (plainByte); a byte special finds is not plain, so it goes straight to
// the test of what it is.
func (f *fscan) str() ([]byte, bool) {
	b := f.b
	start := f.i + 1
	high := false
	j := start
	for {
		for j+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				goto notPlain
			}
			j += 8
		}
		for j < len(b) && plainByte[b[j]] {
			j++
		}
		if j >= len(b) {
			return nil, false
		}
	notPlain:
		switch c := b[j]; {
		case c == '"':
			s := b[start:j]
			if high && !utf8.Valid(s) {
				return nil, false
			}
			f.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false // an escape (the scan decides), or a control character
		}
		high = true // a byte of a multi-byte sequence: utf8.Valid checks them at the end
		j++
	}
}

// number reads a number of the JSON grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. When it has no exponent
// and at most 15 digits, it keeps the number exactly as its digits m and
// the count of digits after the point (num.dec): the checks compare that
// with an integer bound in integers, and convert it only for another bound
// (num.float). That keeps strconv.ParseFloat, whose frame is near 1 KB, off
// the stack of the common case; numOK parses the rest. It is the one
// number read of the checks: numberOK reads the jsontext scan's literals
// with it too. A number written with a fraction or an exponent sets loose
// under plain.
func (f *fscan) number() (num, bool) {
	b, i := f.b, f.i
	start := i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var m int64 // the digits read (garbage past 18 of them, unused past 15)
	nd := 0
	switch {
	case i < len(b) && b[i] == '0':
		i, nd = i+1, 1
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			m, nd = m*10+int64(b[i]-'0'), nd+1
		}
	default:
		return num{}, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
			m, nd = m*10+int64(b[j]-'0'), nd+1
		}
		if frac = j - i - 1; frac == 0 {
			return num{}, false
		}
		i = j
	}
	exp := i < len(b) && (b[i] == 'e' || b[i] == 'E')
	if exp {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return num{}, false
		}
		i = j
	}
	f.i = i
	if f.plain && (frac > 0 || exp) {
		f.loose = true
	}
	if exp || nd > 15 {
		return num{lit: b[start:i]}, true
	}
	return num{lit: b[start:i], m: m, frac: int8(frac), neg: neg, dec: true}, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// after reads what follows a member or an item, white space first: the
// closer (end, read) or a comma (read); anything else is not ok.
func (f *fscan) after(closer byte) (end, ok bool) {
	f.ws()
	if f.i >= len(f.b) {
		return false, false
	}
	switch f.b[f.i] {
	case closer:
		f.i++
		return true, true
	case ',':
		f.i++
		return false, true
	}
	return false, false
}

// object reads an object, as scan.object checks it.
func (f *fscan) object(n *node) bool { return f.objectInto(n, nil, reflect.Value{}) }

// array reads an array, as scan.array checks it.
func (f *fscan) array(n *node) bool { return f.arrayInto(n, nil, reflect.Value{}) }

// fastDecode is fastValid fused with decoding, as Checker.Decode is
// scan.into: it reads the text and decodes it into dst, a settable zero
// value of t's type. Its false means only that Checker.Decode must take
// the jsontext scan (dst may then hold part of the value: use a new one).
func fastDecode(root *node, text string, plain bool, t *Target, dst reflect.Value) bool {
	f := fscan{b: unsafe.Slice(unsafe.StringData(text), len(text)), plain: plain}
	f.ws()
	if f.i >= len(f.b) || f.b[f.i] != '{' || !f.into(root, t, dst) {
		return false
	}
	f.ws()
	return f.i == len(f.b) && !f.loose
}

// into is scan.into on fscan.
func (f *fscan) into(n *node, t *Target, dst reflect.Value) bool {
	if n != nil {
		switch {
		case n.never || len(n.anyOf) > 0:
			return false
		case n.free:
			n = nil
		}
	}
	f.ws()
	if f.i >= len(f.b) {
		return false
	}
	c := f.b[f.i]
	if c == 'n' {
		if !f.literal("null") {
			return false
		}
		// null leaves a value as it is, and sets a pointer or slice to
		// nil: both are zero already.
		return n == nil || n.kinds&kNull != 0 && n.scalarOK(kNull, nil)
	}
	if t.kind == tPointer {
		p := reflect.New(t.elem.typ)
		if !f.into(n, t.elem, p.Elem()) {
			return false
		}
		dst.Set(p)
		return true
	}
	switch c {
	case '{':
		return t.kind == tStruct && (n == nil || n.kinds&kObject != 0 && !n.compound) && f.objectInto(n, t, dst)
	case '[':
		return t.kind == tSlice && (n == nil || n.kinds&kArray != 0 && !n.compound) && f.arrayInto(n, t, dst)
	case '"':
		if t.kind != tString {
			return false
		}
		str, ok := f.str()
		if !ok || n != nil && !(n.kinds&kString != 0 && n.stringOK(str)) {
			return false
		}
		if v, ok := n.enumString(str); ok {
			dst.SetString(v) // the enum's own string: equal, and no copy
		} else {
			dst.SetString(string(str))
		}
		return true
	case 't', 'f':
		if t.kind != tBool {
			return false
		}
		lit := "false"
		if c == 't' {
			lit = "true"
		}
		if !f.literal(lit) || n != nil && !(n.kinds&kBoolean != 0 && n.scalarOK(kBoolean, c == 't')) {
			return false
		}
		dst.SetBool(c == 't')
		return true
	}
	v, ok := f.number()
	if !ok || n != nil && !(n.kinds&(kNumber|kInteger) != 0 && n.numOK(v)) {
		return false
	}
	return setNumber(t, dst, v.lit)
}

// objectInto is object for a struct target t (nil: check only, as object):
// every member must name a field exactly, and its value is decoded into
// that field of dst.
func (f *fscan) objectInto(n *node, t *Target, dst reflect.Value) bool {
	if n != nil && !n.hasObj {
		n = nil
	}
	if f.depth++; f.depth > maxFastDepth {
		return false
	}
	f.i++                                                 // '{'
	var others [maxFastMembers]struct{ start, end int32 } // names not in n.few, for repeats
	nOthers, count := 0, 0
	var got uint64 // the members of n.few read
	var seen uint64
	f.ws()
	if f.i < len(f.b) && f.b[f.i] == '}' {
		f.i++
	} else {
		for {
			f.ws()
			if f.i >= len(f.b) || f.b[f.i] != '"' {
				return false
			}
			start := f.i + 1
			name, ok := f.str()
			if !ok {
				return false
			}
			var m member
			k := -1
			if n != nil {
				m, k = n.member(name)
			}
			if k >= 0 { // a listed name: its bit tells a repeat
				if got&(1<<k) != 0 {
					return false // a repeated name
				}
				got |= 1 << k
			} else {
				for _, prev := range others[:nOthers] {
					if string(f.b[prev.start:prev.end]) == string(name) {
						return false // a repeated name
					}
				}
				if nOthers == maxFastMembers {
					return false
				}
				others[nOthers] = struct{ start, end int32 }{int32(start), int32(start + len(name))}
				nOthers++
			}
			count++
			var fld targetField
			if t != nil {
				if fld, ok = t.fields[string(name)]; !ok {
					return false
				}
			}
			f.ws()
			if f.i >= len(f.b) || f.b[f.i] != ':' {
				return false
			}
			f.i++
			var child *node
			if n != nil {
				seen |= m.reqBit
				child = m.child
				if !m.listed {
					if n.rejectOther {
						return false
					}
					child = n.other
				}
			}
			if t == nil {
				ok = f.value(child)
			} else {
				ok = f.into(child, fld.t, dst.Field(fld.index))
			}
			if !ok {
				return false
			}
			if end, ok := f.after('}'); !ok {
				return false
			} else if end {
				break
			}
		}
	}
	f.depth--
	return n == nil || n.objectCounts(seen, count)
}

// arrayInto is array for a slice target t (nil: check only, as array):
// the items are decoded into a new slice, which dst is set to.
func (f *fscan) arrayInto(n *node, t *Target, dst reflect.Value) bool {
	if n != nil && !n.hasArr {
		n = nil
	}
	if f.depth++; f.depth > maxFastDepth {
		return false
	}
	f.i++ // '['
	count := 0
	var items *node
	if n != nil {
		items = n.items
	}
	var out reflect.Value
	if t != nil {
		out = reflect.MakeSlice(t.typ, 0, 0)
	}
	f.ws()
	if f.i < len(f.b) && f.b[f.i] == ']' {
		f.i++
	} else {
		for {
			count++
			var ok bool
			if t == nil {
				ok = f.value(items)
			} else {
				out = reflect.Append(out, reflect.Zero(t.elem.typ))
				ok = f.into(items, t.elem, out.Index(out.Len()-1))
			}
			if !ok {
				return false
			}
			if end, ok := f.after(']'); !ok {
				return false
			} else if end {
				break
			}
		}
	}
	f.depth--
	if t != nil {
		dst.Set(out)
	}
	return n == nil || n.arrayCount(count)
}

// objectCounts reports whether an object of count members, with seen the
// required bits of those it holds, meets n's required, minProperties and
// maxProperties keywords: the last check of every scan of an object.
func (n *node) objectCounts(seen uint64, count int) bool {
	return seen == n.reqMask && (n.minP < 0 || count >= n.minP) && (n.maxP < 0 || count <= n.maxP)
}

// arrayCount reports whether an array of count items meets n's minItems
// and maxItems keywords: the last check of every scan of an array.
func (n *node) arrayCount(count int) bool {
	return (n.minI < 0 || count >= n.minI) && (n.maxI < 0 || count <= n.maxI)
}

// enumString returns the string of a small enum of n equal to str, if
// there is one.
func (n *node) enumString(str []byte) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, o := range n.scalars {
		if !o.hasEnum || o.strs != nil {
			continue
		}
		for _, w := range o.enum {
			if ws, ok := w.(string); ok && ws == string(str) {
				return ws, true
			}
		}
	}
	return "", false
}
