package saidex

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The tests of issue 24's bounds: none times anything; they count bytes
// allocated, issues, values and bytes written.

// runCall runs a conversation of one call and returns its report and the
// content of its tool message.
func runCall(t *testing.T, n *ToolNode, call llms.ToolCall) (CallReport, string) {
	t.Helper()
	res, err := n.Run(context.Background(), conversation(call))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolMessages) != 1 {
		t.Fatalf("%d tool messages, want 1", len(res.ToolMessages))
	}
	return res.Calls[0], response(t, res.ToolMessages[0]).Content
}

// A chain of santhosh-tekuri errors as deep as a nested value, each level
// a grouping error (as $ref and properties give) over the next, costs the
// mapper the same bytes per level at depth 8,000 as at 1,000: it formats
// no pointer and copies no issue per level. It formatted one pointer per
// level, so its bytes grew with the square of the depth.
func TestIssueMappingIsLinearInTheDepthOfTheErrorTree(t *testing.T) {
	chain := func(depth int) *jsonschema.ValidationError {
		loc := make([]string, depth) // shared by every level, as no copy is made here
		for i := range loc {
			loc[i] = "c"
		}
		e := &jsonschema.ValidationError{InstanceLocation: loc, ErrorKind: &kind.Type{Got: "string", Want: []string{"integer"}}}
		for d := depth - 1; d >= 0; d-- {
			e = &jsonschema.ValidationError{InstanceLocation: loc[:d], ErrorKind: &kind.Schema{}, Causes: []*jsonschema.ValidationError{e}}
		}
		return e
	}
	m := &issueMapper{s: mustCompile(t, recursiveSchema)}
	bytesAt := func(depth int) uint64 {
		e := chain(depth)
		var out []found
		b := allocatedBy(func() { m.collect(e, &out) })
		if len(out) != 1 || out[0].depth != depth || out[0].Kind != IssueType {
			t.Fatalf("depth %d: %.200v", depth, out)
		}
		return b
	}
	small, big := bytesAt(1000), bytesAt(8000)
	if big > 16*small {
		t.Errorf("mapping an error tree 8,000 deep allocates %d bytes, %.1f× the %d at 1,000 deep: not linear", big, float64(big)/float64(small), small)
	}
}

// A value nested deeper than 1,000 levels that fails validation gets one
// issue at the root, before the full validator runs: what a failing call
// allocates grows with the depth, not with its square (santhosh-tekuri's
// error tree copies each level's location). A deep valid value still runs:
// the precheck accepts it on its text.
func TestDeepValuesCostLinearly(t *testing.T) {
	var ran int
	tool := ToolWithSchema(plainTool{name: "tree", fn: func(context.Context, string) (string, error) { ran++; return "ok", nil }}, recursiveSchema)
	n := mustNode(t, []tools.Tool{tool}, WithLogger(sanDiscard))

	rep, msg := runCall(t, n, tc("c1", "tree", deepArguments(999)))
	if rep.Outcome != OutcomeFeedback || len(rep.Issues) != 1 || rep.Issues[0].Kind != IssueType || strings.Count(rep.Issues[0].Path, "/") != 1000 || len(msg) > maxToolMessageBytes {
		t.Fatalf("1,000 levels: %s %.200v", rep.Outcome, rep.Issues)
	}
	rep, msg = runCall(t, n, tc("c1", "tree", deepArguments(4000)))
	if rep.Outcome != OutcomeFeedback || len(rep.Issues) != 1 || rep.Issues[0].Path != "" || !strings.Contains(msg, "nested deeper than 1000 levels") {
		t.Fatalf("4,000 levels: %s %.200v\n%.300s", rep.Outcome, rep.Issues, msg)
	}
	valid := strings.Repeat(`{"c":`, 5000) + `{"v":1}` + strings.Repeat(`}`, 5000)
	if rep, _ = runCall(t, n, tc("c1", "tree", valid)); rep.Outcome != OutcomeExecuted || ran != 1 {
		t.Fatalf("a valid value 5,000 deep: %s, ran %d", rep.Outcome, ran)
	}

	bytesAt := func(depth int) uint64 {
		msgs := conversation(tc("c1", "tree", deepArguments(depth)))
		return allocatedBy(func() {
			if res, err := n.Run(context.Background(), msgs); err != nil || res.Calls[0].Outcome != OutcomeFeedback {
				t.Fatal(err)
			}
		})
	}
	small, big := bytesAt(2000), bytesAt(8000)
	if big > 8*small {
		t.Errorf("a failing value 8,000 deep allocates %d bytes, %.1f× the %d at 2,000 deep: not linear", big, float64(big)/float64(small), small)
	}
}

// A call keeps at most 50 issues, the first in path order, and its
// feedback and the hook's error say how many more there were.
func TestIssuesAreCappedPerCall(t *testing.T) {
	schema := `{"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}}`
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "nums"}, schema)}, WithLogger(sanDiscard))
	items := make([]string, 2000)
	for i := range items {
		items[i] = `"x"`
	}
	rep, msg := runCall(t, n, tc("c1", "nums", `{"xs": [`+strings.Join(items, ",")+`]}`))
	if len(rep.Issues) != maxIssues || rep.Issues[0].Path != "/xs/0" || rep.Issues[maxIssues-1].Path != fmt.Sprintf("/xs/%d", maxIssues-1) {
		t.Fatalf("%d issues, first %+v", len(rep.Issues), rep.Issues[0])
	}
	if !strings.Contains(msg, "- and 1950 more issues, not listed") || strings.Count(msg, "\n- ") != maxIssues+1 {
		t.Errorf("feedback:\n%s", msg)
	}

	var hookErr string
	raising := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "nums"}, schema)}, WithLogger(sanDiscard),
		WithOnUnresolved(UnresolvedRaise))
	_, err := raising.Run(context.Background(), conversation(tc("c1", "nums", `{"xs": [`+strings.Join(items, ",")+`]}`)))
	if err != nil {
		hookErr = err.Error()
	}
	var ve *ToolCallValidationError
	if !errors.As(err, &ve) || !strings.HasSuffix(hookErr, "and 1950 more") {
		t.Errorf("raised error: %.200q", hookErr)
	}
}

// One value outside an enum of 100,000 gets a message naming the 10
// allowed values closest to it, closest first, and how many more: not the
// 1.6 MB of every value.
func TestFeedbackNamesTheClosestAllowedValues(t *testing.T) {
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, enumSchema(100000))}, WithLogger(sanDiscard))
	rep, msg := runCall(t, n, tc("c1", "pick", `{"pick": "value-00012x"}`))
	want := `must be one of "value-000120", "value-000121", "value-000122", "value-000123", "value-000124", "value-000125", "value-000126", "value-000127", "value-000128", "value-000129", and 99990 more`
	if len(rep.Issues) != 1 || rep.Issues[0].Message != want || len(rep.Issues[0].Allowed) != 100000 {
		t.Fatalf("issues %.300v", rep.Issues)
	}
	if len(msg) > 1024 {
		t.Errorf("feedback is %d bytes", len(msg))
	}
	// Small enums are listed whole, as before.
	_, small := runCall(t, mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, enumSchema(10))}), tc("c1", "pick", `{"pick": "no"}`))
	if !strings.Contains(small, `"value-000000", "value-000001"`) || !strings.Contains(small, `"value-000009"`) || strings.Contains(small, "more") {
		t.Errorf("an enum of 10 values:\n%s", small)
	}
	// A missing member of a large enum lists the first values in schema order.
	_, missing := runCall(t, n, tc("c1", "pick", `{}`))
	if !strings.Contains(missing, `one of "value-000000", "value-000001"`) || !strings.Contains(missing, "and 99990 more") {
		t.Errorf("a missing member:\n%s", missing)
	}
}

// An unknown tool on a node of up to 20 tools gets the list of every tool,
// as always; on a larger node, the 5 closest names and the count.
func TestUnknownToolAnswers(t *testing.T) {
	tests := []struct {
		tools int
		call  string
		want  string
	}{
		{2, "tool_00012x", "Error: tool_00012x is not a valid tool, try one of [tool_000000, tool_000001]."},
		{20, "x", "Error: x is not a valid tool, try one of [" + strings.Join(toolNamesUpTo(20), ", ") + "]."},
		{21, "tool_00001", "Error: tool_00001 is not a valid tool; did you mean one of [tool_000001, tool_000010, tool_000011, tool_000012, tool_000013]? (21 tools are available; these are the closest by name.)"},
		{10000, "tool_00012x", "Error: tool_00012x is not a valid tool; did you mean one of [tool_000120, tool_000121, tool_000122, tool_000123, tool_000124]? (10000 tools are available; these are the closest by name.)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tools), func(t *testing.T) {
			rep, msg := runCall(t, mustNode(t, manyTools(tt.tools), WithLogger(sanDiscard)), tc("c1", tt.call, `{}`))
			if rep.Outcome != OutcomeUnknownTool || msg != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", rep.Outcome, msg, tt.want)
			}
		})
	}
}

func toolNamesUpTo(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tool_%06d", i)
	}
	return out
}

func TestBoundMessage(t *testing.T) {
	lines := strings.Repeat("- a line of feedback that says what to change\n", 400)
	for _, tt := range []struct {
		name, in  string
		cutAtLine bool
		last      string // the last line, kept after the marker
	}{
		{"short text is unchanged", "Error: x", false, ""},
		{"exactly the bound", strings.Repeat("a", maxToolMessageBytes), false, ""},
		{"lines are cut at a line break", lines, true, ""},
		{"one long line of multibyte runes", strings.Repeat("é€😀", 5000), false, ""},
		{"feedback keeps its last line", lines + "Call t again with these fields corrected.", true, "\nCall t again with these fields corrected."},
		{"a long last line is not kept", lines + strings.Repeat("x", maxKeptLastLine), true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := boundMessage(tt.in)
			if len(tt.in) <= maxToolMessageBytes {
				if got != tt.in {
					t.Fatalf("changed a text within the bound")
				}
				return
			}
			body, marker, ok := strings.Cut(got, "\n[… message cut: ")
			marker, ok2 := strings.CutSuffix(marker, tt.last)
			if len(got) > maxToolMessageBytes || !ok || !ok2 || !utf8.ValidString(got) || !strings.HasPrefix(tt.in, body) {
				t.Fatalf("%d bytes, marker %v, valid %v:\n…%s", len(got), ok, utf8.ValidString(got), got[max(0, len(got)-200):])
			}
			if wantMarker := fmt.Sprintf("%d bytes, the first %d shown]", len(tt.in), len(body)); marker != wantMarker {
				t.Errorf("marker %q, want %q", marker, wantMarker)
			}
			if tt.cutAtLine && !strings.HasSuffix(body, "change") {
				t.Errorf("not cut at a line break: …%q", body[len(body)-40:])
			}
			if len(body) < maxToolMessageBytes/2 {
				t.Errorf("kept only %d bytes", len(body))
			}
		})
	}
}

// Every tool message the node writes is at most 8 KiB: feedback listing
// long field names, and the text of a tool error it reports.
func TestToolMessagesTheNodeWritesAreBounded(t *testing.T) {
	props := map[string]any{}
	var required []any
	for i := range 40 {
		name := fmt.Sprintf("%03d_%s", i, strings.Repeat("n", 400))
		props[name] = map[string]any{"type": "string"}
		required = append(required, name)
	}
	schema := map[string]any{"type": "object", "properties": props, "required": required}
	huge := errors.New(strings.Repeat("stack frame\n", 100000))
	failing := ToolWithSchema(plainTool{name: "fails", fn: func(context.Context, string) (string, error) { return "", huge }}, map[string]any{"type": "object"})
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "long"}, schema), failing}, WithHandleToolErrors(true), WithLogger(sanDiscard))
	for _, call := range []llms.ToolCall{tc("c1", "long", `{}`), tc("c1", "long", `{"a": `), tc("c1", "fails", `{}`)} {
		rep, msg := runCall(t, n, call)
		if !rep.IsError || len(msg) > maxToolMessageBytes || !strings.Contains(msg, "[… message cut: ") {
			t.Errorf("%s %s: %s, %d bytes", call.FunctionCall.Name, call.FunctionCall.Arguments, rep.Outcome, len(msg))
		}
	}
}

// The closest values to a secret value sent are not named: the enum is
// listed in schema order.
func TestFeedbackDoesNotRankValuesBySecretValues(t *testing.T) {
	for _, mark := range []map[string]any{{"writeOnly": true}, {"format": "password"}} {
		schema := enumSchema(100)
		pick := schema["properties"].(map[string]any)["pick"].(map[string]any)
		for k, v := range mark {
			pick[k] = v
		}
		rep, _ := runCall(t, mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "pick"}, schema)}, WithLogger(sanDiscard)), tc("c1", "pick", `{"pick": "value-00012x"}`))
		if len(rep.Issues) != 1 || !strings.HasPrefix(rep.Issues[0].Message, `must be one of "value-000000", "value-000001"`) {
			t.Errorf("%v: %.200v", mark, rep.Issues)
		}
	}
}

// typedLocations.covers answers as a scan of every location does, for
// pointers whose tokens sort around the separator ("a-b", "a.b" before and
// "a0" after "a/"), repeat, nest and are numbers.
func TestTypedLocationsCoverAsAScanDoes(t *testing.T) {
	scan := func(path string, locs []string) bool {
		for _, l := range locs {
			if path == l || strings.HasPrefix(path, l+"/") {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(24, 2))
	toks := []string{"a", "a-b", "a.b", "a0", "ab", "0", "1", "10", "2", "~1", ""}
	pointer := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString("/" + toks[rng.IntN(len(toks))])
		}
		return b.String()
	}
	for i := range 20000 {
		locs := make([]string, rng.IntN(6))
		for j := range locs {
			locs[j] = pointer()
		}
		typed := newTypedLocations(locs)
		for range 5 {
			p := pointer()
			if got, want := typed.covers(p), scan(p, locs); got != want {
				t.Fatalf("case %d: covers(%q) = %v over %q (kept %q), want %v", i, p, got, locs, typed, want)
			}
		}
	}
}

// Many values outside a large enum cost the enum's length once per issue a
// call keeps, not once per issue: 1,000 items against an enum of 5,000
// values allocate not much more than 100 items do. Each issue copied the
// enum into its Allowed and listed it in its message.
func TestManyIssuesAgainstALargeEnumCostLinearly(t *testing.T) {
	vals := make([]any, 5000)
	for i := range vals {
		vals[i] = fmt.Sprintf("value-%06d", i)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"xs": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": vals}}}}
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "picks"}, schema)}, WithLogger(sanDiscard))
	bytesAt := func(items int) uint64 {
		xs := make([]string, items)
		for i := range xs {
			xs[i] = fmt.Sprintf(`"value-%05dx"`, i)
		}
		msgs := conversation(tc("c1", "picks", `{"xs": [`+strings.Join(xs, ",")+`]}`))
		return allocatedBy(func() {
			res, err := n.Run(context.Background(), msgs)
			if err != nil || len(res.Calls[0].Issues) != min(items, maxIssues) || len(res.Calls[0].Issues[0].Allowed) != len(vals) {
				t.Fatal(err)
			}
		})
	}
	small, big := bytesAt(100), bytesAt(1000)
	if big > 3*small {
		t.Errorf("1,000 issues against an enum of 5,000 allocate %d bytes, %.1f× the %d of 100", big, float64(big)/float64(small), small)
	}
}
