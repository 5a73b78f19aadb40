package saidex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// IssueKind is the JSON Schema keyword a field issue is about.
type IssueKind string

// The kinds of field issue.
const (
	IssueRequired   IssueKind = "required"   // a required member is missing
	IssueType       IssueKind = "type"       // the value has the wrong type
	IssueEnum       IssueKind = "enum"       // the value is not one of the allowed values
	IssueAdditional IssueKind = "additional" // the member is not in the schema
	IssueFormat     IssueKind = "format"     // the string does not match its format
	IssueMinimum    IssueKind = "minimum"    // the number is below the minimum (or exclusive minimum)
	IssueMaximum    IssueKind = "maximum"    // the number is above the maximum (or exclusive maximum)
	IssuePattern    IssueKind = "pattern"    // the string does not match the pattern
	IssueMinItems   IssueKind = "minItems"   // the array has too few items
	IssueOther      IssueKind = "other"      // any other keyword
)

// Issue is one field-level problem with a call's arguments.
type Issue struct {
	// Path is an RFC 6901 JSON Pointer into the arguments; "" is the root.
	// For IssueRequired it points to where the missing member would be; for
	// IssueAdditional to the unexpected member; otherwise to the offending
	// value.
	Path string
	// Kind is the keyword that failed.
	Kind IssueKind
	// Message says what is wrong, for a human or a model.
	Message string
	// Allowed lists the allowed values of an IssueEnum.
	Allowed []any
	// Expected is the type the schema wants, for IssueType and IssueRequired.
	Expected string
}

// compiledSchema is a tool's argument schema, compiled once.
type compiledSchema struct {
	doc    map[string]any
	schema *jsonschema.Schema
}

// compileSchema compiles a schema given in any form Tool.Schema documents.
// TODO(validate): full implementation.
func compileSchema(name string, schema any) (*compiledSchema, error) {
	var raw []byte
	switch s := schema.(type) {
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
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem://tool/" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{doc: m, schema: s}, nil
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
	issues, err := n.check(ctx, r, c, c.value, checkPhase{phase: PhaseInitial})
	if err != nil {
		return err
	}
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
// validators. It returns the issues, nil when value is valid. Every stage
// that produces arguments (validation, correction, salvage) checks them
// here. A non-nil error (an interrupt) stops the run.
func (n *ToolNode) check(ctx context.Context, r *run, c *call, value any, ph checkPhase) ([]Issue, error) {
	return c.tool.schema.validate(value), nil
}

// validate returns the field issues of v, or nil when v is valid.
// TODO(validate): map the error tree into issues.
func (s *compiledSchema) validate(v any) []Issue {
	if err := s.schema.Validate(v); err != nil {
		return []Issue{{Kind: IssueOther, Message: err.Error()}}
	}
	return nil
}
