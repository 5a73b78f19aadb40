package readings

import (
	"slices"
	"strings"
	"testing"
)

// The decision rule on texts whose windows are known by hand.
func TestDecide(t *testing.T) {
	tests := []struct {
		name, raw string
		verdict   Verdict
		want      string // the value run (canonical), for Run
		op        string // an operator of the reading run
	}{
		{"a comma dropped", `{"a":1 "b":2}`, Run, `{"a":1,"b":2}`, "comma"},
		{"two trailing commas (the cheapest costs the budget: its window is that cost alone)", `{"a":[1,2,],}`, Run, `{"a":[1,2]}`, "comma"},
		{"two Python literals", `{"x": None, "y": True}`, Run, `{"x":null,"y":true}`, "py_js_literal"},
		{"one Python literal", `{"x": None}`, Run, `{"x":null}`, "py_js_literal"},
		{"single quotes on one string", `{"k": 'v'}`, Run, `{"k":"v"}`, "quote_style"},
		{"a thousands separator, or a comma dropped", `{"a":[1 200]}`, Ambiguous, "", ""},
		{"a comma dropped: a space before two digits separates no thousands", `{"a":[1 20]}`, Run, `{"a":[1,20]}`, "comma"},
		{"a thousands separator at an inner group boundary, or a comma dropped", `{"a":[1 200300]}`, Ambiguous, "", ""},
		{"a comma dropped: four digits after the space are no groups of three", `{"a":[1 2003]}`, Run, `{"a":[1,2003]}`, "comma"},
		{"a thousands separator, where no comma goes", `{"a":1 200}`, Run, `{"a":1200}`, "split_number"},
		{"a cut inside a string", `{"a":"xy`, Cut, "", ""},
		{"a cut after a complete value", `{"a":"xy"`, Run, `{"a":"xy"}`, "cut"},
		{"a cut after a complete value and its comma: a member begun is lost", `{"a":"xy",`, Cut, "", ""},
		{"a cut right after an opener", `{"a":{`, Cut, "", ""},
		{"a cut after a complete item, the array open: how many items is unknown", `{"a":["x"`, Cut, "", ""},
		{"a cut after a complete array", `{"a":["x"]`, Run, `{"a":["x"]}`, "cut"},
		{"a cut inside a key", `{"a":"xy","ke`, Cut, "", ""},
		{"a cut inside the first key", `{"`, Cut, "", ""},
		{"a cut after a key", `{"a":"xy","k"`, Cut, "", ""},
		{"a cut after a key's colon", `{"a":"xy","k": `, Cut, "", ""},
		{"a cut after a number that needs a digit", `{"a":-`, Cut, "", ""},
		{"a cut inside an escape", `{"a":"x\u00`, Cut, "", ""},
		{"a cut inside a literal (one fault), or a bare word cut (two)", `{"a":"xy","b":tr`, Ambiguous, "", ""},
		{"an invisible character between tokens", "{\"a\":\u200b1}", Run, `{"a":1}`, "invisible"},
		{"an invisible character after a string: layout (a quote never moves over white space)", "{\"a\": \"\"\u200b, \"b\": 1}", Run, `{"a":"","b":1}`, "invisible"},
		{"escaped white space before a key: layout (a quote never moves over white space)", "{\\n\"a\": 1}", Run, `{"a":1}`, "escaped_space"},
		{"a stray '}' after a string: no quote moves back over a closer", `{"a": "x"}}`, Run, `{"a":"x"}`, "stray_brace"},
		{"a comment reads as a space: no number runs through it", `{"a": [4/*x*/2]}`, Run, `{"a":[4,2]}`, "comma"},
		{"a line comment holds both its slashes, and none stands inside a bare token", "{\"a\": true// note\n, \"x\": \"\"}", Run, `{"a":true,"x":""}`, "comment"},
		{"a '#' inside a string's text starts no comment", `{"a":"4#2"}{"a":"4#2"}`, Run, `{"a":"4#2"}`, "repeated_object"},
		{"single quotes throughout: no pair spans both strings (an apostrophe beside no word is a quote)", `{'a': 'x', 'b': 'y'}`, Run, `{"a":"x","b":"y"}`, "single_quotes"},
		{"single quotes throughout, one member: the habit and the string's quote style agree", `{'a': 'x'}`, Run, `{"a":"x"}`, "single_quotes"},
		{"single quotes throughout and a bare value: no long string", `{'0':A,'':0}`, Run, `{"":0,"0":"A"}`, "single_quotes"},
		{"single quotes throughout, an apostrophe left bare: no long key spans the strings", `{'id': 'Joe's', 'n': 5}`, Run, `{"id":"Joe's","n":5}`, "bare_apostrophe"},
		{"single quotes throughout, one member holding an apostrophe left bare", `{'id': 'Joe's'}`, Run, `{"id":"Joe's"}`, "bare_apostrophe"},
		{"single quotes throughout, an apostrophe left bare, cut inside an array", `{'id': 'Joe's', 'items': [{'x': 1, 'n': 5}`, Cut, "", ""},
		{"an encoded object re-sent: the layer is read once the copy is dropped", `"{\"a\": 1}"` + "\n" + `"{\"a\": 1}"`, Run, `{"a":1}`, "double_encoded"},
		{"an encoded body re-sent: its escapes read doubled over both copies, or decoded over one", `{\"m\": \"\\t\"}` + "\n" + `{\"m\": \"\\t\"}`, Ambiguous, "", ""},
		{"a single-quoted stream re-sent: the habit over the stream pairs its quotes otherwise", `{'a{'a': 'it\'s'}`, Ambiguous, "", ""},
		{"a Windows path: an escape as written, or backslashes as themselves", `{"p": "C:\new\app.exe"}`, Ambiguous, "", ""},
		{"a Windows path whose backslashes start no escape", `{"p": "C:\x\y"}`, Run, `{"p":"C:\\x\\y"}`, "literal_backslashes"},
		{"more faults than the budget", `{"a":1 "b":2 "c":3 "d":4}`, NoReading, "", ""},
		{"a member repeated with another value", `{"a":1,"a":2}`, Ambiguous, "", ""},
		{"a stream cut after a comma and sent again from its start: the copy dropped, the value cut", `{"a": "x", "b": {"c": 2, {"a": "x"`, Cut, "", ""},
		{"a member repeated with its value", `{"a":1,"a":1}`, Run, `{"a":1}`, "repeated_key"},
		{"prose around the object", "Sure:\n{\"a\": 1}\n", Run, `{"a":1}`, "around"},
		{"the object encoded as a string", `"{\"a\": 1}"`, Run, `{"a":1}`, "double_encoded"},
		{"no object", `hello`, NoReading, "", ""},
		{"a closer dropped inside", `{"a": [{"b": 1}, {"c": 2}}`, Run, `{"a":[{"b":1},{"c":2}]}`, "dropped_closer"},
		{"a list cut after its first item: the list's other items are unknown", `[{"a": 1}`, Cut, "", ""},
		{"a list of one object, its closer swapped: a list, no arguments", `[{"a": 1}}`, NotObject, "", ""},
		{"a stray ']' after the object: a list one fault past it (its '[' dropped) names no arguments", `{"a": 1}]`, Run, `{"a":1}`, "premature_closer"},
		{"a list whose '[' was dropped is a reading among the cheapest", `[{"a": 1}`, Cut, "", ""},
		{"a trailing comma after a string: no closing quote moves back over it", `{"a": "x",}`, Run, `{"a":"x"}`, "comma"},
		{"an opening quote moved out over the comma before it, or a comma dropped before a string holding one", `{"a": ["x"",abc"]}`, Ambiguous, "", ""},
		{"an apostrophe escaped as JavaScript escapes it, or a backslash as itself", `{"a": "it\'s"}`, Ambiguous, "", ""},
		{"a stream re-sent inside a wrapper, or one object nested in another and cut", "# {\"a\": {\"b{\"a\": {\"b\": 1}}", Ambiguous, "", ""},
		{"a stream re-sent with its wrapper: the copy repeats the whole text", `[TOOL_CALLS]{"a": 1}[TOOL_CALLS]{"a": 1}`, Run, `{"a":1}`, "repeated_object"},
		{"a stream re-sent with its wrapper, the copy after a line break", "<tool_call>{\"a\": 1}</tool_call>\n<tool_call>{\"a\": 1}</tool_call>", Run, `{"a":1}`, "repeated_object"},
		{"a stream cut and re-sent with its wrapper: the head carries the wrapper", `<tool_call>{"a": 1, <tool_call>{"a": 1, "b": 2}</tool_call>`, Run, `{"a":1,"b":2}`, "repeated_object"},
		{"a stream re-sent inside a wrapper", "args={\"a\": 1, \"b{\"a\": 1, \"b\": 2}", Run, `{"a":1,"b":2}`, "repeated_object"},
		{"a colon after a list's last literal: template quotes (a bare key quoted) are not needed where the colon deleted alone reads the text", `{"a": [1,null:]}`, Run, `{"a":[1,null]}`, "colon"},
		{"a bare token's line break after it is layout: escaped, it is no edit the token needs", "{\n\t\"id\": \\\\nx\n}", Run, `{"id":"\\nx"}`, "unquoted"},
		{"a comment before a string: no bare token ends in a backslash that escapes its closing quote", "{\"id\": // note \"a\\\\b\"\n}", Run, `{"id":"a\\b"}`, "comment"},
		{"a '+' after a bare token, before white space: the token's own, no number's sign", `{"a": x+ ,"b":1}`, Run, `{"a":"x+","b":1}`, "unquoted"},
		{"a '+' before a number", `{"a": +5}`, Run, `{"a":5}`, "loose_number"},
		{"a quote before a colon that opens a value is the quote row's (two faults), no key's closing quote: its other places cost as much", `{"a": :b"}`, Ambiguous, "", ""},
		{"strings joined with '+': no '+' before a quote is a number's sign", `{"a": ["x" + "y", "z"]}`, Run, `{"a":["xy","z"]}`, "joined_strings"},
		{"two different objects are two calls: either is a reading", "{\"a\": 1}\n{\"b\": 2}", Ambiguous, "", ""},
		{"a second object after a first one mended: either is a reading", `{"a": 1}}{"b": 2}`, Ambiguous, "", ""},
		{"a different object before a cut copy: the second, cut, is a reading", `{"b": 2}{"a": 1}{"a"`, Ambiguous, "", ""},
		{"the same object after a first one mended", `{"a": 1,}{"a": 1}`, Run, `{"a":1}`, "comma"},
		{"a closer inserted at the end where the cut's completion writes it is the cut: the second object's members unknown, one fault past", `{"a":1}{`, Run, `{"a":1}`, "repeated_object"},
		{"a number that may go on, closed by an inserted closer, is cut", `{"a": 1.5, "b": true}{"a": 1.5`, Run, `{"a":1.5,"b":true}`, "repeated_object"},
		{"a periodic deep text cut", strings.Repeat(`{"a":[`, 400), OverBudget, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Read(tt.raw)
			r, v := w.Decide()
			if v != tt.verdict {
				t.Fatalf("Read(%q): %v (window %v), want %v", tt.raw, v, w.Values(), tt.verdict)
			}
			if v != Run {
				return
			}
			if got := Canonical(r.Text); got != tt.want {
				t.Errorf("Read(%q) runs %s, want %s", tt.raw, got, tt.want)
			}
			if !slices.Contains(r.Ops, tt.op) {
				t.Errorf("Read(%q): operators %v, want %s among them", tt.raw, r.Ops, tt.op)
			}
		})
	}
}

// The decision rule on complete windows (ReadComplete: the cheapest
// reading costs two, so the window reaches three): one fault past the
// cheapest, a reading of unknown value names no value, unless other
// edits at its cost reach that value with nothing cut.
func TestDecideOnTheCompleteWindow(t *testing.T) {
	tests := []struct {
		raw     string
		verdict Verdict
		want    string
	}{
		// A quote inserted and the text cut in the string it opens (3).
		{`{"tags":[red,blue]}`, Run, `{"tags":["red","blue"]}`},
		{`{"k": [none, NONE]}`, Run, `{"k":[null,null]}`},
		// The colon missing and the brace cut (2), or the quote moved
		// over the colon and the brace cut (3, known; a quote inserted
		// and a cut reach it too).
		{`{"years":2024,"species"":"`, Ambiguous, ""},
		// A fence and a stray brace (2), or a fence and the object's
		// '{' written as a quote (3): a wrapper's object may open with a
		// '{' an edit makes.
		{"```\n\"\"items\": {}}```", Ambiguous, ""},
	}
	for _, tt := range tests {
		w := ReadComplete(tt.raw)
		r, v := w.Decide()
		if v != tt.verdict || v == Run && Canonical(r.Text) != tt.want {
			t.Errorf("ReadComplete(%q): %v %s (window %v), want %v %s", tt.raw, v, r.Text, w.Values(), tt.verdict, tt.want)
		}
	}
}

// An insertion right after a deletion is named at the deletion, whatever
// edit is made after it: with a colon written as '}', the reading at
// three that also quotes the number holds an edit that is not needed.
func TestAnInsertionAfterADeletionIsOneEdit(t *testing.T) {
	for _, s := range []string{`{"a"}7,"b":null}`, `{"a"]7,"b":null}`} {
		w := ReadWithin(s, Budget+1)
		if r, v := w.Decide(); v != Run || Canonical(r.Text) != `{"a":7,"b":null}` {
			t.Errorf("ReadWithin(%q, %d): %v (window %v)", s, Budget+1, v, w.Values())
		}
	}
}

// A valid object is read as it is by Repair, without a window.
func TestRepairKeepsAValidObject(t *testing.T) {
	for _, s := range []string{`{"a": 1}`, " {\"a\": [true, null]}\n"} {
		r, v := Repair(s)
		if v != Run || r.Text != s || r.Cost != 0 {
			t.Errorf("Repair(%q) = %q %v cost %d, want it as it is", s, r.Text, v, r.Cost)
		}
	}
}

// A text that repeats its own beginning throughout has more places where
// a re-sent copy may be dropped than the engine reads (maxRoots): its
// window is unknown, and the places past the bound are not read.
func TestManyReSentPlacesAreOverBudget(t *testing.T) {
	s := strings.Repeat(`{"a":[`, 400) + `1 2` + strings.Repeat(`]}`, 400)
	if _, v := Read(s).Decide(); v != OverBudget {
		t.Errorf("Read(%d bytes nested 800 deep): %v, want %v", len(s), v, OverBudget)
	}
	if _, over := resentRewrites(s, false, Budget); !over {
		t.Errorf("resentRewrites: not over past %d places", maxRoots)
	}
}

// A schema drops readings only among readings of one part of the text,
// never all of the cheapest, and never a reading of unknown value.
func TestDropTellsReadingsOfOneObjectApart(t *testing.T) {
	named := func(keys ...string) func(Reading) bool {
		return func(r Reading) bool {
			for _, k := range keys {
				if strings.Contains(r.Text, `"`+k+`"`) {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name, raw string
		drop      []string // keys whose readings the schema drops
		verdict   Verdict
		want      string
	}{
		{"a colon doubled, or a key ending in a colon: the key the tool has", `{"a":: 1, "b": 2}`, []string{"a:"}, Run, `{"a":1,"b":2}`},
		{"every cheapest reading dropped: the window past them is not read", `{"a": 1 city": "Oslo"}`, []string{" city", `a\": 1 city`}, Ambiguous, ""},
		{"two objects sent: never chosen between", "{\"a\": 1}\n{\"b\": 2}", []string{"b"}, Ambiguous, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := ReadComplete(tt.raw)
			if _, v := w.Decide(); v != Ambiguous {
				t.Fatalf("ReadComplete(%q): %v (window %v); the test needs an ambiguous text", tt.raw, v, w.Values())
			}
			r, v := w.Drop(named(tt.drop...)).Decide()
			if v != tt.verdict || v == Run && Canonical(r.Text) != tt.want {
				t.Fatalf("Drop(%q): %v %s (window %v), want %v %s", tt.raw, v, r.Text, w.Values(), tt.verdict, tt.want)
			}
		})
	}
	// An object, or another one in the prose after it: the wrapper skips
	// other text in each reading.
	w := Window{Min: 1, Readings: []Reading{
		{Text: `{"a":1}`, Cost: 1, Ops: []string{"around"}, At: []int{8}, key: `{"a":1}`, known: true},
		{Text: `{"b":2}`, Cost: 1, Ops: []string{"around"}, At: []int{0}, key: `{"b":2}`, known: true},
	}}
	if _, v := w.Drop(named("b")).Decide(); v != Ambiguous {
		t.Errorf("Drop of readings that keep other parts of the text: %v, want ambiguous", v)
	}
	// A reading of unknown value is never dropped.
	w = Window{Min: 1, Readings: []Reading{
		{Text: `{"a":1}`, Cost: 1, key: `{"a":1}`, known: true},
		{Text: `{"a":1,"b":null}`, Cost: 1, Unknown: true, key: `{"a":1,"b":null}`},
	}}
	if _, v := w.Drop(named("b")).Decide(); v != Cut {
		t.Errorf("Drop of a reading of unknown value: %v, want cut", v)
	}
}

// Rival names the first reading that counts and gives another value than
// the first: none where the window agrees, nor where the other value is a
// list one fault past the cheapest.
func TestRival(t *testing.T) {
	for _, tt := range []struct {
		raw, rival string // "" when none
	}{
		{`{"a": 1 "b": 2}`, ""},
		{`{"k: "v"}`, `{"k: ":"v"}`},
		{`{"k": 1}]]`, ""},
	} {
		r, ok := Read(tt.raw).Rival()
		if got := map[bool]string{true: r.Text}[ok]; got != tt.rival {
			t.Errorf("Read(%q).Rival() = %q, want %q", tt.raw, got, tt.rival)
		}
	}
}
