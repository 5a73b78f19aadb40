package saidex

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/saidex/saidex-go/internal/corpusfile"
	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
)

func defaultRepairOptions() repairOptions {
	cfg := defaultConfig()
	return cfg.repairOptions()
}

// corpusRawArguments returns the raw argument strings of the shared dev
// corpus, or nil when it is absent.
func corpusRawArguments(tb testing.TB) []string {
	tb.Helper()
	return corpusfile.RawArguments("../shared/corpus/dev.jsonl")
}

// sameJSON compares two decoded JSON values: key order free, numbers numeric.
func sameJSON(a, b any) bool { return jsonvalue.Equal(a, b) }

func TestRepairArgumentsRepairsWhatOneValueWasMeant(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		want  string
		steps []RepairStep
	}{
		{"valid object passes unchanged", `{"city": "Oslo", "days": 3}`, `{"city":"Oslo","days":3}`, nil},
		{"valid array passes unchanged", `[1, 2]`, `[1,2]`, nil},
		{"valid non-object string passes unchanged", `"just text"`, `"just text"`, nil},
		{"think block before the object", "<think>\nthe user wants Oslo\n</think>\n{\"city\": \"Oslo\"}", `{"city":"Oslo"}`, []RepairStep{RepairStripThinking}},
		{"thinking block variant", "<thinking>plan</thinking>{\"n\": 1}", `{"n":1}`, []RepairStep{RepairStripThinking}},
		{"lone closing think tag", "weigh the options first\n</think>\n{\"n\": 2}", `{"n":2}`, []RepairStep{RepairStripThinking}},
		{"think block holding a draft object", "<think>maybe {\"n\": 9}? no.</think>{\"n\": 4}", `{"n":4}`, []RepairStep{RepairStripThinking}},
		{"think block after the object", "{\"n\": 6}\n<think>done</think>", `{"n":6}`, []RepairStep{RepairStripThinking}},
		{"think blocks around the object", "<think>a {\"n\": 0}</think>{'n': 6}<think>b</think>", `{"n":6}`, []RepairStep{RepairStripThinking, RepairJSON}},
		{"think block then fence", "<think>ok</think>\n```json\n{\"n\": 5}\n```", `{"n":5}`, []RepairStep{RepairStripThinking, RepairCodeFence}},
		{"json code fence", "```json\n{\"lang\": \"go\"}\n```", `{"lang":"go"}`, []RepairStep{RepairCodeFence}},
		{"bare code fence", "```\n{\"lang\": \"go\"}\n```", `{"lang":"go"}`, []RepairStep{RepairCodeFence}},
		{"fence after prose", "Here you go:\n```json\n{\"lang\": \"go\"}\n```", `{"lang":"go"}`, []RepairStep{RepairCodeFence, RepairExtractObject}},
		{"python tag token", `<|python_tag|>{"q": "tides"}`, `{"q":"tides"}`, []RepairStep{RepairTemplateTokens}},
		{"tool calls token", `[TOOL_CALLS]{"q": "tides"}`, `{"q":"tides"}`, []RepairStep{RepairTemplateTokens}},
		{"closing tool call tag", `{"q": "tides"}</tool_call>`, `{"q":"tides"}`, []RepairStep{RepairTemplateTokens}},
		{"end of message token", `{"q": "tides"}<|im_end|>`, `{"q":"tides"}`, []RepairStep{RepairTemplateTokens}},
		{"prose before", `I will look that up: {"q": "tides"}`, `{"q":"tides"}`, []RepairStep{RepairExtractObject}},
		{"prose after", "{\"q\": \"tides\"}\nHope this helps!", `{"q":"tides"}`, []RepairStep{RepairExtractObject}},
		{"extra closing braces", `{"q": {"r": 1}}}}`, `{"q":{"r":1}}`, []RepairStep{RepairExtractObject}},
		{"same object twice", `{"q": "tides", "n": 2} {"q": "tides", "n": 2}`, `{"q":"tides","n":2}`, []RepairStep{RepairRepeatedObject}},
		{"same object thrice, differently spaced", "{\"n\":1}\n{ \"n\": 1 }{\"n\":1}", `{"n":1}`, []RepairStep{RepairRepeatedObject}},
		{"double encoded", `"{\"q\": \"tides\", \"n\": 2}"`, `{"q":"tides","n":2}`, []RepairStep{RepairDoubleEncoded}},
		{"double encoded twice", `"\"{\\\"n\\\": 7}\""`, `{"n":7}`, []RepairStep{RepairDoubleEncoded}},
		{"double encoded with broken inner json", `"{'n': 7,}"`, `{"n":7}`, []RepairStep{RepairDoubleEncoded, RepairJSON}},
		{"double encoded inside prose", `Arguments: "{\"n\": 9}" as asked`, `{"n":9}`, []RepairStep{RepairDoubleEncoded, RepairExtractObject}},
		{"double encoded in a fence", "```json\n\"{\\\"n\\\": 9}\"\n```", `{"n":9}`, []RepairStep{RepairDoubleEncoded, RepairCodeFence}},
		{"escaped quotes without outer quotes", `{\"n\": 8}`, `{"n":8}`, []RepairStep{RepairDoubleEncoded}},
		{"single quotes", `{'name': 'Ada', 'age': 36}`, `{"name":"Ada","age":36}`, []RepairStep{RepairJSON}},
		{"apostrophe inside single quotes", `{'shop': 'Bob's Bikes', 'open': true}`, `{"shop":"Bob's Bikes","open":true}`, []RepairStep{RepairJSON}},
		{"escaped apostrophe inside single quotes", `{'note': 'it\'s late'}`, `{"note":"it's late"}`, []RepairStep{RepairJSON}},
		{"double quote inside single quotes", `{'note': 'say "hi" now'}`, `{"note":"say \"hi\" now"}`, []RepairStep{RepairJSON}},
		{"typographic quotes", `{“name”: “Ada”, “age”: 36}`, `{"name":"Ada","age":36}`, []RepairStep{RepairJSON}},
		{"typographic single quotes with apostrophe", `{‘name’: ‘Ada’s’}`, `{"name":"Ada’s"}`, []RepairStep{RepairJSON}},
		{"bare keys", `{name: "Ada", nested: {deep_key: 1}}`, `{"name":"Ada","nested":{"deep_key":1}}`, []RepairStep{RepairJSON}},
		{"python literals", `{"a": True, "b": False, "c": None}`, `{"a":true,"b":false,"c":null}`, []RepairStep{RepairJSON}},
		{"trailing commas", `{"xs": [1, 2,], "y": 3,}`, `{"xs":[1,2],"y":3}`, []RepairStep{RepairJSON}},
		{"missing comma between members", "{\"a\": \"x\"\n\"b\": 2}", `{"a":"x","b":2}`, []RepairStep{RepairJSON}},
		{"missing comma between glued strings", `{"a":"x""b":"y"}`, `{"a":"x","b":"y"}`, []RepairStep{RepairJSON}},
		{"missing comma after a number", `{"a": 1 "b": 2}`, `{"a":1,"b":2}`, []RepairStep{RepairJSON}},
		{"missing comma between array numbers", `{"xs": [4, 5 6]}`, `{"xs":[4,5,6]}`, []RepairStep{RepairJSON}},
		{"line comments", "{\n \"a\": 1, // why\n \"b\": 2 # because\n}", `{"a":1,"b":2}`, []RepairStep{RepairJSON}},
		{"block comment", `{"a": 1, /* note */ "b": 2}`, `{"a":1,"b":2}`, []RepairStep{RepairJSON}},
		{"comment eats the closing brace", `{"a": "x" // trailing note}`, `{"a":"x"}`, []RepairStep{RepairJSON}},
		{"comment line before the object", "// args\n{\"a\": 1}", `{"a":1}`, []RepairStep{RepairExtractObject}},
		{"literal line break in a string", "{\"addr\": \"1 Main St\nSpringfield\"}", `{"addr":"1 Main St\nSpringfield"}`, []RepairStep{RepairJSON}},
		{"literal tab in a string", "{\"t\": \"a\tb\"}", `{"t":"a\tb"}`, []RepairStep{RepairJSON}},
		{"unescaped inner quotes", `{"title": "the "best" one", "n": 1}`, `{"title":"the \"best\" one","n":1}`, []RepairStep{RepairJSON}},
		{"unescaped inner quotes at the end", `{"title": "read "Dune""}`, `{"title":"read \"Dune\""}`, []RepairStep{RepairJSON}},
		{"cut after a complete string", `{"a": "x", "b": "y"`, `{"a":"x","b":"y"}`, []RepairStep{RepairJSON}},
		{"cut after true", `{"a": "x", "b": true`, `{"a":"x","b":true}`, []RepairStep{RepairJSON}},
		{"cut after a nested array", `{"a": {"b": [1, "z"]`, `{"a":{"b":[1,"z"]}}`, []RepairStep{RepairJSON}},
		{"non-JSON escape keeps its backslash", `{'path': 'C:\Users\x'}`, `{"path":"C:\\Users\\x"}`, []RepairStep{RepairJSON}},
		{"unicode escapes survive", `{'s': '\u00e9t\u00e9'}`, `{"s":"été"}`, []RepairStep{RepairJSON}},
		{"everything at once", "<think>hm</think>\nSure:\n```json\n{name: 'Ada', ok: True, xs: [1, 2,],}\n```\nDone.", `{"name":"Ada","ok":true,"xs":[1,2]}`,
			[]RepairStep{RepairStripThinking, RepairCodeFence, RepairExtractObject, RepairJSON}},
		{"byte order mark", "\uFEFF{'a': 1}", `{"a":1}`, []RepairStep{RepairJSON}},
		{"byte order mark before valid JSON", "\uFEFF{\"a\": 1}", `{"a":1}`, []RepairStep{RepairExtractObject}},
		{"missing comma before a bare key on the next line", "{a: \"x\"\n b: 2}", `{"a":"x","b":2}`, []RepairStep{RepairJSON}},
		{"missing comma between array strings", `{"xs": ["a" "b"]}`, `{"xs":["a","b"]}`, []RepairStep{RepairJSON}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := repairArguments(tt.raw, defaultRepairOptions())
			if err != nil {
				t.Fatalf("repairArguments(%q) error: %v", tt.raw, err)
			}
			if !sameJSON(res.value, mustDecode(t, tt.want)) {
				t.Errorf("value = %#v, want %s", res.value, tt.want)
			}
			if !json.Valid([]byte(res.json)) {
				t.Errorf("json %q is not valid JSON", res.json)
			} else if !sameJSON(mustDecode(t, res.json), res.value) {
				t.Errorf("json %q does not hold value %#v", res.json, res.value)
			}
			if !slices.Equal(res.steps, tt.steps) {
				t.Errorf("steps = %v, want %v", res.steps, tt.steps)
			}
			if len(tt.steps) == 0 && res.json != tt.raw {
				t.Errorf("parsed arguments: json = %q, want the raw string unchanged", res.json)
			}
		})
	}
}

func TestRepairArgumentsRefusesWhatNeedsAGuess(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		opt    func(*repairOptions)
		reason string // a fragment of the reason
	}{
		{name: "empty", raw: "", reason: "are empty"},
		{name: "white space", raw: " \n\t ", reason: "only white space"},
		{name: "prose only", raw: "I cannot find that city, which one do you mean?", reason: "no JSON object"},
		{name: "key=value text", raw: "city=Oslo days=3", reason: "no JSON object"},
		{name: "yaml", raw: "city: Oslo\ndays: 3", reason: "no JSON object"},
		{name: "only a template token", raw: "<tool_call>", reason: "only template tokens"},
		{name: "empty code fence", raw: "```json\n```", reason: "only template tokens or an empty code fence"},
		{name: "object only inside unclosed reasoning", raw: "<think>I'll send {\"city\": \"Oslo\"} once I", reason: "unfinished reasoning"},
		{name: "reasoning only", raw: "<think>the user wants Oslo</think>", reason: "only a reasoning block"},
		{name: "reasoning reopened after closing", raw: "<think>a</think>{\"n\": 1}<think>b", reason: "unfinished reasoning"},
		{name: "object before unfinished reasoning", raw: "{\"n\": 1}<think>or maybe", reason: "unfinished reasoning"},
		{name: "object before a lone closing tag", raw: "{\"n\": 1}</think>", reason: "only a reasoning block"},
		{name: "cut inside a string", raw: `{"city": "Osl`, reason: "cut off inside a string value"},
		{name: "cut inside an escape", raw: `{"city": "Oslo\`, reason: "cut off inside a string value"},
		{name: "cut inside a unicode escape", raw: `{"city": "\u00`, reason: "cut off inside a string value"},
		{name: "cut inside a key", raw: `{"city": "Oslo", "da`, reason: "cut off inside a key"},
		{name: "cut inside a bare key", raw: `{city: "Oslo", da`, reason: "cut off inside a key"},
		{name: "cut after a key", raw: `{"city": "Oslo", "days"`, reason: "after a key"},
		{name: "cut after a colon", raw: `{"city": "Oslo", "days":`, reason: "after a colon"},
		{name: "cut after a comma", raw: `{"city": "Oslo",`, reason: "after a comma"},
		{name: "cut after a number", raw: `{"days": 12`, reason: "after a number"},
		{name: "cut inside a number", raw: `{"days": 1.`, reason: "cut off inside a number"},
		{name: "cut after an opening brace", raw: `{`, reason: "after an opening bracket"},
		{name: "cut inside a literal", raw: `{"ok": tr`, reason: "cut off inside a value"},
		{name: "cut inside a comment", raw: `{"a": 1 /* still`, reason: "inside a comment"},
		{name: "two different objects", raw: `{"n": 1}{"n": 2}`, reason: "two different JSON objects"},
		{name: "empty object then the real one", raw: `{} {"n": 2}`, reason: "two different JSON objects"},
		{name: "example object in trailing prose", raw: `{"n": 1} or maybe {"n": 2}`, reason: "two JSON objects"},
		{name: "object inside an array", raw: `[{"n": 1}, {"n": 2},`, reason: "larger value"},
		{name: "unquoted value, a key in single quotes", raw: `{"city": Oslo, 'n': 1}`, reason: "not quoted"},
		{name: "NaN", raw: `{"x": NaN}`, reason: "not quoted"},
		{name: "bare NaN", raw: `NaN`, reason: "no JSON object"},
		{name: "arithmetic", raw: `{"x": 2 * 3}`, reason: "unexpected character"},
		{name: "a dot without digits", raw: `{"b": .x}`, reason: "not a valid JSON number"},
		{name: "python tuple", raw: `{"pt": (1, 2)}`, reason: "unexpected character"},
		{name: "ellipsis", raw: `{...}`, reason: "unexpected character"},
		{name: "doubled colon", raw: `{"a": : 1}`, reason: "unexpected character"},
		{name: "closing before opening", raw: `}{`, reason: "after an opening bracket"},
		{name: "cut right after an inner quote", raw: `{"q": "the "best"`, reason: "cut off inside a string value"},
		{name: "inner quote followed by a comma", raw: `{"q": "she said "no", then left"}`, reason: "unescaped quote"},
		{name: "too large", raw: `{"a": "` + strings.Repeat("x", 100) + `"}`, opt: func(o *repairOptions) { o.maxBytes = 50 }, reason: "more than the limit of 50 bytes"},
		{name: "repair disabled", raw: `{'a': 1}`, opt: func(o *repairOptions) { o.jsonRepair = false }, reason: "JSON repair is disabled"},
		{name: "think tag with stripping disabled", raw: "<think>x</think>{\"a\": 1}", opt: func(o *repairOptions) { o.stripThinking = false }, reason: "stripping reasoning is disabled"},
		{name: "double encoded broken beyond repair", raw: `"{\"a\": \"cut`, reason: "unexpected character"},
		{name: "double encoded cut inside", raw: `"{\"a\": \"cut"`, reason: "cut off inside a string value"},
		{name: "deep object nesting", raw: strings.Repeat(`{"a":`, 100_000), reason: "nested deeper than 10000 levels"},
		{name: "deep array nesting", raw: strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), reason: "nested deeper than 10000 levels"},
		{name: "deep nesting inside an object", raw: `{"a": ` + strings.Repeat("[", 20_000), reason: "nested deeper than 10000 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := defaultRepairOptions()
			if tt.opt != nil {
				tt.opt(&opt)
			}
			res, err := repairArguments(tt.raw, opt)
			if err == nil {
				t.Fatalf("repairArguments(%.60q) = %s, want an error", tt.raw, res.json)
			}
			if !errors.Is(err, ErrMalformedArguments) {
				t.Errorf("error %v does not wrap ErrMalformedArguments", err)
			}
			var me *MalformedArgumentsError
			if !errors.As(err, &me) {
				t.Fatalf("error %T is not a *MalformedArgumentsError", err)
			}
			if !strings.Contains(me.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", me.Reason, tt.reason)
			}
		})
	}
}

// The known silent corruptions of JSON repair libraries (kaptinlin/jsonrepair
// v0.4.8 makes each of them, FACTS.md) must never reach a tool: each is
// either repaired to the meant value or refused.
func TestRepairArgumentsGuardsAgainstJSONRepairCorruptions(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // "" means refused
	}{
		{"reasoning text holding JSON", "<think>try {\"n\": 1}, or [2]?</think>\n{\"n\": 3}", `{"n":3}`},
		{"unclosed reasoning holding JSON", "<think>try {\"n\": 1}", ""},
		{"double-encoded object", `"{\"n\": 3}"`, `{"n":3}`},
		{"apostrophe inside single quotes", `{'msg': 'we don't know'}`, `{"msg":"we don't know"}`},
		{"truncated key", `{"date": "2024-01-02", "da`, ""},
		{"NaN value", `{"x": NaN, "y": 1}`, ""},
		{"leading-dot number", `{"b": .5}`, `{"b":0.5}`},
		{"string cut mid-value", `{"note": "bring an umb`, ""},
		{"two merged objects", `{"n": 1}{"m": 2}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := repairArguments(tt.raw, defaultRepairOptions())
			if tt.want == "" {
				if err == nil {
					t.Fatalf("repairArguments(%q) = %s, want a refusal", tt.raw, res.json)
				}
				return
			}
			if err != nil {
				t.Fatalf("repairArguments(%q) error: %v", tt.raw, err)
			}
			if !sameJSON(res.value, mustDecode(t, tt.want)) {
				t.Errorf("value = %s, want %s", res.json, tt.want)
			}
		})
	}
}

func TestRepairArgumentsAcceptsNestingUpToTheLimit(t *testing.T) {
	raw := strings.Repeat("[", MaxNestingDepth) + strings.Repeat("]", MaxNestingDepth)
	if _, err := repairArguments(raw, defaultRepairOptions()); err != nil {
		t.Fatalf("valid JSON nested %d deep: %v", MaxNestingDepth, err)
	}
	broken := `{'a': ` + strings.Repeat("[", MaxNestingDepth-1) + strings.Repeat("]", MaxNestingDepth-1) + `}`
	if _, err := repairArguments(broken, defaultRepairOptions()); err != nil {
		t.Fatalf("broken JSON nested %d deep: %v", MaxNestingDepth, err)
	}
}

func TestRepairArgumentsKeepsNumbersAsJSONNumbers(t *testing.T) {
	for _, raw := range []string{`{"n": 12345678901234567890}`, `{'n': 12345678901234567890}`} {
		res, err := repairArguments(raw, defaultRepairOptions())
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		n, ok := res.value.(map[string]any)["n"].(json.Number)
		if !ok || n.String() != "12345678901234567890" {
			t.Errorf("%s: n = %#v, want json.Number 12345678901234567890", raw, res.value.(map[string]any)["n"])
		}
	}
}

func TestMalformedArgumentsErrorReadsAsFeedback(t *testing.T) {
	err := error(&MalformedArgumentsError{Reason: "the arguments are empty"})
	if got, want := err.Error(), "saidex: malformed tool arguments: the arguments are empty"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrMalformedArguments) {
		t.Error("errors.Is(err, ErrMalformedArguments) = false")
	}
}

func TestMaxNestingDepthIsTheReadersLimit(t *testing.T) {
	if MaxNestingDepth != jsonread.MaxDepth {
		t.Fatalf("MaxNestingDepth = %d, jsonread.MaxDepth = %d", MaxNestingDepth, jsonread.MaxDepth)
	}
}

func TestRepairStepsAreLenientSteps(t *testing.T) {
	pairs := []struct {
		exported RepairStep
		internal lenient.Step
	}{
		{RepairStripThinking, lenient.StripThinking}, {RepairDoubleEncoded, lenient.DoubleEncoded},
		{RepairTemplateTokens, lenient.TemplateTokens}, {RepairCodeFence, lenient.CodeFence},
		{RepairExtractObject, lenient.ExtractObject}, {RepairRepeatedObject, lenient.RepeatedObject},
		{RepairJSON, lenient.FixSyntax},
		{RepairJoinStrings, lenient.JoinStrings}, {RepairMissingColon, lenient.MissingColon},
		{RepairStrayComma, lenient.StrayComma}, {RepairMismatchedBracket, lenient.MismatchedBracket},
		{RepairDoubledBraces, lenient.DoubledBraces}, {RepairPlaceholders, lenient.Placeholders},
		{RepairInvisibleSpace, lenient.InvisibleSpace}, {RepairMissingQuote, lenient.MissingQuote},
		{RepairCumulativeStream, lenient.CumulativeStream}, {RepairTemplateQuotes, lenient.TemplateQuotes},
		{RepairRepeatedKey, lenient.RepeatedKey}, {RepairEscapedWhitespace, lenient.EscapedWhitespace},
		{RepairUnclosedKey, lenient.UnclosedKey}, {RepairStrayCloser, lenient.StrayCloser},
		{RepairWrongCloser, lenient.WrongCloser}, {RepairLiteralCase, lenient.LiteralCase},
		{RepairLooseNumber, lenient.LooseNumber}, {RepairNumericKey, lenient.NumericKey},
		{RepairQuotedBareValue, lenient.QuotedBareValue},
	}
	for _, p := range pairs {
		if string(p.exported) != string(p.internal) {
			t.Errorf("RepairStep %q differs from lenient.Step %q", p.exported, p.internal)
		}
	}
}

// allocatedBy returns how many bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A broken argument string of any size the argument limit admits is
// repaired (there is no separate repair limit), allocating no more than
// decoding the repaired text allocates, plus three times its size: the
// scan's canonical text, its string, and a copy of the input when it is
// checked.
func TestRepairRepairsHugeBrokenObjects(t *testing.T) {
	const size = 4 << 20
	tests := []struct {
		name string
		raw  string
	}{
		{"a trailing comma at the end", `{"note": "` + strings.Repeat("abcdefghij", size/10) + `",}`},
		{"single quotes from the start", `{'note': '` + strings.Repeat("abcdefghij", size/10) + `'}`},
		{"a missing comma at the end", `{"a": [` + strings.Repeat(`"abcdefghij", `, size/14) + `1 2]}`},
	}
	opt := repairOptions{stripThinking: true, jsonRepair: true, maxBytes: 16 << 20}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res repairResult
			var err error
			n := allocatedBy(func() { res, err = repairArguments(tt.raw, opt) })
			if err != nil || !slices.Equal(res.steps, []RepairStep{RepairJSON}) {
				t.Fatalf("repairArguments: steps %v, %v; want a repair", res.steps, err)
			}
			decoding := allocatedBy(func() { _, _ = decodeJSON(res.json) })
			if limit := decoding + 3*uint64(len(tt.raw)); n > limit {
				t.Errorf("repairing %d bytes allocated %d bytes, want at most %d", len(tt.raw), n, limit)
			}
		})
	}
}

func TestRepairComparesLargeRepeatedCopies(t *testing.T) {
	big := `{"note": "` + strings.Repeat("abcdefghij", 20000) + `", "n": [1, 2]}`
	other := strings.Replace(big, "[1, 2]", "[1, 3]", 1)
	small := `{"a": 1}`
	tests := []struct {
		name   string
		raw    string
		repair bool   // jsonRepair
		want   string // the refusal's words; "" when the first copy is kept
	}{
		{"a big object sent twice", big + big, true, ""},
		{"a big object then a different one", big + other, true, "two different JSON objects"},
		{"a small object sent twice, repair disabled", small + " " + small, false, ""},
		{"a small object then a different one, repair disabled", small + `{"a": 2}`, false, "two different JSON objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := repairOptions{stripThinking: true, jsonRepair: tt.repair, maxBytes: 16 << 20}
			res, err := repairArguments(tt.raw, opt)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("repairArguments: %v, want a refusal saying %q", err, tt.want)
				}
				return
			}
			first := tt.raw[:strings.IndexByte(tt.raw, '}')+1]
			if err != nil || res.json != first || !slices.Equal(res.steps, []RepairStep{RepairRepeatedObject}) {
				t.Fatalf("repairArguments: %d bytes, steps %v, %v; want the first copy (%d bytes), repeated_object", len(res.json), res.steps, err, len(first))
			}
		})
	}
}

func BenchmarkRepairArguments(b *testing.B) {
	for _, bm := range []struct{ name, raw string }{
		{"valid", `{"city": "Oslo", "days": 3, "units": "metric", "tags": ["a", "b"], "deep": {"x": 1.5}}`},
		{"fenced python dict", "```json\n{'city': 'Oslo', 'days': 3, 'units': 'metric', 'tags': ['a', 'b',], 'deep': {'x': 1.5}}\n```"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			opt := defaultRepairOptions()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := repairArguments(bm.raw, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The over-strict classes of issue 18 are repaired by the repair stage,
// each reported by its exported step after RepairJSON (or by the
// extraction step it is), and their near misses are refused with feedback
// that names what is wrong, never a cut where the text is not cut.
func TestRepairArgumentsRepairsEachClassByName(t *testing.T) {
	tests := []struct {
		raw, want string
		step      RepairStep
	}{
		{`{"q": 'abc' + 'def'}`, `{"q":"abcdef"}`, RepairJoinStrings},
		{`{"city" "Oslo", "days" 3}`, `{"city":"Oslo","days":3}`, RepairMissingColon},
		{`{, "a": 1}`, `{"a":1}`, RepairStrayComma},
		{`{"a": 1},`, `{"a":1}`, RepairStrayComma},
		{`{"xs": [1, 2}`, `{"xs":[1,2]}`, RepairMismatchedBracket},
		{`{{city: "Oslo"}}`, `{"city":"Oslo"}`, RepairDoubledBraces},
		{`Weather in {city}: {"city": "Oslo"}`, `{"city":"Oslo"}`, RepairPlaceholders},
		{`{"a": 1, "b": 2} {"b": 2, "a": 1}`, `{"a":1,"b":2}`, RepairRepeatedObject},
		{`{"city": "Par{"city": "Paris", "n": 2}`, `{"city":"Paris","n":2}`, RepairCumulativeStream},
		{"{\"a\":\u00a0\"x\"}", `{"a":"x"}`, RepairInvisibleSpace},
		{`{name": "Ann"}`, `{"name":"Ann"}`, RepairMissingQuote},
		{"{\"a\": \"x\"// note\n}", `{"a":"x"}`, RepairJSON},
		{`{ \"a\": 1 }`, `{"a":1}`, RepairDoubleEncoded},
		{`"` + "```json\\n{\\\"a\\\": 1}\\n```" + `"`, `{"a":1}`, RepairCodeFence},
		{`{"item": "a 27" monitor"}`, `{"item":"a 27\" monitor"}`, RepairJSON},
		// One inner quote left unescaped (two faults): the fault model reads
		// no other value within one fault more (the quotation's closing
		// quote lost too, or an inch mark before its number, cost two more).
		{`{"q": "say "hi", "n": 1}`, `{"q":"say \"hi","n":1}`, RepairJSON},
		{`{"q": "a "5 screen"}`, `{"q":"a \"5 screen"}`, RepairJSON},
		{"{\"a\":\\n 1}", `{"a":1}`, RepairEscapedWhitespace},
		{`{"a": 1}]`, `{"a":1}`, RepairStrayCloser},
		{`{"xs": [1, 2}, "b": 3}`, `{"xs":[1,2],"b":3}`, RepairWrongCloser},
		{`{"xs": [1, 2}, "b": [3}}`, `{"xs":[1,2],"b":[3]}`, RepairWrongCloser},
		{`{"a": NULL}`, `{"a":null}`, RepairLiteralCase},
		{`{"a": 5.}`, `{"a":5}`, RepairLooseNumber},
		{`{5: "a"}`, `{"5":"a"}`, RepairNumericKey},
	}
	for _, tt := range tests {
		res, err := repairArguments(tt.raw, defaultRepairOptions())
		if err != nil {
			t.Errorf("repairArguments(%q): %v", tt.raw, err)
			continue
		}
		want, _ := jsonread.Decode(tt.want)
		if !sameJSON(res.value, want) || !slices.Contains(res.steps, tt.step) {
			t.Errorf("repairArguments(%q) = %s %v, want %s with %s", tt.raw, res.json, res.steps, tt.want, tt.step)
		}
	}

	refusals := []struct{ raw, reason string }{
		{`{"q": "abc" + name}`, "joined with '+' to something that is not a quoted string"},
		{strings.Repeat(" ", 4096) + `{"a" b}`, "not followed by a colon and a value"},
		{`{"a": 1}}]}`, "match no opening bracket"},
		// Past the fault model's reach (2 KiB) the scanner decides alone;
		// within it, two swapped closers are the one reading within one
		// fault more.
		{strings.Repeat(" ", 4096) + `{"xs": [1, 2}, "b": [3}}`, "closes an array"},
		{`{{"a": 1}`, "closed with a single '}'"},
		{`{"a": 1} or {b: 2}`, "two JSON objects"},
		{`{"a": {"a": 1}`, "ambiguous"},
		// A key's closing quote dropped, or also its colon (the key
		// "a:"): with no schema to tell them apart, two readings.
		{`{"a: 1, "b": 2}`, "reads two ways within one fault"},
	}
	for _, tt := range refusals {
		_, err := repairArguments(tt.raw, defaultRepairOptions())
		var me *MalformedArgumentsError
		if !errors.As(err, &me) || !strings.Contains(me.Reason, tt.reason) || strings.Contains(me.Reason, "cut off") {
			t.Errorf("repairArguments(%q): %v, want a refusal naming %q", tt.raw, err, tt.reason)
		}
	}
}

// wrappings put one object (%s) into the noise models put around it.
var wrappings = []string{
	"Sure, here are the arguments: %s",
	"%s\n\nLet me know if you need anything else.",
	"```json\n%s\n```",
	"Calling the tool now.\n```\n%s\n```\nDone.",
	"<think>\nThe user wants this; I will fill it in.\n</think>\n%s",
	"the opening tag was in the prompt\n</think>\n\n%s",
	"<|python_tag|>%s<|eom_id|>",
	"[TOOL_CALLS]%s",
	"%s</tool_call>",
	"%s<|im_end|>",
	"%s}",
	"%s\n%[1]s",
}

// joinings glue two objects (%s, %s) the ways streams merge them.
var joinings = []string{"%s%s", "%s %s", "%s\n%s", "%s\n\n%s", "Options: %s or %s", "```json\n%s\n%s\n```"}

func checkObjectProperties(t *testing.T, objects []string) {
	t.Helper()
	opt := defaultRepairOptions()
	for i, obj := range objects {
		want := mustDecode(t, obj)
		for _, w := range wrappings {
			raw := sprintf(w, obj)
			res, err := repairArguments(raw, opt)
			if err != nil && w == "%s}" && nestedObjectBeforeMember(obj) {
				// An extra brace after an object whose nested object has
				// members after it may be that object's brace, closed too
				// early: refused (issue 21's oracle).
				continue
			}
			if err != nil {
				t.Errorf("%q: %v", raw, err)
				continue
			}
			if !sameJSON(res.value, want) {
				t.Errorf("%q repaired to %s, want %s", raw, res.json, obj)
			}
		}
		enc, _ := json.Marshal(obj)
		for _, w := range []string{"%s", "%s\n", "Arguments: %s", "```json\n%s\n```", "<think>x</think>%s"} {
			raw := sprintf(w, enc)
			res, err := repairArguments(raw, opt)
			if err != nil && escapesOtherThanQuote(obj) {
				// "{\"a\": \"x\\ny\"}" is also "x\ny" with the object's
				// backslash not doubled, and "C:\\\\temp" also C:\\temp:
				// two readings, refused (issue 21).
				continue
			}
			if err != nil || !sameJSON(res.value, want) {
				t.Errorf("double-encoded %q: %s, %v", raw, res.json, err)
			}
		}
		other := objects[(i+1)%len(objects)]
		if sameJSON(mustDecode(t, other), want) {
			continue
		}
		for _, j := range joinings {
			raw := sprintf(j, obj, other)
			if res, err := repairArguments(raw, opt); err == nil {
				t.Errorf("two different objects %q repaired to %s, want a refusal", raw, res.json)
			}
		}
	}
}

// nestedObjectBeforeMember reports whether the compact text of obj has a
// nested object followed by another member or item.
func nestedObjectBeforeMember(obj string) bool {
	v := mustDecodeAny(obj)
	c, _ := json.Marshal(v)
	return strings.Contains(string(c), "},")
}

// escapesOtherThanQuote reports whether the JSON text s holds an escape
// other than \".
func escapesOtherThanQuote(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			if s[i+1] != '"' {
				return true
			}
			i++
		}
	}
	return false
}

func mustDecodeAny(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

func sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, args...)
}

func TestRepairExtractsOneObjectFromAnyNoiseAndRefusesTwo(t *testing.T) {
	checkObjectProperties(t, []string{
		`{"city": "Oslo", "days": 3}`,
		`{"q": "a {braced} \"quoted\" value", "n": [1, 2, {"x": null}]}`,
		`{"path": "C:\\temp", "ok": false, "note": "it's fine"}`,
		`{}`,
		`{"nested": {"deep": {"deeper": ["x", "y"]}}}`,
	})
}

func TestRepairExtractsCorpusValuesFromAnyNoiseAndRefusesTwo(t *testing.T) {
	objects := corpusWantArguments(t)
	if objects == nil {
		t.Skip("corpus not present")
	}
	if len(objects) < 100 {
		t.Fatalf("read only %d objects from the corpus", len(objects))
	}
	checkObjectProperties(t, objects)
}

// corpusWantArguments returns the intended argument objects of the shared
// corpus, or nil when it is absent.
func corpusWantArguments(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		return nil
	}
	defer f.Close()
	var objects []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var c struct {
			Want json.RawMessage `json:"want_arguments"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil && len(c.Want) > 0 && c.Want[0] == '{' {
			objects = append(objects, string(c.Want))
		}
	}
	return objects
}

// style is a way models write an object that is not JSON.
type style struct {
	open, close     string // string quotes
	bareKeys        bool
	python          bool // True/False/None
	trailingCommas  bool
	comments        bool
	rawControlChars bool // line breaks and tabs inside strings left unescaped
}

var styles = map[string]style{
	"python repr":    {open: "'", close: "'", python: true},
	"typographic":    {open: "“", close: "”"},
	"javascript":     {open: `"`, close: `"`, bareKeys: true, trailingCommas: true, comments: true},
	"raw line break": {open: `"`, close: `"`, rawControlChars: true},
	"everything":     {open: "'", close: "'", bareKeys: true, python: true, trailingCommas: true, comments: true, rawControlChars: true},
}

// write renders v in style st, the way a model would: inner quotes of the
// other kind are left alone, and an inner quote of the same kind is not
// escaped either (the mistake models make).
func (st style) write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 && !(st.comments && i == 1) {
				b.WriteString(", ")
			}
			if st.bareKeys && isIdent(k) {
				b.WriteString(k)
			} else {
				st.write(b, k)
			}
			b.WriteString(": ")
			st.write(b, x[k])
			if st.comments && i == 0 {
				b.WriteString(", // first\n") // a comment, then a trailing comma when it is the only member
			}
		}
		if st.trailingCommas && len(keys) > 1 {
			b.WriteString(",")
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			st.write(b, e)
		}
		if st.trailingCommas && len(x) > 0 {
			b.WriteString(",")
		}
		b.WriteString("]")
	case string:
		b.WriteString(st.open)
		for _, r := range x {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\n' || r == '\t':
				if st.rawControlChars {
					b.WriteRune(r)
				} else if r == '\n' {
					b.WriteString(`\n`)
				} else {
					b.WriteString(`\t`)
				}
			case r < 0x20:
				e, _ := json.Marshal(string(r))
				b.Write(e[1 : len(e)-1])
			default:
				b.WriteRune(r)
			}
		}
		b.WriteString(st.close)
	case bool:
		switch {
		case st.python && x:
			b.WriteString("True")
		case st.python:
			b.WriteString("False")
		default:
			b.WriteString(map[bool]string{true: "true", false: "false"}[x])
		}
	case nil:
		if st.python {
			b.WriteString("None")
		} else {
			b.WriteString("null")
		}
	case json.Number:
		b.WriteString(x.String())
	}
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// checkStyles renders each object in every style and checks that repair
// returns the same value or refuses: it never returns a different value.
func checkStyles(t *testing.T, objects []any) {
	t.Helper()
	for name, st := range styles {
		refused := 0
		for _, v := range objects {
			var b strings.Builder
			st.write(&b, v)
			res, err := repairArguments(b.String(), defaultRepairOptions())
			if err != nil {
				refused++
				t.Logf("%s: refused %q: %v", name, b.String(), err)
				continue
			}
			if !sameJSON(res.value, v) {
				want, _ := json.Marshal(v)
				t.Errorf("%s: %q repaired to %s, want %s", name, b.String(), res.json, want)
			}
		}
		t.Logf("%s: %d of %d refused", name, refused, len(objects))
	}
}

func TestRepairOfModelStylesNeverChangesAValue(t *testing.T) {
	var objects []any
	for _, s := range []string{
		`{"city": "Oslo", "days": 3, "ok": true, "none": null}`,
		`{"shop": "Bob's Bikes", "quote": "she said \"hi\" twice", "list": ["a", "b's"]}`,
		`{"multi": "line one\nline two\tend", "path": "C:\\temp"}`,
		`{"nested": {"deep": [{"x": 1.5e3}, {"y": -2}]}, "empty": {}, "arr": []}`,
	} {
		objects = append(objects, mustDecode(t, s))
	}
	checkStyles(t, objects)
}

func TestRepairOfCorpusValuesInModelStylesNeverChangesAValue(t *testing.T) {
	var objects []any
	for _, raw := range corpusWantArguments(t) {
		objects = append(objects, mustDecode(t, raw))
	}
	if objects == nil {
		t.Skip("corpus not present")
	}
	checkStyles(t, objects)
}

// jsonTok is one significant token of a JSON value.
type jsonTok struct {
	kind byte   // '{', '}', '[', ']', 's' string, 'n' number, 'l' literal
	text string // decoded string, number text, or "true"/"false"/"null"
}

// jsonTokens lists the significant tokens of valid JSON text. Text holding
// a stream of values gives all their tokens; invalid text, those before
// the error, with the error.
func jsonTokens(text string) ([]jsonTok, error) {
	// Duplicate names and invalid UTF-8 are accepted, as encoding/json
	// does (invalid bytes read as U+FFFD).
	dec := jsontext.NewDecoder(strings.NewReader(text),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var toks []jsonTok
	for {
		t, err := dec.ReadToken()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return toks, err
		}
		switch k := t.Kind(); k {
		case '{', '}', '[', ']':
			toks = append(toks, jsonTok{kind: byte(k)})
		case '"':
			toks = append(toks, jsonTok{kind: 's', text: t.String()})
		case '0':
			toks = append(toks, jsonTok{kind: 'n', text: t.String()})
		default: // true, false, null
			toks = append(toks, jsonTok{kind: 'l', text: t.String()})
		}
	}
}

// valueTokens lists the value tokens of valid JSON text, without closing
// brackets, for the prefix comparison below.
func valueTokens(t *testing.T, text string) []jsonTok {
	t.Helper()
	toks, err := jsonTokens(text)
	if err != nil {
		t.Fatalf("jsonTokens(%q): %v", text, err)
	}
	out := toks[:0:0]
	for _, tk := range toks {
		if tk.kind != '}' && tk.kind != ']' {
			out = append(out, tk)
		}
	}
	return out
}

// ambiguousCut reports whether a differing token is the known, inherent
// ambiguity of a cut: the text ends at a quote inside a string value (an
// apostrophe in a single-quoted string, an unescaped inner quote), which
// reads exactly like the string's closing quote. The value then holds a
// prefix of the meant string.
func ambiguousCut(cut string, k int, got, want []jsonTok) bool {
	r, _ := utf8.DecodeLastRuneInString(cut)
	return strings.ContainsRune(`"'“”‘’`, r) && k == len(got)-1 && got[k].kind == 's' && want[k].kind == 's' &&
		strings.HasPrefix(want[k].text, got[k].text)
}

// checkCutsNeverInvent cuts raw at every byte and checks that each cut is
// either refused or repaired to a prefix of the full value's tokens: a
// stream cut may lose the members after the cut, never change or invent a
// value.
func checkCutsNeverInvent(t *testing.T, raw string) {
	t.Helper()
	opt := defaultRepairOptions()
	full, err := repairArguments(raw, opt)
	if err != nil {
		t.Fatalf("repairArguments(%q): %v", raw, err)
	}
	want := valueTokens(t, full.json)
	for p := 0; p < len(raw); p++ {
		res, err := repairArguments(raw[:p], opt)
		if err != nil {
			continue
		}
		got := valueTokens(t, res.json)
		if len(got) > len(want) {
			t.Errorf("cut %q repaired to %s: more values than %s", raw[:p], res.json, full.json)
			continue
		}
		for k := range got {
			if got[k] != want[k] && !ambiguousCut(raw[:p], k, got, want) {
				t.Errorf("cut %q repaired to %s: value %d differs from %s", raw[:p], res.json, k, full.json)
				break
			}
		}
	}
}

func TestRepairOfACutStreamNeverInventsValues(t *testing.T) {
	for _, raw := range []string{
		`{"city": "Oslo", "days": 12, "tags": ["a b", "c"], "ok": true, "n": null, "geo": {"lat": 59.9, "lon": -10.75e1}}`,
		`{'city': 'Bob's place', 'days': 3, 'ok': True, 'none': None}`,
		// the dev corpus's shape: cut after the first item, it reads at one
		// fault as one long key (quote_style), and at two as the habit of
		// bare apostrophes and the cut: refused, never the key
		`{'restaurant_id': 'McDonald's', 'items': [{'item_id': 'burger123', 'quantity': 5}, {'item_id': 'wing456', 'quantity': 6}]}`,
		`{city: "Oslo", nested: {deep: [1, 2, 3]}, last: false}`,
		`{"title": "the "best" one", "n": 1, "s": "tail"}`,
		"<think>pick {\"n\": 1}</think>\n```json\n{\"n\": 2, \"s\": \"x\\ny\", \"u\": \"\\u00e9\"}\n```\nDone.",
		`{"a": 1} {"a": 1}`,
		`"{\"a\": [1, \"two\"], \"b\": {\"c\": \"d\"}}"`,
		"{\n  \"a\": \"x\", // note\n  \"b\": \"y\" /* c */\n}",
		`{“a”: “quoted”, “b”: 2}`,
	} {
		checkCutsNeverInvent(t, raw)
	}
}

func TestRepairOfACutCorpusStreamNeverInventsValues(t *testing.T) {
	raws := corpusRawArguments(t)
	if raws == nil {
		t.Skip("corpus not present")
	}
	for _, raw := range raws {
		if _, err := repairArguments(raw, defaultRepairOptions()); err != nil {
			continue
		}
		checkCutsNeverInvent(t, raw)
	}
}
