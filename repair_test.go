package saidex

import (
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

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
		{name: "unquoted value", raw: `{"city": Oslo}`, reason: "not quoted"},
		{name: "NaN", raw: `{"x": NaN}`, reason: "not quoted"},
		{name: "bare NaN", raw: `NaN`, reason: "no JSON object"},
		{name: "arithmetic", raw: `{"x": 2 * 3}`, reason: "unexpected character"},
		{name: "a dot without digits", raw: `{"b": .x}`, reason: "not a valid JSON number"},
		{name: "python tuple", raw: `{"pt": (1, 2)}`, reason: "unexpected character"},
		{name: "ellipsis", raw: `{...}`, reason: "unexpected character"},
		{name: "doubled colon", raw: `{"a": : 1}`, reason: "unexpected character"},
		{name: "closing before opening", raw: `}{`, reason: "after an opening bracket"},
		{name: "cut right after an inner quote", raw: `{"q": "the "best"`, reason: "cut off inside a string value"},
		{name: "cut after a string ending in a space", raw: `{"q": "New York "`, reason: "cut off inside a string value"},
		{name: "unpaired inner quote before a comma", raw: `{"q": "say "hi", "n": 1}`, reason: "unescaped quote"},
		{name: "unpaired inner quote before a brace", raw: `{"q": "a "5 screen"}`, reason: "unescaped quote"}, // "a 5\" screen" is an inch mark: repaired (issue 18)
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
