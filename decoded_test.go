package saidex

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

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
