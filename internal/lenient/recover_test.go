package lenient

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// recoverSeeds are FuzzRepair's seeds for the repair classes of issue 22.
var recoverSeeds = []string{
	"{\"k\": \\n[3, 4]\\n}", "{\\t\"k\":\\r\\n 1}", `{"k": 1 \q}`, "{\\n  \\\"k\\\": 2\\n}",
	`{"picked: [3, 4]}`, `{"k: 1, "m": 2}`, `{"k: v": 1}`, `{"k m: 1}`,
	`{"k": 1}]`, `{"k": 1}]]`, `{"k": [1}, "m": 2}`, `{"k": [1}, "m": [2}}`,
	`{"k": NULL, "m": Null, "n": none, "o": TRUE, "p": FALSE}`, `{"k": NULLABLE}`, `{"k": "NONE"}`,
	`{"k": .25, "m": 7., "n": +7}`, `{"k": 7.`, `{"k": ..2}`, `{"k": +-1}`,
	`{7: "x", -2: "y"}`, `{7.5: "x"}`, `{07: "x"}`,
	`{"mode": fast, "id": 9f1c-22}`, `{"when": 2031-02-03}`, `{"mode": two words}`, `{"mode": fast`,
}

// allStrings is a Schema under which every location accepts only strings.
type allStrings struct{}

func (allStrings) OnlyString([]Segment) bool            { return true }
func (allStrings) AcceptsString([]Segment, string) bool { return true }

// stringsAt is a Schema that accepts only strings at the locations it
// lists, written as "/name/0/other" (indices as digits).
type stringsAt []string

func (stringsAt) AcceptsString([]Segment, string) bool { return true }

func (s stringsAt) OnlyString(path []Segment) bool {
	var b strings.Builder
	for _, seg := range path {
		b.WriteByte('/')
		if seg.Index >= 0 {
			b.WriteString(string(rune('0' + seg.Index)))
			continue
		}
		b.WriteString(seg.Name)
	}
	return slices.Contains(s, b.String())
}

// checkSchemaRepairs is checkRepairs with a schema.
func checkSchemaRepairs(t *testing.T, schema Schema, tests []repairCase) {
	t.Helper()
	opt := fix
	opt.Schema = schema
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, opt)
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.raw, err)
			}
			got, _ := jsonread.Decode(res.JSON)
			want, err := jsonread.Decode(tt.want)
			if err != nil {
				t.Fatalf("bad want %q: %v", tt.want, err)
			}
			if !reflect.DeepEqual(got, want) || !slices.Contains(res.Steps, tt.step) {
				t.Fatalf("Repair(%q) = %s %v, want %s with %s", tt.raw, res.JSON, res.Steps, tt.want, tt.step)
			}
		})
	}
}

func checkSchemaRefusals(t *testing.T, schema Schema, tests []refusalCase) {
	t.Helper()
	opt := fix
	opt.Schema = schema
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, opt)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Reason, tt.reason) {
				t.Fatalf("Repair(%q) = %s %v, %v; want a refusal saying %q", tt.raw, res.JSON, res.Steps, err, tt.reason)
			}
		})
	}
}

// \n, \r and \t written as two characters between tokens are the white
// space they escape; inside a string they stay escapes, and a backslash
// before anything else outside a string is refused, unless it is a bare
// token's own.
func TestRepairReadsEscapedWhitespaceBetweenTokens(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"before a value", "{\"rows\": \\n[3, 4]\\n}", `{"rows":[3,4]}`, EscapedWhitespace},
		{"after the opening brace", "{\\n  \"k\": [1]\\n}", `{"k":[1]}`, EscapedWhitespace},
		{"tab and carriage return", "{\"k\":\\t 1,\\r\\n\"m\": 2}", `{"k":1,"m":2}`, EscapedWhitespace},
		{"every quote escaped too", "{\\n  \\\"k\\\": 2\\n}", `{"k":2}`, DoubleEncoded},
		// An escaped backslash is a bare token's own: its quotes dropped
		// ("\\n 1"), the model's one reading.
		{"an escaped backslash", `{"k":\\n 1}`, `{"k":"\\n 1"}`, FixSyntax},
	})
	// Inside a string the two characters are an escape, as JSON has it.
	res, err := Repair(`{'k': 'a\nb'}`, fix)
	if err != nil || res.JSON != `{"k":"a\nb"}` || slices.Contains(res.Steps, EscapedWhitespace) {
		t.Errorf("escape inside a string: %s %v %v", res.JSON, res.Steps, err)
	}
	checkRefusals(t, []refusalCase{
		{"another escape", `{"k": 1 \q}`, "unexpected character '\\\\'"},
		{"an escaped backslash, past the model", pastModel(`{"k":\\n 1}`), "unexpected character '\\\\'"},
		{"a backslash at the end", `{"k": 1\`, "unexpected character '\\\\'"},
		{"touching a number, past the model", pastModel(`{"k": 42\n}`), "touches a value"},
		{"before a half-quoted string", `{"k": \nworld"}`, "touches a value"},
		// The text's first escape, after a string's closing quote: the
		// string's own ("v\n"), its quote moved?
		{"after a string value, the text not opening with it", `{"k": "v"\n, "m": 2}`, "follows a string's closing quote in a text that does not open with it"},
		{"after a string value, other escapes before it", `{"k": [1],\n "m": "v"\t}`, "follows a string's closing quote in a text that does not open with it"},
	})
}

// A key written up to its colon without its closing quote gets it where
// no other reading is one fault past (in double quotes, the key may hold
// the colon, its own dropped too: TestRepairDropsAReadingTheSchemaRules);
// a key the ordinary reading closes later (a quote followed by a colon)
// keeps that reading, and a key holding white space is refused.
func TestRepairClosesAKeyBeforeItsColon(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"single quotes", `{'k: [1], 'm': 2}`, `{"k":[1],"m":2}`, UnclosedKey},
	})
	// A colon inside a key that closes: no repair.
	if res, err := Repair(`{"k: v": 1, 'x': 2}`, fix); err != nil || res.JSON != `{"k: v":1,"x":2}` {
		t.Errorf("a key holding a colon: %s %v %v", res.JSON, res.Steps, err)
	}
	checkRefusals(t, []refusalCase{
		{"white space in the key", `{"k m: 1}`, "cut off inside a key"},
		{"nothing after the colon", `{"k:`, "cut off inside a key"},
		{"no value after the colon", `{"k: }`, "cut off inside a key"},
		{"a later quote closes it over a line break", "{\"k: 1,\n\t\": 2}", "runs over a line break"},
		{"the quote after the colon", `{"k:" 1}`, "ends with a colon"},
	})
}

// One ']' right after the complete object, the last of the text, opens
// nothing and is dropped; more closers, or text after it, are refused.
func TestRepairDropsAStrayCloserAfterTheObject(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"right after", `{"k": 1}]`, `{"k":1}`, StrayCloser},
		{"after white space", "{'k': [1, 2]}\n]\n", `{"k":[1,2]}`, StrayCloser},
	})
	checkRefusals(t, []refusalCase{
		{"text after it", `{"k": 1}] done`, "match no opening bracket"},
		{"an object in a list", `[{'k': 1}]`, "one item of a larger value"},
	})
}

// A wrong closing bracket is changed when exactly one change of it (the
// other kind, the other kind inserted before it, or none) reads the
// object to its end; with two readings, or none, it is refused.
func TestRepairChangesTheOneWrongCloser(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"} for ] before more members", `{"k": [1, 4}, "m": 2}`, `{"k":[1,4],"m":2}`, WrongCloser},
		{"a } missing before ]", `{"k": [{"m": 1], "n": 3}`, `{"k":[{"m":1}],"n":3}`, WrongCloser},
		{"doubled braces", `{{"k": [1, 4}, "m": 2}}`, `{"k":[1,4],"m":2}`, WrongCloser},
		{"] for } at the end", `{"k": 1]`, `{"k":1}`, WrongCloser},
		{"a reasoning tag in a value stays", "{\"k\": \"<think>x</think>\"]", `{"k":"<think>x</think>"}`, WrongCloser},
	})
	checkRefusals(t, []refusalCase{
		{"two readings", pastModel(`{"k": [1}, "m": [2}}`), "closes an array"},
		{"two readings of a ]", `{"k": [{"m": 1]}, "n": 2}`, "closes an object"},
		{"no reading", `{"k": [1}, "m": 2]}`, "closes an array"},
		{"a } in an array is not deleted", `{"k": [["a"}, []], "m"]}`, "closes an array"},
		{"a stray opener after a value", `{"k": [1, 2{], "m": 3}`, "touch with no comma"},
		{"a stray opener, or an object missing its }", `{"k": [1, {]}`, "closes an object"},
		{"] for } before members: or a stray ] and a } dropped at the end", `{"o": {"a": 1], "b": 2}`, "while no array is open"},
		{"} for ] before members: or a stray } and a ] dropped at the end", pastModel(`{"o": [1, 2}, "b": [3, 4]`), "closes an array"},
		{"a reading that needs a comma besides", `{"a": [true, {"k" "v"]}`, "closes an object"},
	})
}

// TRUE, FALSE, NULL, Null, none and NONE are literals, as True, False and
// None are; inside a word or a string they are text.
func TestRepairReadsLiteralsOfOtherCases(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"upper case", `{"k": TRUE, "m": FALSE, "n": NULL}`, `{"k":true,"m":false,"n":null}`, LiteralCase},
		{"Null", `{"k": Null}`, `{"k":null}`, LiteralCase},
		{"none", `{"k": [none, NONE]}`, `{"k":[null,null]}`, LiteralCase},
		{"before a missing colon", `{"k" NULL}`, `{"k":null}`, MissingColon},
	})
	res, err := Repair(`{"k": True}`, fix)
	if err != nil || !slices.Equal(res.Steps, []Step{FixSyntax}) {
		t.Errorf("Python's literals keep their step: %s %v %v", res.JSON, res.Steps, err)
	}
	if res, err := Repair(`{'k': 'NULL', 'm': "none"}`, fix); err != nil || res.JSON != `{"k":"NULL","m":"none"}` {
		t.Errorf("literals inside strings: %s %v %v", res.JSON, res.Steps, err)
	}
	checkRefusals(t, []refusalCase{
		{"mixed case", `{"k": tRUE}`, "is not quoted"},
		{"cut inside", `{"k": NUL`, "cut off inside a value"},
	})
}

// .5, 5. and +5 are the numbers 0.5, 5 and 5; anything else that is not
// a JSON number is refused, and 5. at the end of the text may be cut.
func TestRepairReadsLooseNumbers(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"leading dot", `{"k": .25}`, `{"k":0.25}`, LooseNumber},
		{"negative leading dot", `{"k": -.25}`, `{"k":-0.25}`, LooseNumber},
		{"trailing dot", `{"k": 7.}`, `{"k":7}`, LooseNumber},
		{"trailing dot, exponent", `{"k": 7.e2}`, `{"k":7e2}`, LooseNumber},
	})
	res, err := Repair(`{'k': 7., 'm': .5}`, fix)
	if err != nil || res.JSON != `{"k":7,"m":0.5}` {
		t.Errorf("canonical text: %s %v %v", res.JSON, res.Steps, err)
	}
	checkRefusals(t, []refusalCase{
		{"two dots", `{"k": 7..}`, "not a valid JSON number"},
		{"a dot alone", `{"k": .}`, "not a valid JSON number"},
		{"two signs", `{"k": +-7}`, "not a valid JSON number"},
		{"an exponent alone", `{"k": .e5}`, "not a valid JSON number"},
		{"cut after the dot", `{"k": 7.`, "cut off inside a number"},
		{"a sign at the end", `{"k": +`, "cut off inside a number"},
		{"a plus between numbers", `{"k": [12+1]}`, "touch with no comma"},
		{"a signed number after another", `{"k": [1 +2]}`, "not a valid JSON number"},
		{"a dot after a number", `{"k": [1 .5]}`, "not a valid JSON number"},
	})
}

// A key written as an integer is that integer's text; other numbers and
// words starting with a digit stay refused.
func TestRepairQuotesANumericKey(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"first member", `{7: "x"}`, `{"7":"x"}`, NumericKey},
		{"several", `{1: "a", 22: "b", -3: "c", 0: 1}`, `{"1":"a","22":"b","-3":"c","0":1}`, NumericKey},
		{"nested", `{"m": {2: [1]}}`, `{"m":{"2":[1]}}`, NumericKey},
	})
	checkRefusals(t, []refusalCase{
		{"no colon", pastModel(`{7 "x"}`), "unexpected character '7'"},
		{"after a value", `{"a": 1 2: 3}`, "unexpected character '2'"},
	})
}

// Where the schema accepts only a string, an unquoted token with no white
// space or quote that a comma or closing bracket ends is that string.
// Without a schema, where the schema allows more, for a token holding
// white space or quotes, or cut off at the end of the text, it is refused.
func TestRepairQuotesABareValueTheSchemaReadsAsAString(t *testing.T) {
	only := stringsAt{"/mode", "/id", "/when", "/tags/0", "/tags/1", "/o/url", "/v", "/w", "/lit"}
	checkSchemaRepairs(t, only, []repairCase{
		{"a word", `{"mode":both}`, `{"mode":"both"}`, QuotedBareValue},
		{"a word, spaces as the other values'", `{"mode": both, "n": "x"}`, `{"mode":"both","n":"x"}`, QuotedBareValue},
		// The white space around a bare token is layout (the model's
		// unquoted row), its one reading.
		{"indented item", "{\"tags\":[\n  red\n]}", `{"tags":["red"]}`, FixSyntax},
		{"a uuid", `{"id": 123e4567-e89b-12d3-a456-426614174000, "n": 1}`, `{"id":"123e4567-e89b-12d3-a456-426614174000","n":1}`, QuotedBareValue},
		{"a date, a line break after it", "{\"n\": 1,\n \"when\": 2031-02-03\n}", `{"n":1,"when":"2031-02-03"}`, QuotedBareValue},
		{"array items", `{"tags":[red,blue]}`, `{"tags":["red","blue"]}`, QuotedBareValue},
		{"array items on lines of their own", "{\"tags\": [\nred,\nblue\n]}", `{"tags":["red","blue"]}`, QuotedBareValue},
		{"a URL in a nested object", `{"o": {"url": https://x.example/a?b=1}}`, `{"o":{"url":"https://x.example/a?b=1"}}`, QuotedBareValue},
		{"a path", `{"v": /tmp/x.txt, "n": 2}`, `{"v":"/tmp/x.txt","n":2}`, QuotedBareValue},
		{"a word and more", `{"v": a@b.example, "w": x-1, "n": [3]}`, `{"v":"a@b.example","w":"x-1","n":[3]}`, QuotedBareValue},
	})
	// A JSON literal stays a literal, and a number a number: the schema
	// then refuses it, with feedback. A literal or number written
	// otherwise (None, +5) may be a string whose quotes are missing.
	res, err := Repair(`{"lit": true, "v": 12, "w": null}`, Options{FixSyntax: true, Schema: only})
	if err != nil || res.JSON != `{"lit": true, "v": 12, "w": null}` {
		t.Errorf("literals and numbers: %s %v %v", res.JSON, res.Steps, err)
	}
	checkSchemaRefusals(t, only, []refusalCase{
		// A stray ']' whose one reading holds one: that is the reason.
		{"a loose number after a stray bracket", pastModel(`{] "w": +5}`), "may be a string whose quotes are missing"},
		{"a leading zero, past the model", pastModel(`{"w": 05}`), "may be a string whose quotes are missing"},
	})
	// Where the schema does not accept the token as a string, it is the
	// literal or number.
	checkSchemaRepairs(t, typed{}, []repairCase{
		{"a Python literal", `{"w": None}`, `{"w":null}`, FixSyntax},
		{"a literal of another case", `{"w": TRUE}`, `{"w":true}`, LiteralCase},
		{"a loose number", `{"w": +5}`, `{"w":5}`, LooseNumber},
		{"a leading zero (read by the model)", `{"w": 05}`, `{"w":5}`, LooseNumber},
	})
	checkSchemaRefusals(t, only, []refusalCase{
		{"a quote inside", `{"mode": it's}`, "is not quoted"},
		{"cut at the end", `{"mode": both`, "is not quoted"},
		{"NaN", `{"v": NaN}`, "is not quoted"},
		{"a comment after it", `{"v": x//y}`, "is not quoted"},
		{"a key", `{mode, "v": 1}`, "a bare word where a key or value belongs"},
		// The spaces and escapes next to a token may be its value's own:
		// {"mode":" both"} with its quotes dropped (another fault besides,
		// so that the model's window costs two).
		{"a space before it, no other value", `{"mode": both,'q':1}`, "spaces before it that the text's other values do not"},
		{"more spaces than the other values", pastModel(`{"mode":  both, "n": 1, 'q': 1}`), "spaces before it that the text's other values do not"},
		{"the other values written compact", pastModel(`{'n':1,"mode": both}`), "spaces before it that the text's other values do not"},
		{"the other values spaced unevenly", pastModel(`{'n': 1,"m":2,"mode": both}`), "spaces before it that the text's other values do not"},
		{"indented item, past the model", pastModel("{\"tags\":[\n  red\n]}"), "spaces before it that the text's other values do not"},
		{"an escaped line break before it", `{"mode":\nboth}`, "may be part of a string whose quotes are missing"},
		{"an escaped line break and a space before it", `{"mode":\n both, "n":1}`, "follows an escape, an invisible character or a token"},
		{"a colon at its end", `{"mode":both:, "n":1}`, "is not quoted"},
		{"an ellipsis", `{"tags":["a",...]}`, "is not a valid JSON number"},
		// Inside a JSON string a line break or tab may be a decoded "\n"
		// of the value's own.
		{"double-encoded, a line break before it", "\"{\\\"mode\\\":\\nboth}\"", "is not quoted"},
		{"double-encoded, a tab after it", "\"{\\\"n\\\":\\\"p\\\",\\\"mode\\\":both\\t}\"", "is not quoted"},
		{"an escaped line break after it", `{"mode":both\n}`, "is not quoted"},
		{"an invisible character after it", "{\"mode\":both\u200b}", "is not quoted"},
	})
	// Where the schema accepts the token with none of the spaces before
	// it (an enum, a pattern), they are the layout.
	checkSchemaRepairs(t, unspaced{}, []repairCase{
		{"a space before it, the schema accepts no space", `{"mode": both}`, `{"mode":"both"}`, QuotedBareValue},
		{"indented item, the schema accepts no space", "{\"tags\":[\n    red\n]}", `{"tags":["red"]}`, QuotedBareValue},
	})
	checkSchemaRefusals(t, unspaced{}, []refusalCase{
		{"more spaces than asked about", pastModel(`{'q':1,"mode":` + strings.Repeat(" ", maxBareSpaces+1) + `both}`), "the schema accepts it with them"},
	})
	// The scanner's refusals without a schema (another fault besides,
	// so that the model's window costs two).
	checkRefusals(t, []refusalCase{
		{"no schema", pastModel(`{'q': 1, "mode": both}`), "is not quoted"},
		{"no schema, a number-like token", `{"when": 2031-02-03, 'q': 1}`, "unexpected character '-'"},
	})
	checkSchemaRefusals(t, stringsAt{"/other"}, []refusalCase{
		{"a schema that allows more here", pastModel(`{'q': 1, "mode": both}`), "is not quoted"},
	})
}

// The fault model reads a bare token as a string where its window holds
// that one value (the unquoted and bare_value rows: the white space
// around it is layout; a literal or a number is never a string), and a
// string in backquotes or between &quot; entities as that string (a bare
// token holds no quote mark).
func TestTheModelReadsABareToken(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"a word, no schema", `{"mode": both}`, `{"mode":"both"}`, FixSyntax},
		{"a date, no schema", `{"when": 2031-02-03}`, `{"when":"2031-02-03"}`, FixSyntax},
		{"two words", `{"mode": two words}`, `{"mode":"two words"}`, FixSyntax},
		{"a space after it", `{"mode":both , "n":1}`, `{"mode":"both","n":1}`, FixSyntax},
		{"more spaces than the other values", `{"mode":  both, "n": 1}`, `{"mode":"both","n":1}`, FixSyntax},
		{"the other values written compact", `{"n":1,"mode": both}`, `{"n":1,"mode":"both"}`, FixSyntax},
		{"a word holding a literal", `{"k": NULLABLE}`, `{"k":"NULLABLE"}`, FixSyntax},
		{"a word holding a literal in another case", `{"k": nonempty}`, `{"k":"nonempty"}`, FixSyntax},
		{"a version", `{"k": 1.2.3}`, `{"k":"1.2.3"}`, FixSyntax},
		{"a key with a leading zero", `{07: "x"}`, `{"07":"x"}`, FixSyntax},
		{"a key that is a fraction", `{7.5: "x"}`, `{"7.5":"x"}`, FixSyntax},
		{"a key starting with a digit", `{7a: "x"}`, `{"7a":"x"}`, FixSyntax},
		{"a visible symbol and a number", "{\"a\": \u2022 1}", "{\"a\":\"\u2022 1\"}", FixSyntax},
		{"a unicode escape in a token", `{"k":\u0020 1}`, `{"k":"\u0020 1"}`, FixSyntax},
		{"a word and a key after it", `{"a": hello, "b": 1}`, `{"a":"hello","b":1}`, FixSyntax},
		{"HTML entities as quotes", `{"mode":&quot;both&quot;}`, `{"mode":"both"}`, FixSyntax},
		{"backquotes", "{\"mode\":``}", `{"mode":""}`, FixSyntax},
		{"a word in backquotes", "{\"mode\":`both`}", `{"mode":"both"}`, FixSyntax},
	})
	only := stringsAt{"/mode", "/n"}
	checkSchemaRepairs(t, only, []repairCase{
		{"other types allowed", `{"n": both}`, `{"n":"both"}`, FixSyntax},
		{"a space before it, no other value", `{"mode": both}`, `{"mode":"both"}`, FixSyntax},
		{"more spaces than asked about", `{"mode":` + strings.Repeat(" ", maxBareSpaces+1) + `both}`, `{"mode":"both"}`, FixSyntax},
	})
	// Refused: the token with its escaped line break (one fault) or
	// without it (two) are both in the window; an invisible character
	// is neither layout nor part of a bare token, so no reading is left.
	checkRefusals(t, []refusalCase{
		{"escaped white space after a token", "{\"file_type\":css\\n  }", ""},
		{"an invisible character inside a number", "{\"a\": 1\u200b2}", ""},
	})
}

// The scanner tells the schema the location of the value: member names
// and item indices from the root.
func TestRepairAsksTheSchemaAtTheValuesLocation(t *testing.T) {
	var asked [][]Segment
	rec := recordingSchema{asked: &asked}
	_, err := Repair(`{"a": {"b": [1, {"c": x}]}, "d": [y]}`, Options{FixSyntax: true, Schema: rec})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Segment{{{Name: "a", Index: -1}, {Name: "b", Index: -1}, {Index: 1}, {Name: "c", Index: -1}}, {{Name: "d", Index: -1}, {Index: 0}}}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
}

// typed is a Schema that accepts no string anywhere.
type typed struct{}

func (typed) OnlyString([]Segment) bool            { return false }
func (typed) AcceptsString([]Segment, string) bool { return false }

// unspaced is a Schema that accepts only strings, and none that starts
// with a space.
type unspaced struct{}

func (unspaced) OnlyString([]Segment) bool { return true }
func (unspaced) AcceptsString(_ []Segment, v string) bool {
	return !strings.HasPrefix(v, " ")
}

type recordingSchema struct{ asked *[][]Segment }

func (recordingSchema) AcceptsString([]Segment, string) bool { return true }

func (r recordingSchema) OnlyString(path []Segment) bool {
	*r.asked = append(*r.asked, slices.Clone(path))
	return true
}

// A double-quoted value that swallowed members written in single quotes
// ("a, 'k': "v") is refused: its quote after the colon may open the
// next member's value.
func TestRepairRefusesAValueHoldingAMemberInOtherQuotes(t *testing.T) {
	checkRefusals(t, []refusalCase{
		{"after a single-quoted key", `{"a": "x, 'k': "v"}`, "follows a bracket or colon"},
	})
	checkRepairs(t, []repairCase{
		{"a colon and a quote in prose", `{'a': 'say: "hi"'}`, `{"a":"say: \"hi\""}`, FixSyntax},
	})
}
