package saidex

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/schemawalk"
)

// CoercionMode says whether a [ToolNode] converts argument values toward the
// types their schema demands. See [WithCoercion].
type CoercionMode int

// The coercion modes.
const (
	// CoercionNone validates arguments strictly against the schema, as JSON
	// Schema defines it: "5" is not an integer. The default.
	CoercionNone CoercionMode = iota
	// CoercionLax converts values the schema rejects toward the single type
	// the schema demands at their location, when the conversion is exact
	// (see [WithCoercion]), much as Pydantic's lax mode does.
	CoercionLax
)

// String returns "none" or "lax".
func (m CoercionMode) String() string {
	switch m {
	case CoercionNone:
		return "none"
	case CoercionLax:
		return "lax"
	}
	return "CoercionMode(" + strconv.Itoa(int(m)) + ")"
}

// WithCoercion sets how the node treats argument values of the wrong type.
// Default: [CoercionNone], strict JSON Schema validation. Any other mode than
// CoercionNone and CoercionLax is a configuration error.
//
// With [CoercionLax], when the tool's schema rejects a call's arguments, the
// node converts values toward the type the schema demands at their
// location, and only when the conversion is exact:
//
//   - a string holding a JSON number ("5", "-2.5", "1e3") becomes an
//     integer when the schema wants an "integer" and the number is
//     integral and fits in an int64 (so a Go int64 field can hold it; a
//     larger integer is left alone), or a number when it wants a "number"
//     and the number is finite as a float64 (and its exponent at most 400
//     in magnitude). The string must be exactly a
//     JSON number: no spaces, no "+", no leading zeros, no hex.
//   - "true" and "false", in any case, become booleans where the schema
//     wants a "boolean"; no other string does ("yes", "1", "on" stay).
//   - a string holding a JSON array or object becomes that array or object
//     where the schema wants an "array" or "object"
//     ("files": "[\"a.go\"]"); its contents are then coerced by the same
//     rules.
//   - an integral number written with a fraction or an exponent (5.0,
//     1e2) is rewritten as a plain integer (5, 100) where the schema wants
//     an "integer" and it fits in an int64. JSON Schema already accepts
//     5.0 as an integer, but Go's encoding/json refuses to decode it into
//     an int field, so this conversion is applied to valid arguments too.
//
// A location "wants" a type when its schema (with the schemas it reaches
// through $ref and allOf, which all apply) names exactly one type. Where
// the schema allows several ("type": ["integer","null"], or anyOf/oneOf
// at that location) or names none, the value is left as it is. Nothing is
// ever converted toward a string, an enum value is never chosen by
// similarity, no member is dropped or renamed, and no default is filled.
//
// After coercion the arguments are checked again, schema and validators
// (see [WithValidator]). When they pass, the call continues with the
// coerced arguments: the tool receives them as compact JSON (keys sorted),
// the sanitized history (see [WithSanitizeMessages]) stores them, and the
// call report lists every conversion in [CallReport].Coercions, with
// [RepairCoerce] among its repair steps. When they still fail, nothing is
// converted: the call follows the normal path (correction, then
// [WithOnUnresolved]) with the issues of the arguments as the model sent
// them.
//
// Coercion applies to the model's own arguments and to the answers of the
// correction model (see [WithCorrectionModel]). Arguments returned by an
// unresolved hook are built by the application and checked strictly.
func WithCoercion(mode CoercionMode) Option {
	return optionFunc(func(c *config) { c.coercion = mode })
}

func (c *config) validateCoercion() error {
	switch c.coercion {
	case CoercionNone, CoercionLax:
		return nil
	}
	return fmt.Errorf("WithCoercion(%d): unknown mode; use CoercionNone or CoercionLax", int(c.coercion))
}

// Coercion is one value that [CoercionLax] converted.
type Coercion struct {
	// Path is an RFC 6901 JSON Pointer to the value in the arguments the
	// tool received ("/limit", "/files/0").
	Path string
	// From is the JSON type the value was sent as: "string" or "number".
	// To is the type it was converted to: "integer", "number", "boolean",
	// "array" or "object".
	From, To string
}

// coerced is a value CoercionLax converted, ready to replace a call's.
type coerced struct {
	value any
	json  string
	list  []Coercion
}

// coerce converts v by the CoercionLax rules. It returns nil when nothing
// changed. v is not modified: changed maps and slices are copied.
func (s *compiledSchema) coerce(v any) *coerced {
	if _, isObject := v.(map[string]any); !isObject {
		return nil // the arguments must be an object; repair decodes a string holding one
	}
	var w coerceWalk
	out, changed := w.value(schemawalk.Of(s.schema), v, "")
	if !changed {
		return nil
	}
	text, err := jsonvalue.Encode(out)
	if err != nil {
		return nil // a decoded JSON value always encodes
	}
	slices.SortStableFunc(w.list, func(a, b Coercion) int { return jsonpointer.Compare(a.Path, b.Path) })
	return &coerced{value: out, json: text, list: w.list}
}

type coerceWalk struct {
	list []Coercion
}

// value coerces v, the value at path whose schemas (all of which apply)
// are set, and returns the result and whether it differs from v.
func (w *coerceWalk) value(set schemawalk.Set, v any, path string) (any, bool) {
	if len(set) == 0 {
		return v, false
	}
	changed := false
	if want := singleType(set); want != "" {
		if nv, from, ok := convert(v, want); ok {
			w.list = append(w.list, Coercion{Path: path, From: from, To: want})
			v, changed = nv, true
		}
	}
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		for _, k := range slices.Sorted(maps.Keys(x)) {
			sub, _ := set.Property(k)
			nv, ch := w.value(sub, x[k], jsonpointer.Append(path, k))
			if !ch {
				continue
			}
			if out == nil {
				out = maps.Clone(x)
			}
			out[k] = nv
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, item := range x {
			nv, ch := w.value(set.Item(i), item, jsonpointer.Append(path, strconv.Itoa(i)))
			if !ch {
				continue
			}
			if out == nil {
				out = slices.Clone(x)
			}
			out[i] = nv
		}
		if out != nil {
			return out, true
		}
	}
	return v, changed
}

// convert converts v toward the type want by the CoercionLax rules. It
// returns the converted value, the JSON type v had, and whether it
// converted.
func convert(v any, want string) (any, string, bool) {
	switch x := v.(type) {
	case string:
		switch want {
		case "integer":
			if n, ok := integerText(x); ok {
				return json.Number(n), "string", true
			}
		case "number":
			if n, ok := parseJSONNumber(x); ok && -400 <= n.exp && n.exp <= 400 {
				if _, err := strconv.ParseFloat(x, 64); err == nil { // finite
					return json.Number(x), "string", true
				}
			}
		case "boolean":
			switch {
			case strings.EqualFold(x, "true"):
				return true, "string", true
			case strings.EqualFold(x, "false"):
				return false, "string", true
			}
		case "array":
			if strings.Contains(x, "[") {
				if d, err := decodeJSON(x); err == nil {
					if a, ok := d.([]any); ok {
						return a, "string", true
					}
				}
			}
		case "object":
			if strings.Contains(x, "{") {
				if d, err := decodeJSON(x); err == nil {
					if m, ok := d.(map[string]any); ok {
						return m, "string", true
					}
				}
			}
		}
	case json.Number:
		if want == "integer" && !isPlainInt64(string(x)) {
			if n, ok := integerText(string(x)); ok {
				return json.Number(n), "number", true
			}
		}
	}
	return nil, "", false
}

// isPlainInt64 reports whether s is written as an int64 is: digits with an
// optional minus sign.
func isPlainInt64(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// jsonNumber is the parts of a JSON number: -?int(.frac)?([eE][+-]?exp)?
type jsonNumber struct {
	neg       bool
	int, frac string
	exp       int // clamped to ±(1<<20)
}

// parseJSONNumber splits s when it is exactly a JSON number.
func parseJSONNumber(s string) (jsonNumber, bool) {
	var n jsonNumber
	i := 0
	if i < len(s) && s[i] == '-' {
		n.neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n.int = s[start:i]
	if n.int == "" || (len(n.int) > 1 && n.int[0] == '0') {
		return n, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		n.frac = s[start:i]
		if n.frac == "" {
			return n, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			if n.exp < 1<<20 {
				n.exp = n.exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == start {
			return n, false
		}
		if neg {
			n.exp = -n.exp
		}
	}
	return n, i == len(s)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// integerText returns the canonical decimal of the JSON number s when its
// value is an integer that fits in an int64: "5.0" → "5", "1e2" → "100",
// "-0" → "0".
func integerText(s string) (string, bool) {
	n, ok := parseJSONNumber(s)
	if !ok {
		return "", false
	}
	digits := strings.TrimLeft(n.int+n.frac, "0")
	exp := n.exp - len(n.frac)
	if digits == "" {
		return "0", true
	}
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 || len(digits)+exp > 19 {
		return "", false // not integral, or more digits than an int64 holds
	}
	text := digits + strings.Repeat("0", exp)
	if n.neg {
		text = "-" + text
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(i, 10), true
}

// singleType returns the one type the schemas of set demand, or "" when
// they demand several, none, or disagree, or when one of them has
// alternatives (anyOf, oneOf) at this location. "integer" with "number"
// is "integer".
func singleType(set schemawalk.Set) string {
	want := ""
	for _, s := range set {
		if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
			return ""
		}
		if s.Types == nil || s.Types.IsEmpty() {
			continue
		}
		ts := s.Types.ToStrings()
		if len(ts) != 1 {
			return ""
		}
		switch t := ts[0]; {
		case want == "" || want == t:
			want = t
		case want == "number" && t == "integer":
			want = t
		case want == "integer" && t == "number":
		default:
			return ""
		}
	}
	return want
}
