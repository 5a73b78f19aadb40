package faultmodel_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/faultmodel"
	"github.com/saidex/saidex-go/internal/lenient"
)

// Every row is complete: a distinct name, a cost of one fault or more, a
// reason of one line, a step the engine reports, an inverse; a
// catch-all states what it may skip.
func TestTableRowsAreComplete(t *testing.T) {
	steps := []lenient.Step{lenient.FixSyntax, lenient.MissingColon, lenient.MissingQuote, lenient.WrongCloser, lenient.MismatchedBracket,
		lenient.EscapedWhitespace, lenient.RepeatedKey, lenient.LiteralCase, lenient.LooseNumber, lenient.NumericKey, lenient.UnclosedKey,
		lenient.StrayCloser, lenient.QuotedBareValue, lenient.JoinStrings, lenient.TemplateQuotes, lenient.ExtractObject, lenient.DoubleEncoded, lenient.RepeatedObject, lenient.InvisibleSpace, lenient.DoubledBraces}
	seen := map[string]bool{}
	for _, o := range faultmodel.Table {
		if seen[o.Name] || o.Name == "" {
			t.Errorf("%q: name empty or repeated", o.Name)
		}
		seen[o.Name] = true
		if o.Cost < 1 || o.Reason == "" || strings.ContainsAny(o.Reason, "\n") || o.Inverse == nil {
			t.Errorf("%s: cost %d, reason %q, inverse set %v", o.Name, o.Cost, o.Reason, o.Inverse != nil)
		}
		if !slices.Contains(steps, lenient.Step(o.Step)) {
			t.Errorf("%s: step %q is not one the engine reports", o.Name, o.Step)
		}
		if got, ok := faultmodel.Lookup(o.Name); !ok || got.Name != o.Name {
			t.Errorf("Lookup(%q) = %q, %v", o.Name, got.Name, ok)
		}
	}
	for _, name := range []string{"around", "commented", "repeated_object", "concatenated"} {
		if o, _ := faultmodel.Lookup(name); o.Skips == "" {
			t.Errorf("%s: a catch-all that does not say what it may skip", name)
		}
	}
}

// Each inverse undoes its fault on a text of its own: the broken text,
// with one of the edits it proposes, is the valid one.
func TestInversesUndoTheirFault(t *testing.T) {
	tests := []struct{ op, broken, valid string }{
		{"quote_style", `{'a': 'it\'s "x"'}`, `{'a': "it's \"x\""}`},
		{"quote_style", `{"a": “x”}`, `{"a": "x"}`},
		{"unquoted", `{a: 1}`, `{"a": 1}`},
		{"unquoted", `{"a": New York }`, `{"a": "New York" }`},
		{"comma", `[1 2]`, `[1, 2]`},
		{"comma", `[1,,2]`, `[1,2]`},
		{"colon", `{"a" 1}`, `{"a": 1}`},
		{"quote", `{"a": x"}`, `{"a": "x"}`},
		{"quote", `{"a": "say "hi""}`, `{"a": "say \"hi""}`},
		{"escape", "{\"a\": \"x\ny\"}", `{"a": "x\ny"}`},
		{"escape", `{"a": "C:\xyz"}`, `{"a": "C:\\xyz"}`},
		{"escape", `{"a": "\00e9"}`, `{"a": "\u00e9"}`},
		{"stray_brace", `{"a": 1}}`, `{"a": 1}`},
		{"premature_closer", `{"a": [1], 2]}`, `{"a": [1, 2]}`},
		{"dropped_closer", `{"a": [1}`, `{"a": [1]}`},
		{"swapped_closer", `{"a": [1}}`, `{"a": [1]}`},
		{"comment", "{\"a\": 1 // it's {x}\n}", "{\"a\": 1  \n}"},
		{"comment", `{"a": /* x */ 1}`, `{"a":   1}`},
		{"escaped_space", `{\n"a": 1}`, `{"a": 1}`},
		{"py_js_literal", `{"a": None}`, `{"a": null}`},
		{"py_js_literal", `{"a": undefined}`, `{"a": null}`},
		{"repeated_key", `{"a": 1, "a": 2}`, `{"a": 1}`},
		{"repeated_key", `{"a": 1, "a": 2}`, `{"a": 2}`},
		{"literal_case", `{"a": NULL}`, `{"a": null}`},
		{"loose_number", `{"a": .5}`, `{"a": 0.5}`},
		{"loose_number", `{"a": 5.}`, `{"a": 5}`},
		{"loose_number", `{"a": +5}`, `{"a": 5}`},
		{"numeric_key", `{1: "a"}`, `{"1": "a"}`},
		{"unclosed_key", `{"a: 1}`, `{"a": 1}`},
		{"stray_closer", `{"a": 1}]`, `{"a": 1}`},
		{"stray_bracket", `{"a": 1,]"b": 2}`, `{"a": 1,"b": 2}`},
		{"bare_value", `{"a": both}`, `{"a": "both"}`},
		{"template_quotes", `{<|"|>a<|"|>: 1}`, `{"a": 1}`},
		{"template_quotes", `{a: <|"|>x "y"<|"|>, b: 1}`, `{"a": "x \"y\"", "b": 1}`},
		{"template_escapes", `{a: <|"|>x\ny<|"|>, b: <|"|>\"z\"<|"|>}`, `{"a": "x\ny", "b": "\"z\""}`},
		{"punctuation", `{"a": 1]`, `{"a": 1}`},
		{"punctuation", `{"a": 1:}`, `{"a": 1}`},
		{"split_number", `{"a": 1 200}`, `{"a": 1200}`},
		{"quote_moved", `{"a": "x"y}`, `{"a": "xy"}`},
		{"quote_moved", `{"a": "x}"`, `{"a": "x"}`},
		{"around", "```json\n{\"a\": 1}\n```", `{"a": 1}`},
		{"around", `Calling the tool for {city} now: {"a": 1} (done)`, `{"a": 1}`},
		{"double_encoded", `"{\"a\": 1}"`, `{"a": 1}`},
		{"double_encoded", `{\"a\": 1}`, `{"a": 1}`},
		{"repeated_object", `{"a": 1}{"a": 1}`, `{"a": 1}`},
		{"repeated_object", `{"a"{"a": 1}`, `{"a": 1}`},
		{"repeated_object", `"{\"a"{\"a\": 1, "{\"a\": 1, \"b\": 2}"`, `"{\"a\": 1, \"b\": 2}"`}, // an encoded object's stream
		{"concatenated", `{"a": 1}{"b": 2}`, `{"a": 1}`},
		{"concatenated", `{"a": 1}{"b": 2}`, `{"b": 2}`},
		{"concatenated", "{\"a\": 1}\n{\"b\": 2} ", "{\"a\": 1}\n"},
		{"csv_quotes", `"{""a"": 1}"`, `{"a": 1}`},
		{"doubled_braces", `{{"a": {{"b": "{{x}}"}}}}`, `{"a": {"b": "{{x}}"}}`},
		{"doubled_braces", ` {{{"a": {"b": 1}}}}`, ` {"a": {"b": 1}}`},
		{"doubled_braces", `{{}}`, `{}`},
		{"escape", `{"a": "it\'s"}`, `{"a": "it's"}`},
		{"commented", `// {"a": 1}`, `{"a": 1}`},
		{"cut", `{"a": [1, "x`, `{"a": [1, "x"]}`},
		{"cut", `{"`, `{"":null}`},
		{"cut", `{"a": 1, "ke`, `{"a": 1, "ke":null}`},
		{"cut", `{"a" `, `{"a" :null}`},
		{"cut", `{"a": `, `{"a": null}`},
		{"cut", "{\"a\": 1,\n", `{"a": 1}`},
		{"cut", `{"a": [1, `, `{"a": [1]}`},
		{"cut", `{"a": tr`, `{"a": true}`},
		{"cut", `{"a": -`, `{"a": -0}`},
		{"cut", `{"a": 1e+`, `{"a": 1e+0}`},
		{"cut", `{"a": "x\`, `{"a": "x\\"}`},
		{"cut", `{"a\u00`, `{"a\u0000":null}`},
		{"invisible", "{\"a\":\u200b1}", `{"a": 1}`},
		{"invisible", "\ufeff{\"a\": 1}", ` {"a": 1}`},
		{"invisible", "{\"a\": 1\u00a0}", `{"a": 1 }`},
		{"literal_backslashes", `{"p": "C:\new\app.exe"}`, `{"p": "C:\\new\\app.exe"}`},
		{"literal_backslashes", `{"r": "\d+\.x", "q": "say \"hi\""}`, `{"r": "\\d+\\.x", "q": "say \"hi\""}`},
		{"single_quotes", `{'a': 'it\'s "x"', "b": 'y'}`, `{"a": "it's \"x\"", "b": "y"}`},
		{"single_quotes", `{“a”: “x”}`, `{"a": "x"}`},
		{"bare_apostrophe", `{'id': 'Joe's', 'n': 5}`, `{"id": "Joe's", "n": 5}`},
		{"bare_apostrophe", `{'a': 'don't', 'k': 'rock'n'roll', "b": "it's"}`, `{"a": "don't", "k": "rock'n'roll", "b": "it's"}`},
		{"bare_apostrophe", "{'a': 'it's'\n}", "{\"a\": \"it's\"\n}"},
		{"joined_strings", "{'a': 'x' + 'y', \"b\": \"it's\" +\n \"z\"}", "{'a': 'xy', \"b\": \"it'sz\"}"},
		{"backquotes", "{\"a\": `both`}", `{"a": "both"}`},
		{"backquotes", "{\"a\": `say \"hi\" \\` \\n`}", `{"a": "say \"hi\" ` + "`" + ` \n"}`},
		{"entity_quotes", `{"a":&quot;both&quot;}`, `{"a":"both"}`},
		{"entity_quotes", `{&quot;a&quot;: &quot;x\ny&quot;}`, `{"a": &quot;x\ny&quot;}`},
	}
	for _, tt := range tests {
		o, ok := faultmodel.Lookup(tt.op)
		if !ok {
			t.Fatalf("no row %q", tt.op)
		}
		var got []string
		for _, e := range o.Inverse(tt.broken) {
			got = append(got, e.Apply(tt.broken))
		}
		if !slices.Contains(got, tt.valid) {
			t.Errorf("%s: %q does not read as %q (%d edits)", tt.op, tt.broken, tt.valid, len(got))
		}
	}
}

// A string in single quotes encloses no apostrophe but one inside a word
// or escaped; an escaped backslash before an apostrophe leaves it a quote
// (as the engine and the habits read it).
func TestQuoteStyleEnclosesNoQuote(t *testing.T) {
	o, _ := faultmodel.Lookup("quote_style")
	for _, tt := range []struct {
		broken string
		want   []string // every text the inverse writes
	}{
		{`{'a': 1}`, []string{`{"a": 1}`}},
		// Each apostrophe pairs with the next quote (the text between
		// two strings is a string too), never past one beside no word.
		{`{'a': 'x'}`, []string{`{"a": 'x'}`, `{'a": "x'}`, `{'a': "x"}`}},
		{`{'id': 'Joe's'}`, []string{`{"id": 'Joe's'}`, `{'id": "Joe's'}`, `{'id': "Joe"s'}`, `{'id': "Joe's"}`, `{'id': 'Joe"s"}`}},
		{`{'p': 'C:\\'}`, []string{`{"p": 'C:\\'}`, `{'p": "C:\\'}`, `{'p': "C:\\"}`}},
		// An escaped backslash, then the closing quote: no pair runs past it.
		{`{'p': 'C:\\', 'n': 1}`, []string{`{"p": 'C:\\', 'n': 1}`, `{'p": "C:\\', 'n': 1}`, `{'p': "C:\\", 'n': 1}`, `{'p': 'C:\\", "n': 1}`, `{'p': 'C:\\', "n": 1}`}},
	} {
		var got []string
		for _, e := range o.Inverse(tt.broken) {
			got = append(got, e.Apply(tt.broken))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("quote_style of %s: %q, want %q", tt.broken, got, tt.want)
		}
	}
}

// A quote never moves over white space, escaped or invisible too, nor
// back over a closer after it (over a comma only as an opening quote), and a comment is read as the space it
// stands for, never shorter than its own marker.
func TestQuoteMovesAndCommentsStandWhereTheRowsSay(t *testing.T) {
	for _, tt := range []struct {
		piece string
		moves bool
	}{
		{"a", true}, {",", true}, {"}", true}, {"é", true}, {`\"`, true}, {`\u00e9`, true},
		{" ", false}, {"\t", false}, {"\n", false}, {`\n`, false}, {`\t`, false}, {`\r`, false}, {"\u00a0", false}, {"\u200b", false}, {"\u3000", false},
	} {
		if got := faultmodel.QuoteMovesOver(tt.piece); got != tt.moves {
			t.Errorf("QuoteMovesOver(%q) = %v, want %v", tt.piece, got, tt.moves)
		}
		if got, want := faultmodel.QuoteMovesOverNext(tt.piece), tt.moves && tt.piece != "}"; got != want {
			t.Errorf("QuoteMovesOverNext(%q) = %v, want %v", tt.piece, got, want)
		}
	}
	if faultmodel.QuoteMovesOverNext("]") {
		t.Errorf("QuoteMovesOverNext(%q) = true", "]")
	}
	inverse := func(row, s string) []string {
		o, _ := faultmodel.Lookup(row)
		var got []string
		for _, e := range o.Inverse(s) {
			got = append(got, e.Apply(s))
		}
		return got
	}
	if got := inverse("quote_moved", "{\u200b\"a\":\u00a0\"x\"}"); !slices.Equal(got, []string{
		"{\u200ba\"\":\u00a0\"x\"}", "{\u200b\"a:\"\u00a0\"x\"}", "{\u200b\"\"a:\u00a0\"x\"}",
		"{\u200b\"a\":\u00a0x\"\"}", "{\u200b\"a\":\u00a0\"\"x}",
	}) {
		t.Errorf("quote_moved over invisible characters: %q", got)
	}
	if got := inverse("comment", "{\"a\": 1// x\n}"); !slices.Equal(got, []string{"{\"a\": 1  x\n}", "{\"a\": 1 x\n}", "{\"a\": 1 \n}"}) {
		t.Errorf("comment: %q", got)
	}
}

// What the catch-alls may not skip, they do not: the start of a text
// that opens as JSON, and text after the object holding a quote.
func TestWrappersSkipOnlyWhatTheirRowSays(t *testing.T) {
	o, _ := faultmodel.Lookup("around")
	for _, s := range []string{`{"a": {"b": 1}`, `{"a": 1} "b": 2}`} {
		for _, e := range o.Inverse(s) {
			got := e.Apply(s)
			if !strings.HasPrefix(got, "{\"a\"") || strings.Contains(s, `} "b"`) && !strings.Contains(got, `"b": 2`) {
				t.Errorf("%q: skipped to %q", s, got)
			}
		}
	}
}

// A habit is one edit of the whole text, and is proposed only where it
// shows: a text whose every backslash starts a JSON escape, or that holds
// no single or typographic quote outside its strings, has none.
func TestHabitsReadTheWholeTextOnce(t *testing.T) {
	tests := []struct {
		op, text string
		edits    int
	}{
		{"literal_backslashes", `{"p": "C:\new\app.exe"}`, 1},
		{"literal_backslashes", `{"p": "a\nb\u00e9\"\\"}`, 0}, // every backslash an escape: no fault anyone could see
		{"literal_backslashes", `{"p": "\u00zz"}`, 1},
		{"single_quotes", `{'a': 'x', 'b': 'y'}`, 1},
		{"single_quotes", `{'a': 'it's'}`, 0}, // apostrophes bare: the string is left open
		{"single_quotes", "{'a': 'x\ny'}", 0}, // a string holds no raw line break
		{"single_quotes", `{'a': 'it\'s', 'b': 'x'}`, 1},
		{"single_quotes", `{"a": "it's", "b": 1}`, 0},
		{"single_quotes", `{'a': 'x`, 0},   // a string left open
		{"single_quotes", `{“a”: 'x'}`, 3}, // both kinds of quote: both at once, and each alone
		{"single_quotes", `{“a”: “x”}`, 1},
		{"bare_apostrophe", `{“a”: 'Joe's'}`, 2}, // both kinds, and apostrophes alone
		{"bare_apostrophe", `{'id': 'Joe's', 'n': 5}`, 1},
		{"bare_apostrophe", `{'id': 'Joe's', 'items': [{'n': 5}`, 1}, // cut: its strings are closed
		{"bare_apostrophe", `{'a': 'x', 'b': 'it\'s'}`, 0},           // no apostrophe left bare: single_quotes'
		{"bare_apostrophe", `{"a": "it's"}`, 0},                      // no single-quoted string
		{"bare_apostrophe", "{'a': 'it's\nb'}", 0},                   // a string holds no raw line break
		{"bare_apostrophe", `{'a': 'it's`, 0},                        // a string left open
		{"bare_apostrophe", `{'q': 'a' + 'c'}`, 0},                   // beside a space: a quote (not the one string a' + 'c)
		{"bare_apostrophe", `{'q': 'a'+'c', 'r': 'x's'}`, 1},         // beside a '+': a quote; x's: a word's
		{"bare_apostrophe", `{'a': 'students'', 'b': 'x'}`, 0},       // beside a quote: a quote
		{"joined_strings", `{"a": "x" + "y" + 'z'}`, 1},
		{"joined_strings", `{"a": "x + y", "b": +5}`, 0},
		{"joined_strings", `{"q": "Use "+" to add"}`, 0}, // glued to both quotes: inner quotes as likely
		{"joined_strings", `{"a" + "b": "x" `, 2},        // joined, and the value's next piece maybe cut
		{"joined_strings", `{"a": "x" + `, 1},            // the next piece cut: the string left open
		{"joined_strings", `{"a": "x" `, 0},              // no '+': a complete value
	}
	for _, tt := range tests {
		o, _ := faultmodel.Lookup(tt.op)
		es := o.Inverse(tt.text)
		if len(es) != tt.edits {
			t.Errorf("%s(%q): %d edits, want %d", tt.op, tt.text, len(es), tt.edits)
		}
		for _, e := range es {
			if e.Start != 0 || e.End != len(tt.text) {
				t.Errorf("%s(%q): edit %d..%d, not the whole text", tt.op, tt.text, e.Start, e.End)
			}
		}
		// Each byte of a habit's text stands for a byte of the text read,
		// in order, and a byte it does not rewrite for itself.
		texts := faultmodel.HabitTexts(tt.op, tt.text)
		for i, r := range faultmodel.Habits(tt.op, tt.text) {
			if i >= len(texts) || texts[i].Text != r.Text || texts[i].Src != nil {
				t.Errorf("%s(%q): HabitTexts %v, want the text %q without a map", tt.op, tt.text, texts, r.Text)
			}
			if len(r.Src) != len(r.Text)+1 || r.Src[len(r.Text)] != len(tt.text) || !slices.IsSorted(r.Src) {
				t.Errorf("%s(%q): source map %v of %q", tt.op, tt.text, r.Src, r.Text)
				continue
			}
			for j := 0; j < len(r.Text); j++ {
				if c := r.Text[j]; !strings.ContainsRune(`"'\`, rune(c)) && c < 0x80 && tt.text[r.Src[j]] != c {
					t.Errorf("%s(%q): byte %d of %q (%q) stands for %q", tt.op, tt.text, j, r.Text, c, tt.text[r.Src[j]])
				}
			}
		}
	}
}

// TemplateQuotes is the template_quotes row's whole-text reading, with a
// source map: a bare key's bytes and the text it does not rewrite stand
// for themselves, a quote-token pair's string for its first token.
func TestTemplateQuotesPlacesItsTextBack(t *testing.T) {
	o, _ := faultmodel.Lookup("template_quotes")
	for _, tt := range []struct {
		text, want string
		src        []int
	}{
		{`{a:1}`, `{"a":1}`, []int{0, 1, 1, 2, 2, 3, 4, 5}},
		{`{"k":<|"|>v<|"|>}`, `{"k":"v"}`, []int{0, 1, 2, 3, 4, 5, 5, 5, 16, 17}},
		{`[1,null:]`, `[1,"null":]`, []int{0, 1, 2, 3, 3, 4, 5, 6, 7, 7, 8, 9}},
		{`{"a": 1}`, ``, nil},      // nothing to rewrite
		{`{"a": <|"|>x}`, ``, nil}, // a token left open
	} {
		r, ok := faultmodel.TemplateQuotes(tt.text)
		if ok != (tt.want != "") || ok && (r.Text != tt.want || !slices.Equal(r.Src, tt.src)) {
			t.Errorf("TemplateQuotes(%q) = %q %v, %v; want %q %v", tt.text, r.Text, r.Src, ok, tt.want, tt.src)
		}
		var whole []string
		for _, e := range o.Inverse(tt.text) {
			if e.Start == 0 && e.End == len(tt.text) {
				whole = append(whole, e.Repl)
			}
		}
		if ok && !slices.Contains(whole, r.Text) {
			t.Errorf("TemplateQuotes(%q) = %q, not among the row's whole-text edits %q", tt.text, r.Text, whole)
		}
	}
}

// The single-quote habits read a string in backquotes on one line as a
// string, kept as it is (its apostrophes are its own), and a backquote
// that closes nothing on its line (a fence's) as a character.
func TestSingleQuotesKeepBackquotedStrings(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"{'a': `it's`, 'b': 'x'}", "{\"a\": `it's`, \"b\": \"x\"}"},
		{"```json\n{'a': 'x'}\n```", "```json\n{\"a\": \"x\"}\n```"},
		{"{'a': `x\n'y'`}", "{\"a\": `x\n\"y\"`}"}, // no backquoted string ends on the line: a character
	} {
		rs := faultmodel.HabitTexts("single_quotes", tt.text)
		if len(rs) != 1 || rs[0].Text != tt.want {
			t.Errorf("single_quotes(%q): %v, want %q", tt.text, rs, tt.want)
		}
	}
}

// The wrapper rows start the object only where the text skipped before
// it is prose: never after a complete object, inside an open reasoning
// block, after a name's '=' other than the arguments', or in a text that
// opens with JSON's marks; and end it only before text holding no
// reasoning tag.
// A '{' an edit makes may open the object after a wrapper wherever a '{'
// written there would.
func TestWrapperMadeStartsFollowTheRow(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want []int
	}{
		{"Sure: \"a\": 1}", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{`{"a": 1}`, nil}, // opens as JSON: no wrapper
		{`x {"a": 1} "b": 2}`, []int{1, 2, 3, 4, 5, 6}}, // none after an object's start ({ and :)
		{`args= "a": 1}`, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{`query= "a"}`, []int{1, 2, 3, 4, 5, 8, 9, 10}}, // not right after a name other than the arguments' and '='
	} {
		if got := faultmodel.WrapperMadeStarts(tt.s); !slices.Equal(got, tt.want) {
			t.Errorf("WrapperMadeStarts(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestWrapperBoundsFollowTheRow(t *testing.T) {
	tests := []struct {
		s            string
		starts, ends []int // the places past 0 and len(s)
	}{
		{`Sure: {"a": 1}`, []int{6}, nil},
		{`Calling the tool for {city} now: {"a": 1} (done)`, []int{21, 33}, []int{41}},
		{`Options: {"a": 1} or {"b": 2}`, []int{9}, nil},
		{`Options: {'a': 1} or {"b": 2}`, []int{9}, nil},
		{`Sure: {"x": {"b": 1}}`, []int{6}, nil},
		{`args={"x": false{ "k": 1}`, []int{5}, nil},
		{`Use {a} or {b}: {"k": 1}`, []int{4, 11, 16}, nil},
		{`Options: {} or { } or {"k": 1}`, []int{9}, nil},
		{`<think>I'll send {"n": 1} once I`, nil, []int{25}},
		{`<think>I could send {"x": 1}.</think> {"a": 1}`, []int{38}, nil},
		{`I could send {"x": 1}.</think>{"a": 1}`, []int{13, 30}, nil},
		{`{"n": 1}<think>or maybe`, nil, nil},
		{`{"n": 1} </think>`, nil, nil},
		{`{"n": 1} done`, nil, []int{8}},
		{`id={"a": 1}`, nil, nil},
		{`args={"a": 1}`, []int{5}, nil},
		{`Arguments = {"a": 1}`, []int{12}, nil},
		{`[]{"a": 1}`, nil, nil},
		{`}   {"a": 1}`, nil, nil},
		{`,"k": "x"` + "\n{}", nil, nil},
		{`'` + "\n\t" + `{"a": 1}`, nil, nil},
		{`[TOOL_CALLS]{"a": 1}`, []int{12}, nil},
	}
	for _, tt := range tests {
		starts, ends := faultmodel.WrapperBounds(tt.s)
		wantS, wantE := append([]int{0}, tt.starts...), append([]int{len(tt.s)}, tt.ends...)
		if !slices.Equal(starts, wantS) || !slices.Equal(ends, wantE) {
			t.Errorf("WrapperBounds(%q) = %v, %v; want %v, %v", tt.s, starts, ends, wantS, wantE)
		}
	}
}

// A bare token holds no quote mark (backquotes and &quot; included) and
// no invisible character, neither starts nor ends with white space
// outside ASCII, and does not end in an odd run of backslashes (its
// closing quote escaped): such a text is no bare string.
func TestBareTokensAreWhatTheRowSays(t *testing.T) {
	o, _ := faultmodel.Lookup("bare_value")
	tests := []struct {
		broken string
		reads  []string // every text one edit reads it as that is JSON
	}{
		{`{"a": both}`, []string{`{"a": "both"}`}},
		{`{"a": two words }`, []string{`{"a": "two words" }`}},
		{`{"a": css\n  }`, []string{`{"a": "css\n"  }`}},
		{`{"a": C:\temp}`, []string{`{"a": "C:\temp"}`}},
		{"{\"a\": \u200bboth}", nil},
		{"{\"a\": both\u00a0}", nil},
		{"{\"a\": bo\u200bth}", nil},
		{"{\"a\": 1\u200b2}", nil},
		{`{"a": NULLABLE}`, []string{`{"a": "NULLABLE"}`}},
		{`{"a": None}`, nil},
		{`{"a": 220 * 2}`, nil},
		{`{"a": NULL pointer}`, nil},
		{`{"a": version 2}`, []string{`{"a": "version 2"}`}},
		{"{\"a\": `both`}", nil},
		{`{"a": &quot;both&quot;}`, nil},
		{`{"a": x\,"}`, nil},                                 // "x\" would run on to the quote: x",
		{`{"a": x\\,"b":1}`, []string{`{"a": "x\\","b":1}`}}, // an escaped backslash ends it
		{`{"a": x//y}`, []string{`{"a": "x//y"}`}},           // "//" inside a word is the token's (and a comment's: the comment row)
		{`{"a": x //y}`, nil},                                // after white space it opens a comment
		{`{"a": true//y}`, nil},                              // a literal, then a comment
		{`{"a": [1, \n]}`, nil},                              // escaped white space alone is layout, no token
		{`{"a": [1, \t\n ]}`, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range o.Inverse(tt.broken) {
			if r := e.Apply(tt.broken); json.Valid([]byte(r)) {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tt.reads) {
			t.Errorf("%q reads as %q, want %q", tt.broken, got, tt.reads)
		}
	}
}

// A number is a value: a leading 0 is a loose number's only in a value's
// place, and a run of digits is quoted (numeric_key) only in a key's
// place, where a colon follows it.
func TestNumbersStandWhereTheRowsSay(t *testing.T) {
	tests := []struct {
		op, broken string
		reads      []string // every text one edit reads it as that is JSON
	}{
		{"loose_number", `{"a": 07}`, []string{`{"a": 7}`}},
		{"loose_number", `{"a": [1,-05]}`, []string{`{"a": [1,-5]}`}},
		{"loose_number", `{07: 1}`, nil},
		{"loose_number", `{"a": 1.05}`, nil},
		{"loose_number", `{"\u00e9": 1, "b": 2e05}`, nil},
		{"numeric_key", `{"a": 07}`, nil},
		{"numeric_key", `{07 : 1}`, []string{`{"07" : 1}`}},
	}
	for _, tt := range tests {
		o, _ := faultmodel.Lookup(tt.op)
		var got []string
		for _, e := range o.Inverse(tt.broken) {
			if r := e.Apply(tt.broken); json.Valid([]byte(r)) && r != tt.broken {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tt.reads) {
			t.Errorf("%s: %q reads as %q, want %q", tt.op, tt.broken, got, tt.reads)
		}
	}
}

// The cut row reads a cut wherever a stream can be cut: it completes the
// text there, and says whether what followed leaves the value unknown.
func TestCutReadsEveryPlace(t *testing.T) {
	tests := []struct {
		text, valid string
		unknown     bool
	}{
		{`{`, `{}`, true},                              // after an opener: what it opened is lost
		{`{"a": [`, `{"a": []}`, true},                 //
		{`{"a": "x"`, `{"a": "x"}`, false},             // after a complete value
		{`{"a": {"b": 1} `, `{"a": {"b": 1} }`, false}, //
		{`{"a": 1 `, `{"a": 1 }`, false},               // a number and white space: complete
		{`{"a": 1,`, `{"a": 1}`, true},                 // after a comma: dropped, a member begun is lost
		{`{"a": [1,`, `{"a": [1]}`, true},              //
		{`{"a": [1, 2] `, `{"a": [1, 2] }`, false},     // an array closed: complete
		{`{"a": [{"b": 1}`, `{"a": [{"b": 1}]}`, true}, // an array open: how many items is unknown
		{`{"a": nu`, `{"a": null}`, false},             // a literal's first letters
		{`{"a": true`, `{"a": true}`, false},           //
		{`{"`, `{"":null}`, true},                      // inside a key
		{`{"a": 1, "b`, `{"a": 1, "b":null}`, true},    //
		{`{"a\`, `{"a\\":null}`, true},                 //
		{`{"a"`, `{"a":null}`, true},                   // after a key
		{`{"a":`, `{"a":null}`, true},                  // after its colon
		{`{"a": "x`, `{"a": "x"}`, true},               // inside a string
		{`{"a": "\u12`, `{"a": "\u1200"}`, true},       //
		{`{"a": 12`, `{"a": 12}`, true},                // right after a number
		{`{"a": 1.`, `{"a": 1.0}`, true},               //
		{`{"a": [-`, `{"a": [-0]}`, true},              //
	}
	for _, tt := range tests {
		e, unknown, ok := faultmodel.Cut(tt.text)
		if !ok || e.Apply(tt.text) != tt.valid || unknown != tt.unknown || !json.Valid([]byte(e.Apply(tt.text))) {
			t.Errorf("Cut(%q) = %q, unknown %v, %v; want %q, unknown %v", tt.text, e.Apply(tt.text), unknown, ok, tt.valid, tt.unknown)
		}
	}
	// After a bare token's text, which may have gone on as a number may
	// (the unquoted row reads it after the cut; a bare string may hold
	// white space), a quote mark other than '"' (the quote styles read
	// it after the cut: it may stand inside the string) or a comment's
	// text; a literal (or its first letters), a number with white space
	// after it, or a complete string or container leave it complete.
	for _, tt := range []struct {
		text    string
		unknown bool
	}{
		{`{"a": NUL`, true}, {`{"a": both`, true}, {`{"a": x1`, true}, {`{"a": [red, blue`, true},
		{`{"a": 'x'`, true}, {`{'a': 'it’`, true}, {`{"a": 1 // note`, true}, {`{"a": <`, true},
		{`{"a": moderately `, true}, {`{"a": 'x' `, true},
		{`{"a": tr`, false}, {`{"a": true `, false}, {`{"a": 12 `, false}, {`{"a": "x" `, false}, {`{"a": {"b": 1} `, false},
	} {
		if _, unknown, ok := faultmodel.Cut(tt.text); !ok || unknown != tt.unknown {
			t.Errorf("Cut(%q): unknown %v, %v; want unknown %v", tt.text, unknown, ok, tt.unknown)
		}
	}
	for _, s := range []string{``, `  `, `{"a": 1}`, `{"a": 1},`} {
		if e, _, ok := faultmodel.Cut(s); ok {
			t.Errorf("Cut(%q) = %q: nothing was cut", s, e.Apply(s))
		}
	}
}

// A text that ends right after a piece of a string joined with '+' may
// have been cut before the next piece: the habit also reads it with that
// string left open, which a cut leaves unknown.
func TestJoinedStringsLeavesAPieceCutOpen(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a" + "b": "x" `, `{"ab": "x`},
		{`{"a": "x" +`, `{"a": "x`},
		{"{\"a\": 'x'\n + ", `{"a": 'x`},
	}
	for _, tt := range tests {
		var texts []string
		for _, r := range faultmodel.Habits("joined_strings", tt.text) {
			texts = append(texts, r.Text)
		}
		if !slices.Contains(texts, tt.want) {
			t.Errorf("Habits(joined_strings, %q) = %q, want %q among them", tt.text, texts, tt.want)
		}
	}
}

// A re-sent stream's head is one or two prefixes of the object's text,
// white space after the last aside: a stream may be cut inside its
// layout.
func TestResendHeadIsAPrefix(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i    int
		want bool
	}{
		{`{"a": 1, "b"{"a": 1, "b": 2}`, 12, true},
		{`{"a": 1, "b"    {"a": 1, "b": 2}`, 16, true},
		{`{"a": 1, "b"{"a": 1, "b"{"a": 1, "b": 2}`, 24, true},
		{`{"a": 1, "c"{"a": 1, "b": 2}`, 12, false},
		{`{"a": 1,  "b"{"a": 1, "b": 2}`, 13, false},  // white space inside the head is the head's own
		{`// {"a": 1, // {"a": 1, "b": 2}`, 12, true}, // a wrapper re-sent with each head
		{` {"a": 1, {"a": 1, "b": 2}`, 10, false},     // a text opening with white space has no head
	} {
		if got := faultmodel.ResendHead(tt.s, tt.i); got != tt.want {
			t.Errorf("ResendHead(%q, %d) = %v, want %v", tt.s, tt.i, got, tt.want)
		}
	}
}

// The concatenation catch-all drops one of two whole objects: never
// inside a value, never beside a broken one (the reading's other edits
// mend it first).
func TestConcatenationDropsAWholeObject(t *testing.T) {
	for _, tt := range []struct {
		s    string
		j    int
		want bool
	}{
		{`{"a": 1}{"b": 2}`, 8, true},
		{" {\"a\": 1}\n\t{\"b\": 2}", 11, true},
		{`[1]{"b": 2}`, 3, false},                  // a list, not an object
		{`{"a": [{"b": 1}, {"c": 2}]}`, 17, false}, // inside a value
		{`{"a": {"b": 1}}`, 6, false},
		{`{"a": "}"}{"b": 2}`, 10, true},
		{`{"a": "{"}{"b": 2}`, 6, false}, // inside a string
		{`{"a": 1}}{"b": 2}`, 9, false},  // a broken object first
		{`{"a": 1}{"b": 2`, 8, false},    // a broken object second
	} {
		if got := faultmodel.Concatenated(tt.s, tt.j); got != tt.want {
			t.Errorf("Concatenated(%q, %d) = %v, want %v", tt.s, tt.j, got, tt.want)
		}
	}
}

// The double encoding row reads a text as the body of a JSON string
// exactly as encoding/json decodes it (the row reads a text without a
// backslash without decoding it): each text here has the body json's
// decoder gives it, or none where the decoder refuses it.
func TestDoubleEncodedReadsTheBodyAsJSONDoes(t *testing.T) {
	row, _ := faultmodel.Lookup("double_encoded")
	for _, s := range []string{
		`{a: 1}`,         // no backslash, no quote: the body is the text
		`{"a": 1}`,       // a quote no backslash escapes: no body
		"{a: \xff}",      // invalid UTF-8: the decoder writes U+FFFD
		"{a:\x01}",       // a control character: no body
		`{\"a\": "x\ty}`, // a backslash: decoded (and refused: a bare quote)
		`{\"a\": \"x\ty\"}`,
	} {
		var body string
		want := json.Unmarshal([]byte(`"`+s+`"`), &body) == nil
		got := false
		for _, e := range row.Inverse(s) {
			got = got || e.Start == 0 && e.End == len(s) && e.Repl == body && want
		}
		if got != want {
			t.Errorf("%q: read as a body %q: %v, want %v", s, body, got, want)
		}
		if !want {
			for _, e := range row.Inverse(s) {
				if e.Repl != s && e.Repl != strings.ReplaceAll(s, `\"`, `"`) {
					t.Errorf("%q: read as %q, which no layer, body or escaped quote gives", s, e.Repl)
				}
			}
		}
	}
}
