package saidex_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// recorder is a tool that records its inputs.
type recorder struct {
	mu     sync.Mutex
	inputs []string
}

func (r *recorder) Name() string        { return "lookup" }
func (r *recorder) Description() string { return "looks a city up" }
func (r *recorder) Call(_ context.Context, in string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs = append(r.inputs, in)
	return "found", nil
}

var lookupSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"days": map[string]any{"type": "integer"},
	},
	"required":             []any{"city"},
	"additionalProperties": false,
}

func aiCall(args string) []llms.MessageContent {
	return []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "weather in Oslo"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: args},
		}}},
	}
}

func TestRunRepairsBrokenArgumentsBeforeTheToolRuns(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		opts     []saidex.Option
		want     string // the tool's input
		steps    []saidex.RepairStep
		repaired bool
	}{
		{name: "valid arguments reach the tool unchanged", raw: `{"city": "Oslo",  "days": 2}`, want: `{"city": "Oslo",  "days": 2}`},
		{name: "python dict repr", raw: `{'city': 'Oslo', 'days': 2}`, want: `{"city":"Oslo","days":2}`,
			steps: []saidex.RepairStep{saidex.RepairJSON}, repaired: true},
		{name: "reasoning and a fence", raw: "<think>Oslo</think>```json\n{\"city\": \"Oslo\"}\n```", want: `{"city": "Oslo"}`,
			steps: []saidex.RepairStep{saidex.RepairStripThinking, saidex.RepairCodeFence}, repaired: true},
		{name: "extraction still runs without JSON repair", raw: `Arguments: {"city": "Oslo"}`, opts: []saidex.Option{saidex.WithJSONRepair(false)},
			want: `{"city": "Oslo"}`, steps: []saidex.RepairStep{saidex.RepairExtractObject}, repaired: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, cr := runRecorded(t, tt.raw, tt.opts...)
			if cr.Outcome != saidex.OutcomeExecuted || cr.Err != nil {
				t.Fatalf("outcome %s, err %v; want executed", cr.Outcome, cr.Err)
			}
			if len(rec.inputs) != 1 || rec.inputs[0] != tt.want {
				t.Errorf("tool inputs = %q, want [%q]", rec.inputs, tt.want)
			}
			if string(cr.Arguments) != tt.want {
				t.Errorf("Arguments = %s, want %s", cr.Arguments, tt.want)
			}
			if cr.Repaired != tt.repaired || !slices.Equal(cr.RepairSteps, tt.steps) {
				t.Errorf("Repaired = %v, RepairSteps = %v; want %v, %v", cr.Repaired, cr.RepairSteps, tt.repaired, tt.steps)
			}
		})
	}
}

// runRecorded runs one lookup call with arguments raw through a node with
// opts, and returns the tool's recorder and the call's report.
func runRecorded(t *testing.T, raw string, opts ...saidex.Option) (*recorder, saidex.CallReport) {
	t.Helper()
	rec := &recorder{}
	node, err := saidex.NewToolNode([]tools.Tool{saidex.ToolWithSchema(rec, lookupSchema)}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(context.Background(), aiCall(raw))
	if err != nil {
		t.Fatal(err)
	}
	return rec, res.Calls[0]
}

func TestRunAnswersUnrepairableArgumentsWithFeedback(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		opts   []saidex.Option
		reason string
	}{
		{name: "empty", raw: "", reason: "the arguments are empty"},
		{name: "string cut mid-value", raw: `{"city": "Os`, reason: "cut off inside a string value"},
		{name: "two different objects", raw: `{"city": "Oslo"}{"city": "Rome"}`, reason: "2 different JSON objects one after another: several tool calls were merged"},
		{name: "json repair disabled", raw: `{'city': 'Oslo'}`, opts: []saidex.Option{saidex.WithJSONRepair(false)}, reason: "JSON repair is disabled"},
		{name: "argument size limit", raw: `{"city": "Oslo"}`, opts: []saidex.Option{saidex.WithMaxArgumentBytes(8)}, reason: "more than the limit of 8 bytes"},
		{name: "reasoning kept when stripping is off", raw: "<think>x</think>{\"city\": \"Oslo\"}", opts: []saidex.Option{saidex.WithStripThinking(false)},
			reason: "stripping reasoning is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, cr := runRecorded(t, tt.raw, tt.opts...)
			if cr.Outcome != saidex.OutcomeFeedback || !cr.IsError || cr.Arguments != nil {
				t.Fatalf("outcome %s, IsError %v, Arguments %s; want feedback without arguments", cr.Outcome, cr.IsError, cr.Arguments)
			}
			if len(rec.inputs) != 0 {
				t.Errorf("the tool ran with %q", rec.inputs)
			}
			var me *saidex.MalformedArgumentsError
			if !errors.As(cr.Err, &me) || !errors.Is(cr.Err, saidex.ErrMalformedArguments) {
				t.Fatalf("Err = %v, want a *MalformedArgumentsError", cr.Err)
			}
			if !strings.Contains(me.Reason, tt.reason) || !strings.Contains(cr.Output, tt.reason) {
				t.Errorf("reason %q / output %q, want both to contain %q", me.Reason, cr.Output, tt.reason)
			}
		})
	}
}

// writeFileArgs is the argument struct of a write_file tool.
type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// A broken write_file call of nearly 1 MiB (the default argument limit)
// whose content holds literal line breaks and tabs and unescaped inner
// quotes is repaired in one pass, whatever its size, and its fields reach
// a NewTool tool intact.
func TestRunRepairsAOneMebibyteWriteFileCall(t *testing.T) {
	var content strings.Builder
	for i := 0; content.Len() < saidex.DefaultMaxArgumentBytes-200; i++ {
		content.WriteString("func f() {\n\tfmt.Println(\"héllo, world\") // say \"hi\" twice\n}\n")
	}
	want := writeFileArgs{Path: "src/main.go", Content: content.String()}
	raw := `{"path": "` + want.Path + `", "content": "` + want.Content + `"}`
	if len(raw) > saidex.DefaultMaxArgumentBytes {
		t.Fatalf("test arguments are %d bytes, over the default limit", len(raw))
	}
	var got writeFileArgs
	calls := 0
	tool := saidex.NewTool("write_file", "Writes a file.", func(_ context.Context, a writeFileArgs) (string, error) {
		got, calls = a, calls+1
		return "written", nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{tool})
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(context.Background(), []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "write the file"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "write_file", Arguments: raw},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cr := res.Calls[0]
	if cr.Outcome != saidex.OutcomeExecuted || cr.Err != nil || calls != 1 {
		t.Fatalf("outcome %s, err %v, %d calls; want one execution", cr.Outcome, cr.Err, calls)
	}
	if !slices.Equal(cr.RepairSteps, []saidex.RepairStep{saidex.RepairJSON}) {
		t.Errorf("RepairSteps = %v, want [json_repair]", cr.RepairSteps)
	}
	if got != want {
		t.Errorf("the tool received path %q and %d bytes of content; want %q and the %d bytes sent", got.Path, len(got.Content), want.Path, len(want.Content))
	}
}

// An object repair extracted that is a call envelope, {"name": …,
// "arguments": …}, is refused even where the schema would accept it: the
// tool takes the arguments, not the envelope. Where the schema names the
// members, or the text parsed as sent, the object is the arguments.
func TestRunRefusesARepairedCallEnvelope(t *testing.T) {
	open := map[string]any{"type": "object"}
	named := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "arguments": map[string]any{"type": "integer"},
	}}
	tests := []struct {
		name   string
		schema map[string]any
		raw    string
		want   string // the tool's input; "" when refused
	}{
		{"envelope in template tokens, arguments not an object", open,
			"<tool_call>{\"name\": \"lookup\", \"arguments\": 1}\n</tool_call>", ""},
		{"envelope in prose, arguments an object", open,
			`Calling: {'name': 'lookup', 'parameters': {'city': 'Oslo'}}`, ""},
		{"the schema names the members", named,
			`{'name': 'lookup', 'arguments': 1}`, `{"name":"lookup","arguments":1}`},
		{"a third member: not an envelope", open,
			`{'name': 'lookup', 'arguments': 1, 'x': 2}`, `{"name":"lookup","arguments":1,"x":2}`},
		{"the name not a string", open,
			`{'name': 1, 'arguments': 1}`, `{"name":1,"arguments":1}`},
		{"parsed as sent", open,
			`{"name": "lookup", "arguments": 1}`, `{"name": "lookup", "arguments": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			node, err := saidex.NewToolNode([]tools.Tool{saidex.ToolWithSchema(rec, tt.schema)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := node.Run(context.Background(), aiCall(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			cr := res.Calls[0]
			if tt.want == "" {
				if len(rec.inputs) != 0 || !errors.Is(cr.Err, saidex.ErrMalformedArguments) || !strings.Contains(cr.Output, "call envelope") {
					t.Fatalf("tool inputs %q, Err %v, output %q; want the envelope refused", rec.inputs, cr.Err, cr.Output)
				}
				return
			}
			if !slices.Equal(rec.inputs, []string{tt.want}) {
				t.Fatalf("tool inputs %q, want [%s] (Err %v)", rec.inputs, tt.want, cr.Err)
			}
		})
	}
}

// Closers missing at the end of the text are placed where the tool's
// schema says, when exactly one placement validates; a text that may be a
// valid value cut off keeps its closers at the end (and the feedback of
// what it lacks).
func TestRunPlacesMissingClosersWhereTheSchemaAcceptsThem(t *testing.T) {
	obj := func(props map[string]any, required ...string) map[string]any {
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	strict := obj(map[string]any{"a": obj(map[string]any{"b": integer}), "c": str})
	nested := obj(map[string]any{"a": obj(map[string]any{"b": integer}), "c": obj(map[string]any{"d": integer})})
	// a accepts c too; the root requires c: the closed-at-end reading
	// lacks it, as a cut text would.
	cut := obj(map[string]any{"a": map[string]any{"type": "object"}, "c": str}, "c")
	// The same as strict, a's schema an alternative: its issues do not
	// tell what the value fails.
	alt := obj(map[string]any{"a": map[string]any{"anyOf": []any{obj(map[string]any{"b": integer})}}, "c": str})
	open := map[string]any{"type": "object"}
	tests := []struct {
		name   string
		schema map[string]any
		raw    string
		want   string // the tool's input; "" when refused
		reason string // in the refusal
	}{
		{"the one reading that validates", strict, `{"a": {"b": 1, "c": "x"`, `{"a":{"b":1},"c":"x"}`, ""},
		{"ends with a brace: the one reading that validates", nested, `{"a": {"b": 1, "c": {"d": 2}`, `{"a":{"b":1},"c":{"d":2}}`, ""},
		{"closed at the end validates", strict, `{"a": {"b": 1}, "c": "x"`, `{"a":{"b":1},"c":"x"}`, ""},
		{"both validate: closed at the end", open, `{"a": {"b": 1, "c": "x"`, `{"a":{"b":1,"c":"x"}}`, ""},
		{"ends with a brace, both validate", open, `{"a": {"b": 1, "c": {"d": 2}`, "", "a closing bracket is missing, and where is ambiguous"},
		{"may be a cut: closed at the end, and what it lacks", cut, `{"a": {"b": 1, "c": "x"`, "", "c: required field is missing"},
		{"alternatives: closed at the end", alt, `{"a": {"b": 1, "c": "x"`, "", "do not match the tool's schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs, cr, _ := runWithSchema(t, tt.schema, tt.raw)
			if tt.want == "" {
				if len(inputs) != 0 || !strings.Contains(cr.Output, tt.reason) {
					t.Fatalf("tool inputs %q, output %q; want it not run, the output naming %q", inputs, cr.Output, tt.reason)
				}
				return
			}
			if !slices.Equal(inputs, []string{tt.want}) {
				t.Fatalf("tool inputs %q, want [%s] (Err %v)", inputs, tt.want, cr.Err)
			}
		})
	}
}

// Where a broken text reads as two objects one fault apart, and one of
// them names a member the tool's schema does not have (one it does not
// list under properties, or does not allow), the other runs; the schema
// never chooses between two objects sent, nor where it lists no members
// (any member, or names matched by patterns), nor where its issues do
// not tell and it lists none at the root (alternatives), nor with no
// schema.
func TestRunDropsAReadingThatNamesAMemberTheToolDoesNotHave(t *testing.T) {
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	}
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	strict := obj(map[string]any{"a": integer, "city": str})
	open := map[string]any{"type": "object", "properties": map[string]any{"a": integer, "city": str}}
	anyMember := map[string]any{"type": "object"}
	patterns := map[string]any{"type": "object", "properties": map[string]any{"a": integer, "city": str}, "patternProperties": map[string]any{"^a": str}}
	alt := map[string]any{"anyOf": []any{strict}}
	// {"a":: 1, "city": "Oslo"}: a colon doubled, or the key's closing
	// quote moved back over its last character, a colon (its key a:).
	raw := `{"a":: 1, "city": "Oslo"}`
	tests := []struct {
		name   string
		schema any
		raw    string
		want   string // the tool's input; "" when refused
	}{
		{"one reading names only members the tool has", strict, raw, `{"a":1,"city":"Oslo"}`},
		{"every cheapest reading names a member the tool does not have: the rest's window is not read", strict, `{"a": 1 city": "Oslo"}`, ""},
		{"a schema that lists its members and allows others", open, raw, `{"a":1,"city":"Oslo"}`},
		{"a schema that lists no members", anyMember, "", ""},
		{"a schema that matches names by pattern", patterns, "", ""},
		{"alternatives: the issues do not tell", alt, "", ""},
		{"two objects sent: never chosen between", strict, `{"a": 1}{"city": "Oslo"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.raw
			if in == "" {
				in = raw
			}
			inputs, cr, _ := runWithSchema(t, tt.schema, in)
			if tt.want == "" {
				if len(inputs) != 0 {
					t.Fatalf("tool inputs %q (output %q); want it not run", inputs, cr.Output)
				}
				return
			}
			if !slices.Equal(inputs, []string{tt.want}) {
				t.Fatalf("tool inputs %q, want [%s] (output %q)", inputs, tt.want, cr.Output)
			}
		})
	}
}

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
	// Where the schema allows more than a string, the fault model reads
	// the token: its window holds the one string (a literal or a number
	// is never a string), then validated.
	for _, tt := range []struct{ raw, want string }{
		{`{"maybe": both}`, `{"maybe":"both"}`}, {`{"mixed": a}`, `{"mixed":"a"}`}, {`{"any": both}`, `{"any":"both"}`},
		// The white space around a bare token is layout: one reading
		// (its other readings cut a string one fault past it).
		{`{"tags": [red, green-ish]}`, `{"tags":["red","green-ish"]}`},
	} {
		inputs, cr, _ := runWithSchema(t, schema, tt.raw)
		if cr.Outcome != saidex.OutcomeExecuted || len(inputs) != 1 || !sameJSONText(t, inputs[0], tt.want) {
			t.Errorf("%s: outcome %s, inputs %q, steps %v; want executed with %s", tt.raw, cr.Outcome, inputs, cr.RepairSteps, tt.want)
		}
	}
	for _, raw := range []string{
		`{"n": both}`, `{"other": both}`,
		`{"direction": two words}`, `{"direction": both`, `{"direction": NaN}`,
	} {
		inputs, cr, _ := runWithSchema(t, schema, raw)
		if cr.Outcome != saidex.OutcomeFeedback || len(inputs) != 0 || slices.Contains(cr.RepairSteps, saidex.RepairQuotedBareValue) {
			t.Errorf("%s: outcome %s, inputs %q, steps %v; want feedback", raw, cr.Outcome, inputs, cr.RepairSteps)
		}
	}
	// A plain tool has no schema: the fault model reads its bare value
	// (one reading), so the string reaches it.
	if inputs, cr, _ := runWithSchema(t, nil, `{"direction": both}`); !cr.Repaired || !slices.Equal(inputs, []string{`{"direction":"both"}`}) {
		t.Errorf("plain tool: inputs %q, repaired %v", inputs, cr.Repaired)
	}
}

// Each scanner class of issue 22 reaches the tool as its one value, and
// the report names its step.
func TestRecoveredClassesReachTheToolByName(t *testing.T) {
	num := map[string]any{"type": "number"}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"ok": map[string]any{"type": "boolean"}, "v": map[string]any{"type": "null"}, "p": num, "q": num,
		"rows": map[string]any{"type": "array"}, "n": num,
	}}
	tests := []struct {
		raw, want string
		step      saidex.RepairStep
	}{
		{"{\"rows\": \\n[3, 4]\\n}", `{"rows":[3,4]}`, saidex.RepairEscapedWhitespace},
		{`{"rows: [3, 4], "ok": true}`, `{"rows":[3,4],"ok":true}`, saidex.RepairUnclosedKey},
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
	// Where the schema accepts a string too, a literal or number not
	// written as JSON writes it is still that literal or number: the fault
	// model prices another spelling of a literal below a string written
	// bare, so the window holds one value (the schema answers with
	// feedback where it wants a string).
	for _, tt := range []struct {
		raw, want string
		step      saidex.RepairStep
	}{
		{`{"ok": TRUE}`, `{"ok":true}`, saidex.RepairLiteralCase},
		{`{"x": Null}`, `{"x":null}`, saidex.RepairLiteralCase},
		{`{"x": None}`, `{"x":null}`, saidex.RepairJSON},
		{`{"x": True}`, `{"x":true}`, saidex.RepairJSON},
		{`{"x": .5}`, `{"x":0.5}`, saidex.RepairLooseNumber},
		{`{"x": +2}`, `{"x":2}`, saidex.RepairLooseNumber},
		{`{"x": 05}`, `{"x":5}`, saidex.RepairLooseNumber},
	} {
		inputs, cr, _ := runWithSchema(t, map[string]any{"type": "object"}, tt.raw)
		if cr.Outcome != saidex.OutcomeExecuted || len(inputs) != 1 || !sameJSONText(t, inputs[0], tt.want) || !slices.Contains(cr.RepairSteps, tt.step) {
			t.Errorf("%s under {\"type\":\"object\"}: outcome %s, inputs %q, steps %v; want %s with %s", tt.raw, cr.Outcome, inputs, cr.RepairSteps, tt.want, tt.step)
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
// member) accepts any string: a number not written as JSON writes it,
// which the fault model reads two ways (2024. as the number 2024, or as
// 2024 and an item "." with its comma and quotes dropped), is refused
// there too; None and +1 have one reading each and run as null and 1.
func TestSpelledLiteralsAreRefusedWhereTheSchemaSaysNothing(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"t": {"u": [None]}}`, `{"t":{"u":[null]}}`},
		{`{"t": [{"u": +1}]}`, `{"t":[{"u":1}]}`},
	} {
		if inputs, cr, _ := runWithSchema(t, map[string]any{"type": "object"}, tt.raw); len(inputs) != 1 || !sameJSONText(t, inputs[0], tt.want) {
			t.Errorf("%s: inputs %q, output %q; want %s", tt.raw, inputs, cr.Output, tt.want)
		}
	}
	for _, raw := range []string{`{"t": [2024., 1]}`} {
		inputs, cr, _ := runWithSchema(t, map[string]any{"type": "object"}, raw)
		if len(inputs) != 0 || !strings.Contains(cr.Output, "may be a string whose quotes are missing") {
			t.Errorf("%s: inputs %q, output %q; want the refusal", raw, inputs, cr.Output)
		}
	}
}
