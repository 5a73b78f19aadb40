package saidex

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// fbSchema exercises every keyword the precheck supports: $ref, allOf,
// anyOf, enums, formats, patterns, lengths, bounds and nesting. It is the
// schema internal/precheck's own tests use.
var fbSchema = func() string {
	b, err := os.ReadFile("internal/precheck/testdata/every_keyword.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func fixtureSchema(t testing.TB) *compiledSchema {
	t.Helper()
	return mustCompile(t, benchTool().Schema())
}

// fbRecorder is a plain tool that records the argument strings it gets.
type fbRecorder struct {
	mu   sync.Mutex
	args []string
}

func (r *fbRecorder) Name() string        { return "record" }
func (r *fbRecorder) Description() string { return "records its arguments" }
func (r *fbRecorder) Call(_ context.Context, in string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, in)
	return "ok", nil
}

func TestRunFastPathKeepsTheRawArguments(t *testing.T) {
	// Unusual but valid formatting: the tool, the report and the sanitized
	// message must all see these exact bytes.
	raw := " {\n  \"id\" :7, \"name\":\"\\u00e9t\\u00e9\",  \"ratio\": 5e-1 ,\"free\":{\"x\":[1,{}]}}\t"
	rec := &fbRecorder{}
	n := mustNode(t, []tools.Tool{ToolWithSchema(rec, fbSchema)})
	if bt := n.tools["record"]; !bt.schema.prechecked(raw, false) {
		t.Fatal("test arguments do not take the fast path")
	}
	res, err := n.Run(context.Background(), conversation(tc("c1", "record", raw), tc("c2", "record", `{"id": 1, "id": 1}`)))
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	got := append([]string(nil), rec.args...)
	rec.mu.Unlock()
	if len(got) != 2 || (got[0] != raw && got[1] != raw) {
		t.Fatalf("tool got %q, want the raw arguments among them", got)
	}
	// A repeated name, with an equal value, reaches the tool once.
	if !slices.Contains(got, `{"id":1}`) {
		t.Fatalf("tool got %q, want the repeated key once", got)
	}
	c := res.Calls[0]
	if c.Outcome != OutcomeExecuted || c.Repaired || string(c.Arguments) != raw {
		t.Fatalf("report: outcome %s, repaired %v, arguments %q", c.Outcome, c.Repaired, c.Arguments)
	}
	ai := res.AIMessage
	var stored []string
	for _, p := range ai.Parts {
		if call, ok := p.(llms.ToolCall); ok {
			stored = append(stored, call.FunctionCall.Arguments)
		}
	}
	if len(stored) != 2 || stored[0] != raw {
		t.Fatalf("sanitized message stores %q, want the raw text first", stored)
	}
	// The duplicate key took the ordinary path, where the repeated member
	// (with an equal value) is dropped: the call ran with, and the
	// sanitized message stores, the text without it.
	if res.Calls[1].Outcome != OutcomeExecuted || !res.AIMessageChanged || stored[1] != `{"id":1}` {
		t.Fatalf("duplicate-key call: outcome %s; message changed %v, stores %q", res.Calls[1].Outcome, res.AIMessageChanged, stored[1])
	}
}

func TestRunFastPathStillRunsValidators(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reject  bool
		wantRun bool
	}{
		{name: "accepting validator", wantRun: true},
		{name: "rejecting validator", reject: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var checked atomic.Int64
			var seen map[string]any
			rec := &fbRecorder{}
			n := mustNode(t, []tools.Tool{ToolWithSchema(rec, fbSchema)},
				WithValidator("record", func(_ context.Context, args map[string]any, _ ValidatorContext) error {
					checked.Add(1)
					seen = args
					if tt.reject {
						return errors.New("not this one")
					}
					return nil
				}))
			res, err := n.Run(context.Background(), conversation(tc("c1", "record", `{"id": 3}`)))
			if err != nil {
				t.Fatal(err)
			}
			if checked.Load() != 1 || seen["id"] == nil {
				t.Fatalf("validator ran %d times with %v, want once with the decoded arguments", checked.Load(), seen)
			}
			ran := res.Calls[0].Outcome == OutcomeExecuted
			if ran != tt.wantRun || (len(rec.args) == 1) != tt.wantRun {
				t.Fatalf("outcome %s, tool calls %d, want executed %v", res.Calls[0].Outcome, len(rec.args), tt.wantRun)
			}
		})
	}
}

// fbFuzzSchemas are the schemas FuzzPrecheckPipeline checks: FuzzValidate's, the
// benchmark tool's and fbSchema.
func fbFuzzSchemas(t testing.TB) []*compiledSchema {
	out := []*compiledSchema{fixtureSchema(t), mustCompile(t, fbSchema)}
	for _, src := range fuzzSchemas {
		out = append(out, mustCompile(t, src))
	}
	return out
}

// FuzzPrecheckPipeline checks the precheck against the ordinary path (its
// differential fuzz against santhosh-tekuri alone is in internal/precheck):
// what it accepts must decode (encoding/json, UseNumber) to an object that
// santhosh-tekuri accepts, must come out of the repair stage unchanged
// (no step, the same text), and under lax must hold no number CoercionLax
// could rewrite.
func FuzzPrecheckPipeline(f *testing.F) {
	seeds := []string{
		benchfixture.Arguments(benchfixture.Valid, 3),
		validOrder,
		`{"city": "Oslo", "days": 14, "unit": "celsius", "include": {"wind": true}}`,
		`{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "either": "z", "both": 6, "meta": {"k": true}, "free": [{"deep": [1.5e3, null]}]}`,
		`{"id": 1, "name": "\u00e9t\u00e9", "either": 9}`,
		`{"id": 1, "id": 2}`,
		`{"id": 1, "\u0069d": 2}`,
		`{"id": 1} x`,
		`{"id": 1, "ratio": 1.0000000000000001}`,
		`{"n": 0, "i": 1, "s": "ab", "e": null, "d": "2024-01-31T09:00:00Z", "l": [1, null], "o": {"x": true}}`,
		`{"n": -2.5, "i": 9007199254740993, "s": "", "l": [], "o": {}}`,
		`{"n": 999.9999999999999999, "i": 1.0, "e": "A"}`,
		`{"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}`,
		`{"a": "x\ud83d\ude00"}`,
		"{\"a\": \"\xff\"}",
		`null`, `[]`, `"{}"`, `1e400`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s, i%3 == 0)
	}
	compiled := fbFuzzSchemas(f)
	f.Fuzz(func(t *testing.T, which uint8, args string, lax bool) {
		s := compiled[int(which)%len(compiled)]
		if !s.prechecked(args, lax) {
			return
		}
		fbAgrees(t, s, args, lax)
	})
}

// fbAgrees checks arguments the precheck of s accepted against the
// ordinary path.
func fbAgrees(t *testing.T, s *compiledSchema, args string, lax bool) {
	t.Helper()
	v, err := decodeJSON(args)
	if err != nil {
		t.Fatalf("accepted %q, which encoding/json refuses: %v", args, err)
	}
	if _, ok := v.(map[string]any); !ok {
		t.Fatalf("accepted %q, which is not an object", args)
	}
	if err := s.schema.Validate(v); err != nil {
		t.Fatalf("accepted %q, which santhosh-tekuri rejects: %v", args, err)
	}
	res, err := repairArguments(args, defaultRepairOptions())
	if err != nil || res.json != args || len(res.steps) > 0 {
		t.Fatalf("accepted %q, which the repair stage turns into %q (steps %v, err %v)", args, res.json, res.steps, err)
	}
	if lax && jsonvalue.HasLooseNumber(v) {
		t.Fatalf("accepted %q under lax, but it holds a number CoercionLax may rewrite", args)
	}
}

// BenchmarkPrecheck compares the precheck on the benchmark tool's valid
// arguments (the text copied once to bytes, as the pipeline does) with
// the ordinary path's decode and full validation.
func BenchmarkPrecheck(b *testing.B) {
	s := fixtureSchema(b)
	args := benchfixture.Arguments(benchfixture.Valid, 3)
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if !s.prechecked(args, false) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("decode+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := decodeJSON(args)
			if err != nil || s.validate(v) != nil {
				b.Fatal("invalid")
			}
		}
	})
}
