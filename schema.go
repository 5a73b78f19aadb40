package saidex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/saidex/saidex-go/internal/precheck"
	"github.com/saidex/saidex-go/internal/schemawalk"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchema is a tool's argument schema, compiled once.
type compiledSchema struct {
	doc    map[string]any
	schema *jsonschema.Schema
	// byLocation indexes every reachable subschema by its Location, to
	// describe the members a "required" error names.
	byLocation map[string]*jsonschema.Schema
	// fields are the top-level members, required first, for feedback on
	// arguments that could not be parsed.
	fields []schemaField
	// precheck vouches for argument text of the common keyword subset
	// without decoding it (internal/precheck); nil when the schema uses
	// any keyword outside the subset.
	precheck *precheck.Checker
	// acceptsEmpty: the schema accepts {} (RepairEmptyArguments).
	acceptsEmpty bool
	// strings tells the repair stage where the schema accepts only a
	// string (RepairQuotedBareValue).
	stringOnly stringLookup
	// enumNear indexes, by schema location, the values of every enum of
	// more than maxListedValues values, for the feedback that names the
	// closest to a value sent (oneOfNear).
	enumNear map[string]*nearest.Index
	// issuesTell: every reachable schema is issuesTell's; the kind of an
	// issue then names the keyword the value fails (chooseReading).
	issuesTell bool
}

// issuesTell reports whether s has no alternatives, negation or
// condition (anyOf, oneOf, not, if), whose failures are reported as the
// issues of one branch; no keyword that makes one member's absence fail
// another (unevaluatedProperties, unevaluatedItems, dependentSchemas,
// dependentRequired); and no enum or const holding an object or an
// array.
func issuesTell(s *jsonschema.Schema) bool {
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil || s.If != nil ||
		s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil || len(s.DependentSchemas) > 0 || len(s.DependentRequired) > 0 {
		return false
	}
	scalar := func(v any) bool {
		switch v.(type) {
		case map[string]any, []any:
			return false
		}
		return true
	}
	if s.Const != nil && !scalar(*s.Const) {
		return false
	}
	return s.Enum == nil || !slices.ContainsFunc(s.Enum.Values, func(v any) bool { return !scalar(v) })
}

// schemaField describes one top-level member of an argument schema.
type schemaField struct {
	name     string
	expected string // type description, "" when the schema names none
	allowed  []any  // enum values, if any
	required bool
}

// errSchemaCycle is wrapped by the compile error of a schema whose
// references loop back to the same value without descending into it.
var errSchemaCycle = errors.New("the schema's references loop without descending into the value (a $ref cycle)")

// compileSchema compiles a schema given in any form Tool.Schema documents:
// map[string]any, json.RawMessage, []byte or string holding JSON, an
// invopop *jsonschema.Schema, or any other value encoding/json marshals to
// a schema object. A top-level "type" other than "object", a $ref cycle
// that never descends into the value, and a $ref to another document are
// errors.
func compileSchema(name string, schema any) (*compiledSchema, error) {
	var raw []byte
	switch s := schema.(type) {
	case nil:
		return nil, errors.New("Schema() returned nil")
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	case string:
		if err := checkSchemaBounds(s); err != nil { // before copying s
			return nil, err
		}
		raw = []byte(s)
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("marshal schema: %w", err)
		}
		raw = b
	}
	if err := checkSchemaBounds(raw); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is not a JSON object")
	}
	if t, ok := m["type"]; ok && !isObjectType(t) {
		return nil, fmt.Errorf("the schema's top-level type must be \"object\", got %s", compactJSON(t))
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	// "password" asserts nothing; registering it keeps it on the compiled
	// schema (Schema.Format), where secret masking looks for it.
	c.RegisterFormat(&jsonschema.Format{Name: "password", Validate: func(any) error { return nil }})
	c.UseLoader(noLoader{})
	loc := "mem://tool/" + url.PathEscape(name)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	cs := &compiledSchema{doc: m, schema: s, byLocation: map[string]*jsonschema.Schema{}, issuesTell: true}
	for _, x := range schemawalk.Reachable(s) {
		cs.byLocation[x.Location] = x
		cs.issuesTell = cs.issuesTell && issuesTell(x)
		if x.Enum != nil && len(x.Enum.Values) > maxListedValues {
			texts := make([]string, len(x.Enum.Values))
			for i, v := range x.Enum.Values {
				texts[i] = nearText(v)
			}
			if cs.enumNear == nil {
				cs.enumNear = map[string]*nearest.Index{}
			}
			cs.enumNear[x.Location] = nearest.NewIndex(texts)
		}
	}
	if err := checkCycles(cs.byLocation); err != nil {
		return nil, err
	}
	cs.fields = topLevelFields(s)
	cs.precheck = precheck.Compile(s)
	cs.acceptsEmpty = s.Validate(map[string]any{}) == nil
	cs.stringOnly = stringLookup{root: s}
	return cs, nil
}

// errSchemaBounds is wrapped by the error of a schema past MaxSchemaBytes,
// MaxSchemaDepth or MaxSchemaObjects.
var errSchemaBounds = errors.New("the schema is past the bounds of a tool schema")

// checkSchemaBounds returns an error wrapping errSchemaBounds for a schema
// text past MaxSchemaBytes, MaxSchemaDepth or MaxSchemaObjects. It reads
// raw once, and stops at the first value past a bound.
func checkSchemaBounds[T string | []byte](raw T) error {
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%w: %d bytes, more than the %d a tool schema may have (MaxSchemaBytes)", errSchemaBounds, len(raw), MaxSchemaBytes)
	}
	depth, objects, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if c == '{' {
				if objects++; objects > MaxSchemaObjects {
					return fmt.Errorf("%w: it holds more than the %d objects a tool schema may have (MaxSchemaObjects)", errSchemaBounds, MaxSchemaObjects)
				}
			}
			if depth++; depth > MaxSchemaDepth {
				return fmt.Errorf("%w: its objects and arrays nest deeper than the %d levels a tool schema may have (MaxSchemaDepth)", errSchemaBounds, MaxSchemaDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// isObjectType reports whether a top-level "type" value is "object" or
// ["object"].
func isObjectType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return len(t) == 1 && t[0] == "object"
	}
	return false
}

// noLoader refuses every external schema: a tool schema must be
// self-contained, and compiling must not read files or the network. So
// every $ref of a compiled tool schema is local ("#/$defs/X", "#anchor",
// or a URI its own $id declares), resolved by the compiler into
// Schema.Ref, which internal/schemawalk follows.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %q not allowed: a tool schema must be self-contained", url)
}

// checkCycles returns an error wrapping errSchemaCycle when the graph of
// applicators that stay on the same value ($ref, allOf, anyOf, …) has a
// cycle: validating such a schema would recurse without end (santhosh-tekuri
// reports it on every call as a "reference cycle"). Recursion through
// properties or items descends into the value and is fine.
func checkCycles(all map[string]*jsonschema.Schema) error {
	const (
		unvisited = iota
		onStack
		done
	)
	state := map[*jsonschema.Schema]int{}
	var cyc string
	var visit func(s *jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		state[s] = onStack
		schemawalk.Subschemas(s, func(sub *jsonschema.Schema, sameValue bool) {
			if cyc != "" || !sameValue {
				return
			}
			switch state[sub] {
			case onStack:
				cyc = sub.Location
			case unvisited:
				visit(sub)
			}
		})
		state[s] = done
	}
	for _, loc := range slices.Sorted(maps.Keys(all)) {
		if s := all[loc]; state[s] == unvisited && cyc == "" {
			visit(s)
		}
	}
	if cyc != "" {
		return fmt.Errorf("%w at %s", errSchemaCycle, cyc)
	}
	return nil
}

// topLevelFields lists the members of the root object schema (with the
// schemas it reaches through $ref and allOf), required first, each group
// in name order.
func topLevelFields(root *jsonschema.Schema) []schemaField {
	set := schemawalk.Of(root)
	required := set.Required()
	var fields []schemaField
	for _, name := range set.PropertyNames() {
		sub, _ := set.Property(name)
		f := schemaField{name: name, required: slices.Contains(required, name)}
		f.expected, f.allowed = describe(sub)
		fields = append(fields, f)
	}
	for _, name := range required {
		if !slices.ContainsFunc(fields, func(f schemaField) bool { return f.name == name }) {
			fields = append(fields, schemaField{name: name, required: true})
		}
	}
	slices.SortFunc(fields, func(a, b schemaField) int {
		if a.required != b.required {
			if a.required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return fields
}

// parameters returns the schema as a fresh map for llms.FunctionDefinition:
// a deep copy of the document the node validates against, numbers kept as
// written (json.Number), so that a client's encoding sends every bound
// and enum value exactly as the tool declared it.
func (s *compiledSchema) parameters() map[string]any {
	return deepCopyJSON(s.doc).(map[string]any) // unresolved.go
}

// prechecked reports whether text is certainly arguments the schema
// accepts, by the precheck on its bytes (internal/precheck, which copies
// text once into a pooled decoder's bytes); plain also refuses text
// holding a number written with a fraction or an exponent, which
// CoercionLax may rewrite. false means only "not known to be valid".
func (s *compiledSchema) prechecked(text string, plain bool) bool {
	if s.precheck == nil || text == "" {
		return false
	}
	if plain {
		return s.precheck.ValidPlainNumbers(text)
	}
	return s.precheck.Valid(text)
}

// stringLookup is the schema lookup of the repair stage's scanner
// (lenient.Schema): where the schema accepts only a string. It walks the
// compiled schema with internal/schemawalk, which follows $ref.
type stringLookup struct{ root *jsonschema.Schema }

// OnlyString reports whether every value the schema accepts at path is a
// string: one of the schemas that apply there (with those $ref and allOf
// reach) names only "string" as its type, has a string const or an enum
// of strings only, or has an anyOf or oneOf whose alternatives all accept
// only strings; and none of them forbids the value or names another type
// alone. A member the schema forbids or does not describe is false.
func (l stringLookup) OnlyString(path []lenient.Segment) bool {
	set, ok := l.at(path)
	return ok && onlyString(set)
}

// AcceptsString reports whether the string v may be accepted at path:
// false only where some schema that applies there rejects it. Where none
// applies (the schema does not describe the location), or the schema
// forbids the member there, it is true: nothing tells v apart.
func (l stringLookup) AcceptsString(path []lenient.Segment, v string) bool {
	set, ok := l.at(path)
	return !ok || !slices.ContainsFunc(set, func(s *jsonschema.Schema) bool {
		if s.Types != nil && !s.Types.IsEmpty() && !slices.Contains(s.Types.ToStrings(), "string") {
			return true // a type that is no string: no validation needed
		}
		return s.Validate(v) != nil
	})
}

// at returns the schemas that apply at path; ok is false where the schema
// forbids the member, or does not describe it (no schema applies to its
// container).
func (l stringLookup) at(path []lenient.Segment) (set schemawalk.Set, ok bool) {
	set = schemawalk.Of(l.root)
	for _, seg := range path {
		if len(set) == 0 {
			return nil, false
		}
		if seg.Index >= 0 {
			set = set.Item(seg.Index)
			continue
		}
		var allowed bool
		if set, allowed = set.Property(seg.Name); !allowed {
			return nil, false
		}
	}
	return set, true
}

// onlyString reports whether the schemas of set, which all apply to one
// value, accept only strings (see stringLookup.OnlyString).
func onlyString(set schemawalk.Set) bool {
	only := false
	for _, s := range set {
		if s.Bool != nil {
			if !*s.Bool {
				return false
			}
			continue
		}
		if s.Types != nil && !s.Types.IsEmpty() {
			ts := s.Types.ToStrings()
			if !slices.Contains(ts, "string") {
				return false
			}
			only = only || len(ts) == 1
		}
		if s.Const != nil {
			if _, isString := (*s.Const).(string); !isString {
				return false
			}
			only = true
		}
		if s.Enum != nil {
			strs := 0
			for _, v := range s.Enum.Values {
				if _, isString := v.(string); isString {
					strs++
				}
			}
			switch strs {
			case 0:
				return false
			case len(s.Enum.Values):
				only = true
			}
		}
	}
	if only {
		return true
	}
	for _, group := range set.Alternatives() {
		if len(group) > 0 && !slices.ContainsFunc(group, func(alt schemawalk.Set) bool { return !onlyString(alt) }) {
			return true
		}
	}
	return false
}
