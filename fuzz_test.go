package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// fuzzSchemas are the schemas FuzzValidate checks arguments against: the
// common keyword subset (with the precheck), and keywords only
// santhosh-tekuri handles.
var fuzzSchemas = []string{
	orderSchema,
	weatherSchema,
	`{"type": "object", "properties": {
		"n": {"type": "number", "minimum": -2.5, "exclusiveMaximum": 1e3},
		"i": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740993},
		"s": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^[a-zé]*$"},
		"e": {"enum": ["a", true, null]},
		"d": {"type": "string", "format": "date-time"},
		"l": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
		"o": {"type": "object", "minProperties": 1, "maxProperties": 2, "additionalProperties": {"type": "boolean"}}},
	  "required": ["n"], "additionalProperties": false}`,
	`{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
		"properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
		"required": ["v"], "additionalProperties": false}}}`,
	`{"type": "object", "patternProperties": {"^x_": {"type": "string"}}, "additionalProperties": false,
	  "properties": {"u": {"type": "array", "uniqueItems": true}, "m": {"multipleOf": 0.5}, "c": {"const": {"k": [1]}},
	  "n": {"not": {"type": "string"}}, "p": {"type": "object", "propertyNames": {"maxLength": 2}},
	  "q": {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}},
	  "r": {"type": "object", "dependentRequired": {"a": ["b"]}}}}`,
	`{"properties": {"a": {"type": "string"}}}`,
}

func FuzzValidate(f *testing.F) {
	seeds := []string{
		validOrder,
		`{"city": "Oslo", "unit": "celsius"}`,
		`{"town": "Oslo", "unit": "K", "days": 0, "include": {"wnd": 1}}`,
		`{"n": 0, "i": 1, "s": "ab", "e": null, "d": "2024-01-31T09:00:00Z", "l": [1, null], "o": {"x": true}}`,
		`{"n": -2.5, "i": 9007199254740993, "s": "", "l": [], "o": {}}`,
		`{"n": 999.9999999999999999, "i": 1.0, "e": "A"}`,
		`{"v": 1, "kids": [{"v": 2, "kids": [{"v": "3"}]}, {"w": 1}]}`,
		`{"x_a": "s", "x_b": 1, "u": [1, 1.0], "m": 1.25, "c": {"k": [1]}, "n": "s", "p": {"abc": 1}, "q": "a", "r": {"a": 1}}`,
		`{"a/b": {"~": []}}`,
		`null`, `[]`, `"x"`, `1e400`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s, i%2 == 0)
	}
	compiled := make([]*compiledSchema, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		compiled[i] = mustCompile(f, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string, useNumber bool) {
		s := compiled[int(which)%len(compiled)]
		var v any
		if useNumber {
			var err error
			if v, err = decodeJSON(args); err != nil {
				return
			}
		} else if err := json.Unmarshal([]byte(args), &v); err != nil {
			return
		}
		issues := s.validate(v)
		if _, isObj := v.(map[string]any); !isObj {
			if len(issues) != 1 || issues[0].Kind != IssueType || issues[0].Path != "" {
				t.Fatalf("non-object arguments: issues %+v", issues)
			}
			return
		}
		fullErr, ok := s.schemaValidate(v)
		if !ok { // the validator panicked (a number math/big cannot read): the call gets an issue
			if len(issues) != 1 || issues[0].Kind != IssueOther {
				t.Fatalf("the validator panicked, but issues are %+v", issues)
			}
			return
		}
		if (len(issues) == 0) != (fullErr == nil) {
			t.Fatalf("issues %+v, but santhosh-tekuri says %v", issues, fullErr)
		}
		seen := map[string]bool{}
		for i, is := range issues {
			if is.Path != "" && !strings.HasPrefix(is.Path, "/") {
				t.Fatalf("issue path %q is not a JSON pointer", is.Path)
			}
			if _, ok := kindRank[is.Kind]; !ok || is.Message == "" {
				t.Fatalf("issue %+v has an unknown kind or no message", is)
			}
			if key := is.Path + "\x00" + string(is.Kind); seen[key] {
				t.Fatalf("issue (%q, %s) reported twice", is.Path, is.Kind)
			} else {
				seen[key] = true
			}
			if i > 0 && compareIssues(issues[i-1], is) > 0 {
				t.Fatalf("issues not sorted: %+v before %+v", issues[i-1], is)
			}
		}
		if len(issues) > 0 {
			c := &call{name: "fuzz_tool", raw: args, tool: &boundTool{schema: s}, value: v, issues: issues}
			if fb := feedbackFor(c); !strings.HasSuffix(fb, "again with these fields corrected.") {
				t.Fatalf("feedback does not end by asking for the call again:\n%s", fb)
			}
		}
	})
}

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

// FuzzInvokeHistory builds histories from the fuzzer's bytes — an AI
// message of calls (with ids, repeated ids, or none, as Gemini sends),
// some already answered, in any order, and maybe a message after them —
// and checks the node's contract on each: a refused history runs nothing
// and is refused only for a non-tool message after pending calls; an
// accepted one runs exactly the pending calls, answers every call exactly
// once, and a second Invoke changes nothing and runs nothing.
func FuzzInvokeHistory(f *testing.F) {
	f.Add([]byte{3, 0, 0b010, 0, 0})
	f.Add([]byte{4, 1, 0b1111, 2, 0})
	f.Add([]byte{2, 2, 0b01, 1, 1})
	f.Add([]byte{5, 0, 0b10101, 3, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		at := func(i int) int {
			if i < len(data) {
				return int(data[i])
			}
			return 0
		}
		n, idMode, answeredMask, rotate, tail := at(0)%6+1, at(1)%3, at(2), at(3), at(4)%3
		var runs atomic.Int64
		mk := func(name string) tools.Tool {
			return NewTool(name, "", func(context.Context, struct{}) (string, error) { runs.Add(1); return "ok", nil })
		}
		node := mustNode(t, []tools.Tool{mk("a"), mk("b")}, WithLogger(sanDiscard))

		calls := make([]llms.ToolCall, n)
		for i := range calls {
			id := fmt.Sprintf("c%d", i)
			switch idMode {
			case 1: // no ids
				id = ""
			case 2: // an id repeated: the later call is dropped
				id = fmt.Sprintf("c%d", i/2)
			}
			calls[i] = saidextest.Call(id, []string{"a", "b"}[at(5+i)%2], `{}`)
		}
		ai := saidextest.AIMessage(calls...)
		var answers []llms.MessageContent
		seen := map[string]bool{}
		pending := 0
		for i, c := range calls {
			if c.ID != "" && seen[c.ID] {
				continue // dropped
			}
			seen[c.ID] = c.ID != ""
			if answeredMask&(1<<i) != 0 {
				answers = append(answers, saidextest.ToolMessage(c.ID, c.FunctionCall.Name, "before"))
			} else {
				pending++
			}
		}
		if len(answers) > 0 {
			k := rotate % len(answers)
			answers = append(answers[k:], answers[:k]...)
		}
		conv := append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}, ai)
		conv = append(conv, answers...)
		switch tail {
		case 1:
			conv = append(conv, llms.TextParts(llms.ChatMessageTypeHuman, "next"))
		case 2:
			conv = append(conv, llms.TextParts(llms.ChatMessageTypeAI, "done"))
		}

		out, err := node.Invoke(context.Background(), conv)
		if err != nil {
			if !errors.Is(err, ErrMisplacedMessage) || tail == 0 || pending == 0 || runs.Load() != 0 {
				t.Fatalf("Invoke: %v (tail %d, pending %d, runs %d)", err, tail, pending, runs.Load())
			}
			return
		}
		if tail != 0 && pending > 0 {
			t.Fatalf("a %d-call history with %d pending and a message after them was accepted", n, pending)
		}
		if runs.Load() != int64(pending) {
			t.Fatalf("ran %d calls, want the %d pending", runs.Load(), pending)
		}
		if pending == 0 && !reflect.DeepEqual(out, conv) {
			t.Fatal("nothing pending, but the conversation changed")
		}
		// Every call not dropped is answered exactly once, right after the AI message.
		block := out[2:]
		for len(block) > 0 && block[len(block)-1].Role != llms.ChatMessageTypeTool {
			block = block[:len(block)-1]
		}
		used := map[int]bool{}
		seen = map[string]bool{}
		kept := toolCallsOf(out[1]) // the sanitized message: dropped calls removed
		for i, k := range matchResponses(out[1], block) {
			c := kept[i]
			if c.ID != "" && seen[c.ID] {
				continue
			}
			seen[c.ID] = c.ID != ""
			if k < 0 || used[k] {
				t.Fatalf("call %d (%q) answered %d, used %v", i, c.ID, k, used[k])
			}
			used[k] = true
		}
		if len(toolResponses(block)) != len(used) {
			t.Fatalf("%d responses for %d calls", len(toolResponses(block)), len(used))
		}
		again, err := node.Invoke(context.Background(), out)
		if err != nil || !reflect.DeepEqual(again, out) || runs.Load() != int64(pending) {
			t.Fatalf("second Invoke: err %v, changed %v, runs %d", err, !reflect.DeepEqual(again, out), runs.Load())
		}
	})
}
