package saidex_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// runWithSchema runs one lookup call with arguments raw against a tool
// with schema, and returns the tool's inputs, the call's report and the
// sanitized AI message's arguments.
func runWithSchema(t *testing.T, schema any, raw string) ([]string, saidex.CallReport, string) {
	t.Helper()
	rec := &recorder{}
	var tool tools.Tool = rec
	if schema != nil {
		tool = saidex.ToolWithSchema(rec, schema)
	}
	node, err := saidex.NewToolNode([]tools.Tool{tool}, saidex.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(context.Background(), aiCall(raw))
	if err != nil {
		t.Fatal(err)
	}
	return rec.inputs, res.Calls[0], res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
}

// Empty, white-space-only and null arguments run a tool whose schema
// accepts {} with {}; with a required member they get today's feedback
// (the fields listed for an empty text, "expected an object" for null);
// a plain tool receives them as sent.
func TestEmptyArgumentsRunAToolWhoseSchemaAcceptsAnEmptyObject(t *testing.T) {
	noParams := map[string]any{"type": "object", "properties": map[string]any{}}
	optional := map[string]any{"type": "object", "properties": map[string]any{"verbose": map[string]any{"type": "boolean"}}, "additionalProperties": false}
	minProps := map[string]any{"type": "object", "minProperties": 1}
	for _, raw := range []string{"", "  \n\t", "null", " null\n", "\uFEFF"} {
		for name, schema := range map[string]any{"no parameters": noParams, "optional members": optional, "no properties": map[string]any{"type": "object"}} {
			inputs, cr, history := runWithSchema(t, schema, raw)
			if cr.Outcome != saidex.OutcomeExecuted || !slices.Equal(inputs, []string{"{}"}) || history != "{}" ||
				!cr.Repaired || !slices.Equal(cr.RepairSteps, []saidex.RepairStep{saidex.RepairEmptyArguments}) {
				t.Errorf("%s, %q: outcome %s, inputs %q, history %q, steps %v; want executed with {}, empty_arguments",
					name, raw, cr.Outcome, inputs, history, cr.RepairSteps)
			}
		}
		for name, schema := range map[string]any{"a required member": lookupSchema, "minProperties": minProps} {
			inputs, cr, _ := runWithSchema(t, schema, raw)
			if cr.Outcome != saidex.OutcomeFeedback || len(inputs) != 0 || slices.Contains(cr.RepairSteps, saidex.RepairEmptyArguments) {
				t.Errorf("%s, %q: outcome %s, inputs %q, steps %v; want feedback", name, raw, cr.Outcome, inputs, cr.RepairSteps)
			}
			if name == "a required member" && !strings.Contains(raw, "null") && !strings.Contains(cr.Output, "city") {
				t.Errorf("%q: feedback %q does not list the required field", raw, cr.Output)
			}
		}
		// A plain tool has no schema to say {} is meant.
		inputs, cr, _ := runWithSchema(t, nil, raw)
		if cr.Outcome != saidex.OutcomeExecuted || !slices.Equal(inputs, []string{raw}) || cr.Repaired {
			t.Errorf("plain tool, %q: outcome %s, inputs %q, repaired %v; want the text as sent", raw, cr.Outcome, inputs, cr.Repaired)
		}
	}
	// Not empty: a JSON string, false, an empty array.
	for _, raw := range []string{`""`, "false", "[]", "nul"} {
		inputs, cr, _ := runWithSchema(t, noParams, raw)
		if cr.Outcome == saidex.OutcomeExecuted || len(inputs) != 0 {
			t.Errorf("%q: outcome %s, inputs %q; want not executed", raw, cr.Outcome, inputs)
		}
	}
}

// An unquoted token is read as a string where the tool's schema accepts
// only a string there, through $ref, enum, const, format and anyOf; where
// the schema allows more, or no schema is there, it is refused.
func TestBareValuesAreQuotedWhereTheSchemaAcceptsOnlyAString(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"$defs": map[string]any{
			"dir": map[string]any{"type": "string", "enum": []any{"up", "down", "both"}},
		},
		"properties": map[string]any{
			"direction": map[string]any{"$ref": "#/$defs/dir"},
			"id":        map[string]any{"type": "string", "format": "uuid"},
			"unit":      map[string]any{"enum": []any{"cm", "in"}},
			"kind":      map[string]any{"const": "box"},
			"label":     map[string]any{"anyOf": []any{map[string]any{"type": "string", "maxLength": 3}, map[string]any{"type": "string", "pattern": "^x"}}},
			"tags":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"maybe":     map[string]any{"type": []any{"string", "null"}},
			"mixed":     map[string]any{"enum": []any{"a", 1}},
			"any":       map[string]any{},
			"n":         map[string]any{"type": "integer"},
		},
		"additionalProperties": false,
	}
	tests := []struct {
		raw, want string
	}{
		{`{"direction": both}`, `{"direction":"both"}`},
		{`{"id": 123e4567-e89b-12d3-a456-426614174000}`, `{"id":"123e4567-e89b-12d3-a456-426614174000"}`},
		{`{"unit": cm, "kind": box, "n": 2}`, `{"kind":"box","n":2,"unit":"cm"}`},
		{`{"label": abc}`, `{"label":"abc"}`},
		{`{"tags": [red,green-ish]}`, `{"tags":["red","green-ish"]}`},
		{`{"tags": ["x", "y", red, green-ish]}`, `{"tags":["x","y","red","green-ish"]}`},
	}
	for _, tt := range tests {
		inputs, cr, _ := runWithSchema(t, schema, tt.raw)
		if cr.Outcome != saidex.OutcomeExecuted || len(inputs) != 1 || !sameJSONText(t, inputs[0], tt.want) ||
			!slices.Contains(cr.RepairSteps, saidex.RepairQuotedBareValue) {
			t.Errorf("%s: outcome %s, inputs %q, steps %v; want executed with %s", tt.raw, cr.Outcome, inputs, cr.RepairSteps, tt.want)
		}
	}
	// The token is quoted, then validated: a value the enum does not
	// list gets feedback.
	if inputs, cr, _ := runWithSchema(t, schema, `{"direction": sideways}`); cr.Outcome != saidex.OutcomeFeedback || len(inputs) != 0 {
		t.Errorf("a value outside the enum: outcome %s, inputs %q", cr.Outcome, inputs)
	}
	for _, raw := range []string{
		`{"maybe": both}`, `{"mixed": a}`, `{"any": both}`, `{"n": both}`, `{"other": both}`,
		`{"direction": two words}`, `{"direction": both`, `{"direction": NaN}`,
		// Any string: the space before red may be its own (" red").
		`{"tags": [red, green-ish]}`,
	} {
		inputs, cr, _ := runWithSchema(t, schema, raw)
		if cr.Outcome != saidex.OutcomeFeedback || len(inputs) != 0 || slices.Contains(cr.RepairSteps, saidex.RepairQuotedBareValue) {
			t.Errorf("%s: outcome %s, inputs %q, steps %v; want feedback", raw, cr.Outcome, inputs, cr.RepairSteps)
		}
	}
	// A plain tool has no schema: its bare value is refused, so the text
	// reaches it as sent.
	if inputs, cr, _ := runWithSchema(t, nil, `{"direction": both}`); cr.Repaired || !slices.Equal(inputs, []string{`{"direction": both}`}) {
		t.Errorf("plain tool: inputs %q, repaired %v", inputs, cr.Repaired)
	}
}

// Each scanner class of issue 22 reaches the tool as its one value, and
// the report names its step.
func TestRecoveredClassesReachTheToolByName(t *testing.T) {
	num := map[string]any{"type": "number"}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"ok": map[string]any{"type": "boolean"}, "v": map[string]any{"type": "null"}, "p": num, "q": num,
	}}
	tests := []struct {
		raw, want string
		step      saidex.RepairStep
	}{
		{"{\"rows\": \\n[3, 4]\\n}", `{"rows":[3,4]}`, saidex.RepairEscapedWhitespace},
		{`{"rows: [3, 4]}`, `{"rows":[3,4]}`, saidex.RepairUnclosedKey},
		{`{"rows": [3, 4]}]`, `{"rows":[3,4]}`, saidex.RepairStrayCloser},
		{`{"rows": [3, 4}, "n": 1}`, `{"n":1,"rows":[3,4]}`, saidex.RepairWrongCloser},
		{`{"ok": TRUE, "v": Null}`, `{"ok":true,"v":null}`, saidex.RepairLiteralCase},
		{`{"p": .5, "q": +2}`, `{"p":0.5,"q":2}`, saidex.RepairLooseNumber},
		{`{1: "a"}`, `{"1":"a"}`, saidex.RepairNumericKey},
		{"{say:<|\"|>He said \"hi\", then left.<|\"|>,\nloud:false}", `{"say":"He said \"hi\", then left.","loud":false}`, saidex.RepairTemplateQuotes},
	}
	for _, tt := range tests {
		inputs, cr, _ := runWithSchema(t, schema, tt.raw)
		if cr.Outcome != saidex.OutcomeExecuted || len(inputs) != 1 || !sameJSONText(t, inputs[0], tt.want) ||
			!slices.Contains(cr.RepairSteps, tt.step) {
			t.Errorf("%s: outcome %s, inputs %q, steps %v; want %s with %s", tt.raw, cr.Outcome, inputs, cr.RepairSteps, tt.want, tt.step)
		}
	}
	// Where the schema accepts a string, a literal or number not written
	// as JSON writes it may be a string whose quotes were dropped
	// ("None", "+2"): refused.
	for _, raw := range []string{`{"ok": TRUE}`, `{"x": Null}`, `{"x": None}`, `{"x": True}`, `{"x": .5}`, `{"x": +2}`} {
		inputs, cr, _ := runWithSchema(t, map[string]any{"type": "object"}, raw)
		if cr.Outcome != saidex.OutcomeFeedback || len(inputs) != 0 || !strings.Contains(cr.Output, "may be a string whose quotes are missing") {
			t.Errorf("%s under {\"type\":\"object\"}: outcome %s, inputs %q, output %q; want the refusal", raw, cr.Outcome, inputs, cr.Output)
		}
	}
}

// sameJSONText reports whether the JSON texts a and b hold the same value.
func sameJSONText(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	da, db := json.NewDecoder(strings.NewReader(a)), json.NewDecoder(strings.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if err := da.Decode(&va); err != nil {
		return false
	}
	if err := db.Decode(&vb); err != nil {
		t.Fatalf("bad want %q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// A location the schema does not describe (an item of an undescribed
// member) accepts any string: a literal or number not written as JSON
// writes it is refused there too.
func TestSpelledLiteralsAreRefusedWhereTheSchemaSaysNothing(t *testing.T) {
	for _, raw := range []string{`{"t": [2024., 1]}`, `{"t": {"u": [None]}}`, `{"t": [{"u": +1}]}`} {
		inputs, cr, _ := runWithSchema(t, map[string]any{"type": "object"}, raw)
		if len(inputs) != 0 || !strings.Contains(cr.Output, "may be a string whose quotes are missing") {
			t.Errorf("%s: inputs %q, output %q; want the refusal", raw, inputs, cr.Output)
		}
	}
}
