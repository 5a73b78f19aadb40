package saidex

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// byteChecker is the byte-level counterpart of [checker]: it reads a raw
// argument string with a streaming tokenizer (jsontext) and reports
// whether it is certainly one JSON object that encoding/json decodes
// without loss and that santhosh-tekuri accepts. A call whose arguments it
// accepts skips repair and decoding (see [ToolNode.prepare]).
//
// Like checker it supports the common keyword subset only (a schema with
// any other keyword gets no byte checker), and false means only "not
// known to be valid": duplicate member names, invalid UTF-8, trailing
// data, a root that is not an object, nesting deeper than jsontext's
// limit (10,000 levels, as encoding/json's; TestFastBytesDepthLimit pins
// that jsontext is never the more lenient), numbers near a bound where float64 rounding could
// matter, and anything else in doubt all answer false, and the call takes
// the ordinary path, which decides and explains.
type byteChecker struct {
	root *bnode
}

// fastBytesOpts are the decoder options: the jsontext defaults reject
// duplicate names and invalid UTF-8 already; they are spelled out here
// so a change of default cannot loosen the check.
var fastBytesOpts = []jsontext.Options{
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
}

// Type bits of a bnode.
const (
	btNull uint8 = 1 << iota
	btBoolean
	btNumber
	btInteger
	btString
	btArray
	btObject
)

// bnode is one compiled subschema of a byteChecker.
type bnode struct {
	always *bool // a boolean schema

	// Applicators on the same value; each needs its own pass over it.
	same  []*bnode // $ref, allOf: all must hold
	anyOf []*bnode // one must hold
	alias *bnode   // set when the schema is exactly one $ref or allOf entry

	hasOwn bool // any keyword below is set

	types  uint8 // 0: any type
	enum   []any // strings, booleans, nil; nil slice: no enum
	hasEnm bool
	format func(any) error

	// Object keywords.
	hasObj           bool
	props            map[string]*bnode
	reqIdx           map[string]int // distinct required names → bit
	reqMask          uint64
	rejectAdditional bool
	additional       *bnode // nil: any member allowed
	minP, maxP       int    // -1: none

	// Array keywords.
	hasArr     bool
	items      *bnode
	minI, maxI int

	// String keywords.
	hasStr     bool
	minL, maxL int
	pattern    jsonschema.Regexp

	// Number keywords.
	hasNum                   bool
	minB, maxB, xminB, xmaxB *numBound
}

// compileFastBytes compiles the byte checker of a schema, or returns nil
// when some reachable subschema uses a keyword outside the subset
// [compileFast] supports (or more than 64 distinct required names).
func compileFastBytes(root *jsonschema.Schema) *byteChecker {
	b := bytesBuilder{memo: map[*jsonschema.Schema]*bnode{}}
	n, ok := b.build(root)
	if !ok {
		return nil
	}
	return &byteChecker{root: n}
}

type bytesBuilder struct {
	memo map[*jsonschema.Schema]*bnode
}

func (b *bytesBuilder) build(s *jsonschema.Schema) (*bnode, bool) {
	if n, ok := b.memo[s]; ok {
		return n, true // recursive schema: filled in by the outer call
	}
	n := &bnode{minP: -1, maxP: -1, minI: -1, maxI: -1, minL: -1, maxL: -1}
	b.memo[s] = n
	if !fastSupported(s) { // fast.go: the same subset
		return nil, false
	}
	if s.Bool != nil {
		v := *s.Bool
		n.always = &v
		return n, true
	}
	sub := func(x *jsonschema.Schema) (*bnode, bool) { return b.build(x) }
	if s.Types != nil && !s.Types.IsEmpty() {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				n.types |= btNull
			case "boolean":
				n.types |= btBoolean
			case "number":
				n.types |= btNumber
			case "integer":
				n.types |= btInteger
			case "string":
				n.types |= btString
			case "array":
				n.types |= btArray
			case "object":
				n.types |= btObject
			default:
				return nil, false
			}
		}
		n.hasOwn = true
	}
	if s.Enum != nil {
		n.enum, n.hasEnm, n.hasOwn = s.Enum.Values, true, true
	}
	if s.Format != nil {
		n.format, n.hasOwn = s.Format.Validate, true
	}
	if s.Ref != nil {
		x, ok := sub(s.Ref)
		if !ok {
			return nil, false
		}
		n.same = append(n.same, x)
	}
	for _, a := range s.AllOf {
		x, ok := sub(a)
		if !ok {
			return nil, false
		}
		n.same = append(n.same, x)
	}
	for _, a := range s.AnyOf {
		x, ok := sub(a)
		if !ok {
			return nil, false
		}
		n.anyOf = append(n.anyOf, x)
	}
	if s.Properties != nil || s.Required != nil || s.AdditionalProperties != nil || s.MinProperties != nil || s.MaxProperties != nil {
		n.hasObj, n.hasOwn = true, true
		n.props = make(map[string]*bnode, len(s.Properties))
		for name, x := range s.Properties {
			c, ok := sub(x)
			if !ok {
				return nil, false
			}
			n.props[name] = c
		}
		n.reqIdx = map[string]int{}
		for _, r := range s.Required {
			if _, dup := n.reqIdx[r]; dup {
				continue
			}
			if len(n.reqIdx) == 64 {
				return nil, false
			}
			n.reqIdx[r] = len(n.reqIdx)
			n.reqMask |= 1 << (len(n.reqIdx) - 1)
		}
		switch a := s.AdditionalProperties.(type) {
		case bool:
			n.rejectAdditional = !a
		case *jsonschema.Schema:
			c, ok := sub(a)
			if !ok {
				return nil, false
			}
			n.additional = c
		}
		if s.MinProperties != nil {
			n.minP = *s.MinProperties
		}
		if s.MaxProperties != nil {
			n.maxP = *s.MaxProperties
		}
	}
	if s.MinItems != nil || s.MaxItems != nil || s.Items2020 != nil {
		n.hasArr, n.hasOwn = true, true
		if s.Items2020 != nil {
			c, ok := sub(s.Items2020)
			if !ok {
				return nil, false
			}
			n.items = c
		}
		if s.MinItems != nil {
			n.minI = *s.MinItems
		}
		if s.MaxItems != nil {
			n.maxI = *s.MaxItems
		}
	}
	if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil {
		n.hasStr, n.hasOwn = true, true
		if s.MinLength != nil {
			n.minL = *s.MinLength
		}
		if s.MaxLength != nil {
			n.maxL = *s.MaxLength
		}
		n.pattern = s.Pattern
	}
	n.minB, n.maxB = newNumBound(s.Minimum), newNumBound(s.Maximum)
	n.xminB, n.xmaxB = newNumBound(s.ExclusiveMinimum), newNumBound(s.ExclusiveMaximum)
	if n.minB != nil || n.maxB != nil || n.xminB != nil || n.xmaxB != nil {
		n.hasNum, n.hasOwn = true, true
	}
	if !n.hasOwn && len(n.same) == 1 && len(n.anyOf) == 0 {
		n.alias = n.same[0]
	}
	return n, true
}

// bscan is the state of one pass over a value: a decoder over a private
// copy of the bytes (jsontext writes into the buffer it reads).
type bscan struct {
	dec     jsontext.Decoder
	buf     bytes.Buffer
	scratch []byte // unquoted strings with escapes
	lax     bool   // record numbers written with a fraction or exponent
	loose   bool   // such a number was seen (lax only)
}

var bscanPool = sync.Pool{New: func() any { return new(bscan) }}

// maxPooledScan is the largest buffer a bscan keeps when returned to the
// pool, so one huge argument string does not stay allocated.
const maxPooledScan = 64 << 10

// getScan returns a pooled scan over a copy of text.
func getScan(text string, bytesText []byte, lax bool) *bscan {
	s := bscanPool.Get().(*bscan)
	s.buf.Reset()
	if bytesText != nil {
		s.buf.Write(bytesText)
	} else {
		s.buf.WriteString(text)
	}
	s.dec.Reset(&s.buf, fastBytesOpts...)
	s.lax, s.loose = lax, false
	return s
}

func putScan(s *bscan) {
	if s.buf.Cap() > maxPooledScan || cap(s.scratch) > maxPooledScan {
		return
	}
	bscanPool.Put(s)
}

// valid reports whether raw is certainly a single JSON object, decoded by
// encoding/json to exactly the value jsontext reads, that the schema
// accepts. lax (the node coerces with CoerceLax) makes it also refuse
// arguments holding a number written with a fraction or an exponent,
// which that mode may rewrite even in a valid call.
func (b *byteChecker) valid(raw string, lax bool) bool {
	if b == nil {
		return false
	}
	s := getScan(raw, nil, lax)
	defer putScan(s)
	if s.dec.PeekKind() != '{' {
		return false
	}
	return s.value(b.root) && s.atEOF() && !s.loose
}

// atEOF reports whether nothing but white space follows the value read.
func (s *bscan) atEOF() bool {
	_, err := s.dec.ReadValue()
	return err == io.EOF
}

// value reads one value and reports whether n certainly accepts it.
func (s *bscan) value(n *bnode) bool {
	for n.alias != nil {
		n = n.alias
	}
	if n.always != nil {
		return *n.always && s.skip()
	}
	if len(n.same) == 0 && len(n.anyOf) == 0 {
		if !n.hasOwn {
			return s.skip()
		}
		return s.own(n)
	}
	// Several schemas apply to this value: read it once, then check each
	// on a fresh decoder over a copy.
	v, err := s.dec.ReadValue()
	if err != nil {
		return false
	}
	raw := bytes.Clone(v) // v is valid only until the next read
	if n.hasOwn && !s.pass(raw, n, true) {
		return false
	}
	for _, x := range n.same {
		if !s.pass(raw, x, false) {
			return false
		}
	}
	if len(n.anyOf) == 0 {
		return true
	}
	for _, x := range n.anyOf {
		if s.pass(raw, x, false) {
			return true
		}
	}
	return false
}

// pass checks the single value raw against n on a decoder of its own;
// ownOnly checks n's own keywords without its applicators.
func (s *bscan) pass(raw []byte, n *bnode, ownOnly bool) bool {
	p := getScan("", raw, s.lax)
	defer putScan(p)
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
func (s *bscan) skip() bool {
	if !s.lax {
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

func (s *bscan) noteNumber(lit []byte) {
	if s.lax && bytes.ContainsAny(lit, ".eE") {
		s.loose = true
	}
}

// own reads one value and checks n's own keywords (not its applicators).
func (s *bscan) own(n *bnode) bool {
	switch s.dec.PeekKind() {
	case 'n':
		if _, err := s.dec.ReadValue(); err != nil {
			return false
		}
		return n.typeOK(btNull) && n.enumOK(nil) && n.formatOK(nil)
	case 't', 'f':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		b := v[0] == 't'
		return n.typeOK(btBoolean) && n.enumOK(b) && n.formatOK(b)
	case '"':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		str, ok := s.unquote(v)
		return ok && n.typeOK(btString) && n.stringOK(str)
	case '0':
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		s.noteNumber(v)
		return n.numberOK(v)
	case '{':
		return n.typeOK(btObject) && n.format == nil && !n.hasEnm && s.object(n)
	case '[':
		return n.typeOK(btArray) && n.format == nil && !n.hasEnm && s.array(n)
	}
	return false
}

func (n *bnode) typeOK(t uint8) bool {
	return n.types == 0 || n.types&t != 0
}

func (n *bnode) enumOK(v any) bool {
	if !n.hasEnm {
		return true
	}
	for _, w := range n.enum {
		if v == w {
			return true
		}
	}
	return false
}

func (n *bnode) formatOK(v any) bool {
	return n.format == nil || n.format(v) == nil
}

// unquote returns the decoded content of a JSON string token. The result
// may alias the decoder's buffer or s.scratch: use it before the next read.
func (s *bscan) unquote(v []byte) ([]byte, bool) {
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

func (n *bnode) stringOK(str []byte) bool {
	if n.hasEnm {
		found := false
		for _, w := range n.enum {
			if ws, ok := w.(string); ok && ws == string(str) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.minL >= 0 || n.maxL >= 0 {
		c := utf8.RuneCount(str) // maxLength counts code points
		if (n.minL >= 0 && c < n.minL) || (n.maxL >= 0 && c > n.maxL) {
			return false
		}
	}
	if n.pattern != nil || n.format != nil {
		v := string(str)
		if n.pattern != nil && !n.pattern.MatchString(v) {
			return false
		}
		if n.format != nil && n.format(v) != nil {
			return false
		}
	}
	return true
}

func (n *bnode) numberOK(lit []byte) bool {
	if n.types != 0 && n.types&btNumber == 0 && (n.types&btInteger == 0 || !isPlainIntegerBytes(lit)) {
		return false
	}
	if n.hasEnm {
		return false // the enum holds no numbers (fastSupported)
	}
	if n.format != nil && n.format(json.Number(lit)) != nil {
		return false
	}
	if !n.hasNum {
		return true
	}
	x, err := strconv.ParseFloat(string(lit), 64)
	if err != nil { // out of range: ±Inf
		return false
	}
	exact := isPlainIntegerBytes(lit)
	if n.minB != nil {
		if c, ok := n.minB.compare(x, exact); !ok || c < 0 {
			return false
		}
	}
	if n.maxB != nil {
		if c, ok := n.maxB.compare(x, exact); !ok || c > 0 {
			return false
		}
	}
	if n.xminB != nil {
		if c, ok := n.xminB.compare(x, exact); !ok || c <= 0 {
			return false
		}
	}
	if n.xmaxB != nil {
		if c, ok := n.xmaxB.compare(x, exact); !ok || c >= 0 {
			return false
		}
	}
	return true
}

// isPlainIntegerBytes is [isPlainInteger] for a byte slice.
func isPlainIntegerBytes(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (s *bscan) object(n *bnode) bool {
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
			return seen == n.reqMask && (n.minP < 0 || count >= n.minP) && (n.maxP < 0 || count <= n.maxP)
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
		if i, ok := n.reqIdx[string(name)]; ok {
			seen |= 1 << i
		}
		child, known := n.props[string(name)]
		if !known {
			if n.rejectAdditional {
				return false
			}
			child = n.additional
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

func (s *bscan) array(n *bnode) bool {
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
			return (n.minI < 0 || count >= n.minI) && (n.maxI < 0 || count <= n.maxI)
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

// rawValid is the fast path of [ToolNode.prepare]: when c's arguments, as
// sent, are certainly valid for a tool without validators (which need the
// decoded value), it marks c valid with its raw text as the arguments and
// no decoded value, and reports true. Otherwise it leaves c untouched.
func (n *ToolNode) rawValid(c *call) bool {
	t := c.tool
	if t == nil || t.schema == nil || t.schema.fastBytes == nil || len(t.validators) > 0 ||
		len(c.raw) > n.cfg.maxArgumentBytes {
		return false
	}
	if !t.schema.fastBytes.valid(c.raw, n.cfg.coercion == CoerceLax) {
		return false
	}
	c.args, c.status, c.rawValid = c.raw, statusValid, true
	return true
}
