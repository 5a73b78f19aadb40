package saidex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// RepairStep names one deterministic repair applied to a call's arguments.
type RepairStep string

// The repair steps, in the order the repair stage applies them.
const (
	RepairStripThinking  RepairStep = "strip_thinking"  // removed <think>…</think> reasoning
	RepairTemplateTokens RepairStep = "template_tokens" // removed leaked template tokens
	RepairCodeFence      RepairStep = "code_fence"      // removed a markdown code fence
	RepairExtractObject  RepairStep = "extract_object"  // cut prose around the object
	RepairDoubleEncoded  RepairStep = "double_encoded"  // decoded layers of JSON-string encoding
	RepairJSON           RepairStep = "json_repair"     // fixed the JSON syntax
)

// ErrMalformedArguments is wrapped by the error recorded for a call whose
// argument string could not be turned into one JSON value without guessing.
var ErrMalformedArguments = errors.New("saidex: malformed tool arguments")

// repair is the repair stage: it sets c.value and c.args, or c.err.
func (n *ToolNode) repair(c *call) {
	res, err := repairArguments(c.raw, repairOptions{
		stripThinking: n.cfg.stripThinking,
		jsonRepair:    n.cfg.jsonRepair,
		maxBytes:      n.cfg.maxArgumentBytes,
		maxRepair:     n.cfg.maxRepairBytes,
	})
	if err != nil {
		c.err, c.status = err, statusInvalid
		return
	}
	c.value, c.args, c.steps = res.value, res.json, res.steps
	c.repaired = len(res.steps) > 0
}

type repairOptions struct {
	stripThinking bool
	jsonRepair    bool
	maxBytes      int // argument strings above this are refused unparsed
	maxRepair     int // object spans above this are not given to jsonrepair
}

type repairResult struct {
	value any    // the decoded value; JSON numbers as json.Number
	json  string // its JSON text as the tool receives it: the raw string when it parsed
	steps []RepairStep
}

// repairArguments turns a raw argument string into one JSON value.
// TODO(repair): extraction and repair; this is the fast path only.
func repairArguments(raw string, opt repairOptions) (repairResult, error) {
	if len(raw) > opt.maxBytes {
		return repairResult{}, fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrMalformedArguments, len(raw), opt.maxBytes)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return repairResult{}, fmt.Errorf("%w: %v", ErrMalformedArguments, err)
	}
	return repairResult{value: v, json: raw}, nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}
