package saidex

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validate is the validation stage for one call: it checks the repaired
// arguments in phase PhaseInitial and marks the call valid or invalid.
// Arguments the precheck accepted as sent (c.rawValid, set by repair) are
// valid already.
func (n *ToolNode) validate(ctx context.Context, r *run, c *call) error {
	if c.status != statusPending {
		return nil
	}
	if c.rawValid {
		c.status = statusValid
		return nil
	}
	issues, co, err := n.checkCoerce(ctx, r, c, c.value, c.args, checkPhase{phase: PhaseInitial})
	if err != nil {
		return err
	}
	c.adoptCoercion(co)
	c.issues, c.moreIssues = capIssues(issues)
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
// the precheck may then vouch for it without the full validator. It
// returns the issues, nil when value is valid. Every stage that produces
// arguments (validation, correction, salvage) checks them here. A non-nil
// error (an interrupt) stops the run.
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

// schemaValidate runs santhosh-tekuri's validator on v; ok is false when
// it panicked. It does on a json.Number that math/big cannot read, such as
// 999E9999999999999999999 (an exponent past int64; found by FuzzValidate):
// numValidate compares the nil *big.Rat it gets. Such a call gets an issue,
// never a panic.
func (s *compiledSchema) schemaValidate(v any) (err error, ok bool) {
	defer func() {
		if recover() != nil {
			err, ok = nil, false
		}
	}()
	return s.schema.Validate(v), true
}

// validate returns the field issues of v, or nil when v is valid. v is a
// decoded JSON value: numbers as json.Number or float64.
//
// The arguments of a tool call must be a JSON object: a v that is not one
// gets an IssueType at the root even when the schema names no type.
//
// A v nested deeper than maxValidatedDepth is refused with one issue at
// the root, without the full validator: santhosh-tekuri gives each error
// of its tree a copy of its instance location, so a failure at depth d
// costs it d²/2 location tokens (500 MB, seconds, at depth 8,000). Below
// the limit that is at most a few MB. The precheck still accepts deeper
// valid values on their text (validateText).
func (s *compiledSchema) validate(v any) []Issue {
	if _, isObj := v.(map[string]any); !isObj {
		return []Issue{typeIssue("", []string{"object"}, gotTypeOf(v))}
	}
	if jsonvalue.DeeperThan(v, maxValidatedDepth) {
		return []Issue{{Kind: IssueOther, Message: fmt.Sprintf("the arguments are nested deeper than %d levels, more than the schema validation follows; send a flatter value", maxValidatedDepth)}}
	}
	err, ok := s.schemaValidate(v)
	if !ok {
		return []Issue{{Kind: IssueOther, Message: "the arguments could not be validated: a number in them is beyond what the validator reads (an exponent too large?); send it written out or as a string"}}
	}
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Kind: IssueOther, Message: "the arguments could not be validated"}}
	}
	m := issueMapper{s: s, root: v}
	var all []found
	m.collect(ve, &all)
	if issues := issuesOf(finishFound(all)); len(issues) > 0 {
		return issues
	}
	return []Issue{{Kind: IssueOther, Message: "does not match the schema"}}
}

// validateText is validate for a value whose JSON text is known ("" when
// not): the precheck vouches for most valid arguments on their text
// without the full validator. Above maxPrecheckText the value, decoded
// already, goes to the full validator at once: its cost follows the
// number of values, the precheck's the number of bytes (a 10 MB string
// is one value).
func (s *compiledSchema) validateText(text string, v any) []Issue {
	if len(text) <= maxPrecheckText && s.prechecked(text, false) {
		return nil
	}
	return s.validate(v)
}

// maxValidatedDepth is the deepest nesting of objects and arrays that
// validate gives the full validator: 1,000 levels.
const maxValidatedDepth = 1000

// maxPrecheckText is the longest text validateText prechecks: 64 KiB.
const maxPrecheckText = 64 << 10

// checkCoerce is [ToolNode.check] followed, under CoercionLax, by coercion:
// it returns the issues of the value the call continues with, and a
// non-nil coerced when that value is the coerced one. Checks that reject
// only through validators (the schema accepted the value) are not coerced.
func (n *ToolNode) checkCoerce(ctx context.Context, r *run, c *call, value any, text string, ph checkPhase) ([]Issue, *coerced, error) {
	issues, err := n.check(ctx, r, c, value, text, ph)
	if err != nil || n.cfg.coercion != CoercionLax {
		return issues, nil, err
	}
	s := c.tool.schema
	if len(issues) == 0 {
		// Valid: only integral numbers written as 5.0 may need rewriting,
		// for the tool's decoder. The value is the same number, so the
		// validators, which accepted it, do not run again.
		if !jsonvalue.HasLooseNumber(value) {
			return nil, nil, nil
		}
		co := s.coerce(value)
		if co == nil || len(s.validateText(co.json, co.value)) > 0 {
			return nil, nil, nil
		}
		return nil, co, nil
	}
	if !slices.ContainsFunc(issues, func(is Issue) bool { return is.Kind != IssueValidator }) {
		return issues, nil, nil // the schema accepted value
	}
	co := s.coerce(value)
	if co == nil {
		return issues, nil, nil
	}
	again, err := n.check(ctx, r, c, co.value, co.json, ph)
	if err != nil {
		return nil, nil, err
	}
	if len(again) > 0 {
		c.flagged = nil // the first check's: the schema rejected value, so no validator ran
		return issues, nil, nil
	}
	return nil, co, nil
}

// adoptCoercion makes co the call's arguments; a nil co is ignored.
func (c *call) adoptCoercion(co *coerced) {
	if co == nil {
		return
	}
	c.value, c.args = co.value, co.json
	c.coercions = co.list
	c.steps = append(c.steps, RepairCoerce)
	c.repaired = true
}
