package saidex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// upperString decodes a JSON string upper-cased: a json.Unmarshaler.
type upperString string

func (u *upperString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*u = upperString(strings.ToUpper(s))
	return nil
}

type decodeInner struct {
	Tags []string `json:"tags"`
}

type decodeArgs struct {
	decodeInner                     // embedded: its fields are promoted
	Name        upperString         `json:"name"`
	Count       int64               `json:"count,string"` // a number sent as a JSON string
	Ratio       float64             `json:"ratio"`
	When        time.Time           `json:"when"`
	Extra       map[string]any      `json:"extra"`
	Raw         json.RawMessage     `json:"raw"`
	Ptr         *int                `json:"ptr"`
	Nested      map[string][]uint8  `json:"nested"`
	Any         any                 `json:"any"`
	Bytes       []byte              `json:"bytes"`
	Pairs       [2]int              `json:"pairs"`
	Ignored     string              `json:"-"`
	Opt         *decodeInner        `json:"opt,omitempty"`
	Iface       interface{ M() }    `json:"-"`
	Small       int8                `json:"small"`
	Unsigned    uint                `json:"unsigned"`
	Keys        map[int]string      `json:"keys"`
	Float32     float32             `json:"float32"`
	Deep        map[string]struct{} `json:"deep"`
	Number      json.Number         `json:"number"`
	Numbers     []json.Number       `json:"numbers"`
}

// The node decodes a NewTool tool's validated arguments with the
// go-json-experiment engine under encoding/json's options: every value, and
// every error, must be what encoding/json.Unmarshal gives.
func TestValidatedDecodeMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"all fields", `{"tags":["a","b"],"name":"paris","count":"42","ratio":0.25,"when":"2026-12-02T10:00:00Z",
			"extra":{"k":[1,"x",null,true]},"raw":{"z":1},"ptr":7,"nested":{"a":[1,2]},"any":1.5e3,
			"bytes":"aGVsbG8=","pairs":[1,2],"small":-8,"unsigned":9,"keys":{"3":"c"},"float32":1.5,"deep":{"x":{}}}`},
		{"empty object", `{}`},
		{"json.Number", `{"number": 12.50, "numbers": [1, -2e3, 0.1]}`},
		{"json.Number from a string", `{"number": "7"}`},
		{"json.Number, not a number", `{"number": "seven"}`},
		{"json.Number, null", `{"number": null}`},
		{"nulls", `{"ptr":null,"extra":null,"tags":null,"opt":null,"any":null}`},
		{"case-insensitive key", `{"NAME":"rome","Ratio":2}`},
		{"escapes and unicode", `{"name":"caf\u00e9 \"x\" \ud83d\ude00","tags":["\n\t"]}`},
		{"duplicate keys, last wins", `{"ratio":1,"ratio":2}`},
		{"big number in any", `{"any":123456789012345678901234567890}`},
		{"overflow", `{"small":300}`},
		{"wrong type", `{"ratio":"x"}`},
		{"bad base64", `{"bytes":"***"}`},
		{"not an object", `[1,2]`},
		{"trailing data", `{} {}`},
		{"string option not a string", `{"count":42}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got decodeArgs
			wantErr := json.Unmarshal([]byte(tt.in), &want)
			gotErr := jsonv2.Unmarshal([]byte(tt.in), &got, v1Options)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("encoding/json error %v, ours %v", wantErr, gotErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\nencoding/json\n%+v", got, want)
			}
			// Error texts agree on syntax errors; on type errors the engine
			// names the field more often ("illegal base64 data" becomes
			// "cannot unmarshal string into Go struct field ...bytes ...").
			var se *json.SyntaxError
			if errors.As(wantErr, &se) && gotErr.Error() != wantErr.Error() {
				t.Errorf("syntax error %q, encoding/json %q", gotErr, wantErr)
			}
		})
	}
}

// A NewTool tool with a json.Number field, run by the node, receives the
// number as encoding/json gives it, not an error the model cannot fix.
func TestNewToolRunsWithAJSONNumberField(t *testing.T) {
	type payArgs struct {
		Amount json.Number `json:"amount" jsonschema:"type=number"`
	}
	pay := NewTool("pay", "Pays.", func(_ context.Context, a payArgs) (string, error) {
		return "paid " + a.Amount.String(), nil
	})
	n := mustNode(t, []tools.Tool{pay})
	res, err := n.Run(context.Background(), conversation(tc("c1", "pay", `{"amount": 12.50}`)))
	if err != nil || res.Calls[0].Output != "paid 12.50" || res.Calls[0].IsError {
		t.Fatalf("Run: %v, %+v", err, res.Calls)
	}
}

// A NewTool tool called directly (not through the node, so no schema has
// checked its input) decodes strictly on the same engine as the node's
// validated decode: a member the struct has no field for, trailing data and
// a syntax error are ErrInvalidArguments; a valid object reaches the
// function.
func TestNewToolDirectCallIsStrict(t *testing.T) {
	type cityArgs struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty"`
	}
	var got cityArgs
	tool := NewTool("forecast", "Forecast.", func(_ context.Context, a cityArgs) (string, error) {
		got = a
		return "ok", nil
	})
	tests := []struct {
		name, in string
		wantErr  bool
	}{
		{"valid", `{"city":"Oslo","days":3}`, false},
		{"case-insensitive key, as encoding/json", `{"CITY":"Oslo"}`, false},
		{"unknown member", `{"city":"Oslo","town":"x"}`, true},
		{"trailing data", `{"city":"Oslo"} {}`, true},
		{"syntax error", `{"city":`, true},
		{"wrong type", `{"city":"Oslo","days":"3"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = cityArgs{}
			out, err := tool.Call(context.Background(), tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidArguments) || out != "" {
					t.Fatalf("Call(%s) = %q, %v; want ErrInvalidArguments", tt.in, out, err)
				}
				return
			}
			if err != nil || out != "ok" || got.City != "Oslo" {
				t.Fatalf("Call(%s) = %q, %v; args %+v", tt.in, out, err, got)
			}
		})
	}
}

// TestNewToolRefusesAnUndescribableType: a NewTool tool whose argument
// type no JSON Schema describes is refused by NewToolNode with an error
// naming the tool and the field, and its Call returns that error; nothing
// panics.
func TestNewToolRefusesAnUndescribableType(t *testing.T) {
	type target struct {
		Done chan struct{} `json:"done"`
	}
	type nested struct {
		City   string `json:"city"`
		Target target `json:"target"`
	}
	type hooks struct {
		Hooks []map[string]func() `json:"hooks"`
	}
	type embedded struct {
		target
		Name string `json:"name"`
	}
	type skipped struct {
		City string        `json:"city"`
		Done chan struct{} `json:"-"`
		done chan struct{} //lint:ignore U1000 an unexported field, which NewTool must skip
	}
	tests := []struct {
		name  string
		build func() Tool
		want  []string // substrings of the error; nil: no error
	}{
		{"chan in a nested struct", func() Tool {
			return NewTool("notify", "", func(context.Context, nested) (string, error) { return "", nil })
		},
			[]string{`NewTool "notify"`, "field target.done", "chan struct {}"}},
		{"func in a map in a slice", func() Tool {
			return NewTool("hook", "", func(context.Context, hooks) (string, error) { return "", nil })
		},
			[]string{`NewTool "hook"`, "field hooks[].*", "func()"}},
		{"chan in an embedded struct", func() Tool {
			return NewTool("emb", "", func(context.Context, embedded) (string, error) { return "", nil })
		},
			[]string{`NewTool "emb"`, "field done", "chan struct {}"}},
		{"complex argument type", func() Tool {
			return NewTool("cx", "", func(context.Context, complex128) (string, error) { return "", nil })
		},
			[]string{`NewTool "cx"`, "argument type complex128 is one no JSON Schema describes"}},
		{"fields encoding/json skips", func() Tool {
			return NewTool("ok", "", func(context.Context, skipped) (string, error) { return "", nil })
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := tt.build()
			_, nodeErr := NewToolNode([]tools.Tool{tool})
			_, callErr := tool.Call(context.Background(), "{}")
			if tt.want == nil {
				if nodeErr != nil {
					t.Fatalf("NewToolNode: %v", nodeErr)
				}
				return
			}
			for _, err := range []error{nodeErr, callErr} {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("err = %v, want one wrapping ErrInvalidConfig", err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			}
		})
	}
}

type tsLeaf struct {
	X int `json:"x"`
}

type tsNode struct {
	Name string   `json:"name"`
	Kids []tsNode `json:"kids,omitempty"`
}

// tsRoot is not recursive, but reaches a recursive type.
type tsRoot struct {
	Leaf tsLeaf  `json:"leaf" jsonschema:"description=the leaf"`
	Tree tsNode  `json:"tree"`
	More *tsLeaf `json:"more,omitempty"`
}

// tsPing and tsPong are recursive through each other.
type tsPing struct {
	Pong *tsPong `json:"pong,omitempty"`
	Leaf tsLeaf  `json:"leaf"`
}

type tsPong struct {
	Ping *tsPing `json:"ping,omitempty"`
}

// schemaRefs returns the names of the $defs references anywhere in v.
func schemaRefs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			out = append(out, strings.TrimPrefix(r, defsRef))
		}
		for _, x := range v {
			out = append(out, schemaRefs(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, schemaRefs(x)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestNewToolReferencesOnlyRecursiveTypes pins NewTool's doc: every type is
// inlined except a recursive one, which is the only definition in $defs,
// and the schema still validates (a recursive value passes, a bad leaf deep
// in it is refused).
func TestNewToolReferencesOnlyRecursiveTypes(t *testing.T) {
	tests := []struct {
		name     string
		tool     Tool
		wantDefs []string // the $defs entries, and the names referenced
		valid    string
		invalid  string
	}{
		{"no recursion", NewTool("t", "", func(context.Context, tsLeaf) (string, error) { return "", nil }), nil,
			`{"x":1}`, `{"x":"1"}`},
		{"recursive root", NewTool("t", "", func(context.Context, tsNode) (string, error) { return "", nil }), []string{"tsNode"},
			`{"name":"a","kids":[{"name":"b","kids":[{"name":"c"}]}]}`, `{"name":"a","kids":[{"name":"b","kids":[{"name":1}]}]}`},
		{"a recursive field", NewTool("t", "", func(context.Context, tsRoot) (string, error) { return "", nil }), []string{"tsNode"},
			`{"leaf":{"x":1},"tree":{"name":"a","kids":[{"name":"b"}]},"more":{"x":2}}`, `{"leaf":{"x":1},"tree":{"name":"a"},"more":{"x":"2"}}`},
		{"mutual recursion", NewTool("t", "", func(context.Context, tsPing) (string, error) { return "", nil }), []string{"tsPing", "tsPong"},
			`{"leaf":{"x":1},"pong":{"ping":{"leaf":{"x":2}}}}`, `{"leaf":{"x":1},"pong":{"ping":{"leaf":{"y":2}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.tool.Schema().(map[string]any)
			defs, _ := s["$defs"].(map[string]any)
			gotDefs := slices.Sorted(maps.Keys(defs))
			if !slices.Equal(gotDefs, tt.wantDefs) {
				b, _ := json.Marshal(s)
				t.Errorf("$defs = %v, want %v: %s", gotDefs, tt.wantDefs, b)
			}
			if refs := schemaRefs(s); !slices.Equal(refs, tt.wantDefs) {
				t.Errorf("references to %v, want %v", refs, tt.wantDefs)
			}
			n := mustNode(t, []tools.Tool{tt.tool})
			for _, c := range []struct {
				args string
				want Outcome
			}{{tt.valid, OutcomeExecuted}, {tt.invalid, OutcomeFeedback}} {
				res, err := n.Run(context.Background(), conversation(tc("1", "t", c.args)))
				if err != nil || res.Calls[0].Outcome != c.want {
					t.Errorf("%s: outcome %v, %v; want %s", c.args, res.Calls[0].Outcome, err, c.want)
				}
			}
		})
	}
	// A description beside a reference is kept on the inlined copy.
	root := NewTool("t", "", func(context.Context, tsRoot) (string, error) { return "", nil }).Schema().(map[string]any)
	leaf := root["properties"].(map[string]any)["leaf"].(map[string]any)
	if leaf["description"] != "the leaf" || leaf["type"] != "object" {
		t.Errorf("leaf = %v, want the inlined object with its description", leaf)
	}
}

// TestNewToolTagVocabulary pins the struct-tag vocabulary NewTool's doc
// and the struct-tag table of docs/tools.md: what each tag puts in the
// schema.
func TestNewToolTagVocabulary(t *testing.T) {
	type args struct {
		City   string   `json:"city" jsonschema:"description=City name\\, in English"`
		Days   int      `json:"days,omitempty" jsonschema:"minimum=1,maximum=14,default=3"`
		Unit   string   `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
		Email  string   `json:"email,omitempty" jsonschema:"format=email,required"`
		Code   string   `json:"code,omitzero" jsonschema:"pattern=^[A-Z]{3}$,minLength=3,maxLength=3"`
		Tags   []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true,enum=a,enum=b"`
		Note   *string  `json:"note,omitempty" jsonschema:"nullable"`
		Step   float64  `json:"step,omitempty" jsonschema:"exclusiveMinimum=0,multipleOf=0.5"`
		Prose  string   `json:"prose,omitempty" jsonschema_description:"Free text, commas allowed"`
		Token  string   `json:"token,omitempty" jsonschema:"writeOnly=true,title=API token"`
		Hidden string   `json:"hidden,omitempty" jsonschema:"-"`
		Skip   string   `json:"-"`
	}
	tool := NewTool("probe", "Probe.", func(ctx context.Context, a args) (string, error) { return "", nil })
	b, err := json.Marshal(tool.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
		"type": "object", "additionalProperties": false, "required": ["city", "email"],
		"properties": {
			"city": {"type": "string", "description": "City name, in English"},
			"days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
			"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
			"email": {"type": "string", "format": "email"},
			"code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
			"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
			"note": {"oneOf": [{"type": "string"}, {"type": "null"}]},
			"step": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
			"prose": {"type": "string", "description": "Free text, commas allowed"},
			"token": {"type": "string", "writeOnly": true, "title": "API token"}
		}}`
	var want map[string]any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("schema:\n got %s\nwant %s", gb, wb)
	}
}

// TestToolsDocListsTheTagVocabulary: the struct-tag table of docs/tools.md
// names every tag TestNewToolTagVocabulary pins.
func TestToolsDocListsTheTagVocabulary(t *testing.T) {
	b, err := os.ReadFile("docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, table, ok := strings.Cut(doc, "## Struct tags")
	if !ok {
		t.Fatal("docs/tools.md has no Struct tags section")
	}
	for _, tag := range []string{"description=", "title=", "jsonschema_description", "enum=", "minimum=", "maximum=",
		"exclusiveMinimum=", "multipleOf=", "minLength=", "maxLength=", "pattern=", "format=", "minItems=",
		"maxItems=", "uniqueItems=", "default=", "nullable", "writeOnly=true", "omitempty", "omitzero",
		`jsonschema:"required"`, `json:"-"`, `jsonschema:"-"`} {
		if !strings.Contains(table, tag) {
			t.Errorf("docs/tools.md's struct-tag table does not mention %s", tag)
		}
	}
}

// A plain tool (no schema) receives arguments that repair cleanly as the
// repaired JSON text, unvalidated, and the history keeps them; anything
// else reaches it as sent.
func TestPlainToolReceivesRepairedArguments(t *testing.T) {
	tests := []struct {
		name        string
		raw         string
		wantInput   string // what the tool's Call receives
		wantHistory string // the arguments of the sanitized AI message
		wantSteps   []RepairStep
	}{
		{"python-style object", `{'city': 'Paris',}`, `{"city":"Paris"}`, `{"city":"Paris"}`, []RepairStep{RepairJSON}},
		{"reasoning before the object", `<think>look it up</think>{"q":"weather"}`, `{"q":"weather"}`, `{"q":"weather"}`, []RepairStep{RepairStripThinking}},
		{"the __arg1 object, repaired", `{__arg1: 'hi'}`, `hi`, `{"__arg1":"hi"}`, []RepairStep{RepairJSON}},
		{"valid JSON, as sent", `{"b": 1, "a": 2}`, `{"b": 1, "a": 2}`, `{"b": 1, "a": 2}`, nil},
		{"free text, as sent", `hello world`, `hello world`, `{"__arg1":"hello world"}`, nil},
		{"a single-quoted string, as sent", `'hello'`, `'hello'`, `{"__arg1":"'hello'"}`, nil},
		{"an unfinished string, as sent", `{"q": "wea`, `{"q": "wea`, `{"__arg1":"{\"q\": \"wea"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var mu sync.Mutex
			echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) {
				mu.Lock()
				got = append(got, in)
				mu.Unlock()
				return "ok", nil
			}}
			node := mustNode(t, []tools.Tool{echo}, WithLogger(sanDiscard))
			conv := []llms.MessageContent{human, saidextest.AIMessage(saidextest.Call("c1", "echo", tt.raw))}
			res, err := node.Run(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != tt.wantInput {
				t.Errorf("tool received %q, want %q", got, tt.wantInput)
			}
			rep := res.Calls[0]
			if rep.Outcome != OutcomeExecuted || rep.Prevalidated || rep.Repaired != (tt.wantSteps != nil) || !slices.Equal(rep.RepairSteps, tt.wantSteps) {
				t.Errorf("report: outcome %s prevalidated %v repaired %v steps %v, want executed, false, steps %v",
					rep.Outcome, rep.Prevalidated, rep.Repaired, rep.RepairSteps, tt.wantSteps)
			}
			out, err := node.Invoke(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			if args := toolCallsOf(out[1])[0].FunctionCall.Arguments; args != tt.wantHistory {
				t.Errorf("history keeps %s, want %s", args, tt.wantHistory)
			}
		})
	}
}

// NewToolNode warns once per plain tool that it is not validated; runs add
// no warning.
func TestPlainToolWarnsOnceAtConstruction(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	weather, _ := countingWeather()
	plainA := plainTool{name: "plain_a", fn: func(context.Context, string) (string, error) { return "a", nil }}
	plainB := plainTool{name: "plain_b", fn: func(context.Context, string) (string, error) { return "b", nil }}
	node := mustNode(t, []tools.Tool{weather, plainA, plainB}, WithLogger(logger))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "tool=plain_a") || !strings.Contains(lines[1], "tool=plain_b") {
		t.Fatalf("construction logged:\n%s\nwant one warning per plain tool", buf.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "not validated") {
			t.Errorf("warning %q does not say validation is off", l)
		}
	}
	buf.Reset()
	for range 2 {
		if _, err := node.Run(context.Background(), conversation(tc("c1", "plain_a", `{'x': 1}`))); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("runs logged:\n%s", buf.String())
	}
}

type decodedStop struct {
	Name  string   `json:"name"`
	Count *int     `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type decodedArgs struct {
	City  string        `json:"city"`
	Days  int           `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	Unit  string        `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
	Ratio float64       `json:"ratio,omitempty"`
	Stop  *decodedStop  `json:"stop,omitempty"`
	Stops []decodedStop `json:"stops,omitempty"`
}

// TestNewToolRunsWithTheValueItsDecoderReads runs a NewTool tool, whose
// valid arguments the node checks and decodes in one pass, on arguments
// that take that pass and on arguments that take the precheck and the
// tool's own decode (escapes, many members), and checks that the tool
// receives exactly what encoding/json decodes from the text.
func TestNewToolRunsWithTheValueItsDecoderReads(t *testing.T) {
	var got []decodedArgs
	tool := NewTool("plan", "Plans a trip.", func(_ context.Context, a decodedArgs) (string, error) {
		got = append(got, a)
		return "ok", nil
	})
	n := mustNode(t, []tools.Tool{tool}, WithMaxConcurrency(1))
	if n.tools["plan"].target == nil {
		t.Fatal("no one-pass decode target for decodedArgs")
	}
	for _, tt := range []struct{ name, args string }{
		{"flat", `{"city": "Oslo", "days": 3, "unit": "celsius", "ratio": 0.25}`},
		{"nested pointer and slices", `{"city": "Oslo", "stop": {"name": "a", "count": 2, "tags": ["x", "y"]}, "stops": [{"name": "b"}, {"name": "c", "tags": []}]}`},
		{"escapes: the other path", `{"city": "Os\u006co \"N\"", "unit": "fahrenheit"}`},
		{"non-ASCII", `{"city": "Zürich", "stops": [{"name": "été"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got = got[:0]
			res, err := n.Run(context.Background(), conversation(llms.ToolCall{ID: "c1", Type: "function",
				FunctionCall: &llms.FunctionCall{Name: "plan", Arguments: tt.args}}))
			if err != nil || len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeExecuted || res.Calls[0].IsError {
				t.Fatalf("Run: %v, %+v", err, res)
			}
			var want decodedArgs
			if err := json.Unmarshal([]byte(tt.args), &want); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Fatalf("the tool got %+v, want %+v", got, want)
			}
		})
	}
}
