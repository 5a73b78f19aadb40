package lenient

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// classSeeds are FuzzRepair's seeds for the repair classes of this file.
var classSeeds = []string{
	`{'q': 'abc' + 'def'}`, "{\"q\": \"a\" +\n \"b\"}", `{"q": "Use "+" to add"}`, `{"q": "abc" + name}`,
	"\"```json\\n{\\\"a\\\": 1}\\n```\"",
	"{\n \\\"a\\\": 1\n}", `Args: {\"a\": 1}`,
	`{"a": 1, {"a": 1, "b": 2}`, "{\"a\": \"x\n{\"a\": \"xy\"}", `{"a": {"a": 1}`,
	`{name": "Ann"}`, `{"a": hello", "b": 1}`, `{"a": hello" there}`,
	`{"item": "a 27" monitor"}`, `{"xs": ["say "hi"", "b"]}`,
	"{\"a\": \"x\"// c\n, \"b\": 1}", `{"a": "x"/* c */}`, `{"a": "x"//y", "b": 1}`,
	"{\"a\":\u200b\"b\",\u2060\"c\":\u00a01}", "{\"a\": 1\u200b2}",
	`{"a": 1, "b": 2}{"b": 2, "a": 1}`, `{"a": 1} so {"a": 1}`, `{"a": 1}{"a": 1.0}`,
	`Weather for {city}: {"city": "Paris"}`, `{"a": 1} fills {city}`, `{city} and {date}`,
	`{{"a": 1}}`, `{{city: 'Paris'}}`, `{{"a": 1}`, `{{"o": {"a": 1}}}`,
	`{"xs": [1, 2}`, `{"a": 1]`, `{"a": 1}}]}`, `{"xs": [1, 2}, "b": 3}`,
	`{, "a": 1}`, `{"a": 1},`, `{"a": 1}, {"b": 2}`,
	`{"city" "Paris"}`, `{city 'Paris'}`, `{"n" 2}`, `{"a"}`,
}

// repairCase is a repair the scanner must make: raw comes out as the value
// of want (JSON), with step among the steps reported.
type repairCase struct {
	name, raw, want string
	step            Step
}

// refusalCase is a near miss that must stay an error, whose reason
// contains reason.
type refusalCase struct {
	name, raw, reason string
}

func checkRepairs(t *testing.T, tests []repairCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, fix)
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.raw, err)
			}
			got, err := jsonread.Decode(res.JSON)
			if err != nil {
				t.Fatalf("Repair(%q) = %q: %v", tt.raw, res.JSON, err)
			}
			want, err := jsonread.Decode(tt.want)
			if err != nil {
				t.Fatalf("bad want %q: %v", tt.want, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Repair(%q) = %s, want %s", tt.raw, res.JSON, tt.want)
			}
			if !slices.Contains(res.Steps, tt.step) {
				t.Fatalf("Repair(%q): steps %v, want %s among them", tt.raw, res.Steps, tt.step)
			}
			if !slices.IsSortedFunc(res.Steps, func(a, b Step) int {
				return slices.Index(stepOrder, a) - slices.Index(stepOrder, b)
			}) {
				t.Fatalf("Repair(%q): steps %v out of order", tt.raw, res.Steps)
			}
		})
	}
}

func checkRefusals(t *testing.T, tests []refusalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, fix)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Repair(%q) = %s %v, %v; want a refusal", tt.raw, res.JSON, res.Steps, err)
			}
			if !strings.Contains(e.Reason, tt.reason) {
				t.Fatalf("Repair(%q): reason %q, want it to contain %q", tt.raw, e.Reason, tt.reason)
			}
		})
	}
}

// A string written as quoted pieces joined by '+' is the joined value,
// never a value holding the quotes and the plus sign.
func TestRepairJoinsAStringWrittenAsQuotedPieces(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"single quotes", `{'q': 'abc' + 'def'}`, `{"q":"abcdef"}`, JoinStrings},
		{"double quotes", `{"q": "abc" + "def", "n": 1}`, `{"q":"abcdef","n":1}`, JoinStrings},
		{"across a line break", "{\"q\": \"Hello, \" +\n    \"world\"}", `{"q":"Hello, world"}`, JoinStrings},
		{"plus on the next line", "{\"q\": \"a\"\n + \"b\"\n}", `{"q":"ab"}`, JoinStrings},
		{"three pieces, mixed quotes", `{"q": 'a' + "b" + 'c'}`, `{"q":"abc"}`, JoinStrings},
		{"no white space", `{"q": "ab"+"cd"}`, `{"q":"abcd"}`, JoinStrings},
		{"in an array", `{"xs": ["a" + "b", "c"]}`, `{"xs":["ab","c"]}`, JoinStrings},
		{"a key", `{"ab" + "c": 1}`, `{"abc":1}`, JoinStrings},
		{"quotes of the other kind inside", `{"q": 'say "hi"' + ' now'}`, `{"q":"say \"hi\" now"}`, JoinStrings},
	})
	checkRefusals(t, []refusalCase{
		{"joined to a variable", `{"q": "abc" + name}`, "not a quoted string"},
		{"joined to a number", `{"q": "abc" + 1}`, "not a quoted string"},
		{"a quoted plus sign", `{"q": "Use "+" to add"}`, "quoted '+'"},
		{"an inner quote before the plus", `{"q": "he said "x" + "y" later"}`, "unescaped quote next to a '+'"},
		{"cut after the plus", `{"q": "abc" + `, "cut off inside a string value"},
	})
}

// A colon missing between a key and its value, with white space between
// them, is inserted; a key followed by anything but a value is refused
// with a reason that says so, not as a cut.
func TestRepairInsertsAMissingColon(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"string value", `{"city" "Paris", "days": 3}`, `{"city":"Paris","days":3}`, MissingColon},
		{"number", `{"n" 2}`, `{"n":2}`, MissingColon},
		{"negative number", `{"n"  -2.5}`, `{"n":-2.5}`, MissingColon},
		{"bare key, single quotes", `{city 'Paris'}`, `{"city":"Paris"}`, MissingColon},
		{"object and array values", `{"o" {"p" 1}, "xs" [1, 2]}`, `{"o":{"p":1},"xs":[1,2]}`, MissingColon},
		{"literals", `{"t" true, "n" None}`, `{"t":true,"n":null}`, MissingColon},
		{"across a line break", "{\"a\"\n  \"b\"}", `{"a":"b"}`, MissingColon},
	})
	checkRefusals(t, []refusalCase{
		{"key without a value", `{"a"}`, "not followed by a colon and a value"},
		{"cut after the key", `{"a" `, "cut off after a key"},
		{"cut inside a key", `{"ab`, "cut off inside a key"},
	})
}

// A comma before an object's first member, or after the complete
// top-level object, is dropped; commas that may stand for a missing value
// or a second value stay errors.
func TestRepairDropsAStrayComma(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"after the opening brace", `{, "a": 1}`, `{"a":1}`, StrayComma},
		{"after the object", `{"a": 1},`, `{"a":1}`, StrayComma},
		{"after the object, before white space", "{\"a\": 1} ,\n", `{"a":1}`, StrayComma},
		{"after a broken object", `{'a': 1},`, `{"a":1}`, StrayComma},
	})
	checkRefusals(t, []refusalCase{
		{"a comma in place of a value", `{"a": , "b": 2}`, "unexpected character"},
		{"a comma before a second object", `{"a": 1}, {"b": 2}`, "one item of a larger value"},
		{"an object in a list", `[{"a": 1},`, "one item of a larger value"},
		// {"o": {}, "a": 1} with its '}' dropped reads the same.
		{"after a nested opening brace", `{"o": {,"a": 1}}`, "may follow an empty object whose closing brace is missing"},
	})
}

// A closing bracket that does not match the open container is repaired
// when it has one reading; surplus closers after the object are dropped
// when they are braces or one last ']', refused when a ']' is among more.
func TestRepairMendsMismatchedBrackets(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"missing ] before the final }", `{"xs": [1, 2}`, `{"xs":[1,2]}`, MismatchedBracket},
		{"] closing the object", `{"a": 1]`, `{"a":1}`, WrongCloser},
		{"] closing a nested object", `{"o": {"a": 1]}`, `{"o":{"a":1}}`, WrongCloser},
		{"a stray ] in an object", `{"o": {] "a": 1}}`, `{"o":{"a":1}}`, WrongCloser},
		{"one surplus }", `{"a": 1}}`, `{"a":1}`, ExtractObject},
		{"} then more members", `{"xs": [1, 2}, "b": 3}`, `{"xs":[1,2],"b":3}`, WrongCloser},
		{"} after an opening [", `{"xs": [}`, `{"xs":[]}`, WrongCloser},
		{"] with an array open below", `{"xs": [{"a": 1]}`, `{"xs":[{"a":1}]}`, WrongCloser},
		{"surplus ]", `{"a": 1}]`, `{"a":1}`, StrayCloser},
	})
	checkRefusals(t, []refusalCase{
		{"} with two readings", pastModel(`{"xs": [1}, "b": [2}}`), "closes an array"},
		{"} after an array of one item: its ] dropped, or its [ stray", `{"a": 1, "ys": [3}`, "its '[' is stray"},
		{"] for a comma after a value", `{"a": {}] "b": 2}`, "while no array is open"},
		{"[} : the [ mistyped, or the ] dropped", `{"a": [}}`, "ambiguous"},
		{"{] : the { mistyped, or the } mistyped", `{"a": {]}`, "ambiguous"},
		{"] with no array open: a stray one, or an array's [ dropped", `{"a": 1], "b": 2}`, "while no array is open"},
		{"] with two readings", `{"xs": [{"a": 1]}, "c": 2}`, "closes an object"},
		{"surplus }]}", `{"a": 1}}]}`, "match no opening bracket"},
		{"an object in a list", `[{'a': 1}]`, "one item of a larger value"},
	})
}

// An object written with doubled braces, as template engines escape them,
// is the object; it must close as it opened.
func TestRepairReadsDoubledBraces(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"outer braces doubled", `{{"city": "Paris", "days": 3}}`, `{"city":"Paris","days":3}`, DoubledBraces},
		{"with bare keys and single quotes", `{{city: 'Paris'}}`, `{"city":"Paris"}`, DoubledBraces},
		{"every object doubled", `{{"o": {{"a": 1}}, "xs": [{{"b": 2}}]}}`, `{"o":{"a":1},"xs":[{"b":2}]}`, DoubledBraces},
		{"only the outer doubled", `{{"o": {"a": 1}}}`, `{"o":{"a":1}}`, DoubledBraces},
		{"white space inside", "{{ \"a\": 1 }}", `{"a":1}`, DoubledBraces},
		{"with prose and a fence", "Call:\n```json\n{{\"a\": [1, 2]}}\n```", `{"a":[1,2]}`, DoubledBraces},
		{"empty", `{{}}`, `{}`, DoubledBraces},
	})
	checkRefusals(t, []refusalCase{
		{"closed with one brace", `{{"a": 1}`, "closed with a single '}'"},
		{"two objects in braces", `{{"a": 1}, {"b": 2}}`, "closed with a single '}'"},
		{"apart braces", `{ {"a": 1} }`, "unexpected character"},
	})
}

// Brace placeholders in the prose around the object are prose: they are
// not objects, so they are neither extracted nor counted as a second
// object.
func TestRepairSkipsBracePlaceholdersInProse(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"before the object", `Weather for {city}: {"city": "Paris"}`, `{"city":"Paris"}`, Placeholders},
		{"after the object", `{"city": "Paris"} fills {city} and { days }.`, `{"city":"Paris"}`, Placeholders},
		{"both sides, broken object", `Template {name}/{user.id}: {name: 'Ann'} -> {{greeting}}`, `{"name":"Ann"}`, Placeholders},
		{"positional", `{0} is {"a": 1}`, `{"a":1}`, Placeholders},
	})
	checkRefusals(t, []refusalCase{
		{"placeholders only", `Fill in {city} and {date}.`, "no JSON object"},
		{"an ellipsis is no placeholder", `{...}`, "unexpected character"},
		{"an object after a placeholder and an object", `{city}: {"a": 1} or {"b": 2}`, "two"},
		{"an empty object is an object", `{"a": 1} or {}`, "two"},
		{"a key and a value is an object", `{"a": 1} e.g. {a: 2}`, "two"},
	})
}

// The same object sent again, with its members in another order, back to
// back or in the prose after it, is one object; equality is on values.
func TestRepairDropsCopiesEqualInValue(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"keys in another order", `{"a": 1, "b": [2, 3]}{"b": [2, 3], "a": 1}`, `{"a":1,"b":[2,3]}`, RepeatedObject},
		{"nested keys in another order", "{'o': {'x': 1, 'y': 2}}\n{\"o\": {\"y\": 2, \"x\": 1}}", `{"o":{"x":1,"y":2}}`, RepeatedObject},
		{"escapes written otherwise", `{"a": "é"} {"a": "\u00e9"}`, `{"a":"é"}`, RepeatedObject},
		{"a copy in the prose after", `{"city": "Oslo", "days": 2} I called it with {"days": 2, "city": "Oslo"}.`, `{"city":"Oslo","days":2}`, RepeatedObject},
		{"an example before, the call after", `Example: {"days": 2, "city": "Oslo"}. Call: {"city": "Oslo", "days": 2}`, `{"city":"Oslo","days":2}`, RepeatedObject},
	})
	checkRefusals(t, []refusalCase{
		{"a value differs", `{"a": 1, "b": 2}{"b": 2, "a": 3}`, "two different JSON objects"},
		{"a member more", `{"a": 1}{"a": 1, "b": 2}`, "two different JSON objects"},
		{"a number written otherwise", `{"a": 1}{"a": 1.0}`, "two different JSON objects"},
		{"a different object in the prose", `{"a": 1} or maybe {"a": 2}`, "two JSON objects"},
		{"array order matters", `{"a": [1, 2]}{"a": [2, 1]}`, "two different JSON objects"},
	})
}

// Invisible characters between tokens are white space; inside a string
// they are the value's characters.
func TestRepairReadsInvisibleCharactersAsWhiteSpace(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"no-break space after a colon", "{\"a\":\u00a0\"b\"}", `{"a":"b"}`, InvisibleSpace},
		{"word joiner and no-break space", "{\"a\": 1,\u2060 \"c\":\u00a0[1,\u200b 2]}", `{"a":1,"c":[1,2]}`, InvisibleSpace},
		{"after a string, before a comma", "{\"a\": \"x\"\u3000, \"b\": 2}", `{"a":"x","b":2}`, InvisibleSpace},
		{"zero-width, between a comma and a bracket", "{\"a\": 1,\u200b \"c\": [1,\u200b [2]]}", `{"a":1,"c":[1,[2]]}`, InvisibleSpace},
		{"before a bare key's colon", "{key \u200b: 'v'}", `{"key":"v"}`, InvisibleSpace},
		{"ideographic space", "{\u3000\"a\": 1}", `{"a":1}`, InvisibleSpace},
		{"kept inside a string", "{\"a\": \"x\u200by\", 'b': 1}", "{\"a\":\"x\u200by\",\"b\":1}", FixSyntax},
		// The fault model's invisible row reads these, where the scanner
		// refuses: a bare token holds no invisible character, so the
		// window holds one value.
		{"touching an item", "{\"c\": [1,\u200b2]}", `{"c":[1,2]}`, InvisibleSpace},
		{"touching a literal", "{\"c\":\u2028true}", `{"c":true}`, InvisibleSpace},
		// A zero-width character touching a quote is layout, as a space
		// is: a quote never moves over white space, an invisible
		// character's included (faultmodel.QuoteMovesOver).
		{"zero-width, after a colon, before a string", "{\"a\":\u200b\"b\"}", `{"a":"b"}`, InvisibleSpace},
		{"zero-width, after a string", "{\"a\": \"x\"\u200b, \"b\": 2}", `{"a":"x","b":2}`, InvisibleSpace},
	})
	checkRefusals(t, []refusalCase{
		{"a zero-width space inside a number", "{\"a\": 1\u200b2}", "touches an unquoted value"},
		// With a second fault (a key in single quotes) the window costs
		// two, and the scanner's reason stands: the character and the
		// token may be one string whose quotes are missing ("\u200b2").
		{"touching a bare key", "{key\u200b: 'v'}", "touches an unquoted value"},
	})
}

// A comment touching a value, with no white space between them, is a
// comment; one that may be part of the value stays an error, and a
// refusal names no cut where the text is not cut.
func TestRepairReadsACommentTouchingAValue(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"line comment after a string", "{\"a\": \"x\"// the city\n, \"b\": 1}", `{"a":"x","b":1}`, FixSyntax},
		{"block comment after a string", `{"a": "x"/* note */, "b": 1}`, `{"a":"x","b":1}`, FixSyntax},
		{"hash comment before the closing brace", "{'a': 'x'# note\n}", `{"a":"x"}`, FixSyntax},
		{"comment before a key on the next line", "{\"a\": \"x\"// note\n\"b\": 1}", `{"a":"x","b":1}`, FixSyntax},
		{"after a number", "{\"a\": 1// note\n}", `{"a":1}`, FixSyntax},
		{"after a literal", `{"a": true/* note */}`, `{"a":true}`, FixSyntax},
		{"before a value", `{"a":/* note */"x"}`, `{"a":"x"}`, FixSyntax},
		{"a URL in a value is no comment", `{'u': "http://x.org/a", "b": 1}`, `{"u":"http://x.org/a","b":1}`, FixSyntax},
	})
	checkRefusals(t, []refusalCase{
		{"a quote in the comment", `{"a": "x"//y", "b": 1}`, "a comment touches a quote"},
		{"a block comment never closed", `{"a": 1 /* note`, "cut off inside a comment"},
		{"the text ends in the comment", `{"a": "x"// note`, "a comment touches a quote"},
	})
}

// A JSON string whose content is a fenced code block holding the object
// is that object.
func TestRepairUnwrapsAFencedObjectInAString(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"fence in a string", `"` + "```json\\n{\\\"a\\\": 1}\\n```" + `"`, `{"a":1}`, DoubleEncoded},
		{"fence without a tag, broken object", `"` + "```\\n{'a': [1, 2,]}\\n```" + `"`, `{"a":[1,2]}`, CodeFence},
		{"two layers", `"\"` + "```json\\\\n{\\\\\\\"a\\\\\\\": 1}\\\\n```" + `\""`, `{"a":1}`, DoubleEncoded},
		{"in prose", `Args: "` + "```json\\n{\\\"a\\\": 1}\\n```" + `"`, `{"a":1}`, DoubleEncoded},
	})
}

// An object whose quotes are all backslash-escaped (a stringified object
// without its outer quotes) is the object.
func TestRepairReadsAnObjectWithEscapedQuotes(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"compact", `{\"a\": \"b\", \"n\": 1}`, `{"a":"b","n":1}`, DoubleEncoded},
		{"white space after the brace", `{ \"a\": [1, 2] }`, `{"a":[1,2]}`, DoubleEncoded},
		{"line breaks", "{\n  \\\"a\\\": \\\"b\\\",\n  \\\"c\\\": true\n}", `{"a":"b","c":true}`, DoubleEncoded},
		{"escaped quotes inside a value", `{\"q\": \"say \\\"hi\\\"\"}`, `{"q":"say \"hi\""}`, DoubleEncoded},
		{"with prose", `Arguments: {\"a\": 1} as asked`, `{"a":1}`, DoubleEncoded},
		{"and broken inside", `{\"a\": 1,}`, `{"a":1}`, FixSyntax},
	})
	checkRefusals(t, []refusalCase{
		{"escaped and plain quotes mixed", `{\"a": 1}`, "unexpected character"},
	})
}

// Unescaped quotes used as characters: inch and second marks after a
// digit, and an inner quote closed right before the string's closing
// quote in an array item, are the value's characters.
func TestRepairKeepsQuotesUsedAsCharacters(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"inch mark", `{"item": "a 27" monitor", "n": 1}`, `{"item":"a 27\" monitor","n":1}`, FixSyntax},
		{"two inch marks", `{"item": "between 24" and 27" wide"}`, `{"item":"between 24\" and 27\" wide"}`, FixSyntax},
		{"inch mark at the end of a word", `{"size": "27"-wide screen"}`, `{"size":"27\"-wide screen"}`, FixSyntax},
		{"a quoted number stays quoted", `{"q": "press "5" now"}`, `{"q":"press \"5\" now"}`, FixSyntax},
		{"inner quote before the closing quote in an array", `{"xs": ["say "hi"", "b"]}`, `{"xs":["say \"hi\"","b"]}`, FixSyntax},
		{"the same at the array's end", `{"xs": ["a", "the "end""]}`, `{"xs":["a","the \"end\""]}`, FixSyntax},
		{"the same in an object", `{"q": "say "hi"", "b": 1}`, `{"q":"say \"hi\"","b":1}`, FixSyntax},
	})
	checkRefusals(t, []refusalCase{
		{"an inner quote followed by a comma", `{"q": "say "hi", then", "b": 1}`, "where the value ends is ambiguous"},
		{"an inch mark, then an unpaired quote", `{"q": "the 27" and "x, "b": 1}`, "unexpected character"},
		{"an inch mark, then a quote before a comma", `{"q": "27" and "x", "b": 1}`, "ambiguous"},
		{"cut after an inner quote", `{"q": "say "hi"`, "cut off inside a string value"},
	})
}

// A key or string value whose opening quote is missing, and whose closing
// quote is present, is that string; without the closing quote, or with
// the quote's role unclear, it stays an error.
func TestRepairAddsAMissingOpeningQuote(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"a key", `{name": "Ann", "age": 3}`, `{"name":"Ann","age":3}`, MissingQuote},
	})
	checkRefusals(t, []refusalCase{
		{"a literal in another case and a quote", `{"a":none"}`, "a literal at byte"},
		{"an upper-case literal and a quote", `{"a": 1, "b":TRUE"}`, "a literal at byte"},
		{"a word right after [: the [ may be the quote, mistyped", `{"a": [word"}`, ""},
		{"a quote inside the words", `{"a": say "hi", "b": 1}`, "not quoted"},
		{"quote not closing", `{"a": hello" there}`, "not quoted"},
		{"a bare key without colon", `{name" 1}`, "bare word"},
		// An apostrophe after a word is as often part of it: city' may
		// be the key.
		{"an apostrophe after a key", `{"a": 1, city': 'Oslo'}`, "bare word"},
		{"a literal and a quote", `{"a":false", "b": 1}`, "a literal at byte 5 is followed by a quote"},
		// White space before the word may be the value's own (" hello"):
		// the value's start is unknown (issue 21's oracle).
		{"a value after white space", `{"a": hello", "b": 1}`, "not quoted"},
		{"an array item after white space", `{"xs": ["a", b", "c"]}`, "not quoted"},
	})
}

// The search for a missing opening quote is not repeated for every word
// of a long line of bare words.
func TestRepairOfBareWordsIsLinear(t *testing.T) {
	for _, n := range []int{1 << 10, 1 << 16} {
		raw := `{"a": [` + strings.Repeat("true ", n) + `]}`
		res, err := Repair(raw, fix)
		if err != nil || strings.Count(res.JSON, "true") != n {
			t.Fatalf("%d words: %.40s %v", n, res.JSON, err)
		}
	}
}

// Cumulative re-sends of a stream (each piece a prefix of the next, the
// last complete) are the last piece; pieces that are not prefixes of the
// last, or a last piece that is not complete, stay errors.
func TestRepairKeepsTheLastOfCumulativeResends(t *testing.T) {
	whole := `{"city": "Paris", "days": 3}`
	checkRepairs(t, []repairCase{
		{"three pieces", whole[:9] + whole[:19] + whole, `{"city":"Paris","days":3}`, CumulativeStream},
		{"on separate lines", whole[:12] + "\n" + whole[:20] + "\n" + whole + "\n", `{"city":"Paris","days":3}`, CumulativeStream},
		{"a broken last piece", `{'a': 1, ` + `{'a': 1, 'b': [2,],}`, `{"a":1,"b":[2]}`, CumulativeStream},
	})
	checkRefusals(t, []refusalCase{
		{"a piece that is no prefix", `{"city": "Rome", ` + whole, ""},
		{"the last piece cut", whole[:9] + whole[:19], ""},
		{"a cut stream or re-sends", `{"a": [1, {"a": [1, 2]}`, "ambiguous"},
	})
}

// Gemma 4 writes a tool call's strings between <|"|> tokens, their text
// as it is: quotes, braces and commas inside are text, and there are no
// escapes. Each pair becomes a JSON string; a token missing, a pair out
// of place, and a backslash that may be an escape are refused.
func TestRepairReadsStringsBetweenTemplateQuoteTokens(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"bare keys, token strings", `{action:<|"|>final_answer<|"|>,done:false}`, `{"action":"final_answer","done":false}`, TemplateQuotes},
		{"quotes, braces, commas and a line break inside", "{q:<|\"|>say \"hi\", {x}\nthen<|\"|>}", `{"q":"say \"hi\", {x}\nthen"}`, TemplateQuotes},
		{"in an array, mixed with JSON strings", `{"refs":[<|"|>a<|"|>, "b"], "n": 1}`, `{"refs":["a","b"],"n":1}`, TemplateQuotes},
		{"a backslash that is no escape", `{p:<|"|>C:\Users\x<|"|>}`, `{"p":"C:\\Users\\x"}`, TemplateQuotes},
		{"a token string as a key", `{<|"|>my key<|"|>: 1}`, `{"my key":1}`, TemplateQuotes},
		{"an empty string", `{a:<|"|><|"|>}`, `{"a":""}`, TemplateQuotes},
	})
	checkRefusals(t, []refusalCase{
		{"opening token left out", `{query:Paris, France<|"|>,limit:5}`, "pairs with none"},
		{"opening tokens left out twice", `{a:x<|"|>, b:y<|"|>}`, "is not where a key or value is"},
		{"a backslash-n: two characters, or a line break?", `{a:<|"|>line\nline<|"|>}`, "may be an escape"},
		{"a token inside a quoted string", `{"a": "x <|"|>y<|"|>"}`, "inside a string written with quote marks"},
	})
}
