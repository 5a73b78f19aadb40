package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
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

func TestNewToolPanicsNamingTheUndescribableField(t *testing.T) {
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
		build func()
		want  []string // substrings of the panic message; nil: no panic
	}{
		{"chan in a nested struct", func() { NewTool("notify", "", func(context.Context, nested) (string, error) { return "", nil }) },
			[]string{`NewTool "notify"`, "field target.done", "chan struct {}"}},
		{"func in a map in a slice", func() { NewTool("hook", "", func(context.Context, hooks) (string, error) { return "", nil }) },
			[]string{`NewTool "hook"`, "field hooks[].*", "func()"}},
		{"chan in an embedded struct", func() { NewTool("emb", "", func(context.Context, embedded) (string, error) { return "", nil }) },
			[]string{`NewTool "emb"`, "field done", "chan struct {}"}},
		{"complex argument type", func() { NewTool("cx", "", func(context.Context, complex128) (string, error) { return "", nil }) },
			[]string{`NewTool "cx"`, "argument type complex128 is one no JSON Schema describes"}},
		{"fields encoding/json skips", func() { NewTool("ok", "", func(context.Context, skipped) (string, error) { return "", nil }) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg string
			func() {
				defer func() {
					if v := recover(); v != nil {
						msg = fmt.Sprint(v)
					}
				}()
				tt.build()
			}()
			if tt.want == nil {
				if msg != "" {
					t.Fatalf("panicked: %s", msg)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("panic %q does not contain %q", msg, w)
				}
			}
		})
	}
}
