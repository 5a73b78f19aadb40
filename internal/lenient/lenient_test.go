package lenient

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/corpusfile"
	"github.com/saidex/saidex-go/internal/jsonread"
)

var fix = Options{StripThinking: true, FixSyntax: true}

// corpusRawArguments returns the raw argument strings of the shared dev
// corpus, or nil when it is absent.
func corpusRawArguments(tb testing.TB) []string {
	tb.Helper()
	return corpusfile.RawArguments("../../../shared/corpus/dev.jsonl")
}

// TestScanWritesCompactCanonicalJSON pins the scanner's output: compact
// JSON, strings that needed no change copied as written, and the step
// list of the whole repair.
func TestScanWritesCompactCanonicalJSON(t *testing.T) {
	tests := []struct {
		name, raw, want string
		steps           []Step
	}{
		{"single quotes and white space", "{ 'a' :\n 1 ,\t'b': 'x' }", `{"a":1,"b":"x"}`, []Step{FixSyntax}},
		{"escapes kept as written", `{'s': '\u00e9\n\/', "t": 'it\'s'}`, `{"s":"\u00e9\n\/","t":"it's"}`, []Step{FixSyntax}},
		{"literal control characters escaped", "{'s': \"a\tb\x01\"}", `{"s":"a\tb\u0001"}`, []Step{FixSyntax}},
		{"invalid UTF-8 as an escape", "{'s': 'a\xffb'}", `{"s":"a\ufffdb"}`, []Step{FixSyntax}},
		{"bare unicode key", `{clé: 1}`, `{"clé":1}`, []Step{FixSyntax}},
		{"comments and commas", "{/* c */ 'xs': [1\n 2,], # n\n 'y': None,}", `{"xs":[1,2],"y":null}`, []Step{FixSyntax}},
		{"cut after a complete value", `{"a": [{"b": "c"}, 2], "d": {"e": "f"`, `{"a":[{"b":"c"},2],"d":{"e":"f"}}`, []Step{FixSyntax}},
		{"prose around valid JSON keeps its text", `Here: {"a": [1, 2]} ok`, `{"a": [1, 2]}`, []Step{ExtractObject}},
		{"repeated copy compared canonically", `{'a': 1,} {"a":1}`, `{"a":1}`, []Step{RepeatedObject, FixSyntax}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, fix)
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.raw, err)
			}
			if res.JSON != tt.want || !slices.Equal(res.Steps, tt.steps) {
				t.Fatalf("Repair(%q) = %s %v, want %s %v", tt.raw, res.JSON, res.Steps, tt.want, tt.steps)
			}
		})
	}
}

func TestRepairWithoutSyntaxFixingRefusesWhatNeedsIt(t *testing.T) {
	for _, raw := range []string{`{'a': 1}`, `{"a": 1,}`, `{a: 1}`, `{"a": True}`, `{"a": 1 /* c */}`, `{"a": "x`, `{"a": [1`} {
		_, err := Repair(raw, Options{StripThinking: true})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Repair(%q) without syntax fixing: %v, want a refusal", raw, err)
		}
	}
	res, err := Repair("Sure: ```json\n{\"a\": 1}\n```", Options{})
	if err != nil || res.JSON != `{"a": 1}` {
		t.Errorf("extraction without syntax fixing: %q, %v", res.JSON, err)
	}
}

// repairCost is what one Repair of s allocates: bytes and allocations,
// counted by the runtime, never timed, so a loaded machine cannot change
// it. It is the fewest of three runs (a run may or may not get its scanner
// from the pool).
type repairCost struct{ bytes, allocs uint64 }

func costOfRepair(t *testing.T, s string) repairCost {
	t.Helper()
	best := repairCost{^uint64(0), ^uint64(0)}
	var before, after runtime.MemStats
	for range 3 {
		runtime.ReadMemStats(&before)
		_, err := Repair(s, fix)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("Repair of %d bytes: %v", len(s), err)
		}
		best.bytes = min(best.bytes, after.TotalAlloc-before.TotalAlloc)
		best.allocs = min(best.allocs, after.Mallocs-before.Mallocs)
	}
	return best
}

// checkLinearCost repairs small and big (about 16 times its size) and
// requires the bytes and allocations per input byte of big to stay within
// 4 times those of small, plus a little for fixed costs: a repair that
// allocates a copy (or room for) the rest of the text for each part of it
// allocates 16 times more per byte at the larger size. Rescans that
// allocate nothing are out of its sight (see the benchmarks in
// BENCHMARKS.md for time per byte).
func checkLinearCost(t *testing.T, small, big string) {
	t.Helper()
	cs, cb := costOfRepair(t, small), costOfRepair(t, big)
	scale := 4 * float64(len(big)) / float64(len(small))
	if float64(cb.bytes) > scale*float64(cs.bytes)+64<<10 {
		t.Errorf("%d bytes allocated for %d bytes of input, %d for %d: not linear", cb.bytes, len(big), cs.bytes, len(small))
	}
	if float64(cb.allocs) > scale*float64(cs.allocs)+64 {
		t.Errorf("%d allocations for %d bytes of input, %d for %d: not linear", cb.allocs, len(big), cs.allocs, len(small))
	}
}

// TestRepairIsLinear repairs every benchmark shape at 16 KiB and 256 KiB
// and compares what the repairs allocate (checkLinearCost).
func TestRepairIsLinear(t *testing.T) {
	for _, shape := range benchfixture.Shapes {
		t.Run(string(shape), func(t *testing.T) {
			checkLinearCost(t, benchfixture.BrokenArguments(shape, 16<<10), benchfixture.BrokenArguments(shape, 256<<10))
		})
	}
}

// TestRepairIsLinearInRepetitions repairs inputs made of many repeated
// parts (copies of the object, reasoning tags, inner quotes) at 16 KiB and
// 256 KiB and compares what the repairs allocate (checkLinearCost): a
// repair that reserves room for, or copies, the rest of the text for each
// part (as each repeated copy's scan once did) fails it.
func TestRepairIsLinearInRepetitions(t *testing.T) {
	tests := []struct {
		name string
		make func(n int) string
	}{
		{"repeated copies", func(n int) string { return strings.Repeat(`{'a': 1, "b": [true, null]} `, n) }},
		{"lone closing tags", func(n int) string { return strings.Repeat("</think> x ", n) + `{"a": 1,}` }},
		{"reasoning blocks", func(n int) string { return strings.Repeat("<think>a</think>", n) + `{"a": 1,}` }},
		{"inner quotes", func(n int) string { return `{"a": "` + strings.Repeat(`say "hi" ok `, n) + `", "b": 1}` }},
		{"bare keys on lines", func(n int) string {
			var b strings.Builder
			b.WriteString("{")
			for i := range n {
				fmt.Fprintf(&b, "k%d: 'v'\n", i)
			}
			return b.String() + "}"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unit := len(tt.make(1))
			checkLinearCost(t, tt.make(16<<10/unit), tt.make(256<<10/unit))
		})
	}
}

// TestReasoningTagsAreSearchedOnce counts the text the searches for
// reasoning tags read (tagSearchHook: up to the end of the match, or the
// whole text searched when none) for many tags at 16 KiB and 256 KiB: at
// most 4 times the input's length. Searching the rest of the text
// again for every tag, as stripThinking once did, covers about as many
// times the text as it holds tags. A count, never a timing: a rescan
// allocates nothing, so checkLinearCost cannot see it.
func TestReasoningTagsAreSearchedOnce(t *testing.T) {
	var searched int
	tagSearchHook = func(text string, match []int) {
		if match == nil {
			searched += len(text)
		} else {
			searched += match[1]
		}
	}
	defer func() { tagSearchHook = nil }()
	tests := []struct {
		name string
		make func(n int) string
	}{
		{"lone closing tags", func(n int) string { return strings.Repeat("</think> x ", n) + `{"a": 1,}` }},
		{"reasoning blocks", func(n int) string { return strings.Repeat("<think>a</think>", n) + `{"a": 1,}` }},
		{"blocks and lone closing tags", func(n int) string {
			return strings.Repeat("<think>a</think> b </thinking> ", n) + `{"a": 1,}`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unit := len(tt.make(2)) - len(tt.make(1))
			for _, size := range []int{16 << 10, 256 << 10} {
				raw := tt.make(size / unit)
				searched = 0
				if _, err := Repair(raw, fix); err != nil {
					t.Fatalf("Repair of %d bytes: %v", len(raw), err)
				}
				if searched == 0 || searched > 4*len(raw) {
					t.Errorf("the tag searches covered %d bytes of a %d-byte text, want at most 4 times its length", searched, len(raw))
				}
			}
		})
	}
}

func TestBrokenArgumentsShapesAreRepairedWithoutLoss(t *testing.T) {
	for _, shape := range benchfixture.Shapes {
		for _, size := range []int{1 << 10, 64 << 10} {
			raw := benchfixture.BrokenArguments(shape, size)
			if len(raw) > size || len(raw) < size-64 {
				t.Errorf("%s/%d: %d bytes", shape, size, len(raw))
			}
			res, err := Repair(raw, fix)
			if err != nil {
				t.Fatalf("%s/%d: %v", shape, size, err)
			}
			if !slices.Equal(res.Steps, []Step{FixSyntax}) {
				t.Errorf("%s/%d: steps %v", shape, size, res.Steps)
			}
			v, err := jsonread.Read(res.JSON)
			if err != nil {
				t.Fatalf("%s/%d: the result does not decode: %v", shape, size, err)
			}
			m := v.(map[string]any)
			switch shape {
			case benchfixture.LongString:
				content := m["content"].(string)
				if want := strings.Count(raw, "\n"); strings.Count(content, "\n") != want || strings.Count(content, `"`) != strings.Count(raw, `"`)-8 {
					t.Errorf("%s/%d: content lost line breaks or quotes", shape, size)
				}
			case benchfixture.ManyMembers:
				if got, want := len(m), strings.Count(raw, "':"); got != want {
					t.Errorf("%s/%d: %d members, want %d", shape, size, got, want)
				}
			}
		}
	}
}

// checkPrechecks checks that the cheap tests before the regular
// expressions never say "no" where the expression matches.
func checkPrechecks(t *testing.T, s string) {
	t.Helper()
	if (thinkOpen.MatchString(s) || thinkClose.MatchString(s)) && !mayHoldThinkTag(s) {
		t.Fatalf("mayHoldThinkTag(%.80q) = false, but a think tag matches", s)
	}
	if templateToken.MatchString(s) && !mayHoldTemplateToken(s) {
		t.Fatalf("mayHoldTemplateToken(%.80q) = false, but a template token matches", s)
	}
	if fence.MatchString(s) && !mayHoldFence(s) {
		t.Fatalf("mayHoldFence(%.80q) = false, but a fence matches", s)
	}
}

func TestRegexpPrechecksNeverMissAMatch(t *testing.T) {
	tests := []struct {
		in    string
		think bool // a think tag matches
	}{
		{"<think>a</think>{}", true}, {"<THINKING>", true}, {"x </Think>", true}, {"</tHiNk>", true},
		{"<tool_call>{}</tool_call>", false}, {"<|im_end|>", false}, {"[TOOL_CALLS]", false}, {"```json\n{}\n```", false},
		{"a < b, <t", false}, {"no tags", false}, {"<", false}, {"</", false},
	}
	for _, tt := range tests {
		checkPrechecks(t, tt.in)
		if got := thinkOpen.MatchString(tt.in) || thinkClose.MatchString(tt.in); got != tt.think {
			t.Errorf("%q: a think tag matches = %v, want %v (test case wrong)", tt.in, got, tt.think)
		}
	}
	for _, s := range corpusRawArguments(t) {
		checkPrechecks(t, s)
	}
}

// FuzzRepair checks that Repair never panics; that every refusal is an
// *Error; that what it returns is one JSON value, which Read decodes;
// that a text which already parses (and is not a JSON string holding an
// object) comes back unchanged; that repairing the result again changes
// nothing; and that the prechecks before the regular expressions are
// sound.
func FuzzRepair(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, `{'a': 'b's'}`, "<think>x</think>{\"a\":1}", "```json\n{a: True,}\n```",
		`"{\"a\": 1}"`, `{"a": "x"`, `{"a": 1}{"a": 1}`, `{"a": 1}{"a": 2}`, `{"a": [1 2], // c
"b": None}`, `{“a”: “b”}`, `{"a": "say "hi" now"}`, `[1, 2]`, `""`, `{\"a\": 1}`, "", "{", "}{",
	} {
		f.Add(s)
	}
	for _, s := range classSeeds {
		f.Add(s)
	}
	for _, s := range recoverSeeds {
		f.Add(s)
	}
	for _, s := range corpusRawArguments(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkPrechecks(t, raw)
		res, err := Repair(raw, fix)
		// A schema that accepts only strings changes only what is refused
		// without it, into one JSON value that repairs to itself. (A JSON
		// string holding an object that is refused without the schema
		// comes back as that string: refused too, in effect.)
		guided, gerr := Repair(raw, Options{StripThinking: true, FixSyntax: true, Schema: allStrings{}})
		keptString := err == nil && res.JSON == raw && strings.HasPrefix(strings.TrimSpace(raw), `"`)
		// (and refuses the literals and numbers not written as JSON
		// writes them, True or +5, which may be strings whose quotes are
		// missing.)
		spelled := gerr != nil && strings.Contains(gerr.Error(), "may be a string whose quotes are missing")
		// (The same refusal inside a JSON string holding an object, "```json
		// {\"a\": 0.}```", leaves that string, refused in effect.)
		guidedKept := gerr == nil && guided.JSON == raw && strings.HasPrefix(strings.TrimSpace(raw), `"`)
		if err == nil && !keptString && !spelled && !guidedKept && (gerr != nil || guided.JSON != res.JSON) {
			t.Fatalf("Repair(%q) with a schema = %q, %v; without, %q", raw, guided.JSON, gerr, res.JSON)
		}
		if gerr == nil && !guidedKept {
			if again, err := Repair(guided.JSON, fix); !json.Valid([]byte(guided.JSON)) || err != nil || again.JSON != guided.JSON {
				t.Fatalf("Repair(%q) with a schema = %q: not one JSON value that repairs to itself", raw, guided.JSON)
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason == "" {
				t.Fatalf("Repair(%q): error %#v is not an *Error with a reason", raw, err)
			}
			return
		}
		if !json.Valid([]byte(res.JSON)) {
			t.Fatalf("Repair(%q).JSON = %q: not valid JSON", raw, res.JSON)
		}
		v, err := jsonread.Read(res.JSON)
		if err != nil {
			t.Fatalf("Repair(%q): JSON %q does not decode: %v", raw, res.JSON, err)
		}
		if w, err := jsonread.Decode(res.JSON); err != nil || !reflect.DeepEqual(v, w) {
			t.Fatalf("Repair(%q): Read and Decode of %q differ: %#v, %#v", raw, res.JSON, v, w)
		}
		if orig, err := jsonread.Decode(raw); err == nil {
			if _, isString := orig.(string); !isString {
				// Valid text is kept as it is, but for repeated keys
				// (equal values kept once; different ones are refused).
				if jsonread.RepeatsName(raw) {
					if !slices.Equal(res.Steps, []Step{RepeatedKey}) || jsonread.RepeatsName(res.JSON) || !reflect.DeepEqual(orig, v) {
						t.Fatalf("valid text %q with repeated keys changed to %q (steps %v)", raw, res.JSON, res.Steps)
					}
				} else if res.JSON != raw || len(res.Steps) > 0 {
					t.Fatalf("valid text %q changed to %q (steps %v)", raw, res.JSON, res.Steps)
				}
			}
		}
		again, err := Repair(res.JSON, fix)
		if err != nil || again.JSON != res.JSON {
			t.Fatalf("repairing %q again gave %q, %v", res.JSON, again.JSON, err)
		}
	})
}

func ExampleRepair() {
	res, err := Repair("Sure! ```json\n{city: 'Oslo', days: 3,}\n```", Options{StripThinking: true, FixSyntax: true})
	fmt.Println(res.JSON, res.Steps, err)
	// Output: {"city":"Oslo","days":3} [code_fence extract_object json_repair] <nil>
}
