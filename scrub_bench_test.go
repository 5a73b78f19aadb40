package saidex

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/tools"
)

// BenchmarkScrubValidPath runs one valid call through Run and reports the
// cost per byte of its arguments: on a node whose tools have no secrets
// (nothing is collected or scrubbed), and on a tool with a secret field
// (its values collected, every text scrubbed).
func BenchmarkScrubValidPath(b *testing.B) {
	note := strings.Repeat("lorem ipsum ", 80)
	cases := []struct {
		name, schema, raw string
	}{
		{"no secrets", `{"type":"object","properties":{"user":{"type":"string"},"note":{"type":"string"}}}`,
			`{"user":"bob","note":"` + note + `"}`},
		{"a secret field", nestedAuthSchema,
			`{"user":"bob","auth":{"password":"` + shapeSecret + `"},"note":"` + note + `"}`},
	}
	for _, tt := range cases {
		b.Run(tt.name, func(b *testing.B) {
			n := mustNode(b, []tools.Tool{ToolWithSchema(plainTool{name: "login", fn: func(context.Context, string) (string, error) {
				return "ok", nil
			}}, tt.schema)}, WithLogger(sanDiscard))
			msgs := conversation(tc("c1", "login", tt.raw))
			b.SetBytes(int64(len(tt.raw)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := n.Run(context.Background(), msgs)
				if err != nil || res.Calls[0].Outcome != OutcomeExecuted {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScrubText scrubs a 4 KB text for 10 secret values (with
// their encodings): one pass, whatever their number.
func BenchmarkScrubText(b *testing.B) {
	vals := map[string]bool{}
	for i := range 10 {
		addString(shapeSecret+strings.Repeat("x", i), vals)
	}
	s := newScrubber(vals)
	text := strings.Repeat("the tool answered: nothing to hide here. ", 100) + shapeSecret
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if out := s.text(text); strings.Contains(out, shapeSecret) {
			b.Fatal("not scrubbed")
		}
	}
}
