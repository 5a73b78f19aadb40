// Package faultmodel is the fault model of the repair stage, as data: the
// table of fault operators that break a model's JSON arguments, each with
// its cost, the reason for that cost, the name its repair is reported
// under, and its inverse, which reads a broken text back.
//
// The model in a paragraph: a broken text means the values it can be read
// back to by undoing faults of the table. A reading's cost is the sum of
// the costs of the faults it undoes; each edit of a reading must be needed
// (with one of them left out the text is not one JSON object), since an
// edit that turns one valid text into another is no fault anyone could
// see. The window of a text is its readings at the cheapest cost and at
// one fault more. Repair runs a call exactly when every reading in the
// window gives the same value, and otherwise refuses, naming the fault and
// the readings. The oracle (package faultinject) breaks valid texts with
// the forward form of each operator, and its brute-force reader computes
// the window of small texts from the inverses here, to judge the engine.
//
// Each inverse proposes every edit that undoes one fault of its kind,
// wherever that fault can occur in a text: restricting where an inverse
// applies hides the true reading. The catch-alls (a wrapper around the
// object, junk after it) state in their row exactly what they may skip.
package faultmodel

import (
	"strings"
)

// Edit replaces Text[Start:End] with Repl, where Text is the text it was
// proposed for.
type Edit struct {
	Start, End int
	Repl       string
}

// Apply returns s with e made.
func (e Edit) Apply(s string) string {
	return s[:e.Start] + e.Repl + s[e.End:]
}

// Operator is one row of the table: a fault, defined once.
type Operator struct {
	// Name names the fault: the oracle's operator of that name breaks a
	// text with it, and the sweep reports it under that name.
	Name string
	// Cost is how many faults undoing it counts as (1 for a fault models
	// commonly make).
	Cost int
	// Reason says, in one line, why the fault costs what it costs.
	Reason string
	// Step is the name the repair is reported under: a value of
	// lenient.Step (saidex.RepairStep), used in Steps and feedback.
	Step string
	// Skips, for a catch-all, states exactly what it may skip ("" for
	// the others).
	Skips string
	// Habit, for a habit (a way of writing the whole text, priced once
	// per text and read by [Habits]), names it as refusals do ("" for
	// the others).
	Habit string
	// Inverse returns every edit that undoes one fault of this kind in s,
	// wherever the fault can occur. An edit may be proposed more than
	// once.
	Inverse func(s string) []Edit
}

// Structural are the characters of the generic structural fault: JSON's
// brackets, comma, colon and quote. One of them inserted, deleted, or
// written for another, anywhere, is one fault (punctuation); the
// apostrophe is also deleted and replaced, as it is written for a quote.
const Structural = `{}[]",:`

// Table is the fault model: every operator, in the order the oracle runs
// them.
var Table = []Operator{
	{Name: "quote_style", Cost: 1, Step: "json_repair", Inverse: invQuoteStyle,
		Reason: "one string written in single or typographic quotes is one slip of one writer (every string so written is the single_quotes habit, one fault for the text)"},
	{Name: "unquoted", Cost: 1, Step: "json_repair", Inverse: invBare,
		Reason: "a key or string written bare is one omission; the white space around it is layout, and so is a token of escaped white space alone; a bare literal or number is never read as a string"},
	{Name: "comma", Cost: 1, Step: "json_repair", Inverse: invComma,
		Reason: "one comma dropped, doubled or trailing is one keystroke"},
	{Name: "colon", Cost: 1, Step: "missing_colon", Inverse: invColon,
		Reason: "one colon dropped or doubled is one keystroke"},
	{Name: "quote", Cost: 2, Step: "missing_quote", Inverse: invQuote,
		Reason: "a quote dropped, inserted or left unescaped anywhere re-cuts the strings around it and explains almost any text: a catch-all, two faults"},
	{Name: "escape", Cost: 1, Step: "json_repair", Inverse: invEscape,
		Reason: "one escape written as the character it stands for, or an apostrophe escaped as JavaScript and Python escape it (\\'), is one slip of the encoder (every backslash written as itself is the literal_backslashes habit, one fault for the text)"},
	{Name: "stray_brace", Cost: 1, Step: "wrong_closer", Inverse: invDeleteBrace,
		Reason: "one brace too many is one keystroke"},
	{Name: "premature_closer", Cost: 1, Step: "wrong_closer", Inverse: invDeleteCloser,
		Reason: "one closer written early is one keystroke"},
	{Name: "dropped_closer", Cost: 1, Step: "mismatched_bracket", Inverse: invInsertCloser,
		Reason: "one closer left out is one keystroke"},
	{Name: "swapped_closer", Cost: 1, Step: "wrong_closer", Inverse: invSwapCloser,
		Reason: "'}' written for ']' (or back) is one keystroke"},
	{Name: "comment", Cost: 1, Step: "json_repair", Inverse: invComment,
		Reason: "one comment is one habit of the writer, whatever it holds, ended by its line break or earlier (written where no line break ends it); it stands where white space may, never inside a string's content (a bare token's included)"},
	{Name: "escaped_space", Cost: 1, Step: "escaped_whitespace", Inverse: invEscapedSpace,
		Reason: "layout white space escaped by a double-encoding stack is one slip of the encoder"},
	{Name: "py_js_literal", Cost: 1, Step: "json_repair", Inverse: invPyLiteral,
		Reason: "True, False, None and undefined are Python's and JavaScript's spelling of a JSON literal"},
	{Name: "repeated_key", Cost: 1, Step: "repeated_key", Inverse: invRepeatedKey,
		Reason: "a member sent twice is one repeat; which copy is meant is the readings' to say"},
	{Name: "literal_case", Cost: 1, Step: "literal_case", Inverse: invLiteralCase,
		Reason: "TRUE, Null or none is a literal in another case, one habit"},
	{Name: "loose_number", Cost: 1, Step: "loose_number", Inverse: invLooseNumber,
		Reason: ".5, 5., +5 and 05 are one number written loosely (a '+' only where a number goes on after it)"},
	{Name: "numeric_key", Cost: 1, Step: "numeric_key", Inverse: invNumericKey,
		Reason: "an integer key written bare is one omission; only a key's place (a colon after it) holds one"},
	{Name: "unclosed_key", Cost: 1, Step: "unclosed_key", Inverse: invUnclosedKey,
		Reason: "a key's closing quote left out before its colon is one keystroke; the quote closes a key where it lands (one before a colon that opens a string is the quote row's)"},
	{Name: "stray_closer", Cost: 1, Step: "stray_closer", Inverse: invDeleteCloser,
		Reason: "one closer too many after the object is one keystroke"},
	{Name: "stray_bracket", Cost: 1, Step: "wrong_closer", Inverse: invDeleteBracket,
		Reason: "one ']' too many is one keystroke"},
	{Name: "bare_value", Cost: 1, Step: "quoted_bare_value", Inverse: invBare,
		Reason: "a string value written bare is one omission; a bare literal or number is never read as a string"},
	{Name: "template_quotes", Cost: 1, Step: "template_quotes", Inverse: invTemplateQuotes,
		Reason: "a chat template's quote token for JSON's quotes is one habit of one model, applied throughout or once"},
	{Name: "punctuation", Cost: 2, Step: "json_repair", Inverse: invPunctuation,
		Reason: "any structural character inserted, deleted or swapped anywhere explains almost any text: a catch-all, two faults (the named rows price its common cases at one)"},
	{Name: "split_number", Cost: 1, Step: "json_repair", Inverse: invSplitNumber,
		Reason: "a space grouping a number's digits by thousands (1 000, a locale's habit) or after its point is one keystroke; a space elsewhere in a number is no habit ([1, 54 3] is a comma dropped), and [1 000] has both readings"},
	{Name: "quote_moved", Cost: 2, Step: "json_repair", Inverse: invQuoteMoved,
		Reason: "a quote one character off its place re-cuts the strings around it: a catch-all, two faults; never over white space, escaped or invisible too (QuoteMovesOver), nor back over a '}' or ']' after it, which no string's quote moved past (QuoteMovesOverNext); back over a ',' after it only as a string's opening quote, a trailing comma after a string being the comma's one keystroke (MovedQuoteOpens)"},
	{Name: "around", Cost: 1, Step: "extract_object", Inverse: invWrapper, Skips: wrapperSkips,
		Reason: "prose, a fence, reasoning or template tokens around the object are one wrapper, written at once"},
	{Name: "double_encoded", Cost: 1, Step: "double_encoded", Inverse: invDoubleEncoded,
		Reason: "the object encoded as a JSON string (once or twice, escapes consistent or not) is one layer of a stack"},
	{Name: "repeated_object", Cost: 1, Step: "repeated_object", Inverse: invResend, Skips: resendSkips,
		Reason: "the object re-sent, whole or cumulatively, is one repeat of a stream"},
	{Name: "concatenated", Cost: 1, Step: "repeated_object", Inverse: invConcat, Skips: concatSkips,
		Reason: "a second object after the first (two calls sent as one, or the object sent again) is one joining of two texts: either object is a reading, so two different ones refuse"},
	{Name: "doubled_braces", Cost: 1, Step: "doubled_braces", Inverse: invDoubledBraces,
		Reason: "every brace doubled as a template escapes them ({{ and }}), or the object wrapped in braces again (once or more, as retries grow it), is one layer written over the whole text"},
	{Name: "csv_quotes", Cost: 1, Step: "double_encoded", Inverse: invCSVQuotes,
		Reason: "quotes doubled throughout, as CSV escapes them, are one layer of a stack"},
	{Name: "commented", Cost: 1, Step: "extract_object", Inverse: invWrapper, Skips: wrapperSkips,
		Reason: "the object commented out or named (args=) is one wrapper, written at once"},
	{Name: "cut", Cost: 1, Step: "json_repair", Inverse: invCloseAtEnd,
		Reason: "a stream cut off is one fault, however many closers it lost; what followed the cut is unknown: the value is known only when the cut fell right after a complete value with no array open (a bare word, as a number, may have gone on, and a string in single quotes past its apostrophe)"},
	{Name: "literal_backslashes", Cost: 1, Habit: "backslashes written as themselves", Step: "json_repair", Inverse: invLiteralBackslashes,
		Reason: "every backslash written as itself (a Windows path, a regular expression) is one habit of one writer, priced once per text; seen only where a backslash starts no JSON escape"},
	{Name: "single_quotes", Cost: 1, Habit: "single quotes", Step: "json_repair", Inverse: invSingleQuotes,
		Reason: "every string written in single or typographic quotes is one habit of one writer, priced once per text"},
	{Name: "bare_apostrophe", Cost: 1, Habit: "single quotes with apostrophes left bare", Step: "json_repair", Inverse: invBareApostrophes,
		Reason: "every string written in single quotes with the apostrophes inside its words left bare (Joe's, don't: Python's repr imitated by hand) is one habit of one writer, priced once per text as single_quotes is; an apostrophe beside a space, a '+' or punctuation is a quote"},
	{Name: "joined_strings", Cost: 1, Habit: "strings joined with '+'", Step: "join_strings", Inverse: invJoinedStrings,
		Reason: "strings written as quoted pieces joined with '+' (JavaScript's concatenation) are one habit of one writer, priced once per text; a '+' glued to both quotes is not read as one"},
	{Name: "backquotes", Cost: 1, Step: "json_repair", Inverse: invBackquotes,
		Reason: "one string written in backquotes, as JavaScript's template strings are, is one habit of one writer"},
	{Name: "entity_quotes", Cost: 1, Step: "json_repair", Inverse: invEntityQuotes,
		Reason: "one string's quotes written as the HTML entity &quot; is one slip of an escaping layer"},
	{Name: "invisible", Cost: 1, Step: "invisible_space", Inverse: invInvisible,
		Reason: "one invisible character (a format character such as U+200B, or white space outside ASCII) where white space may stand is one slip of a copy or a tokenizer; a run of n is n faults"},
	{Name: "template_escapes", Cost: 1, Step: "template_quotes", Inverse: invTemplateEscapes,
		Reason: "JSON's escapes kept between a chat template's quote tokens, a format without escapes, are one habit of one model, priced once per text: there a backslash is an escape or a character"},
}

// Lookup returns the row named name.
func Lookup(name string) (Operator, bool) {
	for _, o := range Table {
		if o.Name == name {
			return o, true
		}
	}
	return Operator{}, false
}

// IsChar reports whether e is a context-free character edit: one of
// [Structural] inserted anywhere, or one of them (or an apostrophe)
// deleted or written as another of them. Such an edit applies to its
// character whatever surrounds it, so two of them at different places can
// be made in either order.
func IsChar(s string, e Edit) bool {
	switch {
	case e.End == e.Start:
		return len(e.Repl) == 1 && strings.IndexByte(Structural, e.Repl[0]) >= 0
	case e.End == e.Start+1 && strings.IndexByte(Structural+"'", s[e.Start]) >= 0:
		return e.Repl == "" || len(e.Repl) == 1 && strings.IndexByte(Structural, e.Repl[0]) >= 0
	}
	return false
}
