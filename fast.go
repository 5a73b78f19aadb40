package saidex

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checker reports whether a decoded value is certainly valid. false means
// only "not known to be valid": the caller then runs the full validator,
// which decides and explains. A checker must never return true for a value
// santhosh-tekuri rejects; it may return false for a valid one (for
// example a number equal to a non-integer bound, where float64 rounding
// could matter).
type checker func(v any) bool

// fastFields are the fields of a compiled jsonschema.Schema the pre-check
// understands: keywords it checks exactly, annotations, and bookkeeping.
// A schema with any other field set is left to santhosh-tekuri entirely,
// so a keyword added to the library later cannot be skipped silently.
var fastFields = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"DynamicAnchor": true, "RecursiveAnchor": true,
	"Bool": true, "Ref": true, "Types": true, "Enum": true, "AllOf": true, "AnyOf": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true, "Properties": true, "AdditionalProperties": true,
	"MinItems": true, "MaxItems": true, "Items2020": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// compileFast compiles the pre-check of a schema, or returns nil when some
// reachable subschema uses a keyword outside the common subset (type,
// enum of strings/booleans/null, properties, required,
// additionalProperties, min/max of numbers, lengths and sizes, pattern,
// format, items, $ref, allOf, anyOf).
func compileFast(root *jsonschema.Schema) checker {
	b := fastBuilder{memo: map[*jsonschema.Schema]*checker{}}
	c, ok := b.build(root)
	if !ok {
		return nil
	}
	return c
}

type fastBuilder struct {
	memo map[*jsonschema.Schema]*checker
}

func fastSupported(s *jsonschema.Schema) bool {
	rv := reflect.ValueOf(s).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() || fastFields[f.Name] {
			continue
		}
		if !rv.Field(i).IsZero() {
			return false
		}
	}
	if s.Ref != nil && s.DraftVersion < 2019 {
		return false // before 2019-09, $ref overrides its siblings
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
	switch s.AdditionalProperties.(type) {
	case nil, bool, *jsonschema.Schema:
	default:
		return false
	}
	return true
}

func (b *fastBuilder) build(s *jsonschema.Schema) (checker, bool) {
	if p, ok := b.memo[s]; ok {
		return func(v any) bool { return (*p)(v) }, true // recursive schema
	}
	p := new(checker)
	b.memo[s] = p
	if !fastSupported(s) {
		return nil, false
	}
	if s.Bool != nil {
		ok := *s.Bool
		*p = func(any) bool { return ok }
		return *p, true
	}
	var checks []checker
	add := func(c checker) { checks = append(checks, c) }
	sub := func(x *jsonschema.Schema) (checker, bool) { return b.build(x) }

	if s.Types != nil && !s.Types.IsEmpty() {
		add(typeChecker(s.Types.ToStrings()))
	}
	if s.Enum != nil {
		vals := s.Enum.Values
		add(func(v any) bool {
			switch v.(type) {
			case string, bool, nil:
				for _, w := range vals {
					if v == w {
						return true
					}
				}
			}
			return false
		})
	}
	if s.Format != nil {
		validate := s.Format.Validate
		add(func(v any) bool { return validate(v) == nil })
	}
	if s.Ref != nil {
		c, ok := sub(s.Ref)
		if !ok {
			return nil, false
		}
		add(c)
	}
	for _, x := range s.AllOf {
		c, ok := sub(x)
		if !ok {
			return nil, false
		}
		add(c)
	}
	if len(s.AnyOf) > 0 {
		alts := make([]checker, len(s.AnyOf))
		for i, x := range s.AnyOf {
			c, ok := sub(x)
			if !ok {
				return nil, false
			}
			alts[i] = c
		}
		add(func(v any) bool {
			for _, c := range alts {
				if c(v) {
					return true
				}
			}
			return false
		})
	}
	if c, ok := b.objectChecker(s); !ok {
		return nil, false
	} else if c != nil {
		add(c)
	}
	if c, ok := b.arrayChecker(s); !ok {
		return nil, false
	} else if c != nil {
		add(c)
	}
	if c := stringChecker(s); c != nil {
		add(c)
	}
	if c := numberChecker(s); c != nil {
		add(c)
	}
	switch len(checks) {
	case 0:
		*p = func(v any) bool { return knownValue(v) }
	case 1:
		only := checks[0]
		*p = func(v any) bool { return knownValue(v) && only(v) }
	default:
		*p = func(v any) bool {
			if !knownValue(v) {
				return false
			}
			for _, c := range checks {
				if !c(v) {
					return false
				}
			}
			return true
		}
	}
	return *p, true
}

// knownValue reports whether v is a decoded JSON value of a Go type the
// pre-check handles; any other value is left to the full validator.
func knownValue(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number, map[string]any, []any:
		return true
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	return false
}

func typeChecker(types []string) checker {
	var null, boolean, number, integer, str, array, object bool
	for _, t := range types {
		switch t {
		case "null":
			null = true
		case "boolean":
			boolean = true
		case "number":
			number = true
		case "integer":
			integer = true
		case "string":
			str = true
		case "array":
			array = true
		case "object":
			object = true
		}
	}
	return func(v any) bool {
		switch v := v.(type) {
		case nil:
			return null
		case bool:
			return boolean
		case string:
			return str
		case []any:
			return array
		case map[string]any:
			return object
		case json.Number:
			return number || (integer && isPlainInteger(string(v)))
		case float64:
			return number || (integer && v == math.Trunc(v) && math.Abs(v) < 1<<53)
		}
		return false
	}
}

// isPlainInteger reports whether s is an optional minus sign followed by
// 1 to 15 digits: an integer a float64 holds exactly.
func isPlainInteger(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (b *fastBuilder) objectChecker(s *jsonschema.Schema) (checker, bool) {
	if s.Properties == nil && s.Required == nil && s.AdditionalProperties == nil && s.MinProperties == nil && s.MaxProperties == nil {
		return nil, true
	}
	props := make(map[string]checker, len(s.Properties))
	for name, x := range s.Properties {
		c, ok := b.build(x)
		if !ok {
			return nil, false
		}
		props[name] = c
	}
	var additional checker // nil: any member allowed
	rejectAdditional := false
	switch a := s.AdditionalProperties.(type) {
	case bool:
		rejectAdditional = !a
	case *jsonschema.Schema:
		c, ok := b.build(a)
		if !ok {
			return nil, false
		}
		additional = c
	}
	required := s.Required
	minP, maxP := -1, -1
	if s.MinProperties != nil {
		minP = *s.MinProperties
	}
	if s.MaxProperties != nil {
		maxP = *s.MaxProperties
	}
	return func(v any) bool {
		obj, ok := v.(map[string]any)
		if !ok {
			return true // object keywords ignore other types
		}
		if (minP >= 0 && len(obj) < minP) || (maxP >= 0 && len(obj) > maxP) {
			return false
		}
		for _, r := range required {
			if _, ok := obj[r]; !ok {
				return false
			}
		}
		for name, val := range obj {
			if c, ok := props[name]; ok {
				if !c(val) {
					return false
				}
				continue
			}
			if rejectAdditional || (additional != nil && !additional(val)) {
				return false
			}
		}
		return true
	}, true
}

func (b *fastBuilder) arrayChecker(s *jsonschema.Schema) (checker, bool) {
	if s.MinItems == nil && s.MaxItems == nil && s.Items2020 == nil {
		return nil, true
	}
	var items checker
	if s.Items2020 != nil {
		c, ok := b.build(s.Items2020)
		if !ok {
			return nil, false
		}
		items = c
	}
	minI, maxI := -1, -1
	if s.MinItems != nil {
		minI = *s.MinItems
	}
	if s.MaxItems != nil {
		maxI = *s.MaxItems
	}
	return func(v any) bool {
		arr, ok := v.([]any)
		if !ok {
			return true
		}
		if (minI >= 0 && len(arr) < minI) || (maxI >= 0 && len(arr) > maxI) {
			return false
		}
		if items != nil {
			for _, it := range arr {
				if !items(it) {
					return false
				}
			}
		}
		return true
	}, true
}

func stringChecker(s *jsonschema.Schema) checker {
	if s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil {
		return nil
	}
	minL, maxL := -1, -1
	if s.MinLength != nil {
		minL = *s.MinLength
	}
	if s.MaxLength != nil {
		maxL = *s.MaxLength
	}
	pattern := s.Pattern
	return func(v any) bool {
		str, ok := v.(string)
		if !ok {
			return true
		}
		if minL >= 0 || maxL >= 0 {
			n := utf8.RuneCountInString(str)
			if (minL >= 0 && n < minL) || (maxL >= 0 && n > maxL) {
				return false
			}
		}
		return pattern == nil || pattern.MatchString(str)
	}
}

// numBound is a numeric bound of a schema as a float64, with whether the
// float is exactly the bound's value.
type numBound struct {
	f     float64
	exact bool
}

func newNumBound(r *big.Rat) *numBound {
	if r == nil {
		return nil
	}
	f, exact := r.Float64()
	return &numBound{f: f, exact: exact && !math.IsInf(f, 0)}
}

// compare returns -1, 0 or +1 as x is below, equal to or above the bound,
// and false when float64 rounding leaves that in doubt.
func (b *numBound) compare(x float64, xExact bool) (int, bool) {
	if xExact && b.exact {
		switch {
		case x < b.f:
			return -1, true
		case x > b.f:
			return 1, true
		}
		return 0, true
	}
	// Both sides are within a relative 1e-15 of their true value; demand a
	// clear gap.
	gap := 1e-12*(math.Abs(x)+math.Abs(b.f)) + 1e-300
	switch {
	case x < b.f-gap:
		return -1, true
	case x > b.f+gap:
		return 1, true
	}
	return 0, false
}

func numberChecker(s *jsonschema.Schema) checker {
	minB, maxB := newNumBound(s.Minimum), newNumBound(s.Maximum)
	xminB, xmaxB := newNumBound(s.ExclusiveMinimum), newNumBound(s.ExclusiveMaximum)
	if minB == nil && maxB == nil && xminB == nil && xmaxB == nil {
		return nil
	}
	return func(v any) bool {
		var x float64
		var exact bool
		switch n := v.(type) {
		case json.Number:
			f, err := n.Float64()
			if err != nil || math.IsInf(f, 0) {
				return false
			}
			x, exact = f, isPlainInteger(string(n))
		case float64:
			// santhosh-tekuri compares the shortest decimal form of a
			// float64, which is exact only for integers below 2^53.
			x, exact = n, n == math.Trunc(n) && math.Abs(n) < 1<<53
		default:
			return true // numeric keywords ignore other types
		}
		if minB != nil {
			if c, ok := minB.compare(x, exact); !ok || c < 0 {
				return false
			}
		}
		if maxB != nil {
			if c, ok := maxB.compare(x, exact); !ok || c > 0 {
				return false
			}
		}
		if xminB != nil {
			if c, ok := xminB.compare(x, exact); !ok || c <= 0 {
				return false
			}
		}
		if xmaxB != nil {
			if c, ok := xmaxB.compare(x, exact); !ok || c >= 0 {
				return false
			}
		}
		return true
	}
}
