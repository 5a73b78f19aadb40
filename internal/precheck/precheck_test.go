package precheck

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile compiles a schema as saidex does: formats asserted.
func compile(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://tool/t", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://tool/t")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decode decodes as the ordinary path does: encoding/json, numbers kept
// as written.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, &json.SyntaxError{}
	}
	var extra any
	if err := d.Decode(&extra); err == nil {
		return nil, &json.SyntaxError{}
	}
	return v, nil
}

// everyKeyword exercises every keyword of the subset: $ref, allOf, anyOf,
// enums, formats, patterns, lengths, bounds and nesting. The root
// package's precheck tests run the node on the same schema.
var everyKeyword = mustReadFile("testdata/every_keyword.json")

func mustReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// nested is what invopop/jsonschema reflects for a struct holding a named
// struct and a slice of structs: the root and every struct behind $ref.
const nested = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$ref": "#/$defs/Args",
  "$defs": {
    "Args": {"type": "object", "additionalProperties": false, "required": ["addr", "stops"],
      "properties": {"addr": {"$ref": "#/$defs/Addr"}, "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}}}},
    "Addr": {"type": "object", "additionalProperties": false, "required": ["city"],
      "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}},
    "Stop": {"type": "object", "additionalProperties": false, "required": ["name"],
      "properties": {"name": {"type": "string"}, "count": {"type": "integer", "minimum": 0}}}
  }
}`

// recursive is a tree whose nodes refer to themselves.
const recursive = `{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
	"properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
	"required": ["v"], "additionalProperties": false}}}`

// mixed spreads an object's keywords over allOf entries and a $ref.
const mixed = `{"$defs": {"base": {"properties": {"a": {"type": "string"}}, "required": ["a"]}},
	"allOf": [{"$ref": "#/$defs/base"}, {"properties": {"b": {"maximum": 3}}, "maxProperties": 2}],
	"properties": {"a": {"maxLength": 2}, "b": {}}, "additionalProperties": false}`

// draft7 has a $ref with siblings, which draft-07 ignores.
const draft7 = `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
	"definitions": {"p": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/p", "minimum": 3}, "b": {"items": {"type": "string"}}}}`

var schemas = []string{everyKeyword, nested, recursive, mixed, draft7,
	`{"type": "object", "properties": {
		"n": {"type": "number", "minimum": -2.5, "exclusiveMaximum": 1e3},
		"i": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740993},
		"s": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^[a-zé]*$"},
		"e": {"enum": ["a", true, null]},
		"d": {"type": "string", "format": "date-time"},
		"l": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
		"o": {"type": "object", "minProperties": 1, "maxProperties": 2, "additionalProperties": {"type": "boolean"}}},
	  "required": ["n"], "additionalProperties": false}`,
	`{"properties": {"a": {"type": "string"}}}`,
}

func TestValidAccepts(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args string
	}{
		{"every keyword", everyKeyword, `{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5,
			"tags": ["x"], "either": "z", "both": 6, "meta": {"k": true}, "free": [{"deep": [1.5e3, null]}]}`},
		{"escaped strings count code points", everyKeyword, `{"id": 1, "name": "\u00e9t\u00e9", "either": "\n"}`},
		{"white space around", everyKeyword, " \t\r\n{\"id\":1}\n "},
		{"$defs: nested struct and slice of structs", nested, `{"addr": {"city": "Oslo"}, "stops": [{"name": "a", "count": 2}, {"name": "b"}]}`},
		{"recursive $ref", recursive, `{"v": 1, "kids": [{"v": 2, "kids": []}, {"v": -3}]}`},
		{"keywords spread over allOf and $ref", mixed, `{"a": "xy", "b": 3}`},
		{"draft-07 ignores the siblings of $ref", draft7, `{"a": 1, "b": ["x"]}`},
		{"no type keyword", `{"properties": {"a": {"type": "string"}}}`, `{"a": "x", "b": [1]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := compile(t, tt.schema)
			c := Compile(s)
			if c == nil {
				t.Fatal("no checker for a schema of the subset")
			}
			if !c.Valid(tt.args) {
				t.Fatalf("valid arguments refused: %s", tt.args)
			}
			v, err := decode([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Fatalf("test case is not valid: %v", err)
			}
		})
	}
}

func TestValidRefusesWhatItCannotVouchFor(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args string
		plain              bool
	}{
		{"duplicate key", everyKeyword, `{"id": 1, "id": 2}`, false},
		{"duplicate key spelled with an escape", everyKeyword, `{"id": 1, "\u0069d": 2}`, false},
		{"trailing data", everyKeyword, `{"id": 1} x`, false},
		{"a second object", everyKeyword, `{"id": 1}{"id": 1}`, false},
		{"trailing comma", everyKeyword, `{"id": 1,}`, false},
		{"invalid UTF-8 in a value", everyKeyword, "{\"id\": 1, \"free\": \"\xff\"}", false},
		{"invalid UTF-8 in a key", everyKeyword, "{\"id\": 1, \"meta\": {\"\xc3\": true}}", false},
		{"lone surrogate escape", everyKeyword, `{"id": 1, "free": "\ud800"}`, false},
		{"byte order mark", everyKeyword, "\ufeff{\"id\": 1}", false},
		{"array root", `{"type": "object"}`, `[]`, false},
		{"null root", `{"type": "object"}`, `null`, false},
		{"double-encoded object", `{"type": "object"}`, `"{}"`, false},
		{"empty", `{"type": "object"}`, ``, false},
		{"cut off", `{"type": "object"}`, `{"a": [1`, false},
		{"NaN", `{"type": "object"}`, `{"a": NaN}`, false},
		{"leading zero", `{"type": "object"}`, `{"a": 01}`, false},
		{"missing required", everyKeyword, `{"name": "ab"}`, false},
		{"additional property", everyKeyword, `{"id": 1, "other": 1}`, false},
		{"integer written with a fraction", everyKeyword, `{"id": 1.0}`, false},
		{"integer with 16 digits", everyKeyword, `{"id": 1234567890123456}`, false},
		{"below an exact minimum", everyKeyword, `{"id": 0}`, false},
		{"within rounding of a bound", everyKeyword, `{"id": 1, "ratio": 1.0000000000000001}`, false},
		{"just under an exclusive bound", everyKeyword, `{"id": 1, "ratio": 1e-400}`, false},
		{"number out of float64 range", `{"properties": {"a": {"maximum": 5}}}`, `{"a": 1e400}`, false},
		{"too many code points", everyKeyword, `{"id": 1, "name": "ééée"}`, false},
		{"escaped code points too many", everyKeyword, `{"id": 1, "name": "\u00e9\u00e9\u00e9\u00e9"}`, false},
		{"pattern", everyKeyword, `{"id": 1, "name": "A"}`, false},
		{"format", everyKeyword, `{"id": 1, "mail": "nope"}`, false},
		{"enum", everyKeyword, `{"id": 1, "kind": "b"}`, false},
		{"enum wants a string, gets a number", everyKeyword, `{"id": 1, "kind": 0}`, false},
		{"anyOf none matches", everyKeyword, `{"id": 1, "either": "zz"}`, false},
		{"allOf one fails", everyKeyword, `{"id": 1, "both": 4}`, false},
		{"sibling of allOf fails", everyKeyword, `{"id": 1, "both": 8}`, false},
		{"too many items", everyKeyword, `{"id": 1, "tags": ["a", "b", "c"]}`, false},
		{"additionalProperties schema", everyKeyword, `{"id": 1, "meta": {"k": 1}}`, false},
		{"too many properties", everyKeyword, `{"id": 1, "meta": {"a": true, "b": true, "c": true}}`, false},
		{"$defs: nested required missing", nested, `{"addr": {}, "stops": []}`, false},
		{"$defs: unknown member of a nested struct", nested, `{"addr": {"city": "a", "town": "b"}, "stops": []}`, false},
		{"$defs: wrong type in a slice item", nested, `{"addr": {"city": "a"}, "stops": [{"name": "a", "count": "2"}]}`, false},
		{"allOf: a required member of a $ref", mixed, `{"b": 1}`, false},
		{"allOf: maxProperties of an entry", mixed, `{"a": "x", "b": 1, "c": 1}`, false},
		{"allOf: a bound of an entry", mixed, `{"a": "x", "b": 4}`, false},
		{"allOf: a sibling's maxLength", mixed, `{"a": "xyz"}`, false},
		{"plain: a number with a fraction", everyKeyword, `{"id": 1, "ratio": 0.5}`, true},
		{"plain: an exponent in an unconstrained value", everyKeyword, `{"id": 1, "free": {"a": [1e2]}}`, true},
		{"plain: an exponent inside anyOf", `{"properties": {"x": {"anyOf": [{"type": "number"}]}}}`, `{"x": 1e0}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Compile(compile(t, tt.schema))
			if c == nil {
				t.Fatal("no checker")
			}
			valid := c.Valid
			if tt.plain {
				valid = c.ValidPlainNumbers
			}
			if valid(tt.args) {
				t.Fatalf("accepted %q", tt.args)
			}
		})
	}
	// The plain cases are accepted by Valid, so the refusal is
	// ValidPlainNumbers'.
	c := Compile(compile(t, everyKeyword))
	for _, args := range []string{`{"id": 1, "ratio": 0.5}`, `{"id": 1, "free": {"a": [1e2]}}`} {
		if !c.Valid(args) {
			t.Errorf("Valid refused %s", args)
		}
	}
}

func TestNoCheckerForKeywordsOutsideTheSubset(t *testing.T) {
	for _, kw := range []string{
		`"uniqueItems": true`, `"multipleOf": 2`, `"const": 1`, `"not": {"type": "string"}`,
		`"oneOf": [{"type": "string"}]`, `"if": {"type": "string"}, "then": {"minLength": 1}`,
		`"enum": [1, 2]`, `"patternProperties": {"^x": {}}`, `"propertyNames": {"maxLength": 3}`,
		`"dependentRequired": {"a": ["b"]}`, `"prefixItems": [{}]`, `"contains": {}`,
		`"$dynamicRef": "#"`, `"unevaluatedProperties": false`,
	} {
		t.Run(kw, func(t *testing.T) {
			if Compile(compile(t, `{"type": "object", "properties": {"a": {`+kw+`}}}`)) != nil {
				t.Fatalf("a checker for a schema with %s", kw)
			}
		})
	}
	t.Run("draft-07 items array", func(t *testing.T) {
		if Compile(compile(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"items": [{}]}}}`)) != nil {
			t.Fatal("a checker for the tuple form of items")
		}
	})
	t.Run("65 required names", func(t *testing.T) {
		names := make([]string, 65)
		for i := range names {
			names[i] = `"k` + strings.Repeat("x", i) + `"`
		}
		if Compile(compile(t, `{"required": [`+strings.Join(names, ",")+`]}`)) != nil {
			t.Fatal("a checker with more than 64 required names")
		}
	})
}

// TestDepthLimit pins that jsontext refuses nesting that encoding/json
// (the ordinary path's decoder) refuses.
func TestDepthLimit(t *testing.T) {
	c := Compile(compile(t, `{"type": "object"}`))
	for _, depth := range []int{9999, 10000, 10001, 10002} {
		args := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		_, err := decode([]byte(args))
		if got := c.Valid(args); got && err != nil {
			t.Fatalf("depth %d: accepted what encoding/json refuses (%v)", depth, err)
		}
	}
	if c.Valid(`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`) {
		t.Fatal("nesting beyond 10,000 accepted")
	}
}

// TestValidReusesItsCopy checks that the pooled copy of a text, which the
// anyOf branches read again in place, carries nothing from one check to
// the next: each verdict is the same after checks of longer texts, with
// escapes, as on its own.
func TestValidReusesItsCopy(t *testing.T) {
	c := Compile(compile(t, everyKeyword))
	texts := []string{
		`{"id": 3, "name": "\u00e9t\u00e9", "either": "z", "free": {"a\nb": [1, "\"x\""]}}`,
		`{"id": 1, "either": "zz"}`,
		`{"id": 1, "either": "z"}`,
		`{"id": 1, "either": 1e2}`,
		`{"id": 1, "either": "z"`,
	}
	want := make([][2]bool, len(texts))
	for i, text := range texts {
		fresh := Compile(compile(t, everyKeyword))
		want[i] = [2]bool{fresh.Valid(text), fresh.ValidPlainNumbers(text)}
	}
	for range 3 {
		for i, text := range texts {
			if got := [2]bool{c.Valid(text), c.ValidPlainNumbers(text)}; got != want[i] {
				t.Fatalf("%s: Valid, ValidPlainNumbers = %v after other checks, %v alone", text, got, want[i])
			}
		}
	}
}

func TestNilChecker(t *testing.T) {
	var c *Checker
	if c.Valid(`{}`) || c.ValidPlainNumbers(`{}`) {
		t.Fatal("a nil checker vouches for arguments")
	}
}

// agrees fails t when c accepted data but the ordinary path would not:
// data must decode to an object that santhosh-tekuri accepts, and under
// plain hold no number with a fraction or exponent.
func agrees(t *testing.T, s *jsonschema.Schema, data []byte, plain bool) {
	t.Helper()
	v, err := decode(data)
	if err != nil {
		t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
	}
	if _, ok := v.(map[string]any); !ok {
		t.Fatalf("accepted %q, which is not an object", data)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("accepted %q, which santhosh-tekuri rejects: %v", data, err)
	}
	if plain && jsonvalue.HasLooseNumber(v) {
		t.Fatalf("accepted %q as plain, but it holds a number with a fraction or exponent", data)
	}
}

type compiled struct {
	s *jsonschema.Schema
	c *Checker
}

func compileAll(t testing.TB) []compiled {
	var out []compiled
	for _, src := range schemas {
		s := compile(t, src)
		c := Compile(s)
		if c == nil {
			t.Fatalf("no checker for %s", src)
		}
		out = append(out, compiled{s, c})
	}
	return out
}

// FuzzValid is the differential check against santhosh-tekuri: whatever
// the precheck accepts must decode to an object that santhosh-tekuri
// accepts.
func FuzzValid(f *testing.F) {
	seeds := []string{
		`{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "either": "z", "both": 6, "meta": {"k": true}, "free": [{"deep": [1.5e3, null]}]}`,
		`{"id": 1, "name": "\u00e9t\u00e9", "either": 9}`,
		`{"id": 1, "id": 2}`,
		`{"id": 1, "\u0069d": 2}`,
		`{"id": 1} x`,
		`{"id": 1, "ratio": 1.0000000000000001}`,
		`{"addr": {"city": "Oslo"}, "stops": [{"name": "a", "count": 2}]}`,
		`{"a": "xy", "b": 3}`,
		`{"a": 1, "b": ["x"]}`,
		`{"n": 0, "i": 1, "s": "ab", "e": null, "d": "2024-01-31T09:00:00Z", "l": [1, null], "o": {"x": true}}`,
		`{"n": -2.5, "i": 9007199254740993, "s": "", "l": [], "o": {}}`,
		`{"n": 999.9999999999999999, "i": 1.0, "e": "A"}`,
		`{"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}`,
		`{"a": "x\ud83d\ude00"}`,
		"{\"a\": \"\xff\"}",
		`null`, `[]`, `"{}"`, `1e400`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s, i%3 == 0)
	}
	all := compileAll(f)
	f.Fuzz(func(t *testing.T, which uint8, args string, plain bool) {
		x := all[int(which)%len(all)]
		ok := x.c.Valid(args)
		if plain {
			ok = x.c.ValidPlainNumbers(args)
		}
		if ok {
			agrees(t, x.s, []byte(args), plain)
		}
	})
}

// TestNeverAcceptsWhatSanthoshRejects generates arguments
// (deterministically) from values around the bounds, types and keys of the
// test schemas, with duplicate keys, escapes and spacing, and checks every
// acceptance.
func TestNeverAcceptsWhatSanthoshRejects(t *testing.T) {
	values := []string{"-2.5", "-2.50000000000000001", "-3", "0", "-0", "1", "1.0", "1e3", "1000", "3", "4", "5", "6", "7", "8", "9",
		"999.9999999999999999", "9007199254740993", "1e-400", "1E2", "0.5", "1.0000000000000001", "12345678901234567890", "1e400",
		`""`, `"a"`, `"z"`, `"zz"`, `"xy"`, `"xyz"`, `"abcd"`, `"été"`, `"\u00e9t\u00e9"`, `"ééée"`, `"\ud83d\ude00"`, `"A"`, `"a@b.example"`,
		`"2024-01-31T09:00:00Z"`, `"2024-02-30T09:00:00Z"`, "\"\xff\"",
		`null`, `true`, `false`, `[]`, `{}`, `["x"]`, `["x", "y", "z"]`, `[1, null]`, `[1.5]`, `{"x": true}`, `{"x": 1}`,
		`{"k": true, "j": false, "l": true}`, `{"city": "a"}`, `{"city": 1}`, `{"city": "a", "zip": 1}`, `{"town": "a"}`,
		`[{"name": "a"}]`, `[{"name": "a", "count": -1}]`, `[{}]`, `{"v": 1}`, `[{"v": 2}]`, `[{"v": "2"}]`}
	keys := []string{"id", "name", "mail", "kind", "ratio", "tags", "either", "both", "meta", "free",
		"n", "i", "s", "e", "d", "l", "o", "v", "kids", "addr", "stops", "a", "b", "c", "\\u0069d", "zz"}
	spaces := []string{"", " ", "\n\t"}
	all := compileAll(t)
	r := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for range 20000 {
		var b strings.Builder
		b.WriteString(spaces[r.IntN(len(spaces))] + "{")
		for j, n := 0, r.IntN(5); j < n; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(spaces[r.IntN(len(spaces))] + `"` + keys[r.IntN(len(keys))] + `":`)
			b.WriteString(values[r.IntN(len(values))])
		}
		b.WriteString("}" + spaces[r.IntN(len(spaces))])
		if r.IntN(20) == 0 {
			b.WriteString("x")
		}
		text := b.String()
		data := []byte(text)
		for _, x := range all {
			if x.c.Valid(text) {
				accepted++
				agrees(t, x.s, data, false)
			}
			if x.c.ValidPlainNumbers(text) {
				agrees(t, x.s, data, true)
			}
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d generated arguments accepted: the generator misses the schemas", accepted)
	}
	t.Logf("%d acceptances checked", accepted)
}

// BenchmarkValid measures the precheck on valid arguments, flat and
// behind $ref, with anyOf, against decoding them.
func BenchmarkValid(b *testing.B) {
	for _, bb := range []struct {
		name, schema, args string
	}{
		{"flat", everyKeyword, `{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "both": 6, "meta": {"k": true}}`},
		{"anyOf", everyKeyword, `{"id": 3, "either": "z", "free": [1, 2]}`},
		{"$defs", nested, `{"addr": {"city": "Oslo", "zip": 1234}, "stops": [{"name": "a", "count": 2}, {"name": "b"}]}`},
	} {
		c := Compile(compile(b, bb.schema))
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.args)))
			for b.Loop() {
				if !c.Valid(bb.args) {
					b.Fatal("refused")
				}
			}
		})
	}
}
