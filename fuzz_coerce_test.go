package saidex

import (
	"encoding/json"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
)

// fuzzCoerceSchemas are the schemas FuzzCoerce picks from.
var fuzzCoerceSchemas = []string{
	coSchema,
	// Recursion through $ref, patternProperties, additionalProperties.
	`{"type": "object",
	  "properties": {"node": {"$ref": "#/$defs/node"}, "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
	  "$defs": {"node": {"type": "object",
	    "properties": {"v": {"type": "integer"}, "w": {"type": "number"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
	    "patternProperties": {"^n_": {"type": "number"}, "^n_i": {"type": "integer"}},
	    "additionalProperties": {"type": "boolean"}}}}`,
	// Unions and untyped locations everywhere.
	`{"type": "object",
	  "properties": {"x": {"type": "object", "additionalProperties": {"type": "integer"}},
	                 "y": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]},
	                 "z": {"allOf": [{"type": "array"}, {"items": {"type": "boolean"}}]}},
	  "additionalProperties": {"type": "array", "items": {"type": ["integer", "string"]}}}`,
}

// FuzzCoerce checks that coercion changes a value only by the CoercionLax
// rules, at locations whose schema demands a single type, and reports
// exactly the changes it made. The checker resolves the schema document on
// its own, independently of the walk in coerce.go.
func FuzzCoerce(f *testing.F) {
	seeds := []struct {
		schema uint8
		args   string
	}{
		{0, `{"limit":"5","flag":"TRUE","ratio":"2.5","ids":"[\"1\",2]","filter":"{\"min\":\"3\"}"}`},
		{0, `{"limit":5.0,"either":"5","alt":"5","nullable":"5","unit":"Celsius","name":5}`},
		{0, `{"limit":"9223372036854775808","level":"2","pair":["1","false"],"counts":{"a":"1"}}`},
		{0, `{"limit":"1e999999999","ratio":"-0","flag":"yes","files":"[]","one":"1"}`},
		{1, `{"node":{"v":"1","n_x":"2.5","n_i":"3","other":"false","kids":"[{\"v\":\"4\"}]"}}`},
		{1, `{"nodes":[{"v":1e1,"w":"1e-3"}]}`},
		{2, `{"x":{"a":"1"},"y":["1"],"z":["true"],"q":["5"]}`},
	}
	for _, s := range seeds {
		f.Add(s.schema, s.args)
	}
	compiled := make([]*compiledSchema, len(fuzzCoerceSchemas))
	docs := make([]map[string]any, len(fuzzCoerceSchemas))
	for i, src := range fuzzCoerceSchemas {
		s, err := compileSchema("fuzz", src)
		if err != nil {
			f.Fatal(err)
		}
		compiled[i], docs[i] = s, s.doc
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		i := int(which) % len(compiled)
		s, doc := compiled[i], docs[i]
		v, err := decodeJSON(args)
		if err != nil {
			return
		}
		before, err := jsonvalue.Encode(v)
		if err != nil {
			return
		}
		co := s.coerce(v)
		if after, _ := jsonvalue.Encode(v); after != before {
			t.Fatalf("coerce modified its input: %s -> %s", before, after)
		}
		if co == nil {
			return
		}
		if text, err := jsonvalue.Encode(co.value); err != nil || text != co.json {
			t.Fatalf("json %s does not encode the value (%s, %v)", co.json, text, err)
		}
		if back, err := decodeJSON(co.json); err != nil || !reflect.DeepEqual(back, co.value) {
			t.Fatalf("json %s does not decode to the value (%v)", co.json, err)
		}
		ck := coerceChecker{t: t, doc: doc}
		ck.compare(ck.set(doc), v, co.value, "")
		if len(ck.changes) == 0 {
			t.Fatalf("coerce reported a change but the value is equal: %s", co.json)
		}
		byPath := func(a, b Coercion) int { return strings.Compare(a.Path, b.Path) }
		reported := slices.SortedFunc(slices.Values(co.list), byPath)
		slices.SortFunc(ck.changes, byPath)
		if !slices.Equal(ck.changes, reported) {
			t.Fatalf("reported coercions %v, checker found %v", co.list, ck.changes)
		}
		if len(s.validate(v)) == 0 {
			// A valid value may only have numbers rewritten as integers.
			for _, c := range co.list {
				if c.From != "number" {
					t.Fatalf("valid value %s changed at %s from %s", before, c.Path, c.From)
				}
			}
		}
	})
}

// coerceChecker compares an original value with its coerced form.
type coerceChecker struct {
	t       *testing.T
	doc     map[string]any
	changes []Coercion
}

// set returns the schema objects that apply to one value: s and what it
// reaches through local $ref and allOf.
func (ck *coerceChecker) set(s any) []map[string]any {
	var out []map[string]any
	var add func(s any, depth int)
	add = func(s any, depth int) {
		m, ok := s.(map[string]any)
		if !ok || depth > 32 {
			return
		}
		out = append(out, m)
		if ref, ok := m["$ref"].(string); ok {
			add(ck.resolve(ref), depth+1)
		}
		all, _ := m["allOf"].([]any)
		for _, a := range all {
			add(a, depth+1)
		}
	}
	add(s, 0)
	return out
}

func (ck *coerceChecker) resolve(ref string) any {
	var cur any = ck.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[jsonpointer.Unescape(tok)]
	}
	return cur
}

// single returns the one type set demands, "" when ambiguous or none.
func (ck *coerceChecker) single(set []map[string]any) string {
	var types []string
	for _, m := range set {
		if _, ok := m["anyOf"]; ok {
			return ""
		}
		if _, ok := m["oneOf"]; ok {
			return ""
		}
		switch tt := m["type"].(type) {
		case string:
			types = append(types, tt)
		case []any:
			if len(tt) != 1 {
				return ""
			}
			types = append(types, tt[0].(string))
		}
	}
	want := ""
	for _, t := range types {
		switch {
		case want == "" || want == t || (want == "integer" && t == "number"):
			if want == "" {
				want = t
			}
		case want == "number" && t == "integer":
			want = t
		default:
			return ""
		}
	}
	return want
}

func (ck *coerceChecker) member(set []map[string]any, k string) []map[string]any {
	var out []map[string]any
	for _, m := range set {
		props, _ := m["properties"].(map[string]any)
		p, named := props[k]
		if named {
			out = append(out, ck.set(p)...)
		}
		matched := false
		pats, _ := m["patternProperties"].(map[string]any)
		for pat, p := range pats {
			if regexp.MustCompile(pat).MatchString(k) {
				out = append(out, ck.set(p)...)
				matched = true
			}
		}
		if ap, ok := m["additionalProperties"].(map[string]any); ok && !named && !matched {
			out = append(out, ck.set(ap)...)
		}
	}
	return out
}

func (ck *coerceChecker) item(set []map[string]any, i int) []map[string]any {
	var out []map[string]any
	for _, m := range set {
		prefix, _ := m["prefixItems"].([]any)
		if i < len(prefix) {
			out = append(out, ck.set(prefix[i])...)
		} else if it, ok := m["items"].(map[string]any); ok {
			out = append(out, ck.set(it)...)
		}
	}
	return out
}

// compare walks orig and got together and fails unless every difference
// is an allowed conversion.
func (ck *coerceChecker) compare(set []map[string]any, orig, got any, path string) {
	t := ck.t
	if reflect.DeepEqual(orig, got) {
		return
	}
	switch o := orig.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Fatalf("%s: object became %T", path, got)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(o)), slices.Sorted(maps.Keys(g))) {
			t.Fatalf("%s: members %v became %v", path, slices.Sorted(maps.Keys(o)), slices.Sorted(maps.Keys(g)))
		}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			ck.compare(ck.member(set, k), o[k], g[k], jsonpointer.Append(path, k))
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(o) {
			t.Fatalf("%s: array of %d became %#v", path, len(o), got)
		}
		for i := range o {
			ck.compare(ck.item(set, i), o[i], g[i], path+"/"+itoa(i))
		}
		return
	}
	want := ck.single(set)
	if want == "" {
		t.Fatalf("%s: %#v (%T) changed to %#v (%T) where the schema demands no single type", path, orig, orig, got, got)
	}
	from := "string"
	if _, isNum := orig.(json.Number); isNum {
		from = "number"
	}
	ck.changes = append(ck.changes, Coercion{Path: path, From: from, To: want})
	switch want {
	case "integer":
		g, ok := got.(json.Number)
		if !ok || !isPlainInt64(string(g)) || strings.HasPrefix(string(g), "-0") || (len(g) > 1 && g[0] == '0') {
			t.Fatalf("%s: integer target got %#v", path, got)
		}
		var text string
		switch o := orig.(type) {
		case string:
			text = o
		case json.Number:
			text = string(o)
		default:
			t.Fatalf("%s: %T converted to an integer", path, orig)
		}
		if !isNumberLiteral(text) {
			t.Fatalf("%s: %q is not a JSON number", path, text)
		}
		a, okA := new(big.Rat).SetString(text)
		b, okB := new(big.Rat).SetString(string(g))
		if !okA || !okB || a.Cmp(b) != 0 {
			t.Fatalf("%s: %q converted to a different integer %s", path, text, g)
		}
	case "number":
		o, isStr := orig.(string)
		if !isStr || got != json.Number(o) || !isNumberLiteral(o) {
			t.Fatalf("%s: %#v converted to number %#v", path, orig, got)
		}
	case "boolean":
		o, isStr := orig.(string)
		if !isStr || !(strings.EqualFold(o, "true") && got == true || strings.EqualFold(o, "false") && got == false) {
			t.Fatalf("%s: %#v converted to boolean %#v", path, orig, got)
		}
	case "array", "object":
		o, isStr := orig.(string)
		if !isStr {
			t.Fatalf("%s: %#v converted to %s", path, orig, want)
		}
		d, err := decodeJSON(o)
		if err != nil {
			t.Fatalf("%s: %q is not JSON but became %s", path, o, want)
		}
		if jsonTypeOf(d) != want {
			t.Fatalf("%s: %q holds %s, became %s", path, o, jsonTypeOf(d), want)
		}
		ck.compare(set, d, got, path) // the decoded value against the result
	default:
		t.Fatalf("%s: converted toward %s", path, want)
	}
}

// isNumberLiteral reports whether s is exactly one JSON number, without
// surrounding space.
func isNumberLiteral(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || !json.Valid([]byte(s)) {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
