package saidex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/invopop/jsonschema"
	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// orderSchema exercises every issue kind and path convention.
const orderSchema = `{
  "type": "object",
  "properties": {
    "customer": {
      "type": "object",
      "properties": {
        "email": {"type": "string", "format": "email"},
        "name": {"type": "string", "minLength": 2}
      },
      "required": ["email"],
      "additionalProperties": false
    },
    "address": {
      "type": "object",
      "properties": {
        "street": {"type": "string"},
        "postal_code": {"type": "string", "pattern": "^[0-9]{5}$"},
        "country": {"type": "string", "enum": ["DE", "FR", "IT"]}
      },
      "required": ["street", "postal_code"],
      "additionalProperties": false
    },
    "line_items": {
      "type": "array",
      "minItems": 1,
      "maxItems": 20,
      "items": {
        "type": "object",
        "properties": {
          "sku": {"type": "string"},
          "quantity": {"type": "integer", "minimum": 1, "maximum": 99}
        },
        "required": ["sku", "quantity"],
        "additionalProperties": false
      }
    },
    "priority": {"enum": ["low", "normal", "high"]},
    "channel": {"const": "web"},
    "ship_date": {"type": "string", "format": "date"},
    "pickup_at": {"type": "string", "format": "date-time"},
    "tracking_id": {"type": "string", "format": "uuid"},
    "callback": {"type": "string", "format": "uri"},
    "discount": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "a/b~c": {"type": "boolean"},
    "payment": {
      "oneOf": [
        {"type": "object", "properties": {"method": {"const": "card"}, "last4": {"type": "string"}}, "required": ["method", "last4"], "additionalProperties": false},
        {"type": "object", "properties": {"method": {"const": "invoice"}, "vat_id": {"type": "string"}}, "required": ["method", "vat_id"], "additionalProperties": false}
      ]
    }
  },
  "required": ["customer", "line_items"],
  "additionalProperties": false
}`

// validOrder is a valid base; cases patch it.
const validOrder = `{"customer": {"email": "ada@example.com"}, "line_items": [{"sku": "A1", "quantity": 2}]}`

func mustCompile(t testing.TB, schema any) *compiledSchema {
	t.Helper()
	s, err := compileSchema("test_tool", schema)
	if err != nil {
		t.Fatalf("compileSchema: %v", err)
	}
	return s
}

func mustDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := decodeJSON(s)
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// patched returns validOrder with the given top-level members set
// (JSON values) and removed (nil values).
func patched(t *testing.T, members map[string]any) any {
	t.Helper()
	m := mustDecode(t, validOrder).(map[string]any)
	for k, v := range members {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = mustDecode(t, v.(string))
	}
	return m
}

func pathKinds(issues []Issue) []string {
	out := make([]string, len(issues))
	for i, is := range issues {
		out[i] = is.Path + " " + string(is.Kind)
	}
	return out
}

func TestValidateReportsEachKindAtItsLocation(t *testing.T) {
	s := mustCompile(t, orderSchema)
	tests := []struct {
		name  string
		patch map[string]any
		want  []string // "path kind", in the order validate returns them
	}{
		{"valid order has no issues", nil, []string{}},
		{"missing top-level member points to it", map[string]any{"customer": nil}, []string{"/customer required"}},
		{"missing nested member points to where it would be",
			map[string]any{"address": `{"street": "Main St 1"}`}, []string{"/address/postal_code required"}},
		{"unknown member points to the member", map[string]any{"town": `"Berlin"`}, []string{"/town additional"}},
		{"unknown nested member", map[string]any{"customer": `{"email": "a@b.co", "nick": "x"}`}, []string{"/customer/nick additional"}},
		{"wrong type reports only type, not its range", map[string]any{"line_items": `[{"sku": "A1", "quantity": "200"}]`},
			[]string{"/line_items/0/quantity type"}},
		{"null for a non-nullable member is a type issue", map[string]any{"ship_date": `null`}, []string{"/ship_date type"}},
		{"enum", map[string]any{"priority": `"urgent"`}, []string{"/priority enum"}},
		{"enum with a type keyword", map[string]any{"address": `{"street": "s", "postal_code": "10115", "country": "de"}`}, []string{"/address/country enum"}},
		{"const counts as enum", map[string]any{"channel": `"phone"`}, []string{"/channel enum"}},
		{"date format", map[string]any{"ship_date": `"31.01.2024"`}, []string{"/ship_date format"}},
		{"date-time format", map[string]any{"pickup_at": `"2024-01-31 09:00"`}, []string{"/pickup_at format"}},
		{"email format", map[string]any{"customer": `{"email": "ada at example"}`}, []string{"/customer/email format"}},
		{"uuid format", map[string]any{"tracking_id": `"1234"`}, []string{"/tracking_id format"}},
		{"uri format", map[string]any{"callback": `"not a uri"`}, []string{"/callback format"}},
		{"minimum", map[string]any{"line_items": `[{"sku": "A1", "quantity": 0}]`}, []string{"/line_items/0/quantity minimum"}},
		{"maximum", map[string]any{"line_items": `[{"sku": "A1", "quantity": 100}]`}, []string{"/line_items/0/quantity maximum"}},
		{"exclusiveMinimum is reported as minimum", map[string]any{"discount": `0`}, []string{"/discount minimum"}},
		{"exclusiveMaximum is reported as maximum", map[string]any{"discount": `1.0`}, []string{"/discount maximum"}},
		{"pattern", map[string]any{"address": `{"street": "s", "postal_code": "ABCDE"}`}, []string{"/address/postal_code pattern"}},
		{"minItems", map[string]any{"line_items": `[]`}, []string{"/line_items minItems"}},
		{"other keywords are other", map[string]any{"customer": `{"email": "a@b.co", "name": "A"}`}, []string{"/customer/name other"}},
		{"nullable anyOf gives one type issue", map[string]any{"note": `5`}, []string{"/note type"}},
		{"nullable anyOf accepts null", map[string]any{"note": `null`}, []string{}},
		{"pointer tokens are escaped", map[string]any{"a/b~c": `"yes"`}, []string{"/a~1b~0c type"}},
		{"unknown member with an escaped name", map[string]any{"x/y": `1`}, []string{"/x~1y additional"}},
		{"oneOf reports the alternative that nearly matched",
			map[string]any{"payment": `{"method": "card", "last4": 1234}`}, []string{"/payment/last4 type"}},
		{"oneOf of objects for a string is one type issue", map[string]any{"payment": `"card"`}, []string{"/payment type"}},
		{"array items in numeric order, issues sorted by path then kind",
			map[string]any{
				"line_items": `[{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":0},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"sku":"a","quantity":1},{"quantity":"x","extra":1}]`,
				"customer":   nil,
				"priority":   `"none"`,
			},
			[]string{"/customer required", "/line_items/2/quantity minimum", "/line_items/10/extra additional", "/line_items/10/quantity type", "/line_items/10/sku required", "/priority enum"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pathKinds(s.validate(patched(t, tt.patch)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("issues = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateMapsOtherApplicators(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{"unevaluatedProperties false reports the member as additional",
			`{"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}], "unevaluatedProperties": false}`,
			`{"a": "x", "b": 1}`, []string{"/b additional"}},
		{"items false after prefixItems is other",
			`{"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}}}`,
			`{"pair": [1, 2, 3]}`, []string{"/pair/2 other"}},
		{"allOf reports every failing branch once",
			`{"type": "object", "allOf": [{"required": ["a"]}, {"required": ["a", "b"]}]}`,
			`{}`, []string{"/a required", "/b required"}},
		{"allOf type failure hides the other branch's complaint about the same value",
			`{"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"enum": ["a"]}]}}}`,
			`{"x": 1}`, []string{"/x type"}},
		{"dependentRequired points to the missing member",
			`{"type": "object", "properties": {"card": {"type": "string"}, "cvc": {"type": "string"}}, "dependentRequired": {"card": ["cvc"]}}`,
			`{"card": "4111"}`, []string{"/cvc required"}},
		{"not is other",
			`{"type": "object", "properties": {"x": {"not": {"type": "null"}}}}`,
			`{"x": null}`, []string{"/x other"}},
		{"anyOf of objects picks the closest alternative",
			`{"type": "object", "properties": {"shape": {"anyOf": [
				{"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
				{"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}}, "required": ["w", "h"], "additionalProperties": false}]}}}`,
			`{"shape": {"w": 1, "h": "2"}}`, []string{"/shape/h type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pathKinds(mustCompile(t, tt.schema).validate(mustDecode(t, tt.args)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("issues = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateRootMustBeAnObject(t *testing.T) {
	for _, schema := range []string{orderSchema, `{"properties": {"a": {"type": "string"}}}`, `{}`} {
		s := mustCompile(t, schema)
		for _, raw := range []string{`null`, `[{"a": "x"}]`, `"{\"a\": \"x\"}"`, `3`} {
			issues := s.validate(mustDecode(t, raw))
			if len(issues) != 1 || issues[0].Path != "" || issues[0].Kind != IssueType || issues[0].Expected != "object" {
				t.Errorf("schema %.30s, args %s: issues = %+v, want one type issue at the root expecting object", schema, raw, issues)
			}
		}
	}
}

func TestValidateIssueDetails(t *testing.T) {
	s := mustCompile(t, orderSchema)
	tests := []struct {
		name  string
		patch map[string]any
		want  Issue
	}{
		{"required carries the member's type", map[string]any{"customer": nil},
			Issue{Path: "/customer", Kind: IssueRequired, Expected: "object"}},
		{"type carries the wanted type", map[string]any{"line_items": `[{"sku": "A1", "quantity": "2"}]`},
			Issue{Path: "/line_items/0/quantity", Kind: IssueType, Expected: "integer"}},
		{"nullable type names both types", map[string]any{"note": `[]`},
			Issue{Path: "/note", Kind: IssueType, Expected: "string or null"}},
		{"enum carries the allowed values", map[string]any{"priority": `"urgent"`},
			Issue{Path: "/priority", Kind: IssueEnum, Allowed: []any{"low", "normal", "high"}}},
		{"wrong type for an enum member is a type issue", map[string]any{"address": `{"street": "s", "postal_code": "12345", "country": 7}`},
			Issue{Path: "/address/country", Kind: IssueType, Expected: "string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			issues := s.validate(patched(t, tt.patch))
			if len(issues) != 1 {
				t.Fatalf("issues = %+v, want one", issues)
			}
			got := issues[0]
			if got.Path != tt.want.Path || got.Kind != tt.want.Kind || got.Expected != tt.want.Expected ||
				fmt.Sprint(got.Allowed) != fmt.Sprint(tt.want.Allowed) {
				t.Errorf("issue = %+v, want %+v", got, tt.want)
			}
			if got.Message == "" {
				t.Error("issue has no message")
			}
		})
	}
	t.Run("missing enum member carries its type and allowed values", func(t *testing.T) {
		issues := mustCompile(t, weatherSchema).validate(mustDecode(t, `{"city": "Oslo"}`))
		want := Issue{Path: "/unit", Kind: IssueRequired, Expected: "string", Allowed: []any{"celsius", "fahrenheit"}}
		if len(issues) != 1 || issues[0].Path != want.Path || issues[0].Kind != want.Kind ||
			issues[0].Expected != want.Expected || fmt.Sprint(issues[0].Allowed) != fmt.Sprint(want.Allowed) {
			t.Errorf("issues = %+v, want %+v", issues, want)
		}
	})
}

func TestValidateMessagesAreRenderedFromKinds(t *testing.T) {
	s := mustCompile(t, orderSchema)
	v := patched(t, map[string]any{
		"customer":   nil,
		"priority":   `"urgent"`,
		"discount":   `0`,
		"ship_date":  `"tomorrow"`,
		"line_items": `[{"sku": 5, "quantity": 0}]`,
		"address":    `{"street": "s", "postal_code": "x"}`,
		"town":       `"Berlin"`,
	})
	want := map[string]string{
		"/customer":              "required field is missing; expected an object",
		"/priority":              `must be one of "low", "normal", "high"`,
		"/discount":              "must be greater than 0",
		"/ship_date":             "must be a date in the form YYYY-MM-DD",
		"/line_items/0/sku":      "expected a string, got a number",
		"/line_items/0/quantity": "must be at least 1",
		"/address/postal_code":   `must match the regular expression "^[0-9]{5}$"`,
		"/town":                  "unknown field; remove it",
	}
	issues := s.validate(v)
	if len(issues) != len(want) {
		t.Fatalf("issues = %q, want %d", pathKinds(issues), len(want))
	}
	for _, is := range issues {
		if is.Message != want[is.Path] {
			t.Errorf("%s: message %q, want %q", is.Path, is.Message, want[is.Path])
		}
		if strings.Contains(is.Message, "urgent") || strings.Contains(is.Message, "tomorrow") || strings.Contains(is.Message, "Berlin") {
			t.Errorf("%s: message %q repeats the value sent", is.Path, is.Message)
		}
	}
}

// Typed arguments for the invopop form.
type shipArgs struct {
	City  string `json:"city"`
	Days  int    `json:"days" jsonschema:"minimum=1"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
}

// vTreeNode is recursive: invopop keeps $defs for it.
type vTreeNode struct {
	Name     string      `json:"name"`
	Children []vTreeNode `json:"children,omitempty"`
}

// schemaMarshaler is a user type that marshals to a schema.
type schemaMarshaler struct{}

func (schemaMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), nil
}

func TestCompileSchemaAcceptsEveryForm(t *testing.T) {
	const raw = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	var asMap map[string]any
	if err := json.Unmarshal([]byte(raw), &asMap); err != nil {
		t.Fatal(err)
	}
	reflected := (&jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}).Reflect(&shipArgs{})
	referenced := (&jsonschema.Reflector{}).Reflect(&shipArgs{}) // {"$ref": "#/$defs/shipArgs", "$defs": …}
	tests := []struct {
		name       string
		schema     any
		valid, bad string
		badWant    []string
	}{
		{"map", asMap, `{"city":"Oslo"}`, `{"town":"Oslo"}`, []string{"/city required", "/town additional"}},
		{"json.RawMessage", json.RawMessage(raw), `{"city":"Oslo"}`, `{"city":1}`, []string{"/city type"}},
		{"[]byte", []byte(raw), `{"city":"Oslo"}`, `{}`, []string{"/city required"}},
		{"string", raw, `{"city":"Oslo"}`, `{"city":null}`, []string{"/city type"}},
		{"invopop schema", reflected, `{"city":"Oslo","days":2}`, `{"city":"Oslo","days":0,"units":"SI"}`, []string{"/days minimum", "/units enum"}},
		{"invopop schema with $ref", referenced, `{"city":"Oslo","days":2}`, `{"city":"Oslo"}`, []string{"/days required"}},
		{"value marshaling to a schema", schemaMarshaler{}, `{"city":"Oslo"}`, `{"city":false}`, []string{"/city type"}},
		{"recursive typed tool schema", NewTool("tree", "", func(context.Context, vTreeNode) (string, error) { return "", nil }).Schema(),
			`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`,
			`{"name":"a","children":[{"name":"b","children":[{"nam":"c"}]}]}`,
			[]string{"/children/0/children/0/nam additional", "/children/0/children/0/name required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if issues := s.validate(mustDecode(t, tt.valid)); issues != nil {
				t.Errorf("valid arguments: issues %q", pathKinds(issues))
			}
			if got := pathKinds(s.validate(mustDecode(t, tt.bad))); !slices.Equal(got, tt.badWant) {
				t.Errorf("invalid arguments: issues %q, want %q", got, tt.badWant)
			}
		})
	}
}

func TestCompileSchemaRejectsBadSchemas(t *testing.T) {
	cyclic := map[string]any{"type": "object"}
	cyclic["properties"] = map[string]any{"self": cyclic}
	tests := []struct {
		name   string
		schema any
		want   string // substring of the error
	}{
		{"nil", nil, "nil"},
		{"not JSON", `{"type": "object",`, "not JSON"},
		{"not an object", `true`, "not a JSON object"},
		{"top-level array type", `{"type": "array", "items": {"type": "string"}}`, `top-level type must be "object"`},
		{"top-level type list", `{"type": ["object", "null"]}`, `top-level type must be "object"`},
		{"invalid keyword value", `{"type": "object", "properties": {"a": {"minimum": "one"}}}`, ""},
		{"$ref cycle on the same value", `{"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}`, "cycle"},
		{"self reference through allOf", `{"type": "object", "allOf": [{"$ref": "#"}]}`, "cycle"},
		{"external $ref", `{"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}`, ""},
		{"file $ref", `{"type": "object", "properties": {"a": {"$ref": "file:///etc/hostname"}}}`, ""},
		{"cyclic Go map", cyclic, "marshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileSchema("bad", tt.schema)
			if err == nil {
				t.Fatal("compileSchema returned no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestCompileSchemaAcceptsAnyToolName(t *testing.T) {
	for _, name := range []string{"get weather", "a/b#c?d", "100%", "ünïcode", "x:y"} {
		s, err := compileSchema(name, `{"type": "object", "$defs": {"c": {"type": "string"}}, "properties": {"city": {"$ref": "#/$defs/c"}}}`)
		if err != nil {
			t.Errorf("name %q: %v", name, err)
			continue
		}
		if got := pathKinds(s.validate(mustDecode(t, `{"city": 1}`))); !slices.Equal(got, []string{"/city type"}) {
			t.Errorf("name %q: issues %q", name, got)
		}
	}
}

func TestCompileSchemaAcceptsRecursionThatDescends(t *testing.T) {
	s := mustCompile(t, `{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
		"properties": {"name": {"type": "string"}, "next": {"$ref": "#/$defs/node"}}, "required": ["name"], "additionalProperties": false}}}`)
	if issues := s.validate(mustDecode(t, `{"name": "a", "next": {"name": "b", "next": {"name": "c"}}}`)); issues != nil {
		t.Errorf("valid chain: %q", pathKinds(issues))
	}
	got := pathKinds(s.validate(mustDecode(t, `{"name": "a", "next": {"name": "b", "next": {"nme": "c"}}}`)))
	if want := []string{"/next/next/name required", "/next/next/nme additional"}; !slices.Equal(got, want) {
		t.Errorf("issues = %q, want %q", got, want)
	}
}

func TestNewToolNodeReportsSchemaErrorsAsConfigErrors(t *testing.T) {
	tool := ToolWithSchema(validateStubTool{name: "lookup"}, `{"type": "array"}`)
	_, err := NewToolNode([]tools.Tool{tool})
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "lookup") {
		t.Fatalf("NewToolNode error = %v, want ErrInvalidConfig naming the tool", err)
	}
}

func TestPrecheckCoversCommonSchemas(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		fast   bool
	}{
		{"order schema with oneOf and const", orderSchema, false},
		{"common subset", `{"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"enum": ["x", "y"]},
			"c": {"type": "array", "items": {"type": "string", "format": "date"}}, "d": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
			"required": ["a"], "additionalProperties": false}`, true},
		{"recursive $ref", `{"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}}`, true},
		{"patternProperties is left to the full validator", `{"type": "object", "patternProperties": {"^x": {"type": "string"}}}`, false},
		{"numeric enum is left to the full validator", `{"type": "object", "properties": {"n": {"enum": [1, 2]}}}`, false},
		{"uniqueItems is left to the full validator", `{"type": "object", "properties": {"n": {"type": "array", "uniqueItems": true}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustCompile(t, tt.schema).precheck != nil; got != tt.fast {
				t.Errorf("precheck compiled = %v, want %v", got, tt.fast)
			}
		})
	}
}

func TestPrecheckDefersOnDoubtfulNumbers(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {"n": {"type": "number", "minimum": 0.1, "exclusiveMaximum": 5},
		"i": {"type": "integer", "minimum": 0, "maximum": 10}}}`)
	tests := []struct {
		args string
		fast bool // the precheck alone accepts it
		ok   bool // the arguments are valid
	}{
		{`{"n": 1, "i": 3}`, true, true},
		{`{"i": 0}`, true, true},    // integer on an integer bound is exact
		{`{"i": 10}`, true, true},   // likewise
		{`{"n": 0.1}`, false, true}, // equal to a non-integer bound: santhosh-tekuri decides
		{`{"n": 0.09999999999999999999}`, false, false},
		{`{"i": 1.0}`, false, true}, // 1.0 is an integer in JSON Schema
		{`{"i": 1.5}`, false, false},
		{`{"n": 5}`, false, false},
		{`{"n": 1e400}`, false, false},
	}
	for _, tt := range tests {
		v := mustDecode(t, tt.args)
		if got := s.prechecked(tt.args, false); got != tt.fast {
			t.Errorf("%s: precheck = %v, want %v", tt.args, got, tt.fast)
		}
		if got := s.validate(v) == nil; got != tt.ok {
			t.Errorf("%s: valid = %v, want %v", tt.args, got, tt.ok)
		}
	}
}

// validateStubTool is a plain tool that records nothing.
type validateStubTool struct{ name string }

func (t validateStubTool) Name() string                                 { return t.name }
func (t validateStubTool) Description() string                          { return "stub" }
func (t validateStubTool) Call(context.Context, string) (string, error) { return "ok", nil }

func TestValidateNamesTheTypeReceivedConsistently(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}`)
	for _, args := range []string{`{"a": 3}`, `{"b": 3}`} {
		issues := s.validate(mustDecode(t, args))
		if len(issues) != 1 || !strings.HasSuffix(issues[0].Message, "got a number") {
			t.Errorf("%s: issues %+v, want one type issue ending in \"got a number\"", args, issues)
		}
	}
	if issues := s.validate(mustDecode(t, `7`)); len(issues) != 1 || issues[0].Message != "expected an object, got a number" {
		t.Errorf("root number: issues %+v", issues)
	}
}

// fbSchema exercises every keyword the precheck supports: $ref, allOf,
// anyOf, enums, formats, patterns, lengths, bounds and nesting. It is the
// schema internal/precheck's own tests use.
var fbSchema = func() string {
	b, err := os.ReadFile("internal/precheck/testdata/every_keyword.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func fixtureSchema(t testing.TB) *compiledSchema {
	t.Helper()
	return mustCompile(t, benchTool().Schema())
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
	n := mustNode(t, []tools.Tool{ToolWithSchema(rec, fbSchema)})
	if bt := n.tools["record"]; !bt.schema.prechecked(raw, false) {
		t.Fatal("test arguments do not take the fast path")
	}
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", raw), tc("c2", "record", `{"id": 1, "id": 1}`)))
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	got := append([]string(nil), rec.args...)
	rec.mu.Unlock()
	if len(got) != 2 || (got[0] != raw && got[1] != raw) {
		t.Fatalf("tool got %q, want the raw arguments among them", got)
	}
	// A repeated name, with an equal value, reaches the tool once.
	if !slices.Contains(got, `{"id":1}`) {
		t.Fatalf("tool got %q, want the repeated key once", got)
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
	// The duplicate key took the ordinary path, where the repeated member
	// (with an equal value) is dropped: the call ran with, and the
	// sanitized message stores, the text without it.
	if res.Calls[1].Outcome != OutcomeExecuted || !res.AIMessageChanged || stored[1] != `{"id":1}` {
		t.Fatalf("duplicate-key call: outcome %s; message changed %v, stores %q", res.Calls[1].Outcome, res.AIMessageChanged, stored[1])
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
			n := mustNode(t, []tools.Tool{ToolWithSchema(rec, fbSchema)},
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

// fbFuzzSchemas are the schemas FuzzPrecheckPipeline checks: FuzzValidate's, the
// benchmark tool's and fbSchema.
func fbFuzzSchemas(t testing.TB) []*compiledSchema {
	out := []*compiledSchema{fixtureSchema(t), mustCompile(t, fbSchema)}
	for _, src := range fuzzSchemas {
		out = append(out, mustCompile(t, src))
	}
	return out
}

// FuzzPrecheckPipeline checks the precheck against the ordinary path (its
// differential fuzz against santhosh-tekuri alone is in internal/precheck):
// what it accepts must decode (encoding/json, UseNumber) to an object that
// santhosh-tekuri accepts, must come out of the repair stage unchanged
// (no step, the same text), and under lax must hold no number CoercionLax
// could rewrite.
func FuzzPrecheckPipeline(f *testing.F) {
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
		if !s.prechecked(args, lax) {
			return
		}
		fbAgrees(t, s, args, lax)
	})
}

// fbAgrees checks arguments the precheck of s accepted against the
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
	if lax && jsonvalue.HasLooseNumber(v) {
		t.Fatalf("accepted %q under lax, but it holds a number CoercionLax may rewrite", args)
	}
}

// BenchmarkPrecheck compares the precheck on the benchmark tool's valid
// arguments (the text copied once to bytes, as the pipeline does) with
// the ordinary path's decode and full validation.
func BenchmarkPrecheck(b *testing.B) {
	s := fixtureSchema(b)
	args := benchfixture.Arguments(benchfixture.Valid, 3)
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if !s.prechecked(args, false) {
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

// The schema a node advertises is the one it validates against, number
// for number: a bound beyond float64's range or precision is sent as
// written, not as null or rounded.
func TestDefinitionsKeepSchemaNumbersAsWritten(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"beyond float64 range", `{"type":"object","properties":{"n":{"type":"number","maximum":1e400}}}`,
			`{"properties":{"n":{"maximum":1e400,"type":"number"}},"type":"object"}`},
		{"beyond float64 precision", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`,
			`{"properties":{"n":{"maximum":9007199254740993,"type":"integer"}},"type":"object"}`},
		{"enum and default", `{"type":"object","properties":{"n":{"enum":[0.1,12345678901234567890],"default":1.50}}}`,
			`{"properties":{"n":{"default":1.50,"enum":[0.1,12345678901234567890]}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "t"}, tt.schema)})
			params := n.Definitions()[0].Function.Parameters
			b, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("advertised %s, want %s", b, tt.want)
			}
			// Each call gets its own copy.
			params.(map[string]any)["type"] = "changed"
			if again := n.Definitions()[0].Function.Parameters.(map[string]any)["type"]; again != "object" {
				t.Errorf("a second Definitions call sees the first one's change: type %v", again)
			}
		})
	}
}

// The repair stage's lookup says a location accepts only strings exactly
// when every value the schema accepts there is a string.
func TestStringLookupAcceptsOnlyStringsWhereTheSchemaDoes(t *testing.T) {
	member := func(name string) []lenient.Segment { return []lenient.Segment{{Name: name, Index: -1}} }
	tests := []struct {
		name string
		prop any
		path []lenient.Segment
		want bool
	}{
		{"type string", map[string]any{"type": "string"}, member("p"), true},
		{"type string with a format", map[string]any{"type": "string", "format": "date"}, member("p"), true},
		{"an enum of strings", map[string]any{"enum": []any{"a", "b"}}, member("p"), true},
		{"a string const", map[string]any{"const": "a"}, member("p"), true},
		{"allOf with a string", map[string]any{"allOf": []any{map[string]any{"minLength": 1}, map[string]any{"type": "string"}}}, member("p"), true},
		{"oneOf of strings", map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"const": "x"}}}, member("p"), true},
		{"an array's items", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, []lenient.Segment{{Name: "p", Index: -1}, {Index: 3}}, true},
		{"a nested member through $ref", map[string]any{"$ref": "#/$defs/o"}, []lenient.Segment{{Name: "p", Index: -1}, {Name: "q", Index: -1}}, true},
		{"format alone", map[string]any{"format": "date"}, member("p"), false},
		{"string or null", map[string]any{"type": []any{"string", "null"}}, member("p"), false},
		{"a mixed enum", map[string]any{"enum": []any{"a", 1}}, member("p"), false},
		{"a number const", map[string]any{"const": 1}, member("p"), false},
		{"anyOf with a number", map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}, member("p"), false},
		{"no constraint", map[string]any{}, member("p"), false},
		{"string and integer", map[string]any{"allOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, member("p"), false},
		{"a member not described", map[string]any{"type": "string"}, member("other"), false},
		{"the root", map[string]any{"type": "string"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := compileSchema("t", map[string]any{
				"type":       "object",
				"$defs":      map[string]any{"o": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
				"properties": map[string]any{"p": tt.prop},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.stringOnly.OnlyString(tt.path); got != tt.want {
				t.Errorf("OnlyString(%v) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// A schema accepts {} when it requires nothing: decided by the validator.
func TestAcceptsEmptyIsTheValidatorsAnswer(t *testing.T) {
	for _, tt := range []struct {
		schema map[string]any
		want   bool
	}{
		{map[string]any{"type": "object"}, true},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}, true},
		{map[string]any{"type": "object", "required": []any{"a"}}, false},
		{map[string]any{"type": "object", "minProperties": 1}, false},
		{map[string]any{"type": "object", "allOf": []any{map[string]any{"required": []any{"a"}}}}, false},
	} {
		cs, err := compileSchema("t", tt.schema)
		if err != nil {
			t.Fatal(err)
		}
		if cs.acceptsEmpty != tt.want {
			t.Errorf("%v: acceptsEmpty %v, want %v", tt.schema, cs.acceptsEmpty, tt.want)
		}
	}
}

// Argument types whose reflected schema (invopop/jsonschema without
// DoNotReference) keeps every named struct behind $ref in $defs: the root,
// a nested struct, a slice of structs and a map of structs.
type (
	defsAddr struct {
		Street string `json:"street"`
		City   string `json:"city"`
		Zip    int    `json:"zip,omitempty"`
		Key    Secret `json:"key,omitempty"`
	}
	defsStop struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	defsArgs struct {
		Addr  defsAddr            `json:"addr"`
		Stops []defsStop          `json:"stops"`
		Named map[string]defsStop `json:"named,omitempty"`
		Days  int                 `json:"days"`
	}
)

const defsValid = `{"addr": {"street": "Main St", "city": "Oslo"}, "stops": [{"name": "a", "count": 1}], "days": 2}`

// defsSchema reflects defsArgs as invopop/jsonschema does by default, or,
// with open, allowing members the structs do not name.
func defsSchema(t *testing.T, open bool) *jsonschema.Schema {
	t.Helper()
	s := (&jsonschema.Reflector{AllowAdditionalProperties: open}).Reflect(&defsArgs{})
	if s.Ref == "" || len(s.Definitions) < 3 {
		t.Fatalf("the reflected schema does not use $ref/$defs: %+v", s)
	}
	return s
}

// defsNode is a node with one tool, "record", whose schema is defsSchema.
func defsNode(t *testing.T, open bool, opts ...Option) (*ToolNode, *fbRecorder) {
	t.Helper()
	rec := &fbRecorder{}
	return mustNode(t, []tools.Tool{ToolWithSchema(rec, defsSchema(t, open))}, opts...), rec
}

// TestDefsCorrectionRouting routes invalid calls of a $defs schema: a
// missing field alone goes to the agent, a missing field with a misnamed
// key (nested, in a slice item, in a map value) goes to correction. With
// an open schema no "unknown field" issue names the misnamed key: the
// router must find it by following $ref itself.
func TestDefsCorrectionRouting(t *testing.T) {
	tests := []struct {
		name     string
		open     bool
		args     string
		wantSent bool
	}{
		{"nested missing field", false, `{"addr": {"street": "a"}, "stops": [], "days": 1}`, false},
		{"nested misnamed key", false, `{"addr": {"street": "a", "town": "Oslo"}, "stops": [], "days": 1}`, true},
		{"slice item misnamed key", false, `{"addr": {"street": "a", "city": "b"}, "stops": [{"nme": "x", "count": 1}], "days": 1}`, true},
		{"slice item wrong type", false, `{"addr": {"street": "a", "city": "b"}, "stops": [{"name": "x", "count": "1"}], "days": 1}`, true},
		{"open: nested missing field", true, `{"addr": {"street": "a"}, "stops": [], "days": 1}`, false},
		{"open: nested misnamed key", true, `{"addr": {"street": "a", "town": "Oslo"}, "stops": [], "days": 1}`, true},
		{"open: slice item misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [{"nme": "x", "count": 1}], "days": 1}`, true},
		{"open: map value misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [], "named": {"k": {"nme": "x", "count": 1}}, "days": 1}`, true},
		{"open: root misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [], "dayz": 1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.ForcedToolCall(defsValid))
			n, _ := defsNode(t, tt.open, WithCorrectionModel(model))
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			if sent := model.CallCount() > 0; sent != tt.wantSent {
				t.Fatalf("sent to the correction model = %v, want %v (issues %+v)", sent, tt.wantSent, res.Calls[0].Issues)
			}
			want := OutcomeFeedback
			if tt.wantSent {
				want = OutcomeCorrected
			}
			if got := res.Calls[0].Outcome; got != want {
				t.Fatalf("outcome %s, want %s", got, want)
			}
		})
	}
}

// TestDefsFeedback checks the feedback on a $defs schema: the fields of
// the root struct behind $ref for arguments that do not parse, and the
// type of a missing member of a nested struct or a slice item.
func TestDefsFeedback(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string
	}{
		{"unparseable", `addr=Oslo days=2`, []string{
			"- addr: object, required\n", "- days: integer, required\n", "- stops: array, required\n", "- named: object, optional\n"}},
		{"nested missing member", `{"addr": {"street": "a"}, "stops": [], "days": 1}`, []string{
			"addr.city: required field is missing; expected a string"}},
		{"slice item missing member", `{"addr": {"street": "a", "city": "b"}, "stops": [{"name": "x"}], "days": 1}`, []string{
			"stops[0].count: required field is missing; expected an integer"}},
		{"map value wrong type", `{"addr": {"street": "a", "city": "b"}, "stops": [], "named": {"k": {"name": 1, "count": 1}}, "days": 1}`, []string{
			"named.k.name: expected a string, got a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := defsNode(t, false)
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			if res.Calls[0].Outcome != OutcomeFeedback {
				t.Fatalf("outcome %s", res.Calls[0].Outcome)
			}
			fb := res.Calls[0].Output
			for _, w := range tt.want {
				if !strings.Contains(fb, w) {
					t.Errorf("feedback lacks %q:\n%s", w, fb)
				}
			}
		})
	}
}

// TestDefsCoercion coerces values behind $ref: a nested struct's member,
// slice items, map values and a root member.
func TestDefsCoercion(t *testing.T) {
	n, rec := defsNode(t, false, WithCoercion(CoercionLax))
	args := `{"addr": {"street": "a", "city": "b", "zip": "1234"}, "stops": [{"name": "x", "count": "3"}, {"name": "y", "count": 4.0}],
		"named": {"k": {"name": "z", "count": "5"}}, "days": "2"}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", args)))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted {
		t.Fatalf("outcome %s, issues %+v", c.Outcome, c.Issues)
	}
	var got []string
	for _, co := range c.Coercions {
		got = append(got, co.Path+" "+co.From+"→"+co.To)
	}
	want := []string{"/addr/zip string→integer", "/days string→integer", "/named/k/count string→integer",
		"/stops/0/count string→integer", "/stops/1/count number→integer"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("coercions %q, want %q", got, want)
	}
	var a defsArgs
	if len(rec.args) != 1 || json.Unmarshal([]byte(rec.args[0]), &a) != nil {
		t.Fatalf("tool got %q", rec.args)
	}
	if a.Addr.Zip != 1234 || a.Days != 2 || a.Stops[1].Count != 4 || a.Named["k"].Count != 5 {
		t.Fatalf("tool decoded %+v", a)
	}
}

// TestDefsSecretMasked masks a Secret field of a struct behind $ref in the
// sanitized history, while the tool gets the value.
func TestDefsSecretMasked(t *testing.T) {
	n, rec := defsNode(t, false)
	args := `{"addr": {"street": "a", "city": "b", "key": "hunter2"}, "stops": [], "days": 1}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", args)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.args) != 1 || !strings.Contains(rec.args[0], "hunter2") {
		t.Fatalf("tool got %q", rec.args)
	}
	stored := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	if strings.Contains(stored, "hunter2") || !strings.Contains(stored, SecretMask) {
		t.Fatalf("sanitized arguments %s", stored)
	}
}

// TestDefsValidTakesTheFastPath checks that valid arguments of a $defs
// schema are vouched for on their raw text (the precheck follows $ref),
// so the call runs with its arguments verbatim, unrepaired.
func TestDefsValidTakesTheFastPath(t *testing.T) {
	n, rec := defsNode(t, false)
	raw := `{"addr": {"street": "Main St", "city": "Oslo", "zip": 150}, "stops": [{"name": "a", "count": 1}, {"name": "b", "count": 0}],
		"named": {"k": {"name": "c", "count": 2}}, "days": 2}`
	if !n.tools["record"].schema.prechecked(raw, false) {
		t.Fatal("the precheck does not vouch for valid $defs arguments")
	}
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", raw)))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Calls[0]; c.Outcome != OutcomeExecuted || c.Repaired || string(c.Arguments) != raw || len(rec.args) != 1 || rec.args[0] != raw {
		t.Fatalf("outcome %s, repaired %v, arguments %s, tool got %q", c.Outcome, c.Repaired, c.Arguments, rec.args)
	}
}

// TestAnchorAndIDReferences follows references written as an $anchor and
// as a URI the schema's own $id declares, for secret masking and coercion.
// (Masking used to resolve only "#/..." pointers and left both secrets in
// the history.)
func TestAnchorAndIDReferences(t *testing.T) {
	schema := `{"$id": "https://example.com/tool", "type": "object",
		"properties": {"key": {"$ref": "#secret"}, "login": {"$ref": "https://example.com/tool#/$defs/login"}},
		"$defs": {"s": {"$anchor": "secret", "type": "string", "writeOnly": true},
			"login": {"type": "object", "properties": {"pin": {"$ref": "#secret"}, "n": {"type": "integer"}}}}}`
	rec := &fbRecorder{}
	n := mustNode(t, []tools.Tool{ToolWithSchema(rec, schema)}, WithCoercion(CoercionLax))
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", `{"key": "k-secret", "login": {"pin": "p-secret", "n": "5"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted || len(c.Coercions) != 1 || c.Coercions[0].Path != "/login/n" {
		t.Fatalf("outcome %s, coercions %+v, issues %+v", c.Outcome, c.Coercions, c.Issues)
	}
	if len(rec.args) != 1 || !strings.Contains(rec.args[0], "k-secret") || !strings.Contains(rec.args[0], "p-secret") {
		t.Fatalf("tool got %q", rec.args)
	}
	stored := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	if want := `{"key":"**********","login":{"n":5,"pin":"**********"}}`; stored != want {
		t.Fatalf("sanitized arguments %s, want %s", stored, want)
	}
}

// TestFeedbackFollowsAllOf describes a member whose schema is an allOf
// around a $ref, as generators write a referenced type with a note. (The
// old description followed $ref but not allOf, and said nothing of the
// type or the allowed values.)
func TestFeedbackFollowsAllOf(t *testing.T) {
	schema := `{"type": "object", "required": ["unit"],
		"properties": {"unit": {"allOf": [{"$ref": "#/$defs/unit"}], "description": "the unit"}},
		"$defs": {"unit": {"type": "string", "enum": ["c", "f"]}}}`
	for _, tt := range []struct{ args, want string }{
		{`{}`, `- unit: required field is missing; expected a string, one of "c", "f"`},
		{`unit=c`, `- unit: string, one of "c", "f", required`},
	} {
		n := mustNode(t, []tools.Tool{ToolWithSchema(&fbRecorder{}, schema)})
		res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
		if err != nil {
			t.Fatal(err)
		}
		if fb := res.Calls[0].Output; !strings.Contains(fb, tt.want) {
			t.Errorf("%s: feedback lacks %q:\n%s", tt.args, tt.want, fb)
		}
	}
}

// corpusCase is the part of a shared corpus line the validation tests use.
type corpusCase struct {
	ID           string `json:"id"`
	Expect       string `json:"expect"`
	RawArguments string `json:"raw_arguments"`
	Tool         struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tool"`
	WantArguments json.RawMessage `json:"want_arguments"`
	WantIssues    []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"want_issues"`
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		t.Skipf("shared corpus not available: %v", err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCorpusIssueSetsMatch checks, on the shared corpus's invalid cases whose
// arguments parse as they are, that validation reports exactly the (path,
// kind) set the corpus lists, and that every valid or repaired case's
// intended arguments validate with no issue.
func TestCorpusIssueSetsMatch(t *testing.T) {
	cases := readCorpus(t)
	var invalid, agreed, valid, fastAccepted int
	for _, c := range cases {
		s, err := compileSchema(c.Tool.Name, c.Tool.Parameters)
		if err != nil {
			t.Errorf("%s: compile: %v", c.ID, err)
			continue
		}
		switch c.Expect {
		case "valid", "repaired":
			v, err := decodeJSON(string(c.WantArguments))
			if err != nil {
				t.Errorf("%s: want_arguments: %v", c.ID, err)
				continue
			}
			if issues := s.validate(v); len(issues) > 0 {
				t.Errorf("%s: intended arguments got issues %v", c.ID, issues)
			}
			if s.prechecked(string(c.WantArguments), false) {
				fastAccepted++
			}
			valid++
		case "invalid":
			v, err := decodeJSON(c.RawArguments)
			if err != nil {
				continue // needs the repair stage
			}
			invalid++
			var got, want []string
			for _, is := range s.validate(v) {
				got = append(got, is.Path+" "+string(is.Kind))
			}
			for _, is := range c.WantIssues {
				want = append(want, is.Path+" "+is.Kind)
			}
			slices.Sort(got)
			slices.Sort(want)
			if slices.Equal(got, want) {
				agreed++
			} else {
				t.Errorf("%s: issues %q, corpus lists %q", c.ID, got, want)
			}
		}
	}
	t.Logf("invalid cases that parse: %d, issue sets equal: %d; valid/repaired intended arguments: %d, accepted by the precheck alone: %d",
		invalid, agreed, valid, fastAccepted)
}
