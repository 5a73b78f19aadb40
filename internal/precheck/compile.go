// Package precheck decides, on raw JSON text and without decoding it,
// whether a tool call's arguments are certainly valid for the tool's
// schema. It is compiled from the schema santhosh-tekuri/jsonschema
// compiled, and understands a subset of JSON Schema: type, enum of
// strings, booleans and null, properties, required, additionalProperties,
// minProperties, maxProperties, items (one schema for every item),
// minItems, maxItems, minLength, maxLength, pattern, format, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, $ref, allOf and anyOf, plus
// annotations. A schema that uses any other keyword anywhere it reaches
// gets no Checker: santhosh-tekuri stays the authority outside the subset,
// and for explaining why arguments are invalid.
//
// A Checker's true is a promise, its false only "not known to be valid":
// the caller then decodes and runs the full validator, which decides and
// explains. Duplicate member names, invalid UTF-8, trailing data, a root
// that is not an object, nesting deeper than 10,000 levels (the limit of
// encoding/json and of jsontext), numbers so close to a bound that float64
// rounding could matter, and anything else in doubt answer false.
package precheck

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/saidex/saidex-go/internal/schemawalk"
)

// Checker is the compiled precheck of one schema. It is safe for
// concurrent use.
type Checker struct {
	root *node
}

// Kind bits: the JSON types a value may have.
const (
	kNull uint8 = 1 << iota
	kBoolean
	kNumber
	kInteger
	kString
	kArray
	kObject
)

const kAll = kNull | kBoolean | kNumber | kInteger | kString | kArray | kObject

// node is the compiled form of the set of schemas that apply to one value
// (see schemawalk.Of): every constraint of every schema in the set.
type node struct {
	never   bool // the set holds the schema false
	free    bool // nothing to check: any value is accepted
	ownFree bool // nothing to check but anyOf

	kinds    uint8  // the kinds every schema of the set allows (numbers: see scalars)
	scalars  []*own // the schemas with a keyword on scalar values
	compound bool   // a schema has an enum or a format: objects and arrays are left to the validator

	// Object keywords, merged over the set.
	hasObj      bool
	members     map[string]member // names some properties or required entry lists
	few         []namedMember     // members as a list, when there are at most maxFewMembers (fastValid)
	fewSlot     [fewSlots]uint8   // few's hash table (fewHash): index+1, 0 for an empty slot
	other       *node             // any other member; nil: unconstrained
	rejectOther bool
	reqMask     uint64 // the bits of every required name
	minP, maxP  int    // -1: none

	// Array keywords, merged over the set.
	hasArr     bool
	items      *node // nil: unconstrained
	minI, maxI int

	// anyOf: for each group one alternative must accept the value.
	anyOf [][]*node
}

// member is what an object node knows of one member name: one map lookup
// per member read.
type member struct {
	child  *node  // the member's node, when named under properties
	listed bool   // named under properties; else the member is another
	reqBit uint64 // its bit in reqMask, 0 when not required
}

// smallEnum is the size of the largest enum whose strings are searched
// one by one; a larger one is looked up in a set built at compile time,
// so that checking a value costs O(its size), whatever the enum's.
const smallEnum = 16

// own is one schema's keywords on a scalar value.
type own struct {
	types      uint8 // 0: any
	enum       []any // strings, booleans, nil
	hasEnum    bool
	strs       map[string]struct{} // the enum's strings, for an enum of more than smallEnum values
	format     func(any) error
	minL, maxL int // -1: none
	pattern    jsonschema.Regexp
	bounds     []bound
}

// supportedFields are the fields of a compiled jsonschema.Schema the
// precheck understands: keywords it checks exactly, annotations, and
// bookkeeping. A schema with any other field set gets no Checker, so a
// keyword added to the library later cannot be skipped silently.
var supportedFields = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"DynamicAnchor": true, "RecursiveAnchor": true,
	"Bool": true, "Ref": true, "Types": true, "Enum": true, "AllOf": true, "AnyOf": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true, "Properties": true, "AdditionalProperties": true,
	"MinItems": true, "MaxItems": true, "Items2020": true, "Items": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// supported reports whether the precheck understands every keyword of s.
func supported(s *jsonschema.Schema) bool {
	rv := reflect.ValueOf(s).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.IsExported() && !supportedFields[f.Name] && !rv.Field(i).IsZero() {
			return false
		}
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			switch v.(type) {
			case string, bool, nil:
			default:
				return false
			}
		}
	}
	switch s.Items.(type) {
	case nil, *jsonschema.Schema:
	default: // the tuple form
		return false
	}
	switch s.AdditionalProperties.(type) {
	case nil, bool, *jsonschema.Schema:
	default:
		return false
	}
	return true
}

// Compile returns the precheck of root, or nil when some schema root
// reaches uses a keyword outside the subset (or an object needs more than
// 64 distinct required names).
func Compile(root *jsonschema.Schema) *Checker {
	for _, s := range schemawalk.Reachable(root) {
		if !supported(s) {
			return nil
		}
	}
	b := builder{memo: map[string]*node{}}
	n, ok := b.build(schemawalk.Of(root))
	if !ok {
		return nil
	}
	listMembers(n, map[*node]bool{})
	return &Checker{root: n}
}

// namedMember is a member with its name, for the lookup of small objects.
type namedMember struct {
	name string
	head uint64 // nameHead of name
	member
}

// maxFewMembers is the most members a node lists in few: a linear search
// of a few names is quicker than hashing the name.
const maxFewMembers = 8

// listMembers fills few (and its hash table) on every node n reaches
// that has at most maxFewMembers members.
func listMembers(n *node, done map[*node]bool) {
	if n == nil || done[n] {
		return
	}
	done[n] = true
	if len(n.members) <= maxFewMembers {
		for name, m := range n.members {
			n.few = append(n.few, namedMember{name: name, head: nameHead([]byte(name)), member: m})
		}
		for i, nm := range n.few {
			h := fewHash(nm.head, len(nm.name))
			for n.fewSlot[h] != 0 {
				h = (h + 1) % fewSlots
			}
			n.fewSlot[h] = uint8(i + 1)
		}
	}
	for _, m := range n.members {
		listMembers(m.child, done)
	}
	listMembers(n.other, done)
	listMembers(n.items, done)
	for _, g := range n.anyOf {
		for _, alt := range g {
			listMembers(alt, done)
		}
	}
}

// fewSlots is the size of a node's table of few (open addressing, at
// most half full).
const fewSlots = 2 * maxFewMembers

// fewHash hashes a member name by its head (nameHead) and its length.
func fewHash(head uint64, n int) int {
	return int((head^uint64(n))*0x9e3779b97f4a7c15>>32) % fewSlots
}

// nameHead is the first 8 bytes of name, little-endian, 0 past its end:
// equal heads and lengths are equal names when the length is at most 8.
// It reads 8 bytes at once when name's capacity holds them (a name read
// from a text usually has its closing quote and more after it).
func nameHead(name []byte) uint64 {
	if cap(name) >= 8 {
		h := binary.LittleEndian.Uint64(name[:8])
		if len(name) < 8 {
			h &= 1<<(8*len(name)) - 1
		}
		return h
	}
	var h uint64
	for i := min(len(name), 8) - 1; i >= 0; i-- {
		h = h<<8 | uint64(name[i])
	}
	return h
}

// member returns the member named name and its index in few, -1 when
// few does not hold it (or does not list the members).
func (n *node) member(name []byte) (member, int) {
	if len(n.members) > maxFewMembers {
		return n.members[string(name)], -1
	}
	head := nameHead(name)
	for h := fewHash(head, len(name)); n.fewSlot[h] != 0; h = (h + 1) % fewSlots {
		i := int(n.fewSlot[h]) - 1
		if nm := &n.few[i]; nm.head == head && len(nm.name) == len(name) && (len(name) <= 8 || nm.name[8:] == string(name[8:])) {
			return nm.member, i
		}
	}
	return member{}, -1
}

type builder struct {
	memo map[string]*node // by the locations of a set's schemas
}

// setKey identifies a set by its schemas' locations, in sorted order: the
// same schemas reached in another order share one node.
func setKey(set schemawalk.Set) string {
	locs := make([]string, len(set))
	for i, s := range set {
		locs[i] = s.Location
	}
	slices.Sort(locs)
	return strings.Join(locs, "\x00")
}

// build compiles the set of schemas that apply to one value.
func (b *builder) build(set schemawalk.Set) (*node, bool) {
	key := setKey(set)
	if n, ok := b.memo[key]; ok {
		return n, true // a recursive schema: filled in by the outer call
	}
	n := &node{kinds: kAll, minP: -1, maxP: -1, minI: -1, maxI: -1}
	b.memo[key] = n
	for _, s := range set {
		if s.Bool != nil && !*s.Bool {
			n.never = true
		}
	}
	if n.never {
		return n, true
	}
	for _, s := range set {
		if s.Bool != nil {
			continue
		}
		o, ok := newOwn(s)
		if !ok {
			return nil, false
		}
		if o.types != 0 {
			n.kinds &= o.types | numberKinds(o.types)
		}
		if o.hasEnum || o.format != nil {
			n.compound = true
		}
		if o.hasEnum || o.format != nil || o.types != 0 || o.minL >= 0 || o.maxL >= 0 || o.pattern != nil || len(o.bounds) > 0 {
			n.scalars = append(n.scalars, o)
		}
	}
	if !b.object(n, set) || !b.array(n, set) {
		return nil, false
	}
	for _, group := range set.Alternatives() {
		alts := make([]*node, len(group))
		for i, alt := range group {
			a, ok := b.build(alt)
			if !ok {
				return nil, false
			}
			alts[i] = a
		}
		n.anyOf = append(n.anyOf, alts)
	}
	n.ownFree = len(n.scalars) == 0 && !n.hasObj && !n.hasArr
	n.free = n.ownFree && len(n.anyOf) == 0
	return n, true
}

// numberKinds makes a type mask that allows integers allow numbers too at
// the node level: whether a number is an integer is decided per schema.
func numberKinds(t uint8) uint8 {
	if t&kInteger != 0 {
		return kNumber
	}
	return 0
}

func newOwn(s *jsonschema.Schema) (*own, bool) {
	o := &own{minL: -1, maxL: -1}
	if s.Types != nil && !s.Types.IsEmpty() {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				o.types |= kNull
			case "boolean":
				o.types |= kBoolean
			case "number":
				o.types |= kNumber
			case "integer":
				o.types |= kInteger
			case "string":
				o.types |= kString
			case "array":
				o.types |= kArray
			case "object":
				o.types |= kObject
			default:
				return nil, false
			}
		}
	}
	if s.Enum != nil {
		o.enum, o.hasEnum = s.Enum.Values, true
		if len(o.enum) > smallEnum {
			o.strs = make(map[string]struct{}, len(o.enum))
			for _, v := range o.enum {
				if str, ok := v.(string); ok {
					o.strs[str] = struct{}{}
				}
			}
		}
	}
	if s.Format != nil {
		o.format = s.Format.Validate
	}
	if s.MinLength != nil {
		o.minL = *s.MinLength
	}
	if s.MaxLength != nil {
		o.maxL = *s.MaxLength
	}
	o.pattern = s.Pattern
	for _, r := range []struct {
		rat *big.Rat
		ok  uint8
	}{
		{s.Minimum, at | above},
		{s.Maximum, below | at},
		{s.ExclusiveMinimum, above},
		{s.ExclusiveMaximum, below},
	} {
		if r.rat != nil {
			f, exact := r.rat.Float64()
			b := bound{f: f, exact: exact && !math.IsInf(f, 0), ok: r.ok}
			if r.rat.IsInt() && r.rat.Num().IsInt64() {
				b.i, b.isInt = r.rat.Num().Int64(), true
			}
			o.bounds = append(o.bounds, b)
		}
	}
	return o, true
}

// object merges the object keywords of set into n.
func (b *builder) object(n *node, set schemawalk.Set) bool {
	for _, s := range set {
		if s.Properties != nil || s.Required != nil || s.AdditionalProperties != nil || s.MinProperties != nil || s.MaxProperties != nil {
			n.hasObj = true
		}
		if s.MinProperties != nil {
			n.minP = max(n.minP, *s.MinProperties)
		}
		if s.MaxProperties != nil && (n.maxP < 0 || *s.MaxProperties < n.maxP) {
			n.maxP = *s.MaxProperties
		}
	}
	if !n.hasObj {
		return true
	}
	names := set.PropertyNames()
	n.members = make(map[string]member, len(names))
	for _, name := range names {
		sub, allowed := set.Property(name)
		if !allowed {
			n.members[name] = member{child: &node{never: true}, listed: true}
			continue
		}
		c, ok := b.build(sub)
		if !ok {
			return false
		}
		n.members[name] = member{child: c, listed: true}
	}
	other, allowed := set.Additional()
	if !allowed {
		n.rejectOther = true
	} else if len(other) > 0 {
		c, ok := b.build(other)
		if !ok {
			return false
		}
		n.other = c
	}
	required := set.Required()
	if len(required) > 64 {
		return false
	}
	for i, r := range required {
		m := n.members[r]
		m.reqBit = 1 << i
		n.members[r] = m
		n.reqMask |= m.reqBit
	}
	return true
}

// array merges the array keywords of set into n.
func (b *builder) array(n *node, set schemawalk.Set) bool {
	for _, s := range set {
		if s.MinItems != nil || s.MaxItems != nil || s.Items2020 != nil || s.Items != nil {
			n.hasArr = true
		}
		if s.MinItems != nil {
			n.minI = max(n.minI, *s.MinItems)
		}
		if s.MaxItems != nil && (n.maxI < 0 || *s.MaxItems < n.maxI) {
			n.maxI = *s.MaxItems
		}
	}
	if items := set.Item(0); n.hasArr && len(items) > 0 {
		c, ok := b.build(items)
		if !ok {
			return false
		}
		n.items = c
	}
	return true
}

// bound is a numeric bound of a schema as a float64, with whether the
// float is exactly the bound's value, the bound as an integer when it is
// one an int64 holds, and the comparisons it accepts.
type bound struct {
	f     float64
	exact bool
	i     int64
	isInt bool
	ok    uint8 // the places of a number the bound accepts: below, at, above f
}

// maxScaled[k] is the largest integer bound place compares with a number
// of k digits after the point: i * 10^k still fits an int64.
var maxScaled = func() (t [len(pow10i)]int64) {
	for k, p := range pow10i {
		t[k] = math.MaxInt64 / p
	}
	return t
}()

// place returns where the dec number v lies against an integer bound
// (below, at or above), compared exactly in integers: v is m / 10^frac,
// so v < i exactly when m < i * 10^frac. ok is false when v is not dec,
// the bound not an integer or too large to scale: holds compares them as
// floats.
func (b *bound) place(v num) (p uint8, ok bool) {
	if !v.dec || !b.isInt || b.i > maxScaled[v.frac] || b.i < -maxScaled[v.frac] {
		return 0, false
	}
	m, i := v.m, b.i*pow10i[v.frac]
	if v.neg {
		m = -m
	}
	switch {
	case m < i:
		return below, true
	case m > i:
		return above, true
	}
	return at, true
}

// The places of a number against a bound's f, as bits of bound.ok.
const (
	below uint8 = 1 << iota
	at
	above
)

// holds reports whether x certainly meets the bound; xExact says whether
// x is exactly the number as written.
func (b *bound) holds(x float64, xExact bool) bool {
	if xExact && b.exact {
		switch {
		case x < b.f:
			return b.ok&below != 0
		case x > b.f:
			return b.ok&above != 0
		}
		return b.ok&at != 0
	}
	// Both sides are within a relative 1e-15 of their true value; demand a
	// clear gap.
	gap := 1e-12*(math.Abs(x)+math.Abs(b.f)) + 1e-300
	switch {
	case x < b.f-gap:
		return b.ok&below != 0
	case x > b.f+gap:
		return b.ok&above != 0
	}
	return false
}
