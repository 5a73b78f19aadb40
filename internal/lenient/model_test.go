package lenient

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

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
		{"an object on a comment line, after a slash comment", `// {"a": 1}`, `{"a":1}`, FixSyntax},
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
		// Typographic quotes whose escaped inner quotes CSV doubled: the
		// doubled quotes halved, then the habit, cost two; the scanner's
		// reading keeps them doubled.
		{"typographic quotes, escaped quotes doubled", `{“a”: “say \""hi\""”}`, "(single quotes) gives another value"},
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
