package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// coSchema exercises every place a coercion may or may not apply.
const coSchema = `{
  "type": "object",
  "properties": {
    "limit":    {"type": "integer", "minimum": 1},
    "ratio":    {"type": "number"},
    "flag":     {"type": "boolean"},
    "name":     {"type": "string"},
    "unit":     {"type": "string", "enum": ["celsius", "fahrenheit"]},
    "level":    {"type": "integer", "enum": [1, 2, 3]},
    "files":    {"type": "array", "items": {"type": "string"}},
    "ids":      {"type": "array", "items": {"type": "integer"}},
    "pair":     {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},
    "filter":   {"type": "object", "properties": {"min": {"type": "integer"}, "on": {"type": "boolean"}}, "additionalProperties": false},
    "counts":   {"type": "object", "additionalProperties": {"type": "integer"}},
    "ref":      {"$ref": "#/$defs/count"},
    "both":     {"allOf": [{"type": "number"}, {"type": "integer"}]},
    "either":   {"type": ["integer", "boolean"]},
    "nullable": {"type": ["integer", "null"]},
    "alt":      {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
    "one":      {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": -10}]},
    "untyped":  {"minimum": 0},
    "deflt":    {"type": "integer", "default": 7}
  },
  "additionalProperties": false,
  "$defs": {"count": {"type": "integer"}}
}`

func coCompiled(t testing.TB) *compiledSchema {
	t.Helper()
	s, err := compileSchema("co", coSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCoerceRules(t *testing.T) {
	s := coCompiled(t)
	tests := []struct {
		name string
		in   string
		want string // the coerced arguments; "" when nothing may change
		list []Coercion
	}{
		{"string to integer", `{"limit":"5"}`, `{"limit":5}`, []Coercion{{"/limit", "string", "integer"}}},
		{"negative string to integer", `{"ref":"-12"}`, `{"ref":-12}`, []Coercion{{"/ref", "string", "integer"}}},
		{"string with fraction zero to integer", `{"limit":"5.0"}`, `{"limit":5}`, []Coercion{{"/limit", "string", "integer"}}},
		{"string with exponent to integer", `{"limit":"1e2"}`, `{"limit":100}`, []Coercion{{"/limit", "string", "integer"}}},
		{"largest int64", `{"limit":"9223372036854775807"}`, `{"limit":9223372036854775807}`, []Coercion{{"/limit", "string", "integer"}}},
		{"number written 5.0 to integer", `{"limit":5.0}`, `{"limit":5}`, []Coercion{{"/limit", "number", "integer"}}},
		{"number written 12.50e1 to integer", `{"limit":12.50e1}`, `{"limit":125}`, []Coercion{{"/limit", "number", "integer"}}},
		{"string to number", `{"ratio":"2.50"}`, `{"ratio":2.50}`, []Coercion{{"/ratio", "string", "number"}}},
		{"string integer to number", `{"ratio":"-3"}`, `{"ratio":-3}`, []Coercion{{"/ratio", "string", "number"}}},
		{"true any case", `{"flag":"TRUE"}`, `{"flag":true}`, []Coercion{{"/flag", "string", "boolean"}}},
		{"false any case", `{"flag":"False"}`, `{"flag":false}`, []Coercion{{"/flag", "string", "boolean"}}},
		{"string to array", `{"files":"[\"a.go\", \"b.go\"]"}`, `{"files":["a.go","b.go"]}`, []Coercion{{"/files", "string", "array"}}},
		{"string to array then items", `{"ids":"[\"1\", 2, \"3\"]"}`, `{"ids":[1,2,3]}`,
			[]Coercion{{"/ids", "string", "array"}, {"/ids/0", "string", "integer"}, {"/ids/2", "string", "integer"}}},
		{"items of an array", `{"ids":["10",2]}`, `{"ids":[10,2]}`, []Coercion{{"/ids/0", "string", "integer"}}},
		{"prefix items", `{"pair":["1","true"]}`, `{"pair":[1,true]}`, []Coercion{{"/pair/0", "string", "integer"}, {"/pair/1", "string", "boolean"}}},
		{"string to object then members", `{"filter":"{\"min\": \"3\", \"on\": \"true\"}"}`, `{"filter":{"min":3,"on":true}}`,
			[]Coercion{{"/filter", "string", "object"}, {"/filter/min", "string", "integer"}, {"/filter/on", "string", "boolean"}}},
		{"additionalProperties schema", `{"counts":{"a":"1","b":2}}`, `{"counts":{"a":1,"b":2}}`, []Coercion{{"/counts/a", "string", "integer"}}},
		{"through $ref", `{"ref":"7"}`, `{"ref":7}`, []Coercion{{"/ref", "string", "integer"}}},
		{"allOf number and integer", `{"both":"8"}`, `{"both":8}`, []Coercion{{"/both", "string", "integer"}}},
		{"exact enum member by type", `{"level":"2"}`, `{"level":2}`, []Coercion{{"/level", "string", "integer"}}},
		{"several at once, sorted by path", `{"limit":"3","flag":"true","ids":["4"]}`, `{"flag":true,"ids":[4],"limit":3}`,
			[]Coercion{{"/flag", "string", "boolean"}, {"/ids/0", "string", "integer"}, {"/limit", "string", "integer"}}},

		// Refusals.
		{"type array is ambiguous", `{"either":"5"}`, "", nil},
		{"nullable is several types", `{"nullable":"5"}`, "", nil},
		{"anyOf is ambiguous", `{"alt":"5"}`, "", nil},
		{"oneOf at the location", `{"one":"5"}`, "", nil},
		{"no type named", `{"untyped":"5"}`, "", nil},
		{"non-integral to integer", `{"limit":"5.5"}`, "", nil},
		{"non-integral number to integer", `{"limit":5.5}`, "", nil},
		{"overflow", `{"limit":"9223372036854775808"}`, "", nil},
		{"overflow by exponent", `{"limit":"1e19"}`, "", nil},
		{"huge exponent", `{"limit":"1e999999999999"}`, "", nil},
		{"huge number exponent", `{"ratio":"1e999"}`, "", nil},
		{"overflowing number stays", `{"limit":1.5e30}`, "", nil},
		{"enum by similarity", `{"unit":"Celsius"}`, "", nil},
		{"yes to boolean", `{"flag":"yes"}`, "", nil},
		{"1 to boolean", `{"flag":"1"}`, "", nil},
		{"number to boolean", `{"flag":1}`, "", nil},
		{"number to string", `{"name":5}`, "", nil},
		{"boolean to string", `{"name":true}`, "", nil},
		{"spaces around a number", `{"limit":" 5"}`, "", nil},
		{"plus sign", `{"limit":"+5"}`, "", nil},
		{"leading zero", `{"limit":"05"}`, "", nil},
		{"hex", `{"limit":"0x10"}`, "", nil},
		{"NaN", `{"ratio":"NaN"}`, "", nil},
		{"Infinity", `{"ratio":"Infinity"}`, "", nil},
		{"empty string", `{"limit":""}`, "", nil},
		{"word to integer", `{"limit":"five"}`, "", nil},
		{"not JSON to array", `{"files":"a.go, b.go"}`, "", nil},
		{"object text to array", `{"files":"{\"a\":1}"}`, "", nil},
		{"array text to object", `{"filter":"[1]"}`, "", nil},
		{"double encoded array", `{"files":"\"[\\\"a\\\"]\""}`, "", nil},
		{"array to integer", `{"limit":[5]}`, "", nil},
		{"plain integer is left alone", `{"limit":5}`, "", nil},
		{"unknown member is kept and untouched", `{"extra":"5"}`, "", nil},
		{"no default filled", `{}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decodeJSON(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			before := tt.in
			co := s.coerce(v)
			if after, _ := jsonvalue.Encode(v); after != mustCanon(t, before) {
				t.Errorf("coerce modified its input: %s", after)
			}
			if tt.want == "" {
				if co != nil {
					t.Fatalf("coerced to %s (%v), want no change", co.json, co.list)
				}
				return
			}
			if co == nil {
				t.Fatalf("nothing coerced, want %s", tt.want)
			}
			if co.json != tt.want {
				t.Errorf("json = %s, want %s", co.json, tt.want)
			}
			if got, _ := jsonvalue.Encode(co.value); got != co.json {
				t.Errorf("value encodes to %s, json is %s", got, co.json)
			}
			if !slices.Equal(co.list, tt.list) {
				t.Errorf("coercions = %v, want %v", co.list, tt.list)
			}
			if issues := s.validate(co.value); len(issues) > 0 {
				t.Errorf("coerced value invalid: %v", issues)
			}
		})
	}
}

func mustCanon(t testing.TB, s string) string {
	t.Helper()
	v, err := decodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonvalue.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIntegerText(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when refused
	}{
		{"0", "0"}, {"-0", "0"}, {"0.000", "0"}, {"0e5", "0"}, {"-0.0e-3", "0"},
		{"5", "5"}, {"5.0", "5"}, {"50e-1", "5"}, {"0.5e1", "5"}, {"1E+2", "100"},
		{"-9223372036854775808", "-9223372036854775808"}, {"-9223372036854775809", ""},
		{"9223372036854775807.000", "9223372036854775807"}, {"92233720368547758.07e2", "9223372036854775807"},
		{"1e18", "1000000000000000000"}, {"1e19", ""}, {"0.1", ""}, {"1e-1", ""}, {"100e-3", ""},
		{"1e999999999999999999", ""}, {"1e-999999999999999999", ""},
		{"", ""}, {"-", ""}, {"1.", ""}, {".5", ""}, {"1e", ""}, {"01", ""}, {"1 ", ""}, {"١", ""},
	}
	for _, tt := range tests {
		got, ok := integerText(tt.in)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("integerText(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// coArgs is the argument type of the end-to-end tool.
type coArgs struct {
	Query  string   `json:"query"`
	Limit  int      `json:"limit"`
	Files  []string `json:"files,omitempty"`
	Strict bool     `json:"strict,omitempty"`
	Filter *struct {
		Min int64 `json:"min"`
	} `json:"filter,omitempty"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
}

type coRecorder struct {
	mu  sync.Mutex
	ran []coArgs
}

func (rec *coRecorder) tool() Tool {
	return NewTool("search", "Search files.", func(_ context.Context, a coArgs) (string, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.ran = append(rec.ran, a)
		return fmt.Sprintf("%d results", a.Limit), nil
	})
}

func (rec *coRecorder) calls() []coArgs {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.ran)
}

func TestCoerceLaxRunsToolWithCoercedTypedValues(t *testing.T) {
	rec := &coRecorder{}
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax))
	raw := `{"query": "todo", "limit": "5", "files": "[\"a.go\", \"b.go\"]", "strict": "True", "filter": "{\"min\": \"2\"}"}`
	msgs := conversation(tc("c1", "search", raw))
	res, err := n.Run(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := rec.calls()
	if len(got) != 1 {
		t.Fatalf("tool ran %d times, want 1", len(got))
	}
	a := got[0]
	if a.Query != "todo" || a.Limit != 5 || !slices.Equal(a.Files, []string{"a.go", "b.go"}) || !a.Strict || a.Filter == nil || a.Filter.Min != 2 {
		t.Errorf("tool received %+v", a)
	}
	rep := res.Calls[0]
	const want = `{"files":["a.go","b.go"],"filter":{"min":2},"limit":5,"query":"todo","strict":true}`
	if rep.Outcome != OutcomeExecuted || rep.IsError || len(rep.Issues) > 0 {
		t.Errorf("outcome %s, error %v, issues %v", rep.Outcome, rep.IsError, rep.Issues)
	}
	if string(rep.Arguments) != want {
		t.Errorf("report arguments = %s, want %s", rep.Arguments, want)
	}
	if rep.RawArguments != raw {
		t.Errorf("raw arguments changed: %s", rep.RawArguments)
	}
	if !rep.Repaired || !slices.Contains(rep.RepairSteps, RepairCoerce) {
		t.Errorf("repaired %v, steps %v; want the coerce step", rep.Repaired, rep.RepairSteps)
	}
	wantList := []Coercion{
		{"/files", "string", "array"}, {"/filter", "string", "object"}, {"/filter/min", "string", "integer"},
		{"/limit", "string", "integer"}, {"/strict", "string", "boolean"},
	}
	if !slices.Equal(rep.Coercions, wantList) {
		t.Errorf("coercions = %v, want %v", rep.Coercions, wantList)
	}
	// The sanitized history carries the coerced values.
	if !res.AIMessageChanged {
		t.Error("AIMessageChanged = false, want true")
	}
	if fc := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall; fc.Arguments != want {
		t.Errorf("history arguments = %s, want %s", fc.Arguments, want)
	}
	out, err := n.Invoke(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if fc := out[1].Parts[0].(llms.ToolCall).FunctionCall; fc.Arguments != want {
		t.Errorf("Invoke history arguments = %s, want %s", fc.Arguments, want)
	}
	if fc := msgs[1].Parts[0].(llms.ToolCall).FunctionCall; fc.Arguments != raw {
		t.Errorf("input message modified: %s", fc.Arguments)
	}
}

func TestCoerceModes(t *testing.T) {
	tests := []struct {
		name    string
		mode    []Option
		args    string
		outcome Outcome
		isError bool
		ran     int
	}{
		{"none is strict", nil, `{"query":"q","limit":"5"}`, OutcomeFeedback, true, 0},
		{"explicit none is strict", []Option{WithCoercion(CoercionNone)}, `{"query":"q","limit":"5"}`, OutcomeFeedback, true, 0},
		{"lax converts", []Option{WithCoercion(CoercionLax)}, `{"query":"q","limit":"5"}`, OutcomeExecuted, false, 1},
		// JSON Schema accepts 5.0 as an integer, Go's decoder does not.
		{"none passes 5.0 to the decoder, which refuses it", nil, `{"query":"q","limit":5.0}`, OutcomeExecuted, true, 0},
		{"lax rewrites 5.0 as 5", []Option{WithCoercion(CoercionLax)}, `{"query":"q","limit":5.0}`, OutcomeExecuted, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &coRecorder{}
			n := mustNode(t, []tools.Tool{rec.tool()}, tt.mode...)
			res, err := n.Run(context.Background(), conversation(tc("c1", "search", tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			rep := res.Calls[0]
			if rep.Outcome != tt.outcome || rep.IsError != tt.isError || len(rec.calls()) != tt.ran {
				t.Errorf("outcome %s, error %v (%s), ran %d; want %s, %v, %d",
					rep.Outcome, rep.IsError, rep.Output, len(rec.calls()), tt.outcome, tt.isError, tt.ran)
			}
			if tt.ran == 1 && rec.calls()[0].Limit != 5 {
				t.Errorf("limit = %d, want 5", rec.calls()[0].Limit)
			}
		})
	}
}

func TestCoerceStillInvalidKeepsUncoercedArgumentsAndIssues(t *testing.T) {
	rec := &coRecorder{}
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax))
	raw := `{"query":"q","limit":"5","unit":"kelvin"}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "search", raw)))
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeFeedback || len(rec.calls()) != 0 {
		t.Fatalf("outcome %s, ran %d; want feedback, 0", rep.Outcome, len(rec.calls()))
	}
	var got []string
	for _, is := range rep.Issues {
		got = append(got, is.Path+" "+string(is.Kind))
	}
	if want := []string{"/limit type", "/unit enum"}; !slices.Equal(got, want) {
		t.Errorf("issues = %v, want %v (those of the uncoerced value)", got, want)
	}
	if rep.Coercions != nil || rep.Repaired || slices.Contains(rep.RepairSteps, RepairCoerce) || rep.Arguments != nil {
		t.Errorf("coercions %v, repaired %v, steps %v, arguments %s; want none", rep.Coercions, rep.Repaired, rep.RepairSteps, rep.Arguments)
	}
	if fc := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall; fc.Arguments != raw {
		t.Errorf("history arguments = %s, want the model's own %s", fc.Arguments, raw)
	}
}

func TestCoerceValidatorsSeeCoercedValues(t *testing.T) {
	tests := []struct {
		name       string
		reject     bool
		flag       bool
		outcome    Outcome
		wantIssues []string
		flagged    int
	}{
		{"accepting validator", false, false, OutcomeExecuted, nil, 0},
		{"flagging validator keeps its flags", false, true, OutcomeExecuted, nil, 1},
		{"rejecting validator: the uncoerced issues", true, false, OutcomeFeedback, []string{"/limit type"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &coRecorder{}
			var mu sync.Mutex
			var seen []any
			v := func(_ context.Context, args map[string]any, vc ValidatorContext) error {
				mu.Lock()
				seen = append(seen, args["limit"])
				mu.Unlock()
				switch {
				case tt.reject:
					return &ValidationIssue{Path: "/limit", Message: "too many"}
				case tt.flag:
					return Flag(errors.New("noted"))
				}
				return nil
			}
			n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax), WithValidator("search", v))
			res, err := n.Run(context.Background(), conversation(tc("c1", "search", `{"query":"q","limit":"5"}`)))
			if err != nil {
				t.Fatal(err)
			}
			if want := []any{json.Number("5")}; !reflect.DeepEqual(seen, want) {
				t.Errorf("validator saw %#v, want %#v (only the coerced value)", seen, want)
			}
			rep := res.Calls[0]
			var got []string
			for _, is := range rep.Issues {
				got = append(got, is.Path+" "+string(is.Kind))
			}
			if rep.Outcome != tt.outcome || !slices.Equal(got, tt.wantIssues) || len(rep.Flagged) != tt.flagged {
				t.Errorf("outcome %s, issues %v, flagged %v; want %s, %v, %d", rep.Outcome, got, rep.Flagged, tt.outcome, tt.wantIssues, tt.flagged)
			}
		})
	}
}

func TestCoerceValidatorRejectionAloneIsNotCoerced(t *testing.T) {
	rec := &coRecorder{}
	calls := 0
	v := func(_ context.Context, args map[string]any, _ ValidatorContext) error {
		calls++
		return &ValidationIssue{Path: "/limit", Message: "no"}
	}
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax), WithValidator("search", v))
	// The schema accepts 5.0; only the validator rejects.
	res, err := n.Run(context.Background(), conversation(tc("c1", "search", `{"query":"q","limit":5.0}`)))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Calls[0].Outcome != OutcomeFeedback || res.Calls[0].Coercions != nil {
		t.Errorf("validator ran %d times, outcome %s, coercions %v; want 1, feedback, none", calls, res.Calls[0].Outcome, res.Calls[0].Coercions)
	}
}

func TestCoerceAppliesToCorrectionAnswers(t *testing.T) {
	rec := &coRecorder{}
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"query": "q", "limit": "4"}`))
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax), WithCorrectionModel(model))
	// "five" cannot be coerced: the call goes to the correction model,
	// whose answer is coerced.
	res, err := n.Run(context.Background(), conversation(tc("c1", "search", `{"query":"q","limit":"five"}`)))
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Calls[0]
	if rep.Outcome != OutcomeCorrected || len(rec.calls()) != 1 || rec.calls()[0].Limit != 4 {
		t.Fatalf("outcome %s, ran %+v; want corrected with limit 4", rep.Outcome, rec.calls())
	}
	if want := []Coercion{{"/limit", "string", "integer"}}; !slices.Equal(rep.Coercions, want) {
		t.Errorf("coercions = %v, want %v", rep.Coercions, want)
	}
	if string(rep.Arguments) != `{"limit":4,"query":"q"}` {
		t.Errorf("arguments = %s", rep.Arguments)
	}
	if !slices.Contains(rep.RepairSteps, RepairCoerce) {
		t.Errorf("steps = %v, want the coerce step", rep.RepairSteps)
	}
}

func TestCoerceSkipsSalvagedArguments(t *testing.T) {
	rec := &coRecorder{}
	hook := func(_ context.Context, _ UnresolvedToolCall) (Resolution, error) {
		return Salvage(map[string]any{"query": "q", "limit": "3"}), nil
	}
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax), WithUnresolvedHook(hook))
	res, err := n.Run(context.Background(), conversation(tc("c1", "search", `{"query":"q","limit":"five"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls[0].Outcome != OutcomeFeedback || len(rec.calls()) != 0 {
		t.Errorf("outcome %s, ran %d; want feedback (salvaged arguments are checked strictly)", res.Calls[0].Outcome, len(rec.calls()))
	}
}

func TestWithCoercionRejectsUnknownMode(t *testing.T) {
	_, err := NewToolNode(nil, WithCoercion(CoercionMode(7)))
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "WithCoercion") {
		t.Errorf("err = %v, want ErrInvalidConfig naming WithCoercion", err)
	}
	if CoercionLax.String() != "lax" || CoercionNone.String() != "none" {
		t.Errorf("String() = %q, %q", CoercionNone, CoercionLax)
	}
}

func TestCoerceCountsAsRepairInStats(t *testing.T) {
	rec := &coRecorder{}
	n := mustNode(t, []tools.Tool{rec.tool()}, WithCoercion(CoercionLax))
	ctx, sink := CollectStats(context.Background())
	_, err := n.Run(ctx, conversation(
		tc("c1", "search", `{"query":"q","limit":"5"}`),
		tc("c2", "search", `{"query":"q","limit":5}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	evs := sink.Events()
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1", len(evs))
	}
	if c := evs[0].Calls; !c[0].Repaired || c[1].Repaired {
		t.Errorf("Repaired = %v, %v; want the coerced call only", c[0].Repaired, c[1].Repaired)
	}
	if steps := evs[0].Calls[0].RepairSteps; !slices.Equal(steps, []RepairStep{RepairCoerce}) {
		t.Errorf("steps = %v, want [coerce]", steps)
	}
}
