package saidex

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// Argument types whose reflected schema (invopop/jsonschema without
// DoNotReference) keeps every named struct behind $ref in $defs: the root,
// a nested struct, a slice of structs and a map of structs.
type (
	defsAddr struct {
		Street string `json:"street"`
		City   string `json:"city"`
		Zip    int    `json:"zip,omitempty"`
		Key    Secret `json:"key,omitempty"`
	}
	defsStop struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	defsArgs struct {
		Addr  defsAddr            `json:"addr"`
		Stops []defsStop          `json:"stops"`
		Named map[string]defsStop `json:"named,omitempty"`
		Days  int                 `json:"days"`
	}
)

const defsValid = `{"addr": {"street": "Main St", "city": "Oslo"}, "stops": [{"name": "a", "count": 1}], "days": 2}`

// defsSchema reflects defsArgs as invopop/jsonschema does by default, or,
// with open, allowing members the structs do not name.
func defsSchema(t *testing.T, open bool) *jsonschema.Schema {
	t.Helper()
	s := (&jsonschema.Reflector{AllowAdditionalProperties: open}).Reflect(&defsArgs{})
	if s.Ref == "" || len(s.Definitions) < 3 {
		t.Fatalf("the reflected schema does not use $ref/$defs: %+v", s)
	}
	return s
}

// defsNode is a node with one tool, "record", whose schema is defsSchema.
func defsNode(t *testing.T, open bool, opts ...Option) (*ToolNode, *fbRecorder) {
	t.Helper()
	rec := &fbRecorder{}
	return mustNode(t, []tools.Tool{ToolWithSchema(rec, defsSchema(t, open))}, opts...), rec
}

// TestDefsCorrectionRouting routes invalid calls of a $defs schema: a
// missing field alone goes to the agent, a missing field with a misnamed
// key (nested, in a slice item, in a map value) goes to correction. With
// an open schema no "unknown field" issue names the misnamed key: the
// router must find it by following $ref itself.
func TestDefsCorrectionRouting(t *testing.T) {
	tests := []struct {
		name     string
		open     bool
		args     string
		wantSent bool
	}{
		{"nested missing field", false, `{"addr": {"street": "a"}, "stops": [], "days": 1}`, false},
		{"nested misnamed key", false, `{"addr": {"street": "a", "town": "Oslo"}, "stops": [], "days": 1}`, true},
		{"slice item misnamed key", false, `{"addr": {"street": "a", "city": "b"}, "stops": [{"nme": "x", "count": 1}], "days": 1}`, true},
		{"slice item wrong type", false, `{"addr": {"street": "a", "city": "b"}, "stops": [{"name": "x", "count": "1"}], "days": 1}`, true},
		{"open: nested missing field", true, `{"addr": {"street": "a"}, "stops": [], "days": 1}`, false},
		{"open: nested misnamed key", true, `{"addr": {"street": "a", "town": "Oslo"}, "stops": [], "days": 1}`, true},
		{"open: slice item misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [{"nme": "x", "count": 1}], "days": 1}`, true},
		{"open: map value misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [], "named": {"k": {"nme": "x", "count": 1}}, "days": 1}`, true},
		{"open: root misnamed key", true, `{"addr": {"street": "a", "city": "b"}, "stops": [], "dayz": 1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.ForcedToolCall(defsValid))
			n, _ := defsNode(t, tt.open, WithCorrectionModel(model))
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			if sent := model.CallCount() > 0; sent != tt.wantSent {
				t.Fatalf("sent to the correction model = %v, want %v (issues %+v)", sent, tt.wantSent, res.Calls[0].Issues)
			}
			want := OutcomeFeedback
			if tt.wantSent {
				want = OutcomeCorrected
			}
			if got := res.Calls[0].Outcome; got != want {
				t.Fatalf("outcome %s, want %s", got, want)
			}
		})
	}
}

// TestDefsFeedback checks the feedback on a $defs schema: the fields of
// the root struct behind $ref for arguments that do not parse, and the
// type of a missing member of a nested struct or a slice item.
func TestDefsFeedback(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string
	}{
		{"unparseable", `addr=Oslo days=2`, []string{
			"- addr: object, required\n", "- days: integer, required\n", "- stops: array, required\n", "- named: object, optional\n"}},
		{"nested missing member", `{"addr": {"street": "a"}, "stops": [], "days": 1}`, []string{
			"addr.city: required field is missing; expected a string"}},
		{"slice item missing member", `{"addr": {"street": "a", "city": "b"}, "stops": [{"name": "x"}], "days": 1}`, []string{
			"stops[0].count: required field is missing; expected an integer"}},
		{"map value wrong type", `{"addr": {"street": "a", "city": "b"}, "stops": [], "named": {"k": {"name": 1, "count": 1}}, "days": 1}`, []string{
			"named.k.name: expected a string, got a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := defsNode(t, false)
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
			if err != nil {
				t.Fatal(err)
			}
			if res.Calls[0].Outcome != OutcomeFeedback {
				t.Fatalf("outcome %s", res.Calls[0].Outcome)
			}
			fb := res.Calls[0].Output
			for _, w := range tt.want {
				if !strings.Contains(fb, w) {
					t.Errorf("feedback lacks %q:\n%s", w, fb)
				}
			}
		})
	}
}

// TestDefsCoercion coerces values behind $ref: a nested struct's member,
// slice items, map values and a root member.
func TestDefsCoercion(t *testing.T) {
	n, rec := defsNode(t, false, WithCoercion(CoercionLax))
	args := `{"addr": {"street": "a", "city": "b", "zip": "1234"}, "stops": [{"name": "x", "count": "3"}, {"name": "y", "count": 4.0}],
		"named": {"k": {"name": "z", "count": "5"}}, "days": "2"}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", args)))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted {
		t.Fatalf("outcome %s, issues %+v", c.Outcome, c.Issues)
	}
	var got []string
	for _, co := range c.Coercions {
		got = append(got, co.Path+" "+co.From+"→"+co.To)
	}
	want := []string{"/addr/zip string→integer", "/days string→integer", "/named/k/count string→integer",
		"/stops/0/count string→integer", "/stops/1/count number→integer"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("coercions %q, want %q", got, want)
	}
	var a defsArgs
	if len(rec.args) != 1 || json.Unmarshal([]byte(rec.args[0]), &a) != nil {
		t.Fatalf("tool got %q", rec.args)
	}
	if a.Addr.Zip != 1234 || a.Days != 2 || a.Stops[1].Count != 4 || a.Named["k"].Count != 5 {
		t.Fatalf("tool decoded %+v", a)
	}
}

// TestDefsSecretMasked masks a Secret field of a struct behind $ref in the
// sanitized history, while the tool gets the value.
func TestDefsSecretMasked(t *testing.T) {
	n, rec := defsNode(t, false)
	args := `{"addr": {"street": "a", "city": "b", "key": "hunter2"}, "stops": [], "days": 1}`
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", args)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.args) != 1 || !strings.Contains(rec.args[0], "hunter2") {
		t.Fatalf("tool got %q", rec.args)
	}
	stored := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	if strings.Contains(stored, "hunter2") || !strings.Contains(stored, SecretMask) {
		t.Fatalf("sanitized arguments %s", stored)
	}
}

// TestDefsValidTakesTheFastPath checks that valid arguments of a $defs
// schema are vouched for on their raw text (the precheck follows $ref),
// so the call runs with its arguments verbatim, unrepaired.
func TestDefsValidTakesTheFastPath(t *testing.T) {
	n, rec := defsNode(t, false)
	raw := `{"addr": {"street": "Main St", "city": "Oslo", "zip": 150}, "stops": [{"name": "a", "count": 1}, {"name": "b", "count": 0}],
		"named": {"k": {"name": "c", "count": 2}}, "days": 2}`
	if !n.tools["record"].schema.prechecked(raw, false) {
		t.Fatal("the precheck does not vouch for valid $defs arguments")
	}
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", raw)))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Calls[0]; c.Outcome != OutcomeExecuted || c.Repaired || string(c.Arguments) != raw || len(rec.args) != 1 || rec.args[0] != raw {
		t.Fatalf("outcome %s, repaired %v, arguments %s, tool got %q", c.Outcome, c.Repaired, c.Arguments, rec.args)
	}
}

// TestAnchorAndIDReferences follows references written as an $anchor and
// as a URI the schema's own $id declares, for secret masking and coercion.
// (Masking used to resolve only "#/..." pointers and left both secrets in
// the history.)
func TestAnchorAndIDReferences(t *testing.T) {
	schema := `{"$id": "https://example.com/tool", "type": "object",
		"properties": {"key": {"$ref": "#secret"}, "login": {"$ref": "https://example.com/tool#/$defs/login"}},
		"$defs": {"s": {"$anchor": "secret", "type": "string", "writeOnly": true},
			"login": {"type": "object", "properties": {"pin": {"$ref": "#secret"}, "n": {"type": "integer"}}}}}`
	rec := &fbRecorder{}
	n := mustNode(t, []tools.Tool{ToolWithSchema(rec, schema)}, WithCoercion(CoercionLax))
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", `{"key": "k-secret", "login": {"pin": "p-secret", "n": "5"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted || len(c.Coercions) != 1 || c.Coercions[0].Path != "/login/n" {
		t.Fatalf("outcome %s, coercions %+v, issues %+v", c.Outcome, c.Coercions, c.Issues)
	}
	if len(rec.args) != 1 || !strings.Contains(rec.args[0], "k-secret") || !strings.Contains(rec.args[0], "p-secret") {
		t.Fatalf("tool got %q", rec.args)
	}
	stored := res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	if want := `{"key":"**********","login":{"n":5,"pin":"**********"}}`; stored != want {
		t.Fatalf("sanitized arguments %s, want %s", stored, want)
	}
}

// TestFeedbackFollowsAllOf describes a member whose schema is an allOf
// around a $ref, as generators write a referenced type with a note. (The
// old description followed $ref but not allOf, and said nothing of the
// type or the allowed values.)
func TestFeedbackFollowsAllOf(t *testing.T) {
	schema := `{"type": "object", "required": ["unit"],
		"properties": {"unit": {"allOf": [{"$ref": "#/$defs/unit"}], "description": "the unit"}},
		"$defs": {"unit": {"type": "string", "enum": ["c", "f"]}}}`
	for _, tt := range []struct{ args, want string }{
		{`{}`, `- unit: required field is missing; expected a string, one of "c", "f"`},
		{`unit=c`, `- unit: string, one of "c", "f", required`},
	} {
		n := mustNode(t, []tools.Tool{ToolWithSchema(&fbRecorder{}, schema)})
		res, err := n.Run(context.Background(), conversation(tc("c1", "record", tt.args)))
		if err != nil {
			t.Fatal(err)
		}
		if fb := res.Calls[0].Output; !strings.Contains(fb, tt.want) {
			t.Errorf("%s: feedback lacks %q:\n%s", tt.args, tt.want, fb)
		}
	}
}
