package schemawalk

import (
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compile(t *testing.T, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://s", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://s")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// locs names the schemas of a set by their location after the '#'.
func locs(set Set) []string {
	out := make([]string, len(set))
	for i, s := range set {
		_, frag, _ := strings.Cut(s.Location, "#")
		out[i] = frag
	}
	return out
}

const nested = `{
  "$ref": "#/$defs/Args",
  "$defs": {
    "Args": {"type": "object", "required": ["addr"], "additionalProperties": false,
      "properties": {"addr": {"$ref": "#/$defs/Addr"}, "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}}}},
    "Addr": {"allOf": [{"$ref": "#/$defs/Base"}], "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "Base": {"type": "object", "properties": {"street": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    "Stop": {"$anchor": "stop", "type": "object", "properties": {"name": {"anyOf": [{"type": "string"}, {"$ref": "#stop"}]}}},
    "Tuple": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}
  },
  "properties": {"t": {"$ref": "#/$defs/Tuple"}}
}`

func TestOfFollowsReferencesAndAllOf(t *testing.T) {
	root := compile(t, nested)
	tests := []struct {
		name string
		set  Set
		want []string
	}{
		{"root", Of(root), []string{"", "/$defs/Args"}},
		{"nil", Of(nil), []string{}},
		{"member through $ref", must(Of(root).Property("addr")), []string{"/$defs/Args/properties/addr", "/$defs/Addr", "/$defs/Addr/allOf/0", "/$defs/Base"}},
		{"item through $ref", must(Of(root).Property("stops")).Item(3), []string{"/$defs/Args/properties/stops/items", "/$defs/Stop"}},
		{"additionalProperties of an allOf entry", must(must(Of(root).Property("addr")).Property("zip")), []string{"/$defs/Base/additionalProperties"}},
		{"prefixItems then items", must(Of(root).Property("t")).Item(0), []string{"/$defs/Tuple/prefixItems/0"}},
		{"items after prefixItems", must(Of(root).Property("t")).Item(1), []string{"/$defs/Tuple/items"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := locs(tt.set); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func must(s Set, _ bool) Set { return s }

func TestPropertyAllowed(t *testing.T) {
	root := compile(t, nested)
	args := Of(root)
	if _, ok := args.Property("addr"); !ok {
		t.Error("a listed property is forbidden")
	}
	if set, ok := args.Property("other"); ok || len(set) != 0 {
		t.Errorf("an unlisted member under additionalProperties false: %q, allowed %v", locs(set), ok)
	}
	addr, _ := args.Property("addr")
	if _, ok := addr.Property("anything"); !ok {
		t.Error("additionalProperties schema forbids a member")
	}
	if got := addr.Required(); !slices.Equal(got, []string{"city"}) {
		t.Errorf("required %q", got)
	}
	if got := addr.PropertyNames(); !slices.Equal(got, []string{"city", "street"}) {
		t.Errorf("property names %q", got)
	}
}

func TestAnchorsAndAlternatives(t *testing.T) {
	root := compile(t, nested)
	stops, _ := Of(root).Property("stops")
	name, _ := stops.Item(0).Property("name")
	groups := name.Alternatives()
	if len(groups) != 1 || len(groups[0]) != 2 {
		t.Fatalf("groups %v", groups)
	}
	if got := locs(groups[0][1]); !slices.Equal(got, []string{"/$defs/Stop/properties/name/anyOf/1", "/$defs/Stop"}) {
		t.Fatalf("the $anchor reference leads to %q", got)
	}
	if got := locs(name.Possible()); len(got) != 4 {
		t.Fatalf("possible: %q", got)
	}
}

func TestDraft7RefOverridesSiblings(t *testing.T) {
	root := compile(t, `{"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"p": {"type": "integer"}},
		"properties": {"a": {"$ref": "#/definitions/p", "allOf": [{"minimum": 3}], "maximum": 1}}}`)
	a, _ := Of(root).Property("a")
	if got := locs(a); !slices.Equal(got, []string{"/properties/a", "/definitions/p"}) {
		t.Fatalf("got %q", got)
	}
	if a[0].AllOf != nil || a[0].Maximum != nil {
		t.Fatal("the compiler kept the siblings of a draft-07 $ref")
	}
}

func TestCyclesEndAndReachableVisitsOnce(t *testing.T) {
	root := compile(t, `{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a", "items": {"$ref": "#"}}},
		"$ref": "#/$defs/a"}`)
	if got := locs(Of(root)); !slices.Equal(got, []string{"", "/$defs/a", "/$defs/a/allOf/0", "/$defs/b"}) {
		t.Fatalf("of: %q", got)
	}
	all := Reachable(root)
	seen := map[*jsonschema.Schema]bool{}
	for _, s := range all {
		if seen[s] {
			t.Fatalf("%s visited twice", s.Location)
		}
		seen[s] = true
	}
	if len(all) != 5 || all[0] != root {
		t.Fatalf("reachable: %d schemas", len(all))
	}
}

func TestSubschemasSameValue(t *testing.T) {
	root := compile(t, `{"allOf": [{}], "not": {}, "properties": {"p": {}}, "patternProperties": {"^b": {}, "^a": {}},
		"items": {}, "if": {}, "then": {}, "else": {}}`)
	var same, child []string
	Subschemas(root, func(sub *jsonschema.Schema, sameValue bool) {
		_, frag, _ := strings.Cut(sub.Location, "#")
		if sameValue {
			same = append(same, frag)
		} else {
			child = append(child, frag)
		}
	})
	if want := []string{"/not", "/if", "/then", "/else", "/allOf/0"}; !slices.Equal(same, want) {
		t.Errorf("same value: %q, want %q", same, want)
	}
	if want := []string{"/properties/p", "/patternProperties/%5Ea", "/patternProperties/%5Eb", "/items"}; !slices.Equal(child, want) {
		t.Errorf("children: %q, want %q", child, want)
	}
}
