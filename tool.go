package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/invopop/jsonschema"
	"github.com/saidex/saidex-go/internal/precheck"
	"github.com/tmc/langchaingo/tools"
)

// Tool is a [tools.Tool] that declares the JSON Schema of its argument
// object. A [ToolNode] validates every call to a Tool against that schema
// before the tool runs, and advertises it to the model through
// [ToolNode.Definitions].
//
// Schema may return a map[string]any, a [json.RawMessage], a []byte holding
// JSON, an [*jsonschema.Schema] from github.com/invopop/jsonschema, or any
// other value that encoding/json marshals to a JSON Schema object. It is
// called once, by [NewToolNode].
//
// A schema may use $ref into itself ($defs, definitions, an $anchor, a URI
// its own $id declares), as invopop/jsonschema emits for named structs:
// validation, coercion, correction routing, feedback and secret masking
// all follow such references. A $ref to another document is refused by
// [NewToolNode]: a tool schema must be self-contained, and compiling it
// never reads files or the network.
type Tool interface {
	tools.Tool
	Schema() any
}

// ErrInvalidArguments marks an error a tool returns because it could not
// decode or accept its argument string. By default a [ToolNode] answers such
// an error with an error tool message, while any other tool error stops the
// run (see [WithHandleToolErrors]). Tools made by [NewTool] wrap their
// decoding errors with it; wrap your own with fmt.Errorf("...: %w",
// saidex.ErrInvalidArguments).
var ErrInvalidArguments = errors.New("saidex: invalid tool arguments")

// NewTool returns a [Tool] whose argument schema is reflected from A with
// github.com/invopop/jsonschema, in the flat shape providers accept: every
// type is inlined where it occurs, except a recursive one (a struct type
// that reaches itself through fields, elements or map values), which is a
// definition in $defs referenced by $ref, and only it (A itself is the top
// level; when A is recursive, its definition is in $defs too, for the
// references); additionalProperties false, and every field without
// omitempty or omitzero required.
//
// Struct tags shape the schema, in invopop/jsonschema's vocabulary:
//
//   - json:"name" names the property. A field without omitempty or
//     omitzero is required; with either it is optional, unless its
//     jsonschema tag says required. json:"-" or jsonschema:"-" leaves the
//     field out.
//   - jsonschema:"..." holds comma-separated keywords: title=,
//     description= (a comma inside the text is written \\, in the tag, as
//     below, or use a separate jsonschema_description:"..." tag), enum= once per value
//     (enum=celsius,enum=fahrenheit; on a slice it constrains the items),
//     default=, example=, required, nullable (null allowed too), and
//     writeOnly=true (a secret: see [SecretMask]); for strings minLength=,
//     maxLength=, pattern=, format= (date, date-time, email, uri, uuid,
//     password, ...); for numbers minimum=, maximum=, exclusiveMinimum=,
//     exclusiveMaximum=, multipleOf=; for slices minItems=, maxItems=,
//     uniqueItems=true. A keyword the reflector does not know is ignored
//     without an error: check a new tag against the schema [Tool].Schema
//     returns.
//
// For example:
//
//	type ForecastArgs struct {
//		City string `json:"city" jsonschema:"description=City name\\, in English"`
//		Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14,default=3"`
//		Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
//	}
//
// gives city (a required string with that description), and optional days
// (an integer from 1 to 14) and unit (one of the two strings).
//
// Call decodes its JSON input into a fresh A (unknown fields are rejected)
// and calls fn. A decoding error is returned wrapped with
// [ErrInvalidArguments]. A [ToolNode] runs the tool with arguments its
// schema has accepted, which already rejects unknown fields, and decodes them
// with encoding/json's Unmarshal semantics on the faster engine of
// github.com/go-json-experiment/json (its v1 options). When A is a struct
// of strings, booleans, numbers, pointers, slices and structs of those
// (no methods, no embedded fields, no json tag options but omitempty and
// omitzero), arguments valid as sent are checked and decoded into A in one
// pass over their text, to the same value, and fn runs with it.
//
// When no JSON Schema describes A (a channel, function, complex number,
// uintptr or unsafe.Pointer reachable through its exported fields; a field
// tagged json:"-" is left out, as encoding/json does), the tool is broken:
// [NewToolNode] refuses it with an error wrapping [ErrInvalidConfig], and
// its Call returns that error without calling fn. The error names the
// tool, the field path (JSON names, "[]" for elements and ".*" for map
// values) and the Go type, for example:
//
//	saidex: invalid configuration: NewTool "notify": argument type main.NotifyArgs: field target.done has Go type chan struct {}, which no JSON Schema describes
func NewTool[A any](name, description string, fn func(ctx context.Context, args A) (string, error)) Tool {
	schema, err := toolSchema[A](name)
	return &typedTool[A]{name: name, description: description, fn: fn, schema: schema, err: err}
}

// toolSchema reflects the schema of A for the tool named tool, turning
// invopop's panic for a type it cannot describe ("unsupported type chan
// int", with no location) into an error wrapping ErrInvalidConfig that
// names the tool and the field.
func toolSchema[A any](tool string) (schema map[string]any, err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		schema = nil
		typ := reflect.TypeFor[A]()
		switch path, bad, ok := undescribable(typ); {
		case !ok:
			err = fmt.Errorf("%w: NewTool %q: argument type %s: %v", ErrInvalidConfig, tool, typ, v)
		case path == "":
			err = fmt.Errorf("%w: NewTool %q: argument type %s is one no JSON Schema describes", ErrInvalidConfig, tool, typ)
		default:
			err = fmt.Errorf("%w: NewTool %q: argument type %s: field %s has Go type %s, which no JSON Schema describes", ErrInvalidConfig, tool, typ, path, bad)
		}
	}()
	return reflectSchema[A](), nil
}

// schemaProvider is the method with which a type gives
// github.com/invopop/jsonschema its own schema (as Secret does).
type schemaProvider interface{ JSONSchema() *jsonschema.Schema }

// undescribable finds, the way invopop/jsonschema walks a type (exported
// and embedded fields, json:"-" left out, types with their own JSONSchema
// method not entered), the first value of a kind no JSON Schema describes.
// It returns its path (JSON field names; "" for typ itself) and type.
func undescribable(typ reflect.Type) (path string, bad reflect.Type, ok bool) {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string) (string, reflect.Type, bool)
	walk = func(t reflect.Type, path string) (string, reflect.Type, bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seen[t] || t.Implements(reflect.TypeFor[schemaProvider]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[schemaProvider]()) {
			return "", nil, false
		}
		switch t.Kind() {
		case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.Uintptr, reflect.UnsafePointer:
			return path, t, true
		case reflect.Slice, reflect.Array:
			return walk(t.Elem(), path+"[]")
		case reflect.Map:
			return walk(t.Elem(), path+".*")
		case reflect.Struct:
			seen[t] = true
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || (!f.IsExported() && !f.Anonymous) {
					continue
				}
				sub := path
				if !f.Anonymous || name != "" {
					if name == "" {
						name = f.Name
					}
					sub = strings.TrimPrefix(path+"."+name, ".")
				}
				if p, b, found := walk(f.Type, sub); found {
					return p, b, true
				}
			}
		}
		return "", nil, false
	}
	return walk(typ, "")
}

type typedTool[A any] struct {
	name, description string
	fn                func(ctx context.Context, args A) (string, error)
	schema            map[string]any
	err               error // why no schema describes A (the tool is broken)
}

func (t *typedTool[A]) Name() string        { return t.name }
func (t *typedTool[A]) Description() string { return t.description }
func (t *typedTool[A]) Schema() any         { return t.schema }

func (t *typedTool[A]) Call(ctx context.Context, input string) (string, error) {
	if t.err != nil {
		return "", t.err
	}
	args, err := t.decode(input, v1Strict)
	if err != nil {
		return "", err
	}
	return t.fn(ctx, args)
}

// configErr reports why the tool is broken (no JSON Schema describes A),
// for NewToolNode; nil for a tool it may register.
func (t *typedTool[A]) configErr() error { return t.err }

// validatedCaller is implemented by tools made with NewTool. The node calls
// callValidated instead of Call with arguments the tool's own schema has
// accepted: exactly one JSON value, with no member the schema does not
// allow, so the strict decoder of Call has nothing left to reject.
type validatedCaller interface {
	callValidated(ctx context.Context, input string) (string, error)
}

func (t *typedTool[A]) callValidated(ctx context.Context, input string) (string, error) {
	args, err := t.decode(input, v1Options)
	if err != nil {
		return "", err
	}
	return t.fn(ctx, args)
}

// decodedCaller is implemented by tools made with NewTool. The node calls
// callDecoded with the arguments precheck.Checker.Decode read, checked and
// decoded in one pass (a pointer to a new A): the value the decoder of
// callValidated would have produced from the same text.
type decodedCaller interface {
	argTarget() *precheck.Target // nil when A is outside what Decode reads
	callDecoded(ctx context.Context, args any) (string, error)
}

func (t *typedTool[A]) argTarget() *precheck.Target {
	return precheck.NewTarget(reflect.TypeFor[A]())
}

func (t *typedTool[A]) callDecoded(ctx context.Context, args any) (string, error) {
	return t.fn(ctx, *args.(*A))
}

// v1Options are encoding/json's semantics on the go-json-experiment engine:
// the options with which that module's v1 package implements
// encoding/json.Unmarshal (and Go's own encoding/json under
// GOEXPERIMENT=jsonv2). It decodes a typical argument object about twice
// as fast as encoding/json, with 2 allocations instead of 10.
//
// One addition: that v1 package treats only its own jsonv1.Number as a JSON
// number, so encoding/json.Number is given the same reading here.
var v1Options = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, n *json.Number) error {
		return (*jsonv1.Number)(n).UnmarshalJSONFrom(dec)
	})))

// v1Strict is v1Options for arguments no schema has checked (a direct
// Call): a member A has no field for is an error, as with encoding/json's
// DisallowUnknownFields.
var v1Strict = jsonv2.JoinOptions(v1Options, jsonv2.RejectUnknownMembers(true))

// decode turns a JSON argument string into A with opts (v1Options or
// v1Strict): exactly one JSON value, trailing data refused.
func (t *typedTool[A]) decode(input string, opts jsonv2.Options) (A, error) {
	var args A
	if err := jsonv2.Unmarshal([]byte(input), &args, opts); err != nil {
		return args, fmt.Errorf("%w: %s: %v", ErrInvalidArguments, t.name, err)
	}
	return args, nil
}

// reflectSchema reflects the flat provider-style schema of A. A recursive
// type cannot be flattened: invopop then references every named struct
// type, so A's own definition is inlined at the top and inlineDefinitions
// inlines every definition that is not on a cycle.
func reflectSchema[A any]() map[string]any {
	typ := reflect.TypeFor[A]()
	recursive := isRecursive(typ)
	r := &jsonschema.Reflector{
		DoNotReference: !recursive,
		ExpandedStruct: !recursive,
		Anonymous:      true,
	}
	s := r.ReflectFromType(typ)
	if def, ok := s.Definitions[strings.TrimPrefix(s.Ref, "#/$defs/")]; recursive && ok {
		// Hoist A's own definition to the root, keeping $defs for the
		// recursion: ExpandedStruct would drop that definition.
		defs := s.Definitions
		*s = *def
		s.Definitions = defs
	}
	s.Version = ""
	s.ID = ""
	m := schemaMap(s)
	if recursive {
		inlineDefinitions(m)
	}
	return m
}

// defsRef is the prefix of the references invopop writes into $defs.
const defsRef = "#/$defs/"

// inlineDefinitions replaces, in the schema m, every {"$ref": "#/$defs/X"}
// whose definition X does not reach itself by a copy of that definition
// (the reference's sibling keywords, such as a description, kept over it),
// and removes the definitions no kept reference names. The definitions
// on a cycle stay, referenced where they occur.
func inlineDefinitions(m map[string]any) {
	defs, _ := m["$defs"].(map[string]any)
	refsOf := func(v any) map[string]bool {
		out := map[string]bool{}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if r, ok := v["$ref"].(string); ok && strings.HasPrefix(r, defsRef) {
					out[strings.TrimPrefix(r, defsRef)] = true
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(v)
		return out
	}
	edges := map[string]map[string]bool{}
	for name, d := range defs {
		edges[name] = refsOf(d)
	}
	onCycle := func(start string) bool {
		seen := map[string]bool{}
		stack := []string{start}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for y := range edges[x] {
				if y == start {
					return true
				}
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		return false
	}
	cyclic := map[string]bool{}
	for name := range defs {
		cyclic[name] = onCycle(name)
	}
	var inline func(v any) any
	inline = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok && strings.HasPrefix(r, defsRef) {
				name := strings.TrimPrefix(r, defsRef)
				if def, ok := defs[name].(map[string]any); ok && !cyclic[name] {
					out := inline(def).(map[string]any) // a copy: inline builds new maps
					for k, x := range v {
						if k != "$ref" {
							out[k] = inline(x)
						}
					}
					return out
				}
			}
			out := make(map[string]any, len(v))
			for k, x := range v {
				out[k] = inline(x)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = inline(x)
			}
			return out
		default:
			return v
		}
	}
	delete(m, "$defs")
	for k, v := range m {
		m[k] = inline(v)
	}
	kept := map[string]any{}
	queue := refsOf(m)
	for len(queue) > 0 {
		next := map[string]bool{}
		for name := range queue {
			if _, done := kept[name]; done || defs[name] == nil {
				continue
			}
			d := inline(defs[name])
			kept[name] = d
			for y := range refsOf(d) {
				next[y] = true
			}
		}
		queue = next
	}
	if len(kept) > 0 {
		m["$defs"] = kept
	}
}

// schemaMap converts an invopop schema to its JSON object form.
func schemaMap(s *jsonschema.Schema) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		// invopop's schema types always marshal; a failure is a programming error.
		panic(fmt.Sprintf("saidex: marshal reflected schema: %v", err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("saidex: unmarshal reflected schema: %v", err))
	}
	return m
}

// isRecursive reports whether typ refers to itself through its fields,
// elements or map values. invopop/jsonschema does not terminate on such a
// type when DoNotReference is set.
func isRecursive(typ reflect.Type) bool {
	var walk func(t reflect.Type, stack map[reflect.Type]bool) bool
	walk = func(t reflect.Type, stack map[reflect.Type]bool) bool {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		if stack[t] {
			return true
		}
		stack[t] = true
		defer delete(stack, t)
		for i := range t.NumField() {
			if walk(t.Field(i).Type, stack) {
				return true
			}
		}
		return false
	}
	return walk(typ, map[reflect.Type]bool{})
}

// ToolWithSchema attaches a JSON Schema to an existing tool, for example the
// Parameters of an llms.FunctionDefinition. The schema is accepted in any of
// the forms [Tool.Schema] documents. The tool's Call receives the repaired,
// validated argument JSON.
//
// A plain tools.Tool, given to [NewToolNode] without a schema, is not
// validated, and [NewToolNode] logs a warning saying so, once per tool. Its
// calls still go through the repair stage: arguments that parse are passed
// as sent; arguments holding an object that repair cleanly (see
// [RepairStep]) are passed as the repaired JSON text, which the sanitized
// history keeps too; anything else, such as free text meant for the tool,
// is passed unchanged, as a stock executor passes it. An argument object {"__arg1": s}, how
// langchaingo's agents advertise plain tools, is passed as the string s.
func ToolWithSchema(t tools.Tool, schema any) Tool {
	return &schemaTool{Tool: t, schema: schema}
}

type schemaTool struct {
	tools.Tool
	schema any
}

func (t *schemaTool) Schema() any { return t.schema }
