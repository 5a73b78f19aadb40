package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	invopop "github.com/invopop/jsonschema"
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
	reflected := (&invopop.Reflector{DoNotReference: true, ExpandedStruct: true}).Reflect(&shipArgs{})
	referenced := (&invopop.Reflector{}).Reflect(&shipArgs{}) // {"$ref": "#/$defs/shipArgs", "$defs": …}
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
