// Package lenient turns an argument string that a model meant as one JSON
// value into the JSON text of that value, or refuses it with a reason meant
// for the model. It produces text, never a decoded value: its caller
// decodes the result once (package jsonread), or checks it on its bytes.
//
// The model in a paragraph: a broken text means the values it reads back
// to by undoing faults of faultmodel.Table, whose rows are the fault
// operators, each with a cost (how likely the fault is in a model's
// output, a reason for it in its row) and an inverse. A reading costs the
// sum of the faults it undoes, each of them needed. The window of a text
// is its readings at the cheapest cost and at one fault more: up to two
// faults, or three where the cheapest costs two. [Repair] runs a value
// exactly when every reading in the window gives it and it is an object;
// it refuses, naming the fault, a text whose readings differ, a text whose
// cheapest reading leaves a value unknown (a cut inside a string, a
// number or a bare word; one fault past the cheapest such a reading names
// no value and does not count), and a text past the budget (more faults
// than the window reaches, or more work than a bound per byte). The documented exceptions
// are facts of the model too: a text cut right after a complete value, its
// closers added at the end (where Options.Choose picks another placement
// of them, there; a cut inside an array is refused, its items after the
// cut unknown), and text around the object (reasoning blocks, fences,
// prose) within what the wrapper row may skip. Each named repair is
// reported as a [Step].
//
// Two readers compute it. The scanner reads a text in one linear pass,
// undoing each fault it can place there, and refuses where the context
// admits another reading; a writer's habit it reads string by string
// (single quotes throughout, backslashes as themselves, strings joined
// with '+') is checked against the habit read once for the whole text
// (habitAgrees, model.go). For a text of at most maxModelBytes, the
// readings engine (package readings) computes the window: the scanner's
// value stands only where the window gives it alone (windowAgrees,
// model.go; the closers of a cut placed at the end or by Options.Choose
// aside), and where the scanner refuses, the window decides
// (readByModel). A longer text is the scanner's alone. The
// fault-injection oracle of package faultinject judges both against the
// same table.
//
// Every JSON text is checked with package jsonread. Repair is linear in the
// length of its input.
//
// [Mask] reads the same kind of text to show it with the values at secret
// locations masked, hiding whatever it cannot place.
package lenient

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// Step names one deterministic repair. Its values are those of saidex's
// RepairStep constants.
type Step string

// The steps, in the order a result lists them.
const (
	StripThinking  Step = "strip_thinking"  // removed <think>…</think> reasoning
	DoubleEncoded  Step = "double_encoded"  // decoded layers of JSON-string encoding
	TemplateTokens Step = "template_tokens" // removed leaked template tokens
	// TemplateQuotes: read strings written between a template's quote
	// tokens (Gemma 4's <|"|>), their text as it is, as JSON strings.
	TemplateQuotes Step = "template_quotes"
	CodeFence      Step = "code_fence"      // removed a markdown code fence
	ExtractObject  Step = "extract_object"  // cut prose (or extra closing braces) around the object
	Placeholders   Step = "placeholders"    // the prose around the object held brace placeholders ({city}), which are not objects
	RepeatedObject Step = "repeated_object" // dropped copies of the object equal in value, back to back or in the prose after it
	// CumulativeStream: the text was the cumulative re-sends of a stream
	// (a prefix, a longer prefix, then the whole object); the last is
	// kept.
	CumulativeStream Step = "cumulative_stream"
	FixSyntax        Step = "json_repair" // fixed the JSON syntax
	// The named syntax repairs of the scanner, reported with FixSyntax.
	JoinStrings  Step = "join_strings"  // joined a string written as quoted pieces and '+' ('ab' + 'c')
	MissingColon Step = "missing_colon" // inserted the colon missing between a key and its value
	StrayComma   Step = "stray_comma"   // dropped a comma before the top-level object's first member, or after the object
	// MismatchedBracket: added the ']' missing before the closing braces
	// of the object. (A ']' while only objects are open is WrongCloser's.)
	MismatchedBracket Step = "mismatched_bracket"
	DoubledBraces     Step = "doubled_braces" // read an object written {{ … }} (template-escaped braces)
	// InvisibleSpace: read Unicode white space and invisible format
	// characters (zero-width space, word joiner) between tokens as white
	// space.
	InvisibleSpace Step = "invisible_space"
	MissingQuote   Step = "missing_quote" // added the opening quote of a key or string value whose closing quote is present
	// RepeatedKey: dropped a member whose name and value repeat an earlier
	// member's (a name repeated with another value is refused).
	RepeatedKey Step = "repeated_key"
	// EscapedWhitespace: read \n, \r and \t written as two characters
	// between tokens (outside any string) as the white space they escape.
	EscapedWhitespace Step = "escaped_whitespace"
	UnclosedKey       Step = "unclosed_key" // added the closing quote of a key written up to its colon ({"a: 1})
	StrayCloser       Step = "stray_closer" // dropped a ']' right after the complete object, which opens nothing
	// WrongCloser: changed the one closing bracket (replaced, inserted or
	// deleted) whose change alone makes the object read to its end.
	WrongCloser Step = "wrong_closer"
	LiteralCase Step = "literal_case" // read TRUE, FALSE, NULL, Null, none and NONE as JSON literals
	LooseNumber Step = "loose_number" // read .5, 5. and +5 as 0.5, 5 and 5
	NumericKey  Step = "numeric_key"  // quoted a key written as an integer ({1: "a"})
	// QuotedBareValue: quoted an unquoted token where the tool's schema
	// accepts only a string ("direction": both); needs Options.Schema.
	QuotedBareValue Step = "quoted_bare_value"
)

// stepOrder is the order in which steps are reported.
var stepOrder = []Step{StripThinking, DoubleEncoded, TemplateTokens, TemplateQuotes, CodeFence, ExtractObject, Placeholders, RepeatedObject, CumulativeStream, FixSyntax,
	JoinStrings, MissingColon, StrayComma, MismatchedBracket, DoubledBraces, InvisibleSpace, MissingQuote, RepeatedKey,
	EscapedWhitespace, UnclosedKey, StrayCloser, WrongCloser, LiteralCase, LooseNumber, NumericKey, QuotedBareValue}

// Error is a refusal: the text could not be turned into one JSON value
// without guessing.
type Error struct {
	// Reason says what was received, in words meant for the model that
	// sent it. It never quotes the text's values.
	Reason string
	// closer is 1 + the index in the scanned text of a closing bracket
	// refused as mismatched, or 0; opener, likewise, the innermost open
	// bracket there, and value the start of the value before the closer.
	closer, opener, value int
	// spelled: a literal or number not written as JSON writes it, where
	// the schema accepts a string (see spelledAs).
	spelled bool
}

// Error returns the reason.
func (e *Error) Error() string { return e.Reason }

func malformed(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// Options configures [Repair]. The zero value strips nothing and fixes no
// syntax: only extraction and the undoing of string encoding run.
type Options struct {
	StripThinking bool // remove reasoning blocks (else a reasoning tag is refused)
	FixSyntax     bool // fix quotes, keys, literals, commas, comments and truncation
	// Schema, when not nil, is the tool's schema, for the repairs it
	// guides (QuotedBareValue).
	Schema Schema
	// Choose, when not nil, picks among the readings of a text whose
	// closing brackets are missing at its end. readings[0] adds them at
	// the end (a stream cut off); each other reading places them where a
	// member ends earlier in the text (closers dropped inside it), and
	// is one JSON value (a text where one would repeat a member name is
	// offered no choice). Choose returns the index of the reading to take,
	// or -1 when it cannot tell them apart: the closers are then added at
	// the end, or, where the text ends with a closing brace (and so reads
	// both ways as plausibly), it is refused. Choose is called only with
	// two readings or more, and not when there are too many (see
	// maxReadings).
	Choose func(readings []string) int
	// Foreign, when not nil, reports whether the JSON text reading names
	// a member the tool does not have (one its schema neither lists nor
	// allows where it is). The fault model
	// drops such readings from a window whose readings keep one part of
	// the text as the object (readings.Window.Drop), so that the one
	// reading left runs.
	Foreign func(reading string) bool
}

// Result is a repaired text.
type Result struct {
	// JSON is one JSON value: the raw string when it parsed as it is (or a
	// part of it, when only noise around it was dropped), else the
	// object's compact canonical text.
	JSON  string
	Steps []Step // the steps applied, in the order of the constants
	// closed: the scanner added closers missing at the end of the text
	// (internal; cleared before Repair returns).
	closed bool
	// escQuoteEnd: a string of the repaired text ended with an escaped
	// quote right before its closing quote (internal).
	escQuoteEnd bool
}

// maxEncodingLayers bounds how many layers of JSON-string encoding are undone.
const maxEncodingLayers = 8

// Repair turns raw into one JSON value.
//
// A raw string that parses is returned as it is (one syntax check),
// unless it is a JSON string holding an object, whose encoding is undone.
// Anything else goes through the steps in order: strip reasoning blocks,
// extract the single object from prose, fences, template tokens and
// repeated copies, then scan it, which fixes its syntax and produces its
// canonical text.
func Repair(raw string, opt Options) (Result, error) {
	res, err := scan(raw, opt)
	m := &modelRead{raw: raw} // the fault model's reading, made once when needed (model.go)
	if err == nil {
		if herr := habitAgrees(m, res, opt); herr != nil {
			res, err = Result{}, herr
		} else if werr := windowAgrees(m, res, opt); werr != nil {
			res, err = Result{}, werr
		}
	}
	if err != nil {
		if r, ok := readByModel(m, opt); ok {
			res, err = r, nil
		}
	}
	if err == nil && len(res.Steps) == 0 && res.JSON != raw {
		// Only noise around the object was dropped (a byte order mark,
		// Unicode white space).
		res.Steps = []Step{ExtractObject}
	}
	slices.SortStableFunc(res.Steps, func(a, b Step) int {
		return slices.Index(stepOrder, a) - slices.Index(stepOrder, b)
	})
	return res, err
}

// scan is the scanner's repair of raw: its layers, then the check that
// every member name is held once.
func scan(raw string, opt Options) (Result, error) {
	res, err := repairLayer(raw, opt, 0)
	if err != nil {
		return res, err
	}
	// Every result holds each member name once: the tool receives the
	// text that is validated, whatever it decodes first or last.
	text, changed, rerr := repeatedNames(res.JSON)
	if rerr != nil {
		return Result{}, rerr
	}
	if changed && (res.closed || slices.Contains(res.Steps, MismatchedBracket) || slices.Contains(res.Steps, WrongCloser) || slices.Contains(res.Steps, StrayCloser)) {
		// {"a": {"b": 1, "c": 2, "b": 1: a name repeated in an object
		// whose closers were guessed may belong to an outer object.
		return Result{}, malformed("a key repeats in an object whose closing brackets had to be guessed; where the members belong is ambiguous")
	}
	res.closed = false
	if changed {
		res.JSON, res.Steps = text, append(res.Steps, RepeatedKey)
	}
	return res, nil
}

// firstLine returns s up to its first tab or line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\t\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// repairLayer repairs one layer of encoding.
func repairLayer(raw string, opt Options, layer int) (Result, error) {
	if _, wrapped := opt.Schema.(encodedSchema); layer > 0 && opt.Schema != nil && !wrapped {
		opt.Schema = encodedSchema{opt.Schema}
	}
	if t := strings.Trim(raw, " \t\r\n"); strings.HasPrefix(t, "{") && !strings.HasSuffix(t, "}") {
		// Not one JSON value (an object ends with '}'): most often a
		// stream cut off, which a syntax check would read to its end
		// before failing. Too deep a nesting is refused by the scanner.
		return repairBroken(raw, opt, layer)
	}
	switch jsonread.Check(raw) {
	case jsonread.OK:
		return unwrapString(Result{JSON: raw}, opt, layer)
	case jsonread.TooDeep:
		return Result{}, errTooDeep()
	}
	return repairBroken(raw, opt, layer)
}

func errTooDeep() error {
	return malformed("the arguments are nested deeper than %d levels", jsonread.MaxDepth)
}

// unwrapString undoes JSON-string encoding around an object: res.JSON,
// valid JSON, that is a string holding (possibly encoded again) an object.
func unwrapString(res Result, opt Options, layer int) (Result, error) {
	t := strings.TrimLeft(res.JSON, " \t\r\n")
	if !strings.HasPrefix(t, `"`) {
		return res, nil
	}
	cur, _, _ := jsonread.DecodeString(t)
	lit := strings.TrimSpace(res.JSON) // the string literal cur was decoded from
	for l := layer; l < maxEncodingLayers; l++ {
		t := strings.TrimSpace(cur)
		switch {
		case strings.HasPrefix(t, "{"):
			inner, err := repairLayer(t, opt, l+1)
			if err != nil {
				return Result{}, err
			}
			if inner.closed {
				// "{\"a\": [\"x\", \"": an encoded object cut off; its
				// escapes, read once, may have been inconsistent.
				return Result{}, malformed("the arguments are a JSON string holding an object that is cut off; send the object itself")
			}
			if err := encodedEscapes(lit, inner, opt, l); err != nil {
				return Result{}, err
			}
			inner.Steps = slices.Concat(res.Steps, []Step{DoubleEncoded}, dropStep(inner.Steps, DoubleEncoded))
			return inner, nil
		case strings.HasPrefix(t, "```") && strings.Contains(t, "{"):
			// A JSON string holding a fenced code block with the object.
			inner, err := repairLayer(t, opt, l+1)
			if err != nil {
				return res, nil // a string value that looks like a fence
			}
			inner.Steps = slices.Concat(res.Steps, []Step{DoubleEncoded}, dropStep(inner.Steps, DoubleEncoded))
			return inner, nil
		case strings.HasPrefix(t, `"`):
			v, err := jsonread.Decode(t)
			next, isString := v.(string)
			if err != nil || !isString {
				return res, nil
			}
			cur, lit = next, t
		default:
			return res, nil
		}
	}
	return res, nil
}

func dropStep(steps []Step, s Step) []Step {
	out := steps[:0:0]
	for _, x := range steps {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func addStep(steps []Step, s Step) []Step {
	if slices.Contains(steps, s) {
		return steps
	}
	return append(steps, s)
}

// repairBroken repairs a raw string that does not parse (its only caller,
// repairLayer, has tried): it undoes the layers around the object
// (unwrap), scans the object (scan), then checks the text at its edges
// (edges), the reading of closers missing at its end (choose), the text
// after it (after) and the guesses the scan made (guesses), each of which
// may refuse it.
func repairBroken(raw string, opt Options, layer int) (Result, error) {
	b := &broken{opt: opt, layer: layer, raw: raw}
	if res, done, err := b.unwrap(); done {
		return res, err
	}
	if res, done, err := b.scan(); done {
		return res, err
	}
	defer b.sc.release()
	for _, check := range []func() error{b.edges, b.choose, b.after, b.guesses} {
		if err := check(); err != nil {
			return Result{}, err
		}
	}
	return b.result()
}

// broken is repairBroken's reading of one text: the text and the steps
// so far, then the object's scan and the text around it.
type broken struct {
	opt    Options
	layer  int
	raw, t string
	steps  []Step

	start   int      // where the object starts in t
	sc      *scanner // the object's scan
	written string   // the object's text as written, when its end was guessed (a closer changed or added)

	prefix, span, suffix string // t before the object, the object, t after it
	chosen               string // the reading Choose took, or the only one
	extraBraces          bool   // closing braces after the object were dropped
}

// unwrap undoes what is around the object: white space, CSV's doubled
// quotes, reasoning blocks, template quote tokens, escaped quotes
// throughout. done: the result is final.
func (b *broken) unwrap() (res Result, done bool, err error) {
	raw, opt, layer := b.raw, b.opt, b.layer
	var steps []Step
	t := strings.TrimSpace(strings.TrimPrefix(raw, "\uFEFF"))
	if t == "" {
		if raw == "" {
			return Result{}, true, malformed("the arguments are empty")
		}
		return Result{}, true, malformed("the arguments are only white space")
	}

	// An object written with CSV's doubled quotes, before reasoning is
	// looked for: its strings are read only once the quotes are halved.
	if body, ok := csvQuoted(t); ok && layer < maxEncodingLayers {
		res, err := csvLayer(body, steps, opt, layer)
		return res, true, err
	}

	// Reasoning blocks.
	if opt.StripThinking {
		rest, stripped, err := stripThinking(t)
		if err != nil {
			return Result{}, true, err
		}
		if stripped {
			steps = append(steps, StripThinking)
			t = strings.TrimSpace(rest)
			if t == "" {
				return Result{}, true, malformed("the arguments hold only a reasoning block and no JSON object after it")
			}
			if jsonread.Valid(t) {
				res, err := unwrapString(Result{JSON: t, Steps: steps}, opt, layer)
				return res, true, err
			}
		}
	} else if hasThinkTag(t) {
		return Result{}, true, malformed("the arguments hold a reasoning block, and stripping reasoning is disabled")
	}

	// An object whose quotes are all doubled, as CSV escapes them:
	// {""a"": ""x""}, possibly in quotes of its own.
	if body, ok := csvQuoted(t); ok && layer < maxEncodingLayers {
		res, err := csvLayer(body, steps, opt, layer)
		return res, true, err
	}

	// Strings written between a template's quote tokens (Gemma 4's
	// {a:<|"|>x<|"|>}): rewritten as JSON strings, then read as JSON.
	if strings.Contains(t, quoteToken) {
		if !opt.FixSyntax {
			return Result{}, true, malformed("the arguments write strings between template quote tokens, and JSON repair is disabled")
		}
		u, err := templateQuoted(t)
		if err != nil {
			return Result{}, true, err
		}
		res, err := repairLayer(u, opt, layer)
		if err != nil {
			return Result{}, true, err
		}
		res.Steps = slices.Concat(steps, []Step{TemplateQuotes}, res.Steps)
		return res, true, nil
	}

	// An object whose quotes are all escaped: {\"a\": 1}.
	// With white space, line breaks or prose around it: { \n \"a\": 1 }.
	if i := strings.IndexByte(t, '{'); i >= 0 && strings.HasPrefix(trimEscapedSpace(t[i+1:]), `\"`) && layer < maxEncodingLayers {
		if v, err := jsonread.Decode(`"` + controlEscaper.Replace(t) + `"`); err == nil {
			if s, ok := v.(string); ok {
				res, err := repairLayer(s, opt, layer+1)
				if err != nil {
					return Result{}, true, err
				}
				if err := encodedEscapes(`"`+t+`"`, res, opt, layer); err != nil {
					return Result{}, true, err
				}
				res.Steps = slices.Concat(steps, []Step{DoubleEncoded}, dropStep(res.Steps, DoubleEncoded))
				return res, true, nil
			}
		}
	}
	b.t, b.steps = t, steps
	return Result{}, false, nil
}

// scan finds the single object in the text and scans it: the last of
// cumulative re-sends, or with one wrong closer changed. done: the result
// is final (a refusal, or an object encoded in prose); otherwise b.sc is
// the scan, to release.
func (b *broken) scan() (res Result, done bool, err error) {
	t, steps, opt, layer := b.t, b.steps, b.opt, b.layer
	start, placeholders := objectStart(t, 0)
	if placeholders {
		steps = append(steps, Placeholders)
	}
	if start < 0 {
		if strings.TrimSpace(templateToken.ReplaceAllString(fence.ReplaceAllString(t, ""), "")) == "" {
			return Result{}, true, malformed("the arguments hold only template tokens or an empty code fence, no JSON object")
		}
		return Result{}, true, malformed("the arguments hold text but no JSON object")
	}
	// A JSON string holding the object, inside prose: Args: "{\"a\": 1}".
	if start > 0 && t[start-1] == '"' && layer < maxEncodingLayers {
		if res, ok, err := encodedInProse(t, start-1, steps, opt, layer); ok {
			return res, true, err
		}
	}
	// The same, the string's content a fenced block: Args: "```json\n{…".
	if q := strings.LastIndexByte(t[:start], '"'); q >= 0 && strings.HasPrefix(t[q+1:start], "```") && layer < maxEncodingLayers {
		if res, ok, err := encodedInProse(t, q, steps, opt, layer); ok {
			return res, true, err
		}
	}
	b.prefix = t[:start]
	sc, err := scanObjectWith(t[start:], !opt.FixSyntax, len(t)-start, opt.Schema)
	if err != nil {
		// Cumulative re-sends of a stream: a prefix, a longer prefix,
		// then the whole object. The last one is meant.
		last, ok := cumulativeLast(t[start:], false)
		if p := strings.TrimRight(t[start:start+last], " \t\r\n"); ok && p != "" && strings.IndexByte(":[", p[len(p)-1]) >= 0 {
			// {"a":{"a":null,"b":1}{"a": the last piece starts where a
			// value belongs: a nested object, a closer missing after it,
			// as likely.
			ok = false
		}
		switch {
		case ok && opt.FixSyntax:
			steps = append(steps, CumulativeStream)
			start += last
		case opt.FixSyntax:
			// A wrong closing bracket that one change of it fixes.
			fixed, ferr := oneCloserFix(t[start:], err, opt.Schema)
			if ferr != nil {
				return Result{}, true, ferr
			}
			steps = append(steps, FixSyntax, WrongCloser)
			b.written = t[start:]
			t = t[:start] + fixed
		default:
			return Result{}, true, err
		}
		if sc, err = scanObjectWith(t[start:], false, len(t)-start, opt.Schema); err != nil {
			return Result{}, true, err // not reached: cumulativeLast and oneCloserFix scanned it
		}
	}
	b.t, b.steps, b.start, b.sc = t, steps, start, sc
	return Result{}, false, nil
}

// edges refuses a text whose object may not end where the scan ended it:
// an unfinished stream that reads as re-sent too, text glued to the
// closing brace, a nested object closed too early.
func (b *broken) edges() error {
	sc, t, start := b.sc, b.t, b.start
	if (sc.truncated || b.written != "") && b.opt.FixSyntax {
		// (A stray ']' at the end does not hide the re-sends, nor a
		// closer changed to read the text to its end.) The object's text
		// as written is then kept: its end was guessed.
		if b.written == "" {
			b.written = t[start:]
		}
		if _, ok := cumulativeLast(strings.TrimRight(b.written, " \t\r\n]"), true); ok {
			// {"a": {"a": 1}: a stream cut off, or the re-sends of one?
			return malformed("the text reads both as an unfinished stream and as a stream sent again from its start; which is meant is ambiguous")
		}
	}
	b.span = t[start : start+sc.i]
	b.suffix = t[start+sc.i:]
	suffix := b.suffix
	if glued, _, _ := strings.Cut(firstLine(suffix), " "); !sc.truncated && suffix != "" {
		switch {
		case isIdentByte(suffix, 0):
			// {"a": 1}d, {}$: a word glued to the closing brace continues
			// a token the brace may belong to.
			return malformed("a word is glued to the object's closing brace; whether the brace belongs to the object is ambiguous")
		case suffix[0] != '{' && strings.ContainsAny(glued, "\"\\"):
			// {"q": ""}27\" monitor": text glued to the closing brace
			// holds a quote or a backslash: the brace may be a string's
			// character, its quotes misplaced, and the text after it the
			// value's rest.
			return malformed("text glued to the object's closing brace holds a quote or a backslash; whether the brace belongs to a string value is ambiguous")
		case strings.HasPrefix(glued, "<|") && !strings.Contains(glued, "|>"):
			// {"k": ""}<|im_end: a template token cut off, glued to the
			// brace: the brace may be a string's character, the text cut
			// inside that string.
			return malformed("a template token cut off is glued to the object's closing brace; whether the brace belongs to a string value is ambiguous")
		case strings.HasPrefix(glued, "```") && strings.TrimLeft(glued, "`") != "":
			// {"q": " "}```json…: a fence with a language tag opens a
			// block, and closes none; glued to the brace, it may be the
			// rest of a string value the brace belongs to.
			return malformed("an opening code fence is glued to the object's closing brace; whether the brace belongs to a string value is ambiguous")
		}
	}
	if sc.singleClosedBeforeMember && slices.Contains(sc.steps, DoubledBraces) {
		// {{"a": {"b": 1}, "c": 2}}: doubled braces, or a stray '{' and a
		// nested object closed too early?
		return malformed("a closing brace after the complete object may belong to a nested object closed too early; which is meant is ambiguous")
	}
	return nil
}

// choose reads a text whose closers are missing at its end: the one
// reading there is, or the one Options.Choose takes; it refuses where
// neither tells where the closers belong.
func (b *broken) choose() error {
	sc := b.sc
	if sc.truncated && (sc.endsWithBrace || b.opt.Choose != nil) {
		switch rs := readings(sc.out.String(), sc.closers); {
		case len(rs) == 1 && sc.closers == 1 && jsonread.Valid(b.span+"}"):
			// {"a": {"b": 1}: only the outer brace is missing, no member
			// ends inside a nested container, and nothing else is wrong,
			// so a brace dropped inside the text would sit where the
			// missing one is added: one reading. (With more missing, or
			// another fault, a stray or mistyped opener explains the text
			// as well: {"a":[ {"b": 1},{ "c": 2}, {"a": [{}.)
			b.chosen = rs[0]
		case len(rs) > 1 && b.opt.Choose != nil:
			if k := b.opt.Choose(rs); k >= 0 && k < len(rs) {
				b.chosen = rs[k]
			}
		}
	}
	if sc.truncated && sc.closerInString {
		// {"a": {"b": "x}", "c": 1: closers missing at the end, and a
		// string that ends with one: its quote may have moved past it (a
		// reading no placement of the closers offers the schema).
		return malformed("closing brackets are missing at the end of the text, and a string value ends with one; whether its quote moved past it is ambiguous")
	}
	if sc.truncated && sc.endsWithBrace && b.chosen == "" {
		// {"a": {"b": 1, "c": 2}: the text ends with a closing brace
		// while brackets are open: a brace dropped inside the text, or
		// the end cut off? Where the members belong is a guess.
		return malformed("the text ends with a closing brace while brackets are still open: a closing bracket is missing, and where is ambiguous")
	}
	return nil
}

// after reads the text after the object: extra closing braces, a stray
// ']', identical copies, a trailing comma, and the prose around it
// (classifyAround); it refuses text that continues the object.
func (b *broken) after() error {
	sc, opt, prefix, steps := b.sc, b.opt, b.prefix, b.steps
	suffix := b.suffix
	onLine := !strings.ContainsAny(suffix[:len(suffix)-len(strings.TrimLeft(suffix, " \t\r\n"))], "\r\n")
	suffix = strings.TrimSpace(suffix)
	if !sc.truncated {
		if s := strings.TrimLeft(suffix, "}"); len(s) != len(suffix) {
			if strings.Contains(prefix, "{") {
				// {items}: {}}: the extra brace may close an opener in the
				// text before the object ({items: {}}), which is then
				// not prose.
				return malformed("closing braces after the complete object may balance a brace in the text before it; what is meant is ambiguous")
			}
			if endsWithKey(prefix) || strings.HasSuffix(strings.TrimRight(prefix, " \t\r\n"), ":") {
				// items: {}}, `report`: {}}, Here are the arguments: {}}:
				// the text before the object may be a key (however
				// written), of an object whose own '{' is missing.
				return malformed("closing braces after the complete object may close an object whose opening brace is missing, the text before it a key; what is meant is ambiguous")
			}
			if sc.closedBeforeMember {
				// {"a": {"b": 1}, "c": 2}}: an extra brace at the end, or
				// the inner object closed too early?
				return malformed("a closing brace after the complete object may belong to a nested object closed too early; which is meant is ambiguous")
			}
			steps = addStep(steps, ExtractObject)
			suffix = strings.TrimSpace(s)
			b.extraBraces = true
		}
		if strings.HasPrefix(suffix, "]") && !strings.Contains(prefix, "[") {
			if suffix != "]" || !opt.FixSyntax || b.extraBraces {
				return malformed("closing brackets after the complete object match no opening bracket")
			}
			if sc.closedBeforeMember {
				// {"a": {"b": 1}, "c": 2}]: a stray ']', or the object's
				// '}' mistyped and a nested object closed too early?
				return malformed("a ']' after the complete object may be its own closing brace mistyped, a nested object closed too early; which is meant is ambiguous")
			}
			// {"a": 1}] : one ']' after the object, the last of the
			// text, which can close nothing.
			steps = addStep(steps, StrayCloser)
			suffix = ""
		}
		// Copies of the object, back to back or in the prose after it,
		// are dropped; the prose between them is kept for classifyAround.
		var prose strings.Builder
		for {
			k, _ := objectStart(suffix, 0)
			if k < 0 {
				break
			}
			same, rest := repeatedCopy(sc, b.span, suffix[k:])
			if !same {
				if k == 0 {
					return malformed("two different JSON objects were sent; send one object per call")
				}
				break // classifyAround refuses the second object
			}
			steps = addStep(steps, RepeatedObject)
			prose.WriteString(suffix[:k])
			prose.WriteByte(' ')
			suffix = strings.TrimSpace(rest)
		}
		if prose.Len() > 0 {
			prose.WriteString(suffix)
			suffix = strings.TrimSpace(prose.String())
		}
	}
	continues := !sc.truncated && (continuesJSON(suffix) || onLine && bareKeyOnly(suffix))
	if s, ok := strings.CutPrefix(suffix, ","); ok && sc.closedBeforeMember {
		// {"a": {"b": 1}, "c": 2}, : a comma after the object, whose '}'
		// may be the nested object's, closed too early, the text cut.
		return malformed("a comma after the complete object may follow a nested object closed too early, the text cut; what is meant is ambiguous")
	} else if ok && opt.FixSyntax && !sc.truncated && !strings.ContainsAny(s, "{[") {
		// {"a": 1},  : a comma after the complete object, before no other
		// value.
		steps = addStep(steps, StrayComma)
		suffix = strings.TrimSpace(s)
	}
	around, err := classifyAround(prefix, suffix)
	if err != nil {
		return err
	}
	if continues {
		// {"a": 1}, "b": 2}: a closing brace too early, or a stray one.
		// The members after it are never dropped as if they were prose.
		return malformed("the text after the complete object continues it (members, a colon or closing brackets follow): a closing brace too early, or a stray one")
	}
	for _, s := range around {
		steps = addStep(steps, s)
	}
	b.steps = steps
	return nil
}

// guesses refuses an object whose scan guessed where a reading of the
// text differs: a closer changed or dropped next to a string holding a
// bracket, a quote that may have moved, a cut inside an array.
func (b *broken) guesses() error {
	sc, steps, written := b.sc, b.steps, b.written
	// endGuessed: the object's closing bracket was changed, closers after
	// it dropped, or closers missing at its end added.
	endGuessed := written != "" || b.extraBraces || slices.Contains(steps, StrayCloser)
	switch {
	case (endGuessed || slices.Contains(sc.steps, MismatchedBracket) || slices.Contains(sc.steps, DoubledBraces)) && sc.bracketAtEdge:
		// {"a": {"b": "x}", "c": 1}], {"a": "[x"], : a closing bracket
		// guessed, and a string that starts with an opening bracket or
		// ends with a closing one, unmatched in it: its quote may have
		// moved past that bracket, which then balances the others.
		return malformed("a closing bracket had to be guessed, and a string value starts or ends with a bracket it does not match; whether its quote moved past it is ambiguous")
	case sc.commaAfterComma && slices.Contains(sc.steps, MissingQuote):
		// {"a": "x,"\n ,b": 1}: a string ending with a comma, then a
		// comma, and a quote missing: the string's quote may have moved
		// past its comma, the next comma a quote mistyped.
		return malformed("a string value ends with a comma, a comma follows it, and a quote is missing; whether the string's quote moved past its comma is ambiguous")
	case sc.quoteAfterKeyColon >= 0:
		return malformed("a key at byte %d holds its colon, and a quote and white space or a backslash follow it; whether the quote is the key's, moved past its colon, is ambiguous", sc.quoteAfterKeyColon)
	case sc.emptyThenTrailingComma:
		// {"a": "", }: an empty string, then a trailing comma: its
		// quotes may have enclosed the comma (", ").
		return malformed("a trailing comma follows an empty string; whether the string's quotes enclose the comma is ambiguous")
	case sc.escQuoteEnd && slices.Contains(sc.steps, MissingQuote):
		// {"a": "x\"",b": 1}: a string ending with an escaped quote, and
		// a quote missing: the escaped quote may be the string's closing
		// one, the one after it moved from where it is missing.
		return malformed("a string ends with an escaped quote, and a quote is missing; which quote closes the string is ambiguous")
	case sc.cutInArray:
		// {"commands": ["npm install", "npm test": an array cut off
		// after an item. A cut object lacks members its schema can
		// require; nothing tells how many items a list had.
		return malformed("the argument string was cut off inside an array, whose items after the cut are unknown")
	case sc.truncated && slices.Contains(sc.steps, UnclosedKey):
		// {"k:"" : a key read up to its colon, the text cut: its quote
		// may have moved past the colon, the value's string cut off.
		return malformed("a key missing its closing quote before its colon is followed by a text cut off; whether its quote moved past the colon is ambiguous")
	case endGuessed && sc.quoteGluedAfterKeyColon:
		// {"k:""  }}: a key read up to its colon, a quote right after
		// it, and an extra closer dropped: the key's quote may have
		// moved past the colon, and the value's closing quote be that
		// closer, mistyped ("  ").
		return malformed("a key missing its closing quote before its colon has a quote right after the colon, and the object's closing brackets needed guessing; whether the quote moved past the colon is ambiguous")
	case slices.Contains(sc.steps, DoubledBraces) && sc.keyCloser:
		// {{"x}": {}}}: doubled braces, or a stray '}' at the end and a
		// key's quote moved past its first character ("{x}")?
		return malformed("an object opened with '{{' holds a key with a closing bracket it does not open; whether the braces are doubled or a key's quote moved past its '{' is ambiguous")
	case slices.Contains(sc.steps, DoubledBraces) && (b.extraBraces || slices.Contains(steps, StrayCloser) || written != "" && !strings.HasSuffix(strings.TrimRight(written, " \t\r\n"), "}}")):
		// {{"a": 1]}: doubled braces, or a stray '{' whose closer was
		// guessed? (A closer changed inside the object, {{"k": [1}}},
		// leaves the doubled braces' own.)
		return malformed("an object opened with '{{' needed its closing brackets guessed; whether the braces are doubled or one is stray is ambiguous")
	}
	return nil
}

// result is the object itself: its canonical text, or its text as
// written when it needed no normalisation.
func (b *broken) result() (Result, error) {
	sc := b.sc
	if sc.normalised {
		chosen := b.chosen
		if chosen == "" {
			chosen = sc.out.String()
		}
		return Result{JSON: chosen, Steps: append(addStep(b.steps, FixSyntax), sc.steps...), closed: sc.truncated, escQuoteEnd: sc.escQuoteEnd}, nil
	}
	// repairBroken runs only on text that did not parse: a span that is
	// that text but for JSON white space cannot.
	if b.span != strings.Trim(b.raw, " \t\r\n") {
		switch jsonread.Check(b.span) {
		case jsonread.OK:
			return Result{JSON: b.span, Steps: b.steps}, nil
		case jsonread.TooDeep: // not reached: the scanner refuses it
			return Result{}, errTooDeep()
		}
	}
	return Result{}, malformed("the arguments are not valid JSON and could not be repaired without guessing")
}

// encodedEscapes refuses a JSON string holding an object, lit (the
// string as written, quotes included), whose escapes have a second
// reading:
//   - a backslash at the end of a line (a line continuation);
//   - escaped white space after a string's closing quote (see
//     escapedSpaceAfterQuote);
//   - an escaped white space alone where an array item belongs (see
//     escapedItem);
//   - the object written with only its quotes escaped, its own escapes
//     kept as they were ("{\"p\": \"C:\\temp\"}" holds "C:\temp" as
//     one reading, "C:<tab>emp" as the other). When that reading is JSON
//     too and its value differs from res's, which characters are meant is
//     a guess. The second reading is repaired as the first is.
func encodedEscapes(lit string, res Result, opt Options, layer int) error {
	if len(lit) < 2 {
		return nil
	}
	if res.escQuoteEnd {
		// "{\"a\": \"x\\\"\"}": decoded, a string ends with \" before
		// its closing quote, and needed repair: the escape may be a
		// backslash encoded once too few times (x\), the quote after it
		// added.
		return malformed("the arguments are an object encoded as a JSON string, one of whose strings ends with an escaped quote and needed repair; whether the escape is an encoded backslash is ambiguous")
	}
	if strings.Contains(lit, "\\\n") || strings.Contains(lit, "\\\r") {
		// "{\"k\": \"t\\<line break>a\"}": a line continuation inside an
		// encoded object, or a backslash and a line break?
		return malformed("the arguments are an object encoded as a JSON string holding a backslash at the end of a line; whether it continues the line or is a character is ambiguous")
	}
	if escapedSpaceAfterQuote(lit[1 : len(lit)-1]) {
		// "{\"a\": \"x\"\n}": the inner string's own escape, its quote
		// moved, or the layout's line break (which then opens it too)?
		// {\"a\": true\/\/ note}: a comment, or a string's characters?
		return malformed("the arguments are an object encoded as a JSON string where escaped white space follows a string's closing quote (in a text that does not open with it), or an escape stands outside the object's strings; whether it is a string's own is ambiguous")
	}
	if escapedItem(lit) {
		return malformed("the arguments are an object encoded as a JSON string, and an escaped white space in it stands alone where an array item belongs; whether it is an empty slot or an item whose quotes were dropped is ambiguous")
	}
	body := lit[1 : len(lit)-1]
	if !escapesBesidesQuotes(body) {
		return nil
	}
	// The text read with only its quotes unescaped, repaired as the first
	// reading is. It is a second reading when it took no repair the first
	// did not take: a fault both share (a Python literal) is no evidence
	// against it, while a repair of its own (the quotes of \\\"hi\\\"
	// read unescaped) is. White space escaped between its tokens, which
	// the first reading decoded, is written as white space before the
	// steps are compared (and where the reading is refused, it is read
	// so again); where that fails, the syntax fix it is reported with is
	// not told apart from others.
	quotesOnly := strings.ReplaceAll(body, `\"`, `"`)
	templated := slices.Contains(res.Steps, TemplateQuotes)
	alt, err := repairLayer(quotesOnly, opt, layer+1)
	spaced := err == nil && slices.Contains(alt.Steps, EscapedWhitespace)
	if (err != nil || spaced) && !templated {
		// (Refused, it may be for its escaped white space alone.)
		if alt2, err2 := repairLayer(unescapeSpaceBetween(quotesOnly), opt, layer+1); err2 == nil && (err != nil || sameValue(alt2.JSON, alt.JSON)) {
			alt, err, spaced = alt2, nil, false
		}
	}
	ambiguous := err == nil && !sameValue(alt.JSON, res.JSON)
	switch {
	case err == nil && !ambiguous:
		return nil
	case templated, err != nil && escapeDecodedTwice(body):
		// Strings between template quote tokens have no escapes; and
		// where an escape was decoded twice (\\n, a line break, or a
		// backslash and n?), a second reading refused for a fault of its
		// own is no evidence against it: only the same value makes the
		// text's escapes unambiguous.
		ambiguous = true
	case ambiguous:
		for _, st := range alt.Steps {
			if !slices.Contains(res.Steps, st) && st != EscapedWhitespace && !(spaced && st == FixSyntax) {
				ambiguous = false
			}
		}
	}
	if !ambiguous {
		return nil
	}
	return malformed("the arguments are an object encoded as a JSON string whose escapes read two ways (with the object's own escapes doubled or not); which characters are meant is ambiguous")
}

// escapeDecodedTwice reports whether the JSON string content body holds a
// run of 2k backslashes, k odd, before a character other than a quote:
// decoded once it leaves an escape in the object (\\t becomes \t, a tab;
// \\n a line break), which a value such as C:\temp or a literal \n,
// encoded without doubling its backslash, also gives.
func escapeDecodedTwice(body string) bool {
	n := 0
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			n++
			continue
		}
		if n%4 == 2 && body[i] != '"' {
			return true
		}
		n = 0
	}
	return false
}

// escapedItem reports whether the JSON string literal lit, which holds an
// object, holds an escape that decodes to white space or an invisible
// character (\t, \n, \r, \u2028, \u200b) standing alone where an array
// item belongs: between '[' or ',' and ']', outside the object's strings,
// with only white space around it. Decoded, the slot reads as empty
// ([\t] as []); the item may be the string "\t" with its quotes dropped.
// (Escaped white space written so in an object's own text is the
// scanner's to weigh.)
func escapedItem(lit string) bool {
	var b strings.Builder
	marked := false
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 == len(lit) {
			b.WriteByte(lit[i])
			continue
		}
		n, space := 2, strings.IndexByte("tnr", lit[i+1]) >= 0
		if r := hexRune(lit[i+2:]); lit[i+1] == 'u' && r != utf8.RuneError {
			n, space = 6, r == 0 || isInvisible(r)
		}
		if space {
			b.WriteString(`\u0000`) // decodes to the mark, NUL
			marked = true
		} else {
			b.WriteString(lit[i : i+n])
		}
		i += n - 1
	}
	if !marked {
		return false
	}
	dec, _, ok := jsonread.DecodeString(controlEscaper.Replace(b.String()))
	if !ok {
		return false
	}
	space := func(r rune) bool { return r == 0 || isInvisible(r) }
	for i := 0; i < len(dec); i++ {
		switch dec[i] {
		case '"':
			end, _ := stringEnd(dec, i)
			i = end - 1
		case 0:
			before := strings.TrimRightFunc(dec[:i], space)
			after := strings.TrimLeftFunc(dec[i:], space)
			if before != "" && strings.IndexByte("[,", before[len(before)-1]) >= 0 && strings.HasPrefix(after, "]") {
				return true
			}
			i = len(dec) - len(after) - 1 // past the run
		}
	}
	return false
}

// escapedSpaceAfterQuote reports whether the content of a JSON string
// holding an object, body, holds an escaped quote (\") that closes a
// string of the object, followed, spaces aside, by an escaped \n, \r or
// \t and then a comma or closing bracket, where the object does not open
// with that escape ({\n …): the scanner's rule for escaped white space
// after a string value's closing quote, one encoding deeper. Or an escaped
// slash, or a \u escape of a visible character, outside the object's
// strings. (A run of r backslashes before a quote, r = 1 mod 4, makes the
// object's own quote; others are escaped quotes inside its strings.)
func escapedSpaceAfterQuote(body string) bool {
	in := false
	opening := openingEscape(body)
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		r := i
		for r < len(body) && body[r] == '\\' {
			r++
		}
		if !in && r-i == 1 && r+5 <= len(body) && body[r] == 'u' && isInvisible(hexRune(body[r+1:])) && strings.HasPrefix(strings.TrimLeft(body[r+5:], " \t"), `\"`) {
			// {\"a\":\u2028\"x\"}: an escaped invisible character
			// before a string's opening quote: the string's own first
			// character, its quote moved past it, as likely.
			return true
		}
		if !in && r-i == 1 && r < len(body) && (body[r] == '/' || body[r] == 'u' && !isInvisible(hexRune(body[r+1:]))) {
			// {\"a\": true\/\/ note}: an escaped slash (or character)
			// outside the object's strings, which JSON has only inside
			// them: decoded, it writes a comment (or a token) the text
			// did not hold; a string's character as likely.
			return true
		}
		if r == len(body) || body[r] != '"' || (r-i)%4 != 1 {
			i = r - 1
			continue
		}
		i = r
		if in = !in; in {
			continue // an opening quote
		}
		j := i + 1
		for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
			j++
		}
		if j+1 >= len(body) || body[j] != '\\' || strings.IndexByte("ntr", body[j+1]) < 0 && (body[j+1] != 'u' || !isInvisible(hexRune(body[j+2:]))) {
			continue
		}
		k := j
		if body[j+1] == 'u' {
			k = j + 6 // "#"\u00a0}: an escaped invisible character
		}
		if k = skipInvisible(body, k); k < len(body) && strings.IndexByte(",}]", body[k]) >= 0 {
			if body[j:j+2] != opening {
				return true
			}
		}
	}
	return false
}

// hexRune returns the rune the four hex digits s starts with write, or
// utf8.RuneError.
func hexRune(s string) rune {
	if len(s) < 4 {
		return utf8.RuneError
	}
	r, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return rune(r)
}

// unescapeSpaceBetween returns s with the white space escaped between its
// tokens (see escapedSpaceAt), outside its double-quoted strings, written
// as the white space itself.
func unescapeSpaceBetween(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			i, _ = stringEnd(s, i)
			i--
		case escapedSpaceAt(s, i) == 2:
			b.WriteString(s[last:i])
			b.WriteByte("\n\r\t"[strings.IndexByte("nrt", s[i+1])])
			i++
			last = i + 1
		case s[i] == '\\':
			i++ // a backslash outside strings escapes the byte after it
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapesBesidesQuotes reports whether the JSON string content body holds
// an escape other than \".
func escapesBesidesQuotes(body string) bool {
	for i := 0; i+1 < len(body); i++ {
		if body[i] == '\\' {
			if body[i+1] != '"' {
				return true
			}
			i++
		}
	}
	return false
}

// continuesJSON reports whether the text after a complete object continues
// JSON rather than being prose: it starts with a colon, or (after
// commas) with a key and a colon, or it holds a closing bracket outside
// brace placeholders ({city}) and template tokens, or a quoted key and a
// colon.
func continuesJSON(suffix string) bool {
	s := suffix
	if mayHoldTemplateToken(s) {
		s = templateToken.ReplaceAllString(s, " ")
	}
	t := strings.TrimLeft(s, " \t\r\n,")
	if t == "" {
		return false
	}
	if t[0] == ':' || t[0] == '\\' || strings.Count(t, `"`)%2 == 1 {
		return true // a colon, or a quote that pairs with none: a string split
	}
	if strings.Contains(t, `":`) || strings.Contains(t, `':`) {
		return true // a key's closing quote and its colon
	}
	if r, _ := utf8.DecodeRuneInString(t); isQuote(r) {
		return true // a string, a key, or a quote of the object's, after it
	}
	if isBareKeyAhead(t) {
		k := strings.IndexByte(t, ':')
		if valueAhead(t[skipInvisible(t, k+1):]) {
			return true
		}
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '{':
			if n := placeholderLen(t[i:]); n > 0 {
				i += n - 1
			}
		case '}', ']':
			return true
		case '"', '\'':
			if isKeyAhead(t[i+1:], rune(t[i])) {
				return true
			}
		}
	}
	return false
}

// bareKeyOnly reports whether s is one bare key and its colon ("b:"): on
// the object's line, a member cut after its key ({"a": 1} b:); on a line
// of its own, a label of prose (Observation:).
func bareKeyOnly(s string) bool {
	k, ok := strings.CutSuffix(s, ":")
	return ok && isBareKeyAhead(s) && !strings.ContainsAny(k, " \t\r\n:")
}

// encodedInProse repairs a JSON string starting at t[q] that holds an
// object, with prose around it. ok is false when t[q:] does not start with
// such a string.
func encodedInProse(t string, q int, steps []Step, opt Options, layer int) (res Result, ok bool, err error) {
	inner, n, isString := jsonread.DecodeString(t[q:])
	if in := strings.TrimSpace(inner); !isString || !strings.HasPrefix(in, "{") && !strings.HasPrefix(in, "```") {
		return Result{}, false, nil
	}
	around, err := classifyAround(t[:q], t[q+n:])
	if err != nil {
		return Result{}, true, err
	}
	if continuesJSON(t[q+n:]) {
		return Result{}, true, malformed("the text after the complete object continues it (members, a colon or closing brackets follow): a closing brace too early, or a stray one")
	}
	res, err = repairLayer(strings.TrimSpace(inner), opt, layer+1)
	if err != nil {
		return Result{}, true, err
	}
	if err := encodedEscapes(t[q:q+n], res, opt, layer); err != nil {
		return Result{}, true, err
	}
	res.Steps = slices.Concat(steps, around, []Step{DoubleEncoded}, dropStep(res.Steps, DoubleEncoded))
	return res, true, nil
}

// repeatedCopy reports whether suffix starts with a copy of the scanned
// object (possibly cut off, when it is a prefix of the first copy's text),
// and returns the text after it. Two copies are the same when their
// values are (see sameValue).
func repeatedCopy(first *scanner, span, suffix string) (bool, string) {
	sc2, err := scanObject(suffix, false, 0) // suffix may hold many copies
	if err != nil || sc2.truncated {
		if err == nil {
			sc2.release()
		}
		// A cut-off copy: its text is a prefix of the first copy.
		return strings.HasPrefix(span, strings.TrimSpace(suffix)), ""
	}
	defer sc2.release()
	return sameValue(first.out.String(), sc2.out.String()), suffix[sc2.i:]
}

// sameValue reports whether the canonical texts a and b are the same JSON
// value: the same text, or texts that decode to equal values (members in
// another order, escapes written otherwise). Numbers are compared as
// written: 1.0 and 1 differ.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	va, err := jsonread.Read(a)
	if err != nil {
		return false
	}
	vb, err := jsonread.Read(b)
	return err == nil && reflect.DeepEqual(va, vb)
}

// quoteToken is the string delimiter of Gemma 4's tool-call format, a
// template token: its strings hold their text as it is, without escapes.
const quoteToken = `<|"|>`

// templateQuoted rewrites each string of t written between quote tokens
// as a JSON string of the same text. It refuses a token that pairs with
// none (an opening one left out), a pair not in a key's or value's place,
// a token inside a JSON string, and a text holding a backslash that may be
// an escape (the format has none, so \n is two characters; a model that
// meant a line break wrote one), or bytes that are not UTF-8.
func templateQuoted(t string) (string, error) {
	parts := strings.Split(t, quoteToken)
	if len(parts)%2 == 0 {
		return "", malformed("a template quote token pairs with none: a string's opening or closing token is missing")
	}
	var b []byte
	for i, p := range parts {
		if i%2 == 0 {
			if strings.Count(p, `"`)%2 == 1 {
				return "", malformed("a template quote token is inside a string written with quote marks; where the string ends is ambiguous")
			}
			b = append(b, p...)
			continue
		}
		before := strings.TrimRight(parts[i-1], " \t\r\n")
		after := strings.TrimLeft(parts[i+1], " \t\r\n")
		if before == "" || !strings.ContainsRune(":,[{", rune(before[len(before)-1])) ||
			after != "" && !strings.ContainsRune(":,]}", rune(after[0])) {
			return "", malformed("a string between template quote tokens is not where a key or value is: a token is missing or stray")
		}
		if escapeLike(p) {
			return "", malformed("a string between template quote tokens holds a backslash that may be an escape; the format has none, and which is meant is ambiguous")
		}
		if !utf8.ValidString(p) {
			return "", malformed("a string between template quote tokens holds bytes that are not UTF-8")
		}
		b, _ = jsontext.AppendQuote(b, p) // valid UTF-8: no error
	}
	return string(b), nil
}

// escapeLike reports whether s holds a backslash followed by a character
// that would make it a JSON escape.
func escapeLike(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' && strings.IndexByte(`"\\/bfnrtu`, s[i+1]) >= 0 {
			return true
		}
	}
	return false
}

// csvLayer repairs body, an object written with CSV's doubled quotes.
func csvLayer(body string, steps []Step, opt Options, layer int) (Result, error) {
	if !evenQuoteRuns(body) {
		return Result{}, malformed("the arguments double some of their quotes (as CSV does) but not all; which quotes are meant is ambiguous")
	}
	res, err := repairLayer(halveQuoteRuns(body), opt, layer+1)
	if err != nil {
		return Result{}, err
	}
	res.Steps = slices.Concat(steps, []Step{DoubleEncoded}, dropStep(res.Steps, DoubleEncoded))
	return res, nil
}

// csvQuoted reports whether t is an object written with CSV's doubled
// quotes: it starts (after an optional quote of its own) with '{', white
// space and "" followed by a key's first character (not a quote, colon or
// brace: {"": 1} is an empty key). It returns the text without the
// quotes around it.
func csvQuoted(t string) (string, bool) {
	body := t
	if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' && strings.HasPrefix(t[1:], "{") {
		body = t[1 : len(t)-1]
	}
	if !strings.HasPrefix(body, "{") {
		return "", false
	}
	k := skipWhite(body, 1)
	if !strings.HasPrefix(body[k:], `""`) || k+2 >= len(body) {
		return "", false
	}
	switch body[k+2] {
	case '"', ':', '}', ',', ' ':
		return "", false
	}
	// The first key is closed by "" too, and a colon follows: {""a"": …}.
	// (A key holding a colon, bracket or comma, {""x:{},"":[]}, may be the
	// object's own members, a key's quote moved next to its opening one.)
	e := strings.Index(body[k+2:], `""`)
	if e < 0 || strings.ContainsAny(body[k+2:k+2+e], "\"\n\r\t:{}[],") || !strings.HasPrefix(body[skipWhite(body, k+2+e+2):], ":") {
		return "", false
	}
	return body, true
}

// evenQuoteRuns reports whether every run of '"' in s is of even length.
func evenQuoteRuns(s string) bool {
	n := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] == '"' {
			n++
			continue
		}
		if n%2 == 1 {
			return false
		}
		n = 0
	}
	return true
}

// halveQuoteRuns writes each run of '"' in s at half its length.
func halveQuoteRuns(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	n := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] == '"' {
			n++
			continue
		}
		b.WriteString(strings.Repeat(`"`, n/2))
		n = 0
		if i < len(s) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// controlEscaper escapes the line breaks and tabs of a text that is read
// as the content of a JSON string.
var controlEscaper = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

var (
	thinkOpen  = regexp.MustCompile(`(?i)<think(?:ing)?>`)
	thinkClose = regexp.MustCompile(`(?i)</think(?:ing)?>`)
	// templateToken matches leaked chat-template and tool-call tokens.
	templateToken = regexp.MustCompile(`<\|[A-Za-z0-9_.:-]{1,40}\|>|\[/?[A-Z][A-Z_]{2,30}\]|</?(?:tool_calls?|function_calls?|tool_use|function|arguments|args|parameters|invoke)>`)
	// fence matches a markdown code fence marker with its language tag.
	fence = regexp.MustCompile("```[A-Za-z0-9_+-]*")
)

func hasThinkTag(s string) bool {
	return mayHoldThinkTag(s) && (thinkOpen.MatchString(s) || thinkClose.MatchString(s))
}

// mayHoldThinkTag is the cheap test before thinkOpen and thinkClose: they
// match only where '<', possibly followed by '/', is followed by 't' or
// 'T' (the only letters (?i)t folds to).
func mayHoldThinkTag(s string) bool {
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			return false
		}
		s = strings.TrimPrefix(s[i+1:], "/")
		if len(s) > 0 && (s[0] == 't' || s[0] == 'T') {
			return true
		}
	}
}

// mayHoldTemplateToken is the cheap test before templateToken, which
// matches only where '<' or '[' is.
func mayHoldTemplateToken(s string) bool {
	return strings.ContainsAny(s, "<[")
}

// mayHoldFence is the cheap test before fence.
func mayHoldFence(s string) bool {
	return strings.Contains(s, "```")
}

// stripThinking removes reasoning: every <think>…</think> block, and
// everything before a closing tag that has no opening tag (the reasoning
// began in the prompt template). Only tags outside the JSON are tags: one
// inside an object or array, or inside a string, is content of the value
// ({'content': 'Use <think> here'}). Reasoning that is never closed is
// refused: an object inside it, or next to it, is a draft, not a call.
// Each tag is searched for once from where the last one of its kind was
// found, and the text between tags is read once, so the cost is linear in
// len(s) however many tags it holds.
func stripThinking(s string) (string, bool, error) {
	if !mayHoldThinkTag(s) {
		return s, false, nil
	}
	var kept strings.Builder
	var st nesting
	stripped := false
	pos, read := 0, 0 // s[:pos] is dealt with; st has read s[:read]
	lastJSON := strings.LastIndexAny(s, "}]\",:")
	quotes := lineQuotes{s: s}
	open, cl := findFrom(thinkOpen, s, 0), findFrom(thinkClose, s, 0)
	for {
		if open != nil && open[0] < read {
			open = findFrom(thinkOpen, s, read)
		}
		if cl != nil && cl[0] < read {
			cl = findFrom(thinkClose, s, read)
		}
		tag, closing := open, cl != nil && (open == nil || cl[0] < open[0])
		if closing {
			tag = cl
		}
		if tag == nil {
			kept.WriteString(s[pos:])
			return kept.String(), stripped, nil
		}
		st.read(s[read:tag[0]])
		read = tag[1]
		if st.inside() {
			continue // content of the value
		}
		end := tag[1] // of the tag, or of the block it opens
		if !closing && cl != nil {
			end = cl[1]
		}
		if st.entered && end <= lastJSON {
			// After an object started, a block followed by closing
			// brackets, quotes, commas or colons is inside it (braces in
			// its strings misled the count): content.
			continue
		}
		if quotes.between(tag[0], end) {
			// "cell_type": "</think>null"\n{}: a tag between quotes on
			// its line, before any bracket: inside a string value of
			// members whose object's brace is lost, as likely.
			return "", false, malformed("a reasoning tag stands between quotes on its line; whether it is inside a string value is ambiguous")
		}
		if closing {
			kept.Reset()
			pos = cl[1]
		} else {
			// cl, when there is one, starts after open: tags never overlap.
			if cl == nil {
				return "", false, malformed("the arguments end inside unfinished reasoning: a <think> block is never closed")
			}
			kept.WriteString(s[pos:open[0]])
			pos = cl[1]
		}
		read, st = pos, nesting{}
		stripped = true
	}
}

// lineQuotes tells whether spans of s, asked in increasing order, stand
// between double quotes on their lines. It reads each byte of s at most
// twice however many spans are asked.
type lineQuotes struct {
	s      string
	pos    int  // s[:pos] is counted
	odd    bool // an odd number of quotes since the last line break
	next   int  // the first '"', line break or '{' at or after some end
	nextOK bool
}

// between reports whether s[start:end], a reasoning tag or block, follows
// an odd number of double quotes on the line it starts on, and a double
// quote follows it on the line it ends on, before any '{'.
func (q *lineQuotes) between(start, end int) bool {
	for ; q.pos < start; q.pos++ {
		switch q.s[q.pos] {
		case '\n':
			q.odd = false
		case '"':
			q.odd = !q.odd
		}
	}
	if !q.odd {
		return false
	}
	if !q.nextOK || q.next < end {
		q.next, q.nextOK = len(q.s), true
		if k := strings.IndexAny(q.s[end:], "\"\n{"); k >= 0 {
			q.next = end + k
		}
	}
	return q.next < len(q.s) && q.s[q.next] == '"'
}

// nesting follows the brackets and double-quoted strings of a text read
// piece by piece, to tell whether a position is inside a JSON value.
// Strings are followed inside brackets only (prose has quotes of its own).
type nesting struct {
	depth      int
	inStr, esc bool
	entered    bool // a bracket was opened
}

func (n *nesting) read(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case n.esc:
			n.esc = false
		case n.inStr && c == '\\':
			n.esc = true
		case n.inStr:
			n.inStr = c != '"'
		case c == '"' && n.depth > 0:
			n.inStr = true
		case c == '{' || c == '[':
			n.depth++
			n.entered = true
		case (c == '}' || c == ']') && n.depth > 0:
			n.depth--
		}
	}
}

func (n *nesting) inside() bool { return n.depth > 0 || n.inStr }

// findFrom returns the position in s of re's first match at or after
// from, or nil. A nil result is final: no later search can match.
func findFrom(re *regexp.Regexp, s string, from int) []int {
	loc := re.FindStringIndex(s[from:])
	if tagSearchHook != nil {
		tagSearchHook(s[from:], loc)
	}
	if loc == nil {
		return nil
	}
	return []int{from + loc[0], from + loc[1]}
}

// classifyAround names what surrounds the object (template tokens, a code
// fence, prose) and refuses an object that is part of a larger value.
func classifyAround(prefix, suffix string) ([]Step, error) {
	var steps []Step
	p, s := prefix, suffix
	if mayHoldTemplateToken(p) && templateToken.MatchString(p) || mayHoldTemplateToken(s) && templateToken.MatchString(s) {
		steps = append(steps, TemplateTokens)
		p, s = templateToken.ReplaceAllString(p, " "), templateToken.ReplaceAllString(s, " ")
	}
	p, s = strings.TrimSpace(p), strings.TrimSpace(s)
	if strings.HasSuffix(p, "[") || strings.HasSuffix(p, ",") || strings.HasSuffix(p, "]") || strings.Trim(p, "}] \t\r\n") == "" && p != "" || strings.HasPrefix(s, ",") || strings.HasPrefix(s, "]") {
		// (Closing braces alone before it: the end of another value.)
		return nil, malformed("the object is one item of a larger value; send the arguments as one JSON object")
	}
	if endsWithQuotedKey(p) || quotedKey.MatchString(p) {
		// "a": 1, "b": {"c": 2}}: the object's own '{' is missing, and the
		// one found is a member's value.
		return nil, malformed("the object is the value of a key written before it (its own opening brace is missing); send the arguments as one JSON object")
	}
	if ind := prefix[strings.LastIndexByte(prefix, '\n')+1:]; p != "" && strings.Trim(p, "'\"‘’“”") == "" && ind != "" && strings.Trim(ind, " \t") == "" {
		// '<line break><tab>{"x}": 1}: quote marks alone on the line
		// before an indented object are no prose: the object's '{'
		// mistyped, and this '{' a key's first character, its quote
		// moved, as likely. (A stray quote glued to the object, "{…},
		// is stray.)
		return nil, malformed("the text before an indented object is only quote marks; whether the object's brace is one of them, mistyped, is ambiguous")
	}
	if strings.HasSuffix(p, "=") {
		// id={"name": "x"}: the object is one keyword argument's value
		// as likely as the arguments.
		return nil, malformed("the object is the value of a name written before it with '='; send the arguments as one JSON object")
	}
	if o := strings.LastIndex(p, "/*"); commentOpener.MatchString(prefix[strings.LastIndexByte(prefix, '\n')+1:]) || o > strings.LastIndex(p, "*/") && (o == 0 || strings.IndexByte(" \t\r\n=>", p[o-1]) >= 0) {
		// # {"a": 1}, args=// {"a": 1}, /* {"a": 1}: an object commented
		// out is not sent. (A heading on a line before it comments nothing
		// out, nor does a URL's // or a glob's /* on its line.)
		return nil, malformed("the object is inside a comment; send the arguments as one JSON object, not commented out")
	}
	if i, placeholders := objectStart(s, 0); i >= 0 {
		return nil, malformed("two JSON objects were sent (one in the text after the first); send one object per call")
	} else if placeholders {
		steps = append(steps, Placeholders)
	}
	if mayHoldFence(p) && fence.MatchString(p) || mayHoldFence(s) && fence.MatchString(s) {
		steps = append(steps, CodeFence)
		p, s = strings.TrimSpace(fence.ReplaceAllString(p, "")), strings.TrimSpace(fence.ReplaceAllString(s, ""))
	}
	if p != "" || s != "" {
		steps = append(steps, ExtractObject)
	}
	return steps, nil
}

// commentOpener matches a line comment's opener on a line: '#' at its
// start or after a character of no word, then white space (Issue #4 is
// none), "//" at its start or after white space, '=' or '>' (a URL's is
// none).
var commentOpener = regexp.MustCompile(`(?:^|[^\w#])#(?:\s|$)|(?:^|[\s=>])//`)

// quotedKey matches a quoted key and its colon: "a": or 'a':.
var quotedKey = regexp.MustCompile(`["'][^"'\n]*["']\s*:`)

// endsWithQuotedKey reports whether p ends with a quoted key and its
// colon ("b": , 'b':), what comes before a member's value.
func endsWithQuotedKey(p string) bool {
	p, ok := strings.CutSuffix(strings.TrimRight(p, " \t\r\n"), ":")
	if !ok {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(p, " \t\r\n"))
	return isQuote(r)
}

// endsWithKey reports whether p ends with what may be a key and its
// colon: a quoted key, a quoted word (its colon missing), a colon right
// after a quote or a bracket, or a bare key that is the first word of the
// text or of its line, or follows a comma, a quote or a bracket (items:,
// "b": 1, c:, ""c:), not the last word of a sentence (Here are the
// arguments:).
func endsWithKey(p string) bool {
	if endsWithQuotedKey(p) || quotedKey.MatchString(p) {
		return true
	}
	if t := strings.TrimRight(p, " \t\r\n"); strings.HasSuffix(t, `"`) || strings.HasSuffix(t, "'") {
		// "name" {}}: a quoted word right before the object, its colon
		// missing.
		return true
	}
	p, ok := strings.CutSuffix(strings.TrimRight(p, " \t\r\n"), ":")
	if !ok {
		return false
	}
	if strings.HasSuffix(trimEscapedSpaceRight(p), "'") || strings.HasSuffix(p, "&quot;") || strings.ContainsAny(p, "\"{}[]") {
		// ]"_id"]:, "k"\n :, }"",: a colon after a quote (&quot; too) or a
		// bracket, or after text holding JSON's punctuation, is a key's,
		// however broken.
		return true
	}
	p = strings.TrimRight(p, " \t")
	k := len(p)
	for k > 0 {
		r, n := utf8.DecodeLastRuneInString(p[:k])
		if r != '_' && r != '$' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		k -= n
	}
	if k == len(p) {
		return false
	}
	b := strings.TrimRight(p[:k], " \t")
	// ""name: {}}: after quotes or a bracket, the key's own quoting or
	// object may be broken.
	return b == "" || strings.HasSuffix(b, "\n") || strings.ContainsAny(b[max(len(b)-1, 0):], ",\"'{[")
}

// objectStart returns the index of the first '{' in s at or after from
// that is not a brace placeholder, or -1, and whether placeholders were
// skipped.
func objectStart(s string, from int) (int, bool) {
	skipped := false
	for {
		i := strings.IndexByte(s[from:], '{')
		if i < 0 {
			return -1, skipped
		}
		i += from
		n := placeholderLen(s[i:])
		if n == 0 {
			return i, skipped
		}
		skipped = true
		from = i + n
	}
}

// placeholderLen returns the length of the brace placeholder s starts
// with ({city}, { first_name }, {{user.id}}, {0}), or 0. A placeholder
// holds one name and nothing else, so it is never an object: an object
// needs a colon or is empty.
func placeholderLen(s string) int {
	open := 1
	if strings.HasPrefix(s, "{{") {
		open = 2
	}
	j := skipWhite(s, open)
	k := j
	for k < len(s) {
		r, n := utf8.DecodeRuneInString(s[k:])
		if r != '_' && (k == j || r != '-' && r != '.') && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break // a name starts with a letter, a digit or '_'
		}
		k += n
	}
	if k == j {
		return 0
	}
	k = skipWhite(s, k)
	if !strings.HasPrefix(s[k:], strings.Repeat("}", open)) {
		return 0
	}
	return k + open
}

// maxResends bounds the pieces cumulativeLast looks at, so that its cost
// stays linear.
const maxResends = 64

// cumulativeLast reads x, which does not scan as one object, as the
// cumulative re-sends of a stream: pieces back to back, each a prefix of
// the next, the last one a complete object. It returns where the last
// piece starts. Since every piece is a prefix of the last, the last is the
// one value meant, however the pieces are told apart. With anyPiece, a last
// piece that holds a brace starting like it, or is cut off itself, is
// accepted too: the caller asks whether the text reads as re-sends at
// all, not which piece to take.
func cumulativeLast(x string, anyPiece bool) (int, bool) {
	// The pieces start like x does: with '{' and the byte after it.
	var starts []int
	for q := 1; q < len(x); q++ {
		n := strings.IndexByte(x[q:], '{')
		if n < 0 {
			break
		}
		q += n
		if x[q+1:min(q+2, len(x))] == x[1:2] {
			if len(starts) == maxResends {
				return 0, false
			}
			starts = append(starts, q)
		}
	}
	if len(starts) == 0 {
		return 0, false
	}
	// resends needs the first piece, which ends at a start, to be a
	// prefix of the last: a start whose text does not begin with the text
	// before the first start is not scanned.
	first := strings.TrimRight(x[:starts[0]], " \t\r\n")
	for a := len(starts) - 1; a >= 0; a-- {
		qn := starts[a]
		if !strings.HasPrefix(x[qn:], first) {
			continue
		}
		sc, err := scanObject(x[qn:], false, 0)
		if err != nil {
			continue
		}
		truncated, end := sc.truncated, qn+sc.i
		sc.release()
		if k := skipWhite(x, end); truncated && !anyPiece || k < len(x) && strings.IndexByte("}],:\"'", x[k]) >= 0 {
			// Not complete (a stream cut again counts where any piece
			// does), or an object nested in a larger one.
			continue
		}
		if !anyPiece && nestedResend(x, qn, end, starts[a+1:]) {
			// The last piece holds a brace that starts like it does,
			// past its first key's opening quote: which braces start
			// pieces is a guess.
			continue
		}
		if resends(x[:qn], x[qn:end], starts[:a]) {
			return qn, true
		}
	}
	return 0, false
}

// nestedResend reports whether one of starts (after qn) within the piece
// x[qn:end] begins with more than the piece's first two bytes.
func nestedResend(x string, qn, end int, starts []int) bool {
	for _, s := range starts {
		if s >= end {
			return false
		}
		if l := min(len(x)-s, end-qn); l > 2 && x[s:s+3] == x[qn:qn+3] {
			return true
		}
	}
	return false
}

// resends reports whether pre is one or more pieces, each a prefix (white
// space aside) of last and of the piece after it, starting at 0 and at
// some of starts.
func resends(pre, last string, starts []int) bool {
	b, prev, strict := 0, 0, false
	for b < len(pre) {
		l := 0
		for l < len(last) && b+l < len(pre) && pre[b+l] == last[l] {
			l++
		}
		// The piece ends at the last start within its common prefix with
		// last (white space after it aside), or at the end of pre.
		end, j := len(pre), 0
		for j < len(starts) && starts[j] <= b {
			j++
		}
		if len(strings.TrimRight(pre[b:], " \t\r\n")) > l { // not the last piece before last
			for ; j < len(starts) && len(strings.TrimRight(pre[b:starts[j]], " \t\r\n")) <= l; j++ {
				end = starts[j]
			}
		}
		starts = starts[j:]
		// (A piece of no more than the two bytes pieces are found by,
		// {" then {"":1}, is no evidence of a re-send: the brace may be
		// a key's character.)
		piece := strings.TrimRight(pre[b:end], " \t\r\n")
		if len(piece) > l || len(piece) < prev || len(piece) <= 2 {
			return false
		}
		strict = strict || len(piece) < len(last)
		prev, b = len(piece), end
	}
	return strict
}
