package saidex

import (
	"encoding/json"
	"testing"

	"github.com/tmc/langchaingo/tools"
)

// The schema a node advertises is the one it validates against, number
// for number: a bound beyond float64's range or precision is sent as
// written, not as null or rounded.
func TestDefinitionsKeepSchemaNumbersAsWritten(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"beyond float64 range", `{"type":"object","properties":{"n":{"type":"number","maximum":1e400}}}`,
			`{"properties":{"n":{"maximum":1e400,"type":"number"}},"type":"object"}`},
		{"beyond float64 precision", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`,
			`{"properties":{"n":{"maximum":9007199254740993,"type":"integer"}},"type":"object"}`},
		{"enum and default", `{"type":"object","properties":{"n":{"enum":[0.1,12345678901234567890],"default":1.50}}}`,
			`{"properties":{"n":{"default":1.50,"enum":[0.1,12345678901234567890]}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "t"}, tt.schema)})
			params := n.Definitions()[0].Function.Parameters
			b, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("advertised %s, want %s", b, tt.want)
			}
			// Each call gets its own copy.
			params.(map[string]any)["type"] = "changed"
			if again := n.Definitions()[0].Function.Parameters.(map[string]any)["type"]; again != "object" {
				t.Errorf("a second Definitions call sees the first one's change: type %v", again)
			}
		})
	}
}
