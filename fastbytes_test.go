package saidex

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// fbSchema exercises every keyword the byte checker supports: $ref, allOf,
// anyOf, enums, formats, patterns, lengths, bounds and nesting.
const fbSchema = `{
  "type": "object",
  "$defs": {"pos": {"type": "integer", "minimum": 1}},
  "properties": {
    "id":    {"$ref": "#/$defs/pos"},
    "name":  {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-zé]+$"},
    "mail":  {"type": "string", "format": "email"},
    "kind":  {"enum": ["a", false, null]},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "tags":  {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
    "either": {"anyOf": [{"type": "integer", "maximum": 9}, {"type": "string", "maxLength": 1}]},
    "both":  {"allOf": [{"type": "integer"}, {"minimum": 5}], "maximum": 7},
    "meta":  {"type": "object", "additionalProperties": {"type": "boolean"}, "maxProperties": 2},
    "free":  {}
  },
  "required": ["id"],
  "additionalProperties": false
}`

func fixtureSchema(t testing.TB) *compiledSchema {
	t.Helper()
	return mustCompile(t, benchTool().Schema())
}

func TestFastBytesAcceptsValidArguments(t *testing.T) {
	bench := fixtureSchema(t)
	for i := range 64 {
		args := benchfixture.Arguments(benchfixture.Valid, i)
		if bench.fastBytes == nil || !bench.fastBytes.valid(args, false) {
			t.Fatalf("the benchmark tool's valid arguments %s are not accepted", args)
		}
	}
	for _, tt := range []struct {
		name, schema, args string
	}{
		{"weather", weatherSchema, `{"city": "Oslo", "days": 14, "unit": "celsius", "include": {"wind": true}}`},
		{"recursive $ref", fuzzSchemas[3], `{"v": 1, "kids": [{"v": 2, "kids": []}, {"v": -3}]}`},
		{"anyOf items, format, pattern", fuzzSchemas[2], `{"n": 0, "i": 1, "s": "ab", "e": null, "d": "2024-01-31T09:00:00Z", "l": [1, null], "o": {"x": true}}`},
		{"every keyword", fbSchema, `{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5,
			"tags": ["x"], "either": "z", "both": 6, "meta": {"k": true}, "free": [{"deep": [1.5e3, null]}]}`},
		{"escaped strings count code points", fbSchema, `{"id": 1, "name": "\u00e9t\u00e9", "either": "\n"}`},
		{"white space around", fbSchema, " \t\r\n{\"id\":1}\n "},
		{"no type keyword", `{"properties": {"a": {"type": "string"}}}`, `{"a": "x", "b": [1]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if s.fastBytes == nil {
				t.Fatal("no byte checker for a schema of the supported subset")
			}
			if !s.fastBytes.valid(tt.args, false) {
				t.Fatalf("valid arguments refused: %s", tt.args)
			}
			if err := s.schema.Validate(mustDecode(t, tt.args)); err != nil {
				t.Fatalf("test case is not valid: %v", err)
			}
		})
	}
}

func TestFastBytesRefusesWhatItCannotVouchFor(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args string
		lax                bool
	}{
		{"duplicate key", fbSchema, `{"id": 1, "id": 2}`, false},
		{"duplicate key spelled with an escape", fbSchema, `{"id": 1, "\u0069d": 2}`, false},
		{"trailing data", fbSchema, `{"id": 1} x`, false},
		{"a second object", fbSchema, `{"id": 1}{"id": 1}`, false},
		{"trailing comma", fbSchema, `{"id": 1,}`, false},
		{"invalid UTF-8 in a value", fbSchema, "{\"id\": 1, \"free\": \"\xff\"}", false},
		{"invalid UTF-8 in a key", fbSchema, "{\"id\": 1, \"meta\": {\"\xc3\": true}}", false},
		{"lone surrogate escape", fbSchema, `{"id": 1, "free": "\ud800"}`, false},
		{"byte order mark", fbSchema, "\ufeff{\"id\": 1}", false},
		{"array root", `{"type": "object"}`, `[]`, false},
		{"null root", `{"type": "object"}`, `null`, false},
		{"double-encoded object", `{"type": "object"}`, `"{}"`, false},
		{"empty", `{"type": "object"}`, ``, false},
		{"cut off", `{"type": "object"}`, `{"a": [1`, false},
		{"NaN", `{"type": "object"}`, `{"a": NaN}`, false},
		{"leading zero", `{"type": "object"}`, `{"a": 01}`, false},
		{"missing required", fbSchema, `{"name": "ab"}`, false},
		{"additional property", fbSchema, `{"id": 1, "other": 1}`, false},
		{"integer written with a fraction", fbSchema, `{"id": 1.0}`, false},
		{"integer with 16 digits", fbSchema, `{"id": 1234567890123456}`, false},
		{"below an exact minimum", fbSchema, `{"id": 0}`, false},
		{"within rounding of a bound", fbSchema, `{"id": 1, "ratio": 1.0000000000000001}`, false},
		{"just under an exclusive bound", fbSchema, `{"id": 1, "ratio": 1e-400}`, false},
		{"number out of float64 range", `{"properties": {"a": {"maximum": 5}}}`, `{"a": 1e400}`, false},
		{"too many code points", fbSchema, `{"id": 1, "name": "ééée"}`, false},
		{"escaped code points too many", fbSchema, `{"id": 1, "name": "\u00e9\u00e9\u00e9\u00e9"}`, false},
		{"pattern", fbSchema, `{"id": 1, "name": "A"}`, false},
		{"format", fbSchema, `{"id": 1, "mail": "nope"}`, false},
		{"enum", fbSchema, `{"id": 1, "kind": "b"}`, false},
		{"enum wants a string, gets a number", fbSchema, `{"id": 1, "kind": 0}`, false},
		{"anyOf none matches", fbSchema, `{"id": 1, "either": "zz"}`, false},
		{"allOf one fails", fbSchema, `{"id": 1, "both": 4}`, false},
		{"sibling of allOf fails", fbSchema, `{"id": 1, "both": 8}`, false},
		{"too many items", fbSchema, `{"id": 1, "tags": ["a", "b", "c"]}`, false},
		{"additionalProperties schema", fbSchema, `{"id": 1, "meta": {"k": 1}}`, false},
		{"too many properties", fbSchema, `{"id": 1, "meta": {"a": true, "b": true, "c": true}}`, false},
		{"lax: a number with a fraction", fbSchema, `{"id": 1, "ratio": 0.5}`, true},
		{"lax: an exponent in an unconstrained value", fbSchema, `{"id": 1, "free": {"a": [1e2]}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if s.fastBytes == nil {
				t.Fatal("no byte checker")
			}
			if s.fastBytes.valid(tt.args, tt.lax) {
				t.Fatalf("accepted %q", tt.args)
			}
		})
	}
	// The lax cases are accepted without lax, so the refusal is lax's.
	s := mustCompile(t, fbSchema)
	for _, args := range []string{`{"id": 1, "ratio": 0.5}`, `{"id": 1, "free": {"a": [1e2]}}`} {
		if !s.fastBytes.valid(args, false) {
			t.Errorf("refused %s without lax", args)
		}
	}
}

func TestFastBytesNoCheckerForUnsupportedKeywords(t *testing.T) {
	for _, kw := range []string{
		`"uniqueItems": true`, `"multipleOf": 2`, `"const": 1`, `"not": {"type": "string"}`,
		`"oneOf": [{"type": "string"}]`, `"if": {"type": "string"}, "then": {"minLength": 1}`,
		`"enum": [1, 2]`, `"patternProperties": {"^x": {}}`, `"propertyNames": {"maxLength": 3}`,
		`"dependentRequired": {"a": ["b"]}`, `"prefixItems": [{}]`, `"contains": {}`,
	} {
		t.Run(kw, func(t *testing.T) {
			s := mustCompile(t, `{"type": "object", "properties": {"a": {`+kw+`}}}`)
			if s.fastBytes != nil || s.fast != nil {
				t.Fatalf("checkers for a schema with %s: bytes %v, value %v", kw, s.fastBytes != nil, s.fast != nil)
			}
		})
	}
	t.Run("draft-07 $ref with siblings", func(t *testing.T) {
		s := mustCompile(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
			"definitions": {"p": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/p", "minimum": 3}}}`)
		if s.fastBytes != nil {
			t.Fatal("byte checker for a draft-07 $ref")
		}
	})
	for i, src := range fuzzSchemas {
		s := mustCompile(t, src)
		if (s.fast == nil) != (s.fastBytes == nil) {
			t.Errorf("fuzzSchemas[%d]: value checker %v, byte checker %v: the subsets differ", i, s.fast != nil, s.fastBytes != nil)
		}
	}
}

// TestFastBytesDepthLimit pins that jsontext refuses nesting that
// encoding/json (the ordinary path's decoder) refuses.
func TestFastBytesDepthLimit(t *testing.T) {
	s := mustCompile(t, `{"type": "object"}`)
	for _, depth := range []int{9999, 10000, 10001, 10002} {
		args := strings.Repeat("[", depth-1)
		args = `{"a":` + args + strings.Repeat("]", depth-1) + `}`
		_, err := decodeJSON(args)
		if got := s.fastBytes.valid(args, false); got && err != nil {
			t.Fatalf("depth %d: byte checker accepts what encoding/json refuses (%v)", depth, err)
		}
	}
	deep := `{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`
	if s.fastBytes.valid(deep, false) {
		t.Fatal("nesting beyond 10,000 accepted")
	}
}

// fbRecorder is a plain tool that records the argument strings it gets.
type fbRecorder struct {
	mu   sync.Mutex
	args []string
}

func (r *fbRecorder) Name() string        { return "record" }
func (r *fbRecorder) Description() string { return "records its arguments" }
func (r *fbRecorder) Call(_ context.Context, in string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, in)
	return "ok", nil
}

func TestRunFastPathKeepsTheRawArguments(t *testing.T) {
	// Unusual but valid formatting: the tool, the report and the sanitized
	// message must all see these exact bytes.
	raw := " {\n  \"id\" :7, \"name\":\"\\u00e9t\\u00e9\",  \"ratio\": 5e-1 ,\"free\":{\"x\":[1,{}]}}\t"
	rec := &fbRecorder{}
	n := mustNode(t, []tools.Tool{WithSchema(rec, fbSchema)})
	if bt := n.tools["record"]; bt.schema.fastBytes == nil || !bt.schema.fastBytes.valid(raw, false) {
		t.Fatal("test arguments do not take the fast path")
	}
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", raw), tc("c2", "record", `{"id": 1, "id": 2}`)))
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	got := append([]string(nil), rec.args...)
	rec.mu.Unlock()
	if len(got) != 2 || (got[0] != raw && got[1] != raw) {
		t.Fatalf("tool got %q, want the raw arguments among them", got)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted || c.Repaired || string(c.Arguments) != raw {
		t.Fatalf("report: outcome %s, repaired %v, arguments %q", c.Outcome, c.Repaired, c.Arguments)
	}
	ai := res.AIMessage
	var stored []string
	for _, p := range ai.Parts {
		if call, ok := p.(llms.ToolCall); ok {
			stored = append(stored, call.FunctionCall.Arguments)
		}
	}
	if len(stored) != 2 || stored[0] != raw {
		t.Fatalf("sanitized message stores %q, want the raw text first", stored)
	}
	// The duplicate key took the ordinary path (encoding/json keeps the
	// last value) and still ran.
	if res.Calls[1].Outcome != OutcomeExecuted || res.AIMessageChanged {
		t.Fatalf("duplicate-key call: outcome %s; message changed %v", res.Calls[1].Outcome, res.AIMessageChanged)
	}
}

func TestRunFastPathStillRunsValidators(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reject  bool
		wantRun bool
	}{
		{name: "accepting validator", wantRun: true},
		{name: "rejecting validator", reject: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var checked atomic.Int64
			var seen map[string]any
			rec := &fbRecorder{}
			n := mustNode(t, []tools.Tool{WithSchema(rec, fbSchema)},
				WithValidator("record", func(_ context.Context, args map[string]any, _ ValidatorContext) error {
					checked.Add(1)
					seen = args
					if tt.reject {
						return errors.New("not this one")
					}
					return nil
				}))
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", `{"id": 3}`)))
			if err != nil {
				t.Fatal(err)
			}
			if checked.Load() != 1 || seen["id"] == nil {
				t.Fatalf("validator ran %d times with %v, want once with the decoded arguments", checked.Load(), seen)
			}
			ran := res.Calls[0].Outcome == OutcomeExecuted
			if ran != tt.wantRun || (len(rec.args) == 1) != tt.wantRun {
				t.Fatalf("outcome %s, tool calls %d, want executed %v", res.Calls[0].Outcome, len(rec.args), tt.wantRun)
			}
		})
	}
}

// fbFuzzSchemas are the schemas FuzzFastBytes checks: FuzzValidate's, the
// benchmark tool's and fbSchema.
func fbFuzzSchemas(t testing.TB) []*compiledSchema {
	out := []*compiledSchema{fixtureSchema(t), mustCompile(t, fbSchema)}
	for _, src := range fuzzSchemas {
		out = append(out, mustCompile(t, src))
	}
	return out
}

// FuzzFastBytes checks the byte checker against the ordinary path: what it
// accepts must decode (encoding/json, UseNumber) to an object that
// santhosh-tekuri accepts, must come out of the repair stage unchanged
// (no step, the same text), and under lax must hold no number CoerceLax
// could rewrite.
func FuzzFastBytes(f *testing.F) {
	seeds := []string{
		benchfixture.Arguments(benchfixture.Valid, 3),
		validOrder,
		`{"city": "Oslo", "days": 14, "unit": "celsius", "include": {"wind": true}}`,
		`{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "either": "z", "both": 6, "meta": {"k": true}, "free": [{"deep": [1.5e3, null]}]}`,
		`{"id": 1, "name": "\u00e9t\u00e9", "either": 9}`,
		`{"id": 1, "id": 2}`,
		`{"id": 1, "\u0069d": 2}`,
		`{"id": 1} x`,
		`{"id": 1, "ratio": 1.0000000000000001}`,
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
	compiled := fbFuzzSchemas(f)
	f.Fuzz(func(t *testing.T, which uint8, args string, lax bool) {
		s := compiled[int(which)%len(compiled)]
		if s.fastBytes == nil || !s.fastBytes.valid(args, lax) {
			return
		}
		fbAgrees(t, s, args, lax)
	})
}

// fbAgrees checks arguments the byte checker of s accepted against the
// ordinary path.
func fbAgrees(t *testing.T, s *compiledSchema, args string, lax bool) {
	t.Helper()
	v, err := decodeJSON(args)
	if err != nil {
		t.Fatalf("accepted %q, which encoding/json refuses: %v", args, err)
	}
	if _, ok := v.(map[string]any); !ok {
		t.Fatalf("accepted %q, which is not an object", args)
	}
	if err := s.schema.Validate(v); err != nil {
		t.Fatalf("accepted %q, which santhosh-tekuri rejects: %v", args, err)
	}
	res, err := repairArguments(args, defaultRepairOptions())
	if err != nil || res.json != args || len(res.steps) > 0 {
		t.Fatalf("accepted %q, which the repair stage turns into %q (steps %v, err %v)", args, res.json, res.steps, err)
	}
	if lax && hasLooseNumber(v) {
		t.Fatalf("accepted %q under lax, but it holds a number CoerceLax may rewrite", args)
	}
}

// TestFastBytesNeverAcceptsWhatTheOrdinaryPathRejects generates arguments
// (deterministically) from values around the bounds, types and keys of the
// fuzz schemas, including duplicate keys, escapes and spacing, and checks
// every acceptance of the byte checker with fbAgrees.
func TestFastBytesNeverAcceptsWhatTheOrdinaryPathRejects(t *testing.T) {
	values := []string{"-2.5", "-2.50000000000000001", "-3", "0", "-0", "1", "1.0", "1e3", "1000", "5", "6", "7", "8", "9",
		"999.9999999999999999", "9007199254740993", "1e-400", "1E2", "0.5", "1.0000000000000001", "12345678901234567890", "1e400",
		`""`, `"a"`, `"z"`, `"zz"`, `"abcd"`, `"été"`, `"\u00e9t\u00e9"`, `"ééée"`, `"\ud83d\ude00"`, `"A"`, `"a@b.example"`,
		`"2024-01-31T09:00:00Z"`, `"2024-02-30T09:00:00Z"`, `"celsius"`, `"kelvin"`, "\"\xff\"",
		`null`, `true`, `false`, `[]`, `{}`, `["x"]`, `["x", "y", "z"]`, `[1, null]`, `[1.5]`, `{"x": true}`, `{"x": 1}`,
		`{"k": true, "j": false, "l": true}`, `{"lat": 1, "lon": 2}`, `{"wind": true}`, `{"v": 1}`, `[{"v": 2}]`}
	keys := []string{"id", "name", "mail", "kind", "ratio", "tags", "either", "both", "meta", "free",
		"n", "i", "s", "e", "d", "l", "o", "v", "kids", "city", "days", "unit", "hourly", "location", "include", "\\u0069d", "zz"}
	spaces := []string{"", " ", "\n\t"}
	compiled := fbFuzzSchemas(t)
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
		args := b.String()
		for _, s := range compiled {
			for _, lax := range []bool{false, true} {
				if s.fastBytes != nil && s.fastBytes.valid(args, lax) {
					accepted++
					fbAgrees(t, s, args, lax)
				}
			}
		}
	}
	if accepted < 1000 {
		t.Fatalf("the byte checker accepted only %d generated arguments: the generator misses the schemas", accepted)
	}
	t.Logf("%d acceptances checked", accepted)
}

// BenchmarkFastBytes compares the byte checker on the benchmark tool's
// valid arguments with the ordinary path's decode and value check.
func BenchmarkFastBytes(b *testing.B) {
	s := fixtureSchema(b)
	args := benchfixture.Arguments(benchfixture.Valid, 3)
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !s.fastBytes.valid(args, false) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("decode+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := decodeJSON(args)
			if err != nil || s.validate(v) != nil {
				b.Fatal("invalid")
			}
		}
	})
}
