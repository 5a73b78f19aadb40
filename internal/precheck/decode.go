package precheck

import (
	"reflect"
	"strconv"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// Target is a Go type the precheck can decode into while it checks (see
// [Checker.Decode]): a struct type whose values are built only from
// strings, booleans, integers, floating-point numbers, pointers, slices
// and structs of such values, with no methods on any of them and no
// embedded, untagged-conflicting or specially tagged fields. For such a
// type the meaning of a JSON text that the precheck reads without doubt
// is plain: encoding/json (and go-json-experiment's v1 semantics) set
// each field named exactly by a member from that member's value, and
// nothing else.
type Target struct {
	typ    reflect.Type
	kind   targetKind
	bits   int                    // integers and floats
	fields map[string]targetField // structs: by exact JSON name
	elem   *Target                // pointers and slices
}

type targetKind uint8

const (
	tString targetKind = iota
	tBool
	tInt
	tUint
	tFloat
	tStruct
	tPointer
	tSlice
)

type targetField struct {
	index int
	t     *Target
}

// NewTarget returns the decode target of typ, a struct type, or nil when
// typ or a type it reaches is outside what [Target] describes.
func NewTarget(typ reflect.Type) *Target {
	if typ.Kind() != reflect.Struct {
		return nil
	}
	t, ok := buildTarget(typ, map[reflect.Type]*Target{})
	if !ok {
		return nil
	}
	return t
}

func buildTarget(typ reflect.Type, memo map[reflect.Type]*Target) (*Target, bool) {
	if t, ok := memo[typ]; ok {
		return t, true // a recursive type: filled in by the outer call
	}
	// Any method may be an unmarshaler of one of the decoders' interfaces
	// (UnmarshalJSON, UnmarshalText, UnmarshalJSONFrom) or mark a type
	// they treat apart (json.Number, time.Duration): such types are left
	// to the decoder.
	if typ.NumMethod() > 0 || reflect.PointerTo(typ).NumMethod() > 0 || typ.PkgPath() == "time" {
		return nil, false
	}
	t := &Target{typ: typ}
	memo[typ] = t
	switch typ.Kind() {
	case reflect.String:
		t.kind = tString
	case reflect.Bool:
		t.kind = tBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		t.kind, t.bits = tInt, typ.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		t.kind, t.bits = tUint, typ.Bits()
	case reflect.Float32, reflect.Float64:
		t.kind, t.bits = tFloat, typ.Bits()
	case reflect.Pointer, reflect.Slice:
		if typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Uint8 {
			return nil, false // []byte is base64 text
		}
		t.kind = tPointer
		if typ.Kind() == reflect.Slice {
			t.kind = tSlice
		}
		e, ok := buildTarget(typ.Elem(), memo)
		if !ok {
			return nil, false
		}
		t.elem = e
	case reflect.Struct:
		t.kind = tStruct
		t.fields = map[string]targetField{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				return nil, false // embedded fields: their members are promoted
			}
			tag, tagged := f.Tag.Lookup("json")
			if !f.IsExported() {
				if tagged {
					return nil, false
				}
				continue
			}
			name, ok := fieldName(f.Name, tag, tagged)
			if !ok {
				return nil, false
			}
			if name == "" {
				continue // json:"-"
			}
			if _, dup := t.fields[name]; dup {
				return nil, false // both fields are ignored
			}
			ft, ok := buildTarget(f.Type, memo)
			if !ok {
				return nil, false
			}
			t.fields[name] = targetField{index: i, t: ft}
		}
		// Two names equal but for case: a member matching neither exactly
		// is read by case-insensitive matching, which Decode leaves to the
		// decoder (it refuses any member not named exactly), so they need
		// nothing here.
	default:
		return nil, false
	}
	return t, true
}

// fieldName returns the JSON name of a field with tag (a json tag when
// tagged): "" for a field left out (json:"-"), false for a tag outside
// what Target describes (a quoted name, options other than omitempty and
// omitzero, a name other than ASCII letters, digits, '_' and '-').
func fieldName(goName, tag string, tagged bool) (string, bool) {
	if !tagged {
		return goName, true
	}
	if tag == "-" {
		return "", true
	}
	name, opts := tag, ""
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			name, opts = tag[:i], tag[i+1:]
			break
		}
	}
	for opts != "" {
		opt := opts
		for i := 0; i < len(opts); i++ {
			if opts[i] == ',' {
				opt, opts = opts[:i], opts[i+1:]
				break
			}
		}
		if opt == opts {
			opts = ""
		}
		if opt != "omitempty" && opt != "omitzero" {
			return "", false
		}
	}
	if name == "" {
		return goName, true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return "", false
		}
	}
	return name, true
}

// Decode is [Checker.Valid] (or ValidPlainNumbers, when plain) fused with
// decoding: in the same single pass over text it checks the schema's
// keywords and decodes into a new value of t's type. It returns a pointer
// to that value (as any) and true when text is certainly accepted by the
// schema and the value is exactly the one encoding/json's Unmarshal (and
// go-json-experiment's v1 semantics) would decode; nil and false
// otherwise, which means only "not known": the caller then takes the
// path of Valid and the decoder. Beyond Valid's refusals it refuses a
// member that names no field exactly, a value of another JSON type than
// its field's, an integer field's number with a fraction or exponent or
// out of its range, a float out of range, and anything under anyOf.
func (c *Checker) Decode(text string, plain bool, t *Target) (any, bool) {
	if c == nil || t == nil || text == "" {
		return nil, false
	}
	p := reflect.New(t.typ)
	if fastDecode(c.root, text, plain, t, p.Elem()) {
		return p.Interface(), true
	}
	return c.slowDecode(text, plain, t)
}

// slowDecode is Decode on the jsontext scan.
func (c *Checker) slowDecode(text string, plain bool, t *Target) (any, bool) {
	s := newScan(jsonread.NewStringDecoder(text, true), plain)
	defer s.release()
	if s.dec.PeekKind() != '{' {
		return nil, false
	}
	p := reflect.New(t.typ)
	if !s.into(c.root, t, p.Elem()) || !s.atEOF() || s.loose {
		return nil, false
	}
	return p.Interface(), true
}

// into reads one value, checks it against n (nil: unconstrained) as value
// does, and decodes it into dst, a settable zero value of t's type.
func (s *scan) into(n *node, t *Target, dst reflect.Value) bool {
	if n != nil {
		switch {
		case n.never || len(n.anyOf) > 0:
			return false
		case n.free:
			n = nil
		}
	}
	switch s.dec.PeekKind() {
	case 'n':
		if _, err := s.dec.ReadValue(); err != nil {
			return false
		}
		// null leaves a value as it is, and sets a pointer or slice to
		// nil: both are zero already.
		return n == nil || n.kinds&kNull != 0 && n.scalarOK(kNull, nil)
	case 't', 'f':
		if t.kind == tPointer {
			return s.intoPointer(n, t, dst)
		}
		if t.kind != tBool {
			return false
		}
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		b := v[0] == 't'
		if n != nil && !(n.kinds&kBoolean != 0 && n.scalarOK(kBoolean, b)) {
			return false
		}
		dst.SetBool(b)
		return true
	case '"':
		if t.kind == tPointer {
			return s.intoPointer(n, t, dst)
		}
		if t.kind != tString {
			return false
		}
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		str, ok := s.unquote(v)
		if !ok || n != nil && !(n.kinds&kString != 0 && n.stringOK(str)) {
			return false
		}
		dst.SetString(string(str))
		return true
	case '0':
		if t.kind == tPointer {
			return s.intoPointer(n, t, dst)
		}
		v, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		s.noteNumber(v)
		if n != nil && !(n.kinds&(kNumber|kInteger) != 0 && n.numberOK(v)) {
			return false
		}
		return setNumber(t, dst, v)
	case '{':
		switch {
		case t.kind == tPointer:
			return s.intoPointer(n, t, dst)
		case t.kind != tStruct:
			return false
		case n != nil && !(n.kinds&kObject != 0 && !n.compound):
			return false
		}
		return s.objectInto(n, t, dst)
	case '[':
		switch {
		case t.kind == tPointer:
			return s.intoPointer(n, t, dst)
		case t.kind != tSlice:
			return false
		case n != nil && !(n.kinds&kArray != 0 && !n.compound):
			return false
		}
		return s.arrayInto(n, t, dst)
	}
	return false
}

// intoPointer decodes a value other than null into a new value that dst,
// a nil pointer, then points to.
func (s *scan) intoPointer(n *node, t *Target, dst reflect.Value) bool {
	p := reflect.New(t.elem.typ)
	if !s.into(n, t.elem, p.Elem()) {
		return false
	}
	dst.Set(p)
	return true
}

// setNumber sets dst from the JSON number lit as the decoders do; false
// when they would refuse it (a fraction or exponent for an integer, a
// value out of range).
func setNumber(t *Target, dst reflect.Value, lit []byte) bool {
	switch t.kind {
	case tInt:
		if !isInteger(lit) {
			return false
		}
		v, err := strconv.ParseInt(string(lit), 10, t.bits)
		if err != nil {
			return false
		}
		dst.SetInt(v)
	case tUint:
		if !isInteger(lit) || lit[0] == '-' {
			return false
		}
		v, err := strconv.ParseUint(string(lit), 10, t.bits)
		if err != nil {
			return false
		}
		dst.SetUint(v)
	case tFloat:
		v, err := strconv.ParseFloat(string(lit), t.bits)
		if err != nil {
			return false
		}
		dst.SetFloat(v)
	default:
		return false
	}
	return true
}

// isInteger reports whether lit, a JSON number, has no fraction and no
// exponent.
func isInteger(lit []byte) bool {
	for _, c := range lit {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// objectInto is object for a struct target: every member must name a
// field exactly.
func (s *scan) objectInto(n *node, t *Target, dst reflect.Value) bool {
	if n != nil && !n.hasObj {
		n = nil
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
			return n == nil || n.objectCounts(seen, count)
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
		f, ok := t.fields[string(name)]
		if !ok {
			return false
		}
		count++
		var child *node
		if n != nil {
			m := n.members[string(name)]
			seen |= m.reqBit
			child = m.child
			if !m.listed {
				if n.rejectOther {
					return false
				}
				child = n.other
			}
		}
		if !s.into(child, f.t, dst.Field(f.index)) {
			return false
		}
	}
}

// arrayInto is array for a slice target.
func (s *scan) arrayInto(n *node, t *Target, dst reflect.Value) bool {
	if n != nil && !n.hasArr {
		n = nil
	}
	if _, err := s.dec.ReadToken(); err != nil { // '['
		return false
	}
	out := reflect.MakeSlice(t.typ, 0, 0)
	count := 0
	for {
		switch s.dec.PeekKind() {
		case ']':
			if _, err := s.dec.ReadToken(); err != nil {
				return false
			}
			dst.Set(out)
			return n == nil || n.arrayCount(count)
		case 0:
			return false
		}
		count++
		var items *node
		if n != nil {
			items = n.items
		}
		out = reflect.Append(out, reflect.Zero(t.elem.typ))
		if !s.into(items, t.elem, out.Index(out.Len()-1)) {
			return false
		}
	}
}
