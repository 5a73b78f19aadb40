package saidex

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/tools"
)

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
