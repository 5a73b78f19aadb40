package lenient

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/faultmodel"
	engine "github.com/saidex/saidex-go/internal/readings"
)

// Texts the scanner refuses whose readings one fault past the cheapest
// all cut a value (a quote inserted, or a key left open, and the text
// cut inside the string it opens): a reading that leaves its value
// unknown refuses only among the cheapest (the decision rule), so the
// window holds one value, which runs. Each was a refusal case of the
// scanner's own tests.
func TestRepairRunsWhereOnlyACutReadingIsOneFaultPast(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"key then a bare word", `{"a" b}`, `{"a":"b"}`, MissingColon},
		{"an invisible character touching an item, single quotes", "{'c': [1,\u200b2]}", `{"c":[1,2]}`, InvisibleSpace},
		{"an invisible character touching a literal, single quotes", "{'c':\u2028true}", `{"c":true}`, InvisibleSpace},
		{"an invisible character before a word", "{\"mode\":\u200bboth}", `{"mode":"both"}`, InvisibleSpace},
		{"a tab at a key's end, a value in single quotes", "{\"key\t\": 'v'}", `{"key\t":"v"}`, FixSyntax},
		{"a single-quoted key glued to a value", `{"k":"x"'c':1}`, `{"k":"x","c":1}`, FixSyntax},
		{"a key holding an opening bracket, a trailing comma", `{'a[b': 1,}`, `{"a[b":1}`, FixSyntax},
		{"cut after an invisible character after a complete value", "{\"q\": {}\u200b", `{"q":{}}`, InvisibleSpace},
		{"a text ending with a brace, escaped white space in the object it closes", `{"key":{ \n}`, `{"key":{}}`, EscapedWhitespace},
		{"escaped white space after a trailing comma", `{"a": [1,\n]}`, `{"a":[1]}`, EscapedWhitespace},
		{"escaped white space alone after a trailing comma", `{"k": [1, \n]}`, `{"k":[1]}`, EscapedWhitespace},
		{"escaped white space alone in an array", `{"k": [\r\n]}`, `{"k":[]}`, EscapedWhitespace},
		{"escaped white space before a literal", `{"k": \r\nnull}`, `{"k":null}`, EscapedWhitespace},
		{"an array closed after a trailing comma, then a key", "{\"a\": [1, 2,]\n \"b\": 3}", `{"a":[1,2],"b":3}`, FixSyntax},
		{"a } dropped after one of several members", `{"k": [{"m": 1, "n": 2], "o": 3}`, `{"k":[{"m":1,"n":2}],"o":3}`, MismatchedBracket},
		{"a plus sign and a leading zero", `{"k": +07}`, `{"k":7}`, LooseNumber},
		{"a bare word after a number", `{"tags": [1 b]}`, `{"tags":[1,"b"]}`, FixSyntax},
	})
	// Where the cut reading is among the cheapest, it refuses: a bare
	// word or a string in single quotes at the end may have gone on.
	checkRefusals(t, []refusalCase{
		{"cut right after a bare word", `{"k": NUL`, ""},
		{"cut right after a string in single quotes", `{"k": 'x'`, ""},
		{"a bare URL path: the token, or a word and a comment", `{"v": x//y}`, ""},
	})
}

// Texts the scanner refuses whose rival reading the table prices past the
// window: a list one fault past the cheapest object names no arguments a
// call could run (the decision rule counts a list only among the
// cheapest); no closing quote moves back over the comma after it (the comma row's
// one keystroke reads a trailing comma, quote_moved's MovedQuoteOpens);
// braces doubled throughout are one layer
// (doubled_braces); a '+' before no number is no number's sign
// (loose_number). Each was a refusal case of the scanner's own tests.
func TestRepairRunsWhereTheRivalIsPricedPastTheWindow(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"two ']' after the object", `{"k": 1}]]`, `{"k":1}`, WrongCloser},
		{"a '}' and a ']' after the object", `{"a": 1}}]`, `{"a":1}`, WrongCloser},
		{"an encoded object missing its last brace", `"{\"a\": \"x\", \"b\": \"y\""`, `{"a":"x","b":"y"}`, DoubleEncoded},
		{"an encoded object, an escaped tab after a trailing comma", `"{\"a\": [\"x\", \t]}"`, `{"a":["x"]}`, DoubleEncoded},
		{"a bare word, a trailing comma", `{"mode":both,}`, `{"mode":"both"}`, FixSyntax},
		{"a trailing comma after an empty string", "{\"a\": \"\", \n}", `{"a":""}`, FixSyntax},
		{"a trailing comma after a single-quoted string", `{"a": 1, "b":' x',}`, `{"a":1,"b":" x"}`, FixSyntax},
		// Braces doubled throughout are one layer (doubled_braces, one
		// fault): a key's quote moved past its '{' and a '}' too many
		// cost three.
		{"doubled braces, a key ending with an unmatched '}'", `{{"x}":{}}}`, `{"x}":{}}`, DoubledBraces},
		// A '+' is a number's sign only where a number goes on after it
		// (loose_number): before a line break it joins two strings.
		{"a '+' glued to a quote in an array, a line break after it", "{\"a\": [\n  \"x\"+\n  \"y\"\n]}", `{"a":["xy"]}`, JoinStrings},
	})
	checkRefusals(t, []refusalCase{
		{"an apostrophe escaped as JavaScript escapes it, or a backslash as itself", `{"a": "it\'s",}`, "holds \\'"},
	})
}

// Texts the scanner refuses whose window, under the fault model, holds
// one value: the readings engine reads them (model.go). Each was a
// refusal case of the scanner's own tests before the switch; the reason
// it is now a repair is the window's, named in the commit that moved it
// ("both readings cost 1": the scanner's second reading costs two faults
// or more; "the window holds one value").
func TestRepairReadsByTheModelWhereTheScannerRefused(t *testing.T) {
	checkRepairs(t, []repairCase{
		// One comment, ended early (at the brace, or before the object), or a
		// block comment from its opener to the first closer: the window holds
		// one value.
		{"the comment swallows the brace", `{"a": "x"//note}`, `{"a":"x"}`, FixSyntax},
		{"a block comment holding a quote", `{"a": /*", "b": /* note */"x", "c": 1}`, `{"a":"x","c":1}`, FixSyntax},
		{"a '#' glued to a string's quote, then another comment", "{\n\t\"a\": \"// x\"# // x\n}", `{"a":"// x"}`, FixSyntax},
		{"an object on a comment line, after a slash comment (the comment and the wrapper rows both cost one)", `// {"a": 1}`, `{"a":1}`, ExtractObject},
		// Escaped white space alone is layout, never a bare token (the
		// unquoted row); a number is never a string in a value's place
		// (the numeric_key row reads keys): one reading each.
		{"escaped white space touching a number", `{"k": 42\n}`, `{"k":42}`, EscapedWhitespace},
		{"escaped white space between a value and a comma, in an array", `{"c": [100 \n, ""]}`, `{"c":[100,""]}`, EscapedWhitespace},
		{"escaped object, an escaped line break alone in an array", `{\"a\": [\n]}`, `{"a":[]}`, DoubleEncoded},
		// TestRepairKeepsTheLastOfCumulativeResends
		{"pieces getting shorter", `{"city": "Paris", "{"city": {"city": "Paris", "days": 3}`, `{"city":"Paris","days":3}`, RepeatedObject},
		{"key touching a number", `{"a"2}`, `{"a":2}`, MissingColon},
		{"two commas", `{"a": 1,, "b": 2}`, `{"a":1,"b":2}`, FixSyntax},
		{"an empty string after a run of spaces", "{\n  \"p\":    \"\"\n  \"t\": 1\n}", `{"p":"","t":1}`, FixSyntax},
		{"an item ending with an escaped backslash, a comma missing", `{"a": ["\\" "y"]}`, `{"a":["\\","y"]}`, FixSyntax},
		{"a ']' where a member's value belongs", `{"items": ] "x", "b": 1}`, `{"items":"x","b":1}`, WrongCloser},
		{"colon missing across a line break before a bracket", "{\"a\": [{\"b\": 1}],\n  \"x\"\n  []\n}", `{"a":[{"b":1}],"x":[]}`, MissingColon},
		{"an empty string, then an item with no comma", "{\"k\": [\"\" \"\"]}", `{"k":["",""]}`, FixSyntax},
		{"a value holding the layout's space, then a key", `{"k":" false" "c": 100, "u": 1}`, `{"k":" false","c":100,"u":1}`, FixSyntax},
		// TestRepairRefusesGuessesAfterTwoFaults: no row deletes an apostrophe,
		// so the window holds the one single-quoted string.
		{"a single-quoted value holding the layout's space", "{\n    \"a\": 42,\n    \"c\":' 0.5',\n    \"b\": 3\n}", `{"a":42,"c":" 0.5","b":3}`, FixSyntax},
		{"an item ending in a comma and a space, then a string", `{"a": ["x, " "b"]}`, `{"a":["x, ","b"]}`, FixSyntax},
		{"inner quote, then a literal, in an array", `{"c": ["a" null, "b"]}`, `{"c":["a",null,"b"]}`, FixSyntax},
		{"inner quote, then a spaced number, in an array", `{"c": ["a" 1, "b"]}`, `{"c":["a",1,"b"]}`, FixSyntax},
		{"escaped white space after an empty string and spaces", `{"d":""  \n}`, `{"d":""}`, EscapedWhitespace},
		{"an empty string after a string with no comma", `{"a":["\\" ""]}`, `{"a":["\\",""]}`, FixSyntax},
		{"a key after a string holding only a brace, no comma", "{\"a\": \"{\"\n\t\t\"b\": true\n}", `{"a":"{","b":true}`, FixSyntax},
		{"a key ending with a colon and an invisible space", "{\n\t\"y:\u00a0\" -0\n}", "{\"y:\u00a0\":-0}", MissingColon},
		{"a quote escaped twice", `{"text":"see \\"hi\\" here"}`, `{"text":"see \"hi\" here"}`, DoubleEncoded},
		{"comma missing between objects, a nested one closed before members", `{"a": [{"b": {"c": 1}, "d": 2} {"e": 3}]}`, `{"a":[{"b":{"c":1},"d":2},{"e":3}]}`, FixSyntax},
		{"after a string value and a space", `{"k": "v" \n}`, `{"k":"v"}`, EscapedWhitespace},
		{"touching a value", `{"k": [["a", }7]]}`, `{"k":[["a",7]]}`, WrongCloser},
		{"} for ] after one item, members after: its [ may be stray, the } early", `{"k": [1}, "m": 2}`, `{"k":[1],"m":2}`, WrongCloser},
		{"the same, an apostrophe in the item: the items are not counted", `{"k": ["it's"}, "m": 2}`, `{"k":["it's"],"m":2}`, WrongCloser},
		// TestRepairRefusesGuessesAfterTwoFaults: a backslash and a line
		// break read as themselves cost a habit and an escape, one more
		// than the line continuation.
		{"a line continuation", "{\"a\":\"t\\\na\"}", `{"a":"ta"}`, FixSyntax},
		{"a \\u escape that is none, its backslash written as itself", `{"a": "\u12G4"}`, `{"a":"\\u12G4"}`, FixSyntax},
		// A text cut right after a complete value (the cut row switched):
		// the cut costs one fault; its last quote an inner quote, the
		// value cut inside it, costs three.
		{"cut after a string ending with an opening parenthesis", `{"code": "s.replace("`, `{"code":"s.replace("}`, FixSyntax},
		{"cut after a string ending in a space", `{"q": "New York "`, `{"q":"New York "}`, FixSyntax},
		{"cut after a string holding closers", `{"a": " []}{"`, `{"a":" []}{"}`, FixSyntax},
		{"cut after a string holding an escape", `{"id": 1, "t": "\t"`, `{"id":1,"t":"\t"}`, FixSyntax},
		{"cut after a number and a line break", "{\n  \"id\": 100\n", `{"id":100}`, FixSyntax},
	})
	// A literal or number written otherwise where the schema accepts a
	// string: the model prices a literal's other spelling below a string
	// written bare, so the window holds the literal alone, and the schema
	// answers with feedback if it wants a string.
	only := stringsAt{"/v", "/w"}
	checkSchemaRepairs(t, only, []repairCase{
		{"a Python literal where a string is accepted", `{"w": None}`, `{"w":null}`, FixSyntax},
		{"a literal of another case", `{"w": TRUE}`, `{"w":true}`, LiteralCase},
		{"a loose number", `{"w": +5}`, `{"w":5}`, LooseNumber},
		{"undefined", `{"v": undefined}`, `{"v":null}`, FixSyntax},
	})
}

// A text that is not UTF-8 is left to the scanner: where it refuses one,
// the model does not read it (the two would write its bytes differently).
func TestRepairLeavesTextsThatAreNotUTF8ToTheScanner(t *testing.T) {
	raw := "{\"\":\"0\x97\",\"0\":True}"
	opt := fix
	opt.Schema = allStrings{}
	if res, err := Repair(raw, opt); err == nil || !strings.Contains(err.Error(), "may be a string whose quotes are missing") {
		t.Errorf("Repair(%q) with a schema of strings = %q, %v; want the scanner's refusal", raw, res.JSON, err)
	}
}

// A text the model reads has a step from each row its reading undoes, with
// FixSyntax beside a named syntax repair, as the scanner reports them.
func TestRepairReportsTheModelsSteps(t *testing.T) {
	for _, tt := range []struct {
		raw   string
		steps []Step
	}{
		{`{"a": 0.5"b": 1}`, []Step{FixSyntax}},
		{`{"a"2}`, []Step{FixSyntax, MissingColon}},
		{`{"k": [1}, "m": 2}`, []Step{FixSyntax, WrongCloser}},
		{`{"text":"see \\"hi\\" here"}`, []Step{DoubleEncoded}},
	} {
		res, err := Repair(tt.raw, fix)
		if err != nil {
			t.Errorf("Repair(%q): %v", tt.raw, err)
			continue
		}
		if !slices.Equal(res.Steps, tt.steps) {
			t.Errorf("Repair(%q): steps %v, want %v", tt.raw, res.Steps, tt.steps)
		}
	}
}

// Every switched row is a row of the fault model's table, and every step
// the model reports is one of the package's steps.
func TestSwitchedRowsAreRowsOfTheTable(t *testing.T) {
	for _, name := range switchedRows {
		i := slices.IndexFunc(faultmodel.Table, func(r faultmodel.Operator) bool { return r.Name == name })
		if i < 0 {
			t.Errorf("switched row %q is not in faultmodel.Table", name)
			continue
		}
		if st := Step(faultmodel.Table[i].Step); !slices.Contains(stepOrder, st) {
			t.Errorf("row %q reports step %q, which is not a Step", name, st)
		}
	}
}

// A habit is read with the whole-text readings too (a habit's text
// double-encoded or in CSV's doubled quotes): where the scanner, reading
// strings one by one, reads another value than such a reading at the
// cheapest cost, or the habit's reading leaves a value cut, the text is
// refused.
func TestRepairRefusesWhereAHabitWithAnotherWholeTextReadingDiffers(t *testing.T) {
	checkRefusals(t, []refusalCase{
		// Pieces joined with '+' elsewhere: the cut after a value's piece
		// may have dropped its next piece (joined_strings and cut, as
		// cheap as the cut after a complete value).
		{"cut after a piece, pieces joined before", `{"na" + "me": "Ann" `, "a value is cut"},
		// A single-quoted text encoded as a JSON string's content: the
		// escapes undone once, then the habit.
		{"single quotes, encoded once more", `{\n  'p': 'C:\\\\temp'\n}`, "(single quotes) gives another value"},
	})
	checkRepairs(t, []repairCase{
		// No piece joined: the cut after a complete value (one fault).
		{"cut after a complete value", `{"name": "Ann" `, `{"name":"Ann"}`, FixSyntax},
		{"pieces joined, closed", `{"na" + "me": "Ann"}`, `{"name":"Ann"}`, JoinStrings},
	})
}

// An object encoded as a JSON string twice, holding an escape of its
// own: undoing the two layers at once is one fault; undoing one and
// then the other with the object's escapes read doubled is a second
// whole-text reading of the first's text, needed only when its row
// does not read the text alone (as the referee judges it), so the
// window holds one value.
func TestRepairReadsAnObjectEncodedTwice(t *testing.T) {
	for _, obj := range []string{`{"k":"a\/b"}`, `{"t":"\t","n":1}`, `{"u":"\u2028"}`} {
		once, _ := json.Marshal(obj)
		twice, _ := json.Marshal(string(once))
		res, err := Repair(string(twice), fix)
		if err != nil {
			t.Errorf("Repair(%s): %v", twice, err)
			continue
		}
		if !sameValue(res.JSON, obj) || !slices.Contains(res.Steps, DoubleEncoded) {
			t.Errorf("Repair(%s) = %s %v, want %s with %s", twice, res.JSON, res.Steps, obj, DoubleEncoded)
		}
	}
}

// Two faults the model reads where the scanner refused (its rules stand
// past the model's reach: pastModel, in the tests that name them). Each
// text's cheapest reading costs two, and no reading at three gives
// another value (a budget of 3 where the cheapest costs 2), so the window
// holds one value. The comment says why no other reading is that cheap.
func TestTheModelReadsTwoFaultsWithinOneMore(t *testing.T) {
	checkRepairs(t, []repairCase{
		// Two closers swapped (1 each); a '[' dropped costs two more.
		{"two arrays closed by '}'", `{"xs": [1}, "b": [2}}`, `{"xs":[1],"b":[2]}`, WrongCloser},
		{"an array closed by '}', cut after the next", `{"o": [1, 2}, "b": [3, 4]`, `{"o":[1,2],"b":[3,4]}`, WrongCloser},
		// CSV's doubled quotes halved, then typographic quotes (2); kept
		// doubled, each inner quote unescaped costs two more.
		{"typographic quotes, escaped quotes doubled", `{“a”: “say \""hi\""”}`, `{"a":"say \"hi\""}`, DoubleEncoded},
		// One string in other quotes and a comma dropped (1 + 1): the
		// quote's other readings leave a quote unescaped (2 each).
		{"a single-quoted value, then a key with no comma", `{"k":'42'"c":1}`, `{"k":"42","c":1}`, FixSyntax},
		{"a typographic value, then a key with no comma", "{\"k\":“42”\"c\":1}", `{"k":"42","c":1}`, FixSyntax},
		{"a single-quoted value ending in a quote, then a key", `{"u": '{\"a\": 1}"' "r": 100}`, `{"u":"{\"a\": 1}\"","r":100}`, FixSyntax},
		{"a number before a string, no comma", `{'a': [2024"x", 3]}`, `{"a":[2024,"x",3]}`, FixSyntax},
		{"a string before a negative number, no comma", `{'a': ["x"-2, 3]}`, `{"a":["x",-2,3]}`, FixSyntax},
		{"a number before a key, no comma", `{'a': 0.5"b": 1}`, `{"a":0.5,"b":1}`, FixSyntax},
		{"an object before a key, no comma", `{'a': {"b": 1} "c": 2}`, `{"a":{"b":1},"c":2}`, FixSyntax},
		{"objects in an array, no comma", `{'a': [{"b": {"c": 1}, "d": 2} {"e": 3}]}`, `{"a":[{"b":{"c":1},"d":2},{"e":3}]}`, FixSyntax},
		{"an empty string after a string, no comma", `{'a':["x" ""]}`, `{"a":["x",""]}`, FixSyntax},
		{"a string holding a brace, then a key on the next line", "{'a': \"{\"\n\"b\": true}", `{"a":"{","b":true}`, FixSyntax},
		{"a key and its value on the next line, no colon", "{'x'\n [1]}", `{"x":[1]}`, MissingColon},
		// A brace too many (1) and one string in other quotes (1).
		{"a stray brace after the object", `{'a': 1}, "b": 2}`, `{"a":1,"b":2}`, WrongCloser},
		{"a key holding a colon and a brace, a brace too many", `{'a': 1, "path:{id": 2}}`, `{"a":1,"path:{id":2}`, WrongCloser},
		// A tab written raw in a key (1) and a single-quoted value (1).
		{"a tab in a key", "{\"a \tb\": 'v'}", `{"a \tb":"v"}`, FixSyntax},
		// A backslash written as itself (the habit, 1) or a line
		// continuation (1), and another fault: the other reading of the
		// backslash costs a second habit.
		{"a \\u escape that is none, single quotes", `{'a': "\u12G4"}`, `{"a":"\\u12G4"}`, FixSyntax},
		{"a line continuation, single quotes", "{'a':\"t\\\na\"}", `{"a":"ta"}`, FixSyntax},
		{"an encoded object with a line continuation", "{\\\"k\\\":\\\"3\\\n.14\\\"}", `{"k":"3.14"}`, DoubleEncoded},
		{"a quote escaped twice, single quotes", `{'a':"see \\"hi\\" here"}`, `{"a":"see \"hi\" here"}`, DoubleEncoded},
		// An empty piece joined (the habit, 1) in a single-quoted text (1).
		{"an empty piece joined, spaced", `{'k': "" + "x"}`, `{"k":"x"}`, JoinStrings},
		// One inner quote unescaped (2): the value's other ends leave
		// more quotes unescaped, or a key with no colon.
		{"an inner quote, then a word", `{"a": "say \"hi" now", "b": 1}`, `{"a":"say \"hi\" now","b":1}`, MissingQuote},
		{"an inner quote, then a key", `{"c": "f("a", "b": 1}`, `{"c":"f(\"a","b":1}`, MissingQuote},
		// A quote one character off its place (2).
		{"a string's closing quote one letter early", `{"o": [{"id": "make clea"n}, "New York"]}`, `{"o":[{"id":"make clean"},"New York"]}`, FixSyntax},
		// Two separators dropped (1 + 1); a key with no value is no reading.
		{"a colon across a line break and a comma", "{\"k\"\n  \"v\"\n  \"w\": []\n}", `{"k":"v","w":[]}`, MissingColon},
		{"a comma and a colon across a line break", "{\"x\": 1 \"k\"\n  \"v\"}", `{"x":1,"k":"v"}`, MissingColon},
		{"a colon and a comma, three strings", "{\"a\"\n \"b\"\n \"c\": 1}", `{"a":"b","c":1}`, MissingColon},
		{"a comma dropped and a bare word", "{\"a\": [\"e\" x,\n\"\"]}", `{"a":["e","x",""]}`, FixSyntax},
		{"a numeric key and no colon", `{7 "x"}`, `{"7":"x"}`, NumericKey},
		{"a block comment holding a quote, a trailing comma", `{"a": /* "x" */ 1,}`, `{"a":1}`, FixSyntax},
		// A wrapper (1) and one more fault (1).
		{"prose with a name before the object, a brace too many", "Note\n  items: {\"a\": 1}}", `{"a":1}`, ExtractObject},
		{"a fence glued after the object, single quotes", "{'q': \" \"}```jsonnotes", `{"q":" "}`, ExtractObject},
		// The object's '{' dropped (punctuation, 2): members alone are no reading.
		{"the opening brace dropped", `"a": 1, "b": {"c": 2}}`, `{"a":1,"b":{"c":2}}`, FixSyntax},
		// A ']' where '{' stood after it (1) and a '+' before a number (1):
		// +5 unquoted is a loose number, never a bare string.
		{"a stray ']' and a loose number", `{] "w": +5}`, `{"w":5}`, LooseNumber},
		// A bare word (1: the white space around it is layout) and one
		// string in other quotes (1).
		{"a bare word after spaces, a single-quoted key", `{"mode":  both, "n": 1, 'q': 1}`, `{"mode":"both","n":1,"q":1}`, FixSyntax},
		{"a bare word, compact single-quoted keys", `{'n':1,"mode": both}`, `{"n":1,"mode":"both"}`, FixSyntax},
		{"a bare word, keys spaced unevenly", `{'n': 1,"m":2,"mode": both}`, `{"n":1,"m":2,"mode":"both"}`, FixSyntax},
		{"a bare word after many spaces", `{'q':1,"mode":         both}`, `{"q":1,"mode":"both"}`, FixSyntax},
		{"a bare word, no schema", `{'q': 1, "mode": both}`, `{"q":1,"mode":"both"}`, FixSyntax},
	})
}

// plainSingleQuotedText returns a random object written in single quotes
// alone, with plain strings and faults around them (commas missing,
// doubled or trailing, a colon missing, Python literals, bare words,
// loose numbers, closers missing or extra), as plainSingleQuoted admits
// and as it does not.
func plainSingleQuotedText(r *rand.Rand) string {
	var b strings.Builder
	words := []string{"a value", "x", "Paris", "hello world", "v-1.5", "a b  c", "True", "None", "1", "x=y", "o'k", "a\"b", "it's", "c:d", "a,b", "[x]", "\\n", "a\tb", "(x)", "50% off", "a_b", "x?y;z", "<b>", "a/b", "~!@$^=|"}
	lits := []string{"1", "-2.5", ".5", "True", "None", "false", "null", "NULL", "tru", "abc", "1e5", "0x1"}
	space := func() {
		b.WriteString([]string{"", "", " ", "\n  ", "\t"}[r.IntN(5)])
	}
	sep := func() {
		b.WriteString([]string{",", ",", ",", ", ", "", ",,", " "}[r.IntN(7)])
	}
	var value func(depth int)
	str := func() {
		b.WriteString("'" + words[r.IntN(len(words))] + "'")
	}
	value = func(depth int) {
		switch k := r.IntN(6); {
		case k == 0 && depth < 3:
			b.WriteString("{")
			for i, n := 0, r.IntN(4); i < n; i++ {
				space()
				b.WriteString(fmt.Sprintf("'k%d'", r.IntN(5)))
				b.WriteString([]string{": ", ":", " ", "::"}[r.IntN(4)])
				value(depth + 1)
				if i < n-1 || r.IntN(3) == 0 {
					sep()
				}
			}
			space()
			b.WriteString([]string{"}", "}", "}", "", "]", "}}"}[r.IntN(6)])
		case k == 1 && depth < 3:
			b.WriteString("[")
			for i, n := 0, r.IntN(4); i < n; i++ {
				value(depth + 1)
				if i < n-1 || r.IntN(3) == 0 {
					sep()
				}
			}
			b.WriteString([]string{"]", "]", "]", "", "}"}[r.IntN(5)])
		case k < 4:
			str()
		default:
			b.WriteString(lits[r.IntN(len(lits))])
		}
	}
	b.WriteString("{")
	for i, n := 0, 1+r.IntN(5); i < n; i++ {
		space()
		b.WriteString(fmt.Sprintf("'k%d': ", r.IntN(6)))
		value(0)
		if i < n-1 || r.IntN(2) == 0 {
			sep()
		}
	}
	space()
	b.WriteString("}")
	return b.String()
}

// checkPlainSingleQuoted checks plainSingleQuoted's claims on raw: where
// it holds, HabitRewrites makes one text of raw, raw with each
// apostrophe a quote, and the scanner reads that text as it reads raw
// (habitAgrees then passes without a scan). It returns the number of
// option sets under which the scanner read raw.
func checkPlainSingleQuoted(t *testing.T, raw string) (read int) {
	t.Helper()
	if !plainSingleQuoted(raw) {
		return 0
	}
	h := strings.ReplaceAll(raw, "'", `"`)
	if hs := engine.HabitRewrites(raw); len(hs) != 1 || hs[0].Text != h || !slices.Equal(hs[0].Rows, []string{"single_quotes"}) {
		t.Fatalf("plainSingleQuoted(%q), but HabitRewrites = %q", raw, hs)
	}
	for _, opt := range []Options{{StripThinking: true, FixSyntax: true}, {FixSyntax: true}, {StripThinking: true}} {
		res, err := scan(raw, opt)
		if err != nil {
			continue
		}
		read++
		if hr, herr := scan(h, opt); herr != nil || !sameValue(hr.JSON, res.JSON) {
			t.Fatalf("plainSingleQuoted(%q): the scanner reads it as %s, its habit text %q as %s (%v)", raw, res.JSON, h, hr.JSON, herr)
		}
	}
	return read
}

func TestPlainSingleQuoted(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{'a': 'x', 'b': [1, 2,], 'c': True,}`, true},
		{"{\n  'a': 'hello world',\n  'b': {'c': None}\n}", true},
		{`{'a': 'x' 'b': 1}`, false}, // a comma missing between strings
		{`{'a': "x"}`, false},        // a quote
		{`{'a': 'it's'}`, false},     // an apostrophe inside a word
		{`{'a': ''}`, false},         // an empty string (a doubled quote in the habit's text)
		{`{'a': 'x, y'}`, false},     // a comma in a string
		{`{a: 'x'}`, false},          // a bare key
		{`{'a': 'x' + 'y'}`, false},  // strings joined
		{`{'a': 'C:\x'}`, false},     // a backslash
		{`{'a': 1} // c`, false},     // a comment
		{`['a', 'b']`, false},        // not an object
		{`{'a': 1`, false},           // no closing brace
		{`{'a': 'x'y}`, false},       // a string not ended before a mark
		{`{'a': 1}`, true},
		{`{'a': {'a': 1}}`, false}, // its head '{'a': ' may be a re-sent copy's
	} {
		if got := plainSingleQuoted(c.raw); got != c.want {
			t.Errorf("plainSingleQuoted(%q) = %v, want %v", c.raw, got, c.want)
		}
		checkPlainSingleQuoted(t, c.raw)
	}
	r := rand.New(rand.NewPCG(7, 41))
	read := 0
	for range 20000 {
		read += checkPlainSingleQuoted(t, plainSingleQuotedText(r))
	}
	if read < 2000 {
		t.Errorf("the scanner read %d generated texts (under three option sets) where plainSingleQuoted holds; the generator no longer makes such texts", read)
	}
}

// FuzzPlainSingleQuoted checks plainSingleQuoted's claims (see
// checkPlainSingleQuoted) on any text.
func FuzzPlainSingleQuoted(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f.Add(plainSingleQuotedText(r))
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkPlainSingleQuoted(t, raw)
	})
}
