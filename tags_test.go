package saidex

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

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
