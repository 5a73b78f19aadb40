package saidex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tmc/langchaingo/llms"
	"math/big"
	"net/url"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/saidex/saidex-go/internal/precheck"
	"github.com/saidex/saidex-go/internal/schemawalk"
)

// IssueKind is the JSON Schema keyword a field issue is about.
type IssueKind string

// The kinds of field issue.
const (
	IssueRequired   IssueKind = "required"   // a required member is missing
	IssueType       IssueKind = "type"       // the value has the wrong type
	IssueEnum       IssueKind = "enum"       // the value is not one of the allowed values (enum or const)
	IssueAdditional IssueKind = "additional" // the member is not in the schema
	IssueFormat     IssueKind = "format"     // the string does not match its format
	IssueMinimum    IssueKind = "minimum"    // the number is below the minimum (or exclusive minimum)
	IssueMaximum    IssueKind = "maximum"    // the number is above the maximum (or exclusive maximum)
	IssuePattern    IssueKind = "pattern"    // the string does not match the pattern
	IssueMinItems   IssueKind = "minItems"   // the array has too few items
	IssueOther      IssueKind = "other"      // any other keyword
)

// Issue is one field-level problem with a call's arguments.
//
// Validation reports each problem once, at the deepest location it applies
// to: a value of the wrong type yields only an IssueType for that value.
// Issues are sorted by Path (array indexes in numeric order), then by Kind.
type Issue struct {
	// Path is an RFC 6901 JSON Pointer into the arguments; "" is the root.
	// For IssueRequired it points to where the missing member would be; for
	// IssueAdditional to the unexpected member; otherwise to the offending
	// value.
	Path string
	// Kind is the keyword that failed.
	Kind IssueKind
	// Message says what is wrong, for a human or a model, without the field
	// name and without the value that was sent (so it is safe to log).
	Message string
	// Allowed lists the allowed values of an IssueEnum, and of a missing
	// member (IssueRequired) whose schema is an enum, as the schema gives
	// them (numbers as json.Number).
	Allowed []any
	// Expected is the type the schema wants ("integer", "string or null"),
	// for IssueType and IssueRequired; "" when the schema names no type.
	Expected string
	// Flagged reports that a tool validator recorded the issue with [Flag]
	// or [FlagOnly] without rejecting the call.
	Flagged bool
}

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
		raw = []byte(s)
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("marshal schema: %w", err)
		}
		raw = b
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
	cs := &compiledSchema{doc: m, schema: s, byLocation: map[string]*jsonschema.Schema{}}
	for _, x := range schemawalk.Reachable(s) {
		cs.byLocation[x.Location] = x
	}
	if err := checkCycles(cs.byLocation); err != nil {
		return nil, err
	}
	cs.fields = topLevelFields(s)
	cs.precheck = precheck.Compile(s)
	return cs, nil
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

// compactJSON renders a schema value in a message; a value no JSON can
// hold (not from a decoded schema) is printed with fmt.
func compactJSON(v any) string {
	s, err := jsonvalue.Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
	for _, loc := range sortedKeys(all) {
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

// describe returns the type a set of schemas wants ("string", "integer or
// null") and its allowed values when it is an enum or const: those of the
// first schema of the set that names a type (an enum's or a const's values
// name theirs). When no schema of the set does, it looks into the anyOf
// and oneOf alternatives.
func describe(set schemawalk.Set) (expected string, allowed []any) {
	var types []string
	add := func(t string) {
		if t != "" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	var walk func(set schemawalk.Set, depth int)
	walk = func(set schemawalk.Set, depth int) {
		if depth > 8 {
			return
		}
		typed := false
		for _, s := range set {
			if allowed == nil {
				if s.Enum != nil {
					allowed = slices.Clone(s.Enum.Values)
				} else if s.Const != nil {
					allowed = []any{*s.Const}
				}
			}
			if typed {
				continue
			}
			switch {
			case s.Types != nil && !s.Types.IsEmpty():
				for _, t := range s.Types.ToStrings() {
					add(t)
				}
			case s.Enum != nil:
				for _, v := range s.Enum.Values {
					add(jsonTypeOf(v))
				}
			case s.Const != nil:
				add(jsonTypeOf(*s.Const))
			default:
				continue
			}
			typed = true
		}
		if typed {
			return
		}
		for _, group := range set.Alternatives() {
			for _, alt := range group {
				walk(alt, depth+1)
			}
		}
	}
	walk(set, 0)
	return strings.Join(types, " or "), allowed
}

// gotTypeOf names the JSON type of a value that failed a type check the
// way santhosh-tekuri does: every number is a "number".
func gotTypeOf(v any) string {
	if t := jsonTypeOf(v); t != "integer" {
		return t
	}
	return "number"
}

// jsonTypeOf names the JSON type of a decoded value; a json.Number that is
// an integer is an "integer".
func jsonTypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case float64, float32, int, int64, int32:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// parameters returns the schema as a fresh map for llms.FunctionDefinition.
func (s *compiledSchema) parameters() map[string]any {
	var m map[string]any
	b, _ := json.Marshal(s.doc)
	_ = json.Unmarshal(b, &m)
	return m
}

// validate is the validation stage for one call: it checks the repaired
// arguments in phase PhaseInitial and marks the call valid or invalid.
func (n *ToolNode) validate(ctx context.Context, r *run, c *call) error {
	if c.status != statusPending {
		return nil
	}
	issues, co, err := n.checkCoerce(ctx, r, c, c.value, c.args, checkPhase{phase: PhaseInitial}) // coerce.go
	if err != nil {
		return err
	}
	c.adoptCoercion(co)
	c.issues = issues
	if len(issues) > 0 {
		c.status = statusInvalid
		return nil
	}
	c.status = statusValid
	return nil
}

// Phase says at which point of the pipeline arguments are being checked.
type Phase string

// The phases in which arguments are checked.
const (
	PhaseInitial    Phase = "initial"    // the model's own (repaired) arguments
	PhaseCorrection Phase = "correction" // arguments from the correction model
	PhaseSalvage    Phase = "salvage"    // arguments returned by an unresolved hook
)

// checkPhase is the phase of a check with its correction attempt numbers.
type checkPhase struct {
	phase       Phase
	attempt     int // 1-based correction attempt; 0 outside PhaseCorrection
	maxAttempts int
}

// check validates a candidate argument value for call c: against the
// tool's schema first, then (when the schema passes) with the tool's
// validators. text is value's JSON text when the caller has it, else "":
// the precheck may then vouch for it without the full validator. It returns the issues, nil when value is valid. Every stage
// that produces arguments (validation, correction, salvage) checks them
// here. A non-nil error (an interrupt) stops the run.
//
// check also records on c the issues the validators flagged (see [Flag])
// for value, replacing those of an earlier check of c: after the last check
// they belong to the arguments the call ends with. Checks of one call never
// run concurrently; checks of different calls may.
func (n *ToolNode) check(ctx context.Context, r *run, c *call, value any, text string, ph checkPhase) ([]Issue, error) {
	c.flagged = nil
	issues := c.tool.schema.validateText(text, value)
	if len(issues) > 0 || len(c.tool.validators) == 0 {
		return issues, nil
	}
	return n.runValidators(ctx, r, c, value, ph)
}

// validate returns the field issues of v, or nil when v is valid. v is a
// decoded JSON value: numbers as json.Number or float64.
//
// The arguments of a tool call must be a JSON object: a v that is not one
// gets an IssueType at the root even when the schema names no type.
func (s *compiledSchema) validate(v any) []Issue {
	if _, isObj := v.(map[string]any); !isObj {
		return []Issue{typeIssue("", []string{"object"}, gotTypeOf(v))}
	}
	err := s.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Kind: IssueOther, Message: "the arguments could not be validated"}}
	}
	m := issueMapper{s: s, root: v}
	if issues := finishIssues(m.collect(ve)); len(issues) > 0 {
		return issues
	}
	return []Issue{{Kind: IssueOther, Message: "does not match the schema"}}
}

// validateText is validate for a value whose JSON text is known ("" when
// not): the precheck vouches for most valid arguments on their text
// without the full validator. Above maxPooledText the value, decoded
// already, goes to the full validator at once: its cost follows the
// number of values, the precheck's the number of bytes (a 10 MB string
// is one value).
func (s *compiledSchema) validateText(text string, v any) []Issue {
	if len(text) <= maxPooledText && s.prechecked(text, false) {
		return nil
	}
	return s.validate(v)
}

// prechecked reports whether text is certainly arguments the schema
// accepts, by the precheck on its bytes (internal/precheck); plain also
// refuses text holding a number written with a fraction or an exponent,
// which CoerceLax may rewrite. false means only "not known to be valid".
func (s *compiledSchema) prechecked(text string, plain bool) bool {
	if s.precheck == nil || text == "" {
		return false
	}
	// The precheck reads bytes; the string is copied once, into a pooled
	// buffer.
	bp := textBuffers.Get().(*[]byte)
	b := append((*bp)[:0], text...)
	var ok bool
	if plain {
		ok = s.precheck.ValidPlainNumbers(b)
	} else {
		ok = s.precheck.Valid(b)
	}
	if cap(b) <= maxPooledText {
		*bp = b[:0]
		textBuffers.Put(bp)
	}
	return ok
}

// textBuffers are the buffers of prechecked.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledText is the largest buffer textBuffers keeps, so that one huge
// argument string does not stay allocated.
const maxPooledText = 64 << 10

// rawValid is the fast path of [ToolNode.prepare]: when c's arguments, as
// sent, are certainly valid for a tool without validators (which need the
// decoded value), it marks c valid with its raw text as the arguments and
// no decoded value, and reports true. Otherwise it leaves c untouched.
func (n *ToolNode) rawValid(c *call) bool {
	t := c.tool
	if t == nil || t.schema == nil || len(t.validators) > 0 || len(c.raw) > n.cfg.maxArgumentBytes {
		return false
	}
	if !t.schema.prechecked(c.raw, n.cfg.coercion == CoerceLax) {
		return false
	}
	c.args, c.status, c.rawValid = c.raw, statusValid, true
	return true
}

// issueMapper turns santhosh-tekuri's error tree into issues.
type issueMapper struct {
	s    *compiledSchema
	root any
}

// collect maps one error and its causes.
func (m *issueMapper) collect(e *jsonschema.ValidationError) []Issue {
	path := jsonpointer.Format(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []Issue
		for _, c := range e.Causes {
			out = append(out, m.collect(c)...)
		}
		return out
	case *kind.AnyOf:
		return m.bestAlternative(path, e.Causes)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return m.bestAlternative(path, e.Causes)
		}
		return []Issue{{Path: path, Kind: IssueOther, Message: "matches more than one of the alternatives the schema allows; it must match exactly one"}}
	case *kind.Type:
		return []Issue{typeIssue(path, k.Want, k.Got)}
	case *kind.Enum:
		return []Issue{{Path: path, Kind: IssueEnum, Allowed: slices.Clone(k.Want), Message: "must be " + oneOf(k.Want)}}
	case *kind.Const:
		return []Issue{{Path: path, Kind: IssueEnum, Allowed: []any{k.Want}, Message: "must be " + oneOf([]any{k.Want})}}
	case *kind.Required:
		return m.missing(e, path, k.Missing, "")
	case *kind.DependentRequired:
		return m.missing(e, path, k.Missing, k.Prop)
	case *kind.Dependency:
		return m.missing(e, path, k.Missing, k.Prop)
	case *kind.AdditionalProperties:
		out := make([]Issue, 0, len(k.Properties))
		for _, p := range k.Properties {
			out = append(out, Issue{Path: jsonpointer.Append(path, p), Kind: IssueAdditional, Message: "unknown field; remove it"})
		}
		return out
	case *kind.FalseSchema:
		if len(e.InstanceLocation) > 0 {
			if _, inObject := valueAt(m.root, e.InstanceLocation[:len(e.InstanceLocation)-1]).(map[string]any); inObject {
				return []Issue{{Path: path, Kind: IssueAdditional, Message: "unknown field; remove it"}}
			}
		}
		return []Issue{{Path: path, Kind: IssueOther, Message: "the schema allows no value here"}}
	case *kind.Format:
		return []Issue{{Path: path, Kind: IssueFormat, Message: formatMessage(k.Want)}}
	case *kind.Minimum:
		return []Issue{{Path: path, Kind: IssueMinimum, Message: "must be at least " + ratString(k.Want)}}
	case *kind.ExclusiveMinimum:
		return []Issue{{Path: path, Kind: IssueMinimum, Message: "must be greater than " + ratString(k.Want)}}
	case *kind.Maximum:
		return []Issue{{Path: path, Kind: IssueMaximum, Message: "must be at most " + ratString(k.Want)}}
	case *kind.ExclusiveMaximum:
		return []Issue{{Path: path, Kind: IssueMaximum, Message: "must be less than " + ratString(k.Want)}}
	case *kind.Pattern:
		return []Issue{{Path: path, Kind: IssuePattern, Message: "must match the regular expression " + strconv.Quote(k.Want)}}
	case *kind.MinItems:
		return []Issue{{Path: path, Kind: IssueMinItems, Message: fmt.Sprintf("must have at least %d %s", k.Want, plural(k.Want, "item", "items"))}}
	}
	return []Issue{{Path: path, Kind: IssueOther, Message: otherMessage(e.ErrorKind)}}
}

// missing maps the members a required-like keyword names to issues at
// where each member would be.
func (m *issueMapper) missing(e *jsonschema.ValidationError, path string, names []string, because string) []Issue {
	set := schemawalk.Of(m.s.byLocation[e.SchemaURL])
	out := make([]Issue, 0, len(names))
	for _, name := range names {
		is := Issue{Path: jsonpointer.Append(path, name), Kind: IssueRequired}
		if sub, _ := set.Property(name); len(sub) > 0 {
			is.Expected, is.Allowed = describe(sub)
		}
		is.Message = "required field is missing"
		if because != "" {
			is.Message = fmt.Sprintf("required when %q is present, but missing", because)
		}
		if is.Expected != "" {
			is.Message += "; expected " + article(is.Expected)
		}
		if len(is.Allowed) > 0 {
			is.Message += ", " + oneOf(is.Allowed)
		}
		out = append(out, is)
	}
	return out
}

// bestAlternative picks the issues of the anyOf/oneOf alternative that
// best explains the failure at path. Alternatives whose only complaint is
// the type of the value itself are set aside: if every alternative is one,
// the value gets a single type issue naming every type allowed; otherwise
// the alternative with the fewest issues (then the deepest, then the first)
// is reported.
func (m *issueMapper) bestAlternative(path string, causes []*jsonschema.ValidationError) []Issue {
	var (
		best      []Issue
		bestFound bool
		wants     []string
		got       string
	)
	for _, c := range causes {
		issues := finishIssues(m.collect(c))
		if len(issues) == 1 && issues[0].Kind == IssueType && issues[0].Path == path {
			for _, t := range strings.Split(issues[0].Expected, " or ") {
				if !slices.Contains(wants, t) {
					wants = append(wants, t)
				}
			}
			got = gotType(m.root, path)
			continue
		}
		if len(issues) == 0 {
			continue
		}
		if !bestFound || len(issues) < len(best) || (len(issues) == len(best) && maxDepth(issues) > maxDepth(best)) {
			best, bestFound = issues, true
		}
	}
	if bestFound {
		return best
	}
	if len(wants) > 0 {
		return []Issue{typeIssue(path, wants, got)}
	}
	return []Issue{{Path: path, Kind: IssueOther, Message: "matches none of the alternatives the schema allows"}}
}

// gotType names the JSON type of the value at a JSON pointer of root.
func gotType(root any, path string) string {
	return gotTypeOf(valueAt(root, jsonpointer.Tokens(path)))
}

func maxDepth(issues []Issue) int {
	d := 0
	for _, is := range issues {
		d = max(d, strings.Count(is.Path, "/"))
	}
	return d
}

// valueAt returns the value at an instance location of root, nil if absent.
func valueAt(root any, loc []string) any {
	v := root
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func typeIssue(path string, want []string, got string) Issue {
	exp := strings.Join(want, " or ")
	msg := "expected " + article(exp)
	if got != "" {
		msg += ", got " + article(got)
	}
	return Issue{Path: path, Kind: IssueType, Expected: exp, Message: msg}
}

// article prefixes a type description with "a"/"an" where it reads
// better: "an integer", "a string or null"; null is left bare.
func article(t string) string {
	switch {
	case t == "" || t == "null":
		return t
	case strings.HasPrefix(t, "integer"), strings.HasPrefix(t, "object"), strings.HasPrefix(t, "array"):
		return "an " + t
	}
	return "a " + t
}

// oneOf renders allowed values: `"a"` or `one of "a", "b"`.
func oneOf(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = compactJSON(v)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "one of " + strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ratString renders a schema bound: 3, 0.5, 1e+21.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// formatMessage says what a string of a format looks like.
func formatMessage(format string) string {
	switch format {
	case "date":
		return "must be a date in the form YYYY-MM-DD"
	case "date-time":
		return "must be an RFC 3339 date-time such as 2024-01-31T09:30:00Z"
	case "time":
		return "must be an RFC 3339 time such as 09:30:00Z"
	case "email":
		return "must be an email address"
	case "uri":
		return "must be an absolute URI such as https://example.com/page"
	case "uuid":
		return "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"
	}
	return "must be a valid " + format
}

// otherMessage renders the keywords without an IssueKind of their own.
func otherMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d %s", k.Want, plural(k.Want, "item", "items"))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d %s long", k.Want, plural(k.Want, "character", "characters"))
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d %s long", k.Want, plural(k.Want, "character", "characters"))
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %d %s", k.Want, plural(k.Want, "member", "members"))
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %d %s", k.Want, plural(k.Want, "member", "members"))
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("items must be unique, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		return fmt.Sprintf("has %d more %s than the schema allows", k.Count, plural(k.Count, "item", "items"))
	case *kind.PropertyNames:
		return fmt.Sprintf("member name %q is not allowed", k.Property)
	case *kind.Contains, *kind.MinContains:
		return "must contain an item matching the schema"
	case *kind.MaxContains:
		return "contains too many items matching the schema"
	case *kind.Not:
		return "matches a schema it must not match"
	case *kind.ContentEncoding:
		return "must be " + k.Want + " encoded"
	case *kind.ContentMediaType:
		return "must be of media type " + k.Want
	case *kind.RefCycle:
		return "the schema has a reference cycle"
	case *kind.InvalidJsonValue:
		return "is not a JSON value"
	}
	return "does not match the schema"
}

// finishIssues deduplicates issues by (Path, Kind), drops every issue at
// or below a location whose value has the wrong type, and sorts them.
func finishIssues(issues []Issue) []Issue {
	if len(issues) == 0 {
		return nil
	}
	var typed []string
	for _, is := range issues {
		if is.Kind == IssueType {
			typed = append(typed, is.Path)
		}
	}
	out := issues[:0:0]
	seen := map[[2]string]bool{}
	for _, is := range issues {
		key := [2]string{is.Path, string(is.Kind)}
		if seen[key] {
			continue
		}
		if is.Kind != IssueType && under(is.Path, typed) {
			continue
		}
		seen[key] = true
		out = append(out, is)
	}
	slices.SortStableFunc(out, compareIssues)
	return out
}

// under reports whether path is one of locs or below one of them.
func under(path string, locs []string) bool {
	for _, l := range locs {
		if path == l || strings.HasPrefix(path, l+"/") {
			return true
		}
	}
	return false
}

var kindRank = map[IssueKind]int{
	IssueRequired: 0, IssueAdditional: 1, IssueType: 2, IssueEnum: 3, IssueFormat: 4,
	IssueMinimum: 5, IssueMaximum: 6, IssuePattern: 7, IssueMinItems: 8, IssueOther: 9,
}

// compareIssues orders issues by path, token by token with array indexes
// in numeric order, then by kind.
func compareIssues(a, b Issue) int {
	if c := jsonpointer.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	ra, oka := kindRank[a.Kind]
	rb, okb := kindRank[b.Kind]
	if !oka {
		ra = len(kindRank)
	}
	if !okb {
		rb = len(kindRank)
	}
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
		return c
	}
	return strings.Compare(a.Message, b.Message)
}

// ===========================================================================
// Tool validators: WithValidator, ValidatorContext, ValidationIssue, Flag,
// ErrInterrupt. Everything below runs from check, after the schema passed.
// ===========================================================================

// Validator checks a call's arguments with context a JSON Schema cannot
// express: the conversation, the caller's state (see [WithState]), a
// database. It runs after the tool's schema accepted args, once on the
// model's own arguments ([PhaseInitial]), on every candidate of the
// correction model ([PhaseCorrection]) and on arguments returned by an
// unresolved hook ([PhaseSalvage]); never when the tool executes.
//
// args is the decoded argument object, JSON numbers as [json.Number]; it
// must not be modified. Return nil to accept. Return an error to reject:
// a [*ValidationIssue] or [ValidationIssues] becomes field issues (an empty
// ValidationIssues accepts), any other error one issue carrying its
// message. Rejected calls follow the normal path: correction when
// configured, then [WithOnUnresolved]. Wrap the error with [Flag] to record
// the issues without rejecting. An error that is an interrupt (see
// [ErrInterrupt]) stops the run and is returned unchanged by
// [ToolNode.Run]; so is ctx.Err() once ctx is done. A panic is recovered
// and stops the run as an error wrapping a [*PanicError].
//
// Validators of different calls run concurrently (while calls are
// corrected or salvaged at the same time, and when the node runs for
// several messages at once), so a validator must be safe for concurrent use
// and must not share mutable state without protection. The validators of
// one call never overlap.
type Validator func(ctx context.Context, args map[string]any, vc ValidatorContext) error

// ValidatorContext tells a [Validator] which call it checks and when.
type ValidatorContext struct {
	// ToolName and CallID identify the call; the id may be empty.
	ToolName, CallID string
	// Messages is the conversation the node was run on; read it, do not
	// modify it.
	Messages []llms.MessageContent
	// State is the caller's graph state (see [WithState]), nil when none.
	State any
	// Phase is where in the pipeline the arguments come from.
	Phase Phase
	// Attempt is the 1-based correction attempt and MaxAttempts their
	// number, in PhaseCorrection; both are 0 in the other phases.
	Attempt, MaxAttempts int
	// IsFinal reports whether this is the last correction attempt: a
	// rejection now sends the call to the unresolved policy.
	IsFinal bool
}

// WithValidator adds a validator to the tool named toolName. A tool may have
// several; they run in the order given, and the first that rejects ends the
// check (flagged issues do not), so put cheap checks first and approvals
// (interrupts) last. It is a configuration error when fn is nil or when no
// tool of the node with a schema (a [Tool]) has that name: plain
// tools.Tool values are not validated; attach a schema with [WithSchema].
// Default: none.
func WithValidator(toolName string, fn Validator) Option {
	return optionFunc(func(c *config) {
		c.validators = append(c.validators, namedValidator{tool: toolName, fn: fn})
	})
}

type namedValidator struct {
	tool string
	fn   Validator
}

// bindValidators attaches the validators of WithValidator to their tools.
func (n *ToolNode) bindValidators() error {
	var errs []error
	for _, v := range n.cfg.validators {
		bt := n.tools[v.tool]
		switch {
		case v.fn == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): nil validator", v.tool))
		case bt == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): no such tool (tools: %s)", v.tool, n.toolNames()))
		case bt.schema == nil:
			errs = append(errs, fmt.Errorf("WithValidator(%q): the tool has no schema, so its calls are not validated; wrap it with WithSchema", v.tool))
		default:
			bt.validators = append(bt.validators, v.fn)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}

// TypedValidator returns a [Validator] that decodes the arguments into a
// fresh A, as a tool made by [NewTool] with the same A does, and calls fn
// with it. Unknown members are ignored, so A may hold only the fields fn
// reads. Arguments that do not decode into A are rejected with the
// decoding error as the issue message; for a NewTool[A] tool that cannot
// happen once the schema passed.
func TypedValidator[A any](fn func(ctx context.Context, args A, vc ValidatorContext) error) Validator {
	return func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
		var a A
		b, err := json.Marshal(args)
		if err == nil {
			err = json.Unmarshal(b, &a)
		}
		if err != nil {
			return fmt.Errorf("the arguments do not decode into %T: %v", a, err)
		}
		return fn(ctx, a, vc)
	}
}

// IssueValidator is the kind of the issues a [Validator] reports.
const IssueValidator IssueKind = "validator"

// ValidationIssue is an error a [Validator] returns to reject one field.
type ValidationIssue struct {
	// Path is an RFC 6901 JSON Pointer to the field, such as "/order_id"
	// or "/items/0/sku"; "" is the whole argument object. A path without a
	// leading "/" is taken as the name of one top-level member.
	Path string
	// Message says what is wrong, for the model and for humans. It should
	// not repeat secret argument values.
	Message string
}

// Error returns the issue's path and message.
func (e *ValidationIssue) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

func (e *ValidationIssue) issue() Issue {
	p := e.Path
	if p != "" && !strings.HasPrefix(p, "/") {
		p = jsonpointer.Append("", p)
	}
	msg := e.Message
	if msg == "" {
		msg = "invalid value"
	}
	return Issue{Path: p, Kind: IssueValidator, Message: msg}
}

// ValidationIssues is an error a [Validator] returns to reject several
// fields at once. An empty ValidationIssues accepts, so a validator may
// collect issues into one and return it.
type ValidationIssues []ValidationIssue

// Error joins the issues' texts.
func (e ValidationIssues) Error() string {
	parts := make([]string, len(e))
	for i := range e {
		parts[i] = e[i].Error()
	}
	return strings.Join(parts, "; ")
}

// Flag marks a validator's error as recorded only: the call is not rejected,
// and the error's issues (built as for a rejection) appear in
// [CallReport].Flagged, in the Result and in the run's event. Flag(nil) is
// nil. An interrupt stays an interrupt when flagged.
func Flag(err error) error {
	if err == nil {
		return nil
	}
	return &flaggedError{err: err}
}

// FlagOnly returns a validator that flags (see [Flag]) every error v
// returns instead of rejecting the call.
func FlagOnly(v Validator) Validator {
	return func(ctx context.Context, args map[string]any, vc ValidatorContext) error {
		return Flag(v(ctx, args, vc))
	}
}

type flaggedError struct{ err error }

func (e *flaggedError) Error() string { return e.err.Error() }
func (e *flaggedError) Unwrap() error { return e.err }

// ErrInterrupt marks an error as an interrupt: a [Validator] (or a tool, or
// an unresolved hook) returns an error wrapping it to pause the run, for
// example until a human approves the call. [ToolNode.Run] then returns that
// error unchanged and at once; from a validator or a hook that is before
// any call executes. An interrupt from a tool propagates even with
// [WithHandleToolErrors](true). A graph can pause and later run the node
// again from the start, which runs its validators again too. See
// [WithInterruptErrors] for a framework's own interrupt type.
var ErrInterrupt = errors.New("saidex: interrupt")

// WithInterruptErrors adds a test for interrupts besides errors.Is(err,
// [ErrInterrupt]): an error for which is returns true is an interrupt too,
// for example a graph framework's own pause error. is may be called
// concurrently. Default: nil (only ErrInterrupt).
func WithInterruptErrors(is func(err error) bool) Option {
	return optionFunc(func(c *config) { c.interruptIs = is })
}

// isInterrupt reports whether err is an interrupt.
func (n *ToolNode) isInterrupt(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, ErrInterrupt) || (n.cfg.interruptIs != nil && n.cfg.interruptIs(err))
}

// runValidators runs c's validators on value, which passed the schema.
func (n *ToolNode) runValidators(ctx context.Context, r *run, c *call, value any, ph checkPhase) ([]Issue, error) {
	args, _ := value.(map[string]any)
	vc := ValidatorContext{
		ToolName: c.name, CallID: c.id, Messages: r.messages, State: r.state,
		Phase: ph.phase, Attempt: ph.attempt, MaxAttempts: ph.maxAttempts,
		IsFinal: ph.phase == PhaseCorrection && ph.maxAttempts > 0 && ph.attempt >= ph.maxAttempts,
	}
	for _, fn := range c.tool.validators {
		panicked, err := callValidator(ctx, fn, args, vc)
		switch {
		case panicked != nil:
			return nil, fmt.Errorf("saidex: validator of tool %q (call %q): %w", c.name, c.id, panicked)
		case err == nil:
			continue
		case n.isInterrupt(err):
			if fe, ok := err.(*flaggedError); ok {
				return nil, fe.err // Flag does not mask an interrupt
			}
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		if fe := (*flaggedError)(nil); errors.As(err, &fe) {
			for _, is := range validatorIssues(fe.err) {
				is.Flagged = true
				c.flagged = append(c.flagged, is)
			}
			continue
		}
		if issues := validatorIssues(err); len(issues) > 0 {
			return issues, nil
		}
	}
	return nil, nil
}

// callValidator calls a validator, recovering a panic.
func callValidator(ctx context.Context, fn Validator, args map[string]any, vc ValidatorContext) (panicked *PanicError, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return nil, fn(ctx, args, vc)
}

// validatorIssues turns a validator's error into issues; none for an
// empty ValidationIssues or a nil *ValidationIssue.
func validatorIssues(err error) []Issue {
	var out []Issue
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
			return
		case ValidationIssues:
			for i := range e {
				out = append(out, e[i].issue())
			}
			return
		case *ValidationIssue:
			if e != nil {
				out = append(out, e.issue())
			}
			return
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
			return
		}
		var vis ValidationIssues
		if errors.As(err, &vis) {
			walk(vis)
			return
		}
		var vi *ValidationIssue
		if errors.As(err, &vi) {
			walk(vi)
			return
		}
		out = append(out, Issue{Kind: IssueValidator, Message: err.Error()})
	}
	walk(err)
	return out
}
