package lenient

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/faultmodel"
	"github.com/saidex/saidex-go/internal/jsonread"
	engine "github.com/saidex/saidex-go/internal/readings"
)

// The fault model decides every text of at most maxModelBytes bytes,
// under the node's options (FixSyntax and StripThinking): where the
// scanner repairs it, its value stands only where the model's window
// gives it alone (windowAgrees); where the scanner refuses it, the
// readings engine (package readings) reads it: its window is the set of values the text reads back to by
// undoing faults of faultmodel.Table at the cheapest cost and at one fault
// more. Repair returns the window's value when the cheapest reading costs
// one fault or two (the window, up to two faults or three, is complete:
// a text whose cheapest reading costs two is read again within a budget
// of three), every reading in the window gives that one value, an object
// (a list is a reading too, never run), and every fault that reading
// undoes is of a row in switchedRows. Anything else
// keeps the scanner's refusal. A text that is not UTF-8 is left to the
// scanner, which decides how such bytes are written (its canonical text
// writes them as U+FFFD, the engine's reading copies them), so that a text
// repairs to one text whichever engine reads it.

// maxModelBytes bounds the texts the readings engine reads: its work is
// bounded per byte, but each byte costs far more than the scanner's (a
// refused text of 1.8 KB nested 900 deep took about 80 ms), so only
// short texts are read.
const maxModelBytes = 2 << 10

// switchedRows are the rows of faultmodel.Table whose faults the readings
// engine repairs where the scanner refuses: each row is switched once the
// sweeps (internal/cmd/soundsweep, default and -window) show it sound and
// recalling more (docs/repair-model.md, "Step 2: switched").
var switchedRows = []string{
	"comma", "colon", "stray_brace", "premature_closer", "dropped_closer", "swapped_closer", "stray_closer", "stray_bracket",
	"escaped_space", "py_js_literal", "repeated_key", "literal_case", "loose_number", "numeric_key", "unclosed_key",
	"split_number", "double_encoded", "repeated_object", "concatenated", "csv_quotes", "doubled_braces", "comment", "around", "commented", "unquoted", "bare_value", "backquotes", "entity_quotes",
	"escape", "literal_backslashes", "joined_strings", "invisible", "cut", "template_quotes", "quote_style", "single_quotes", "bare_apostrophe",
	"punctuation", "quote", "quote_moved",
}

// syntaxSteps are the named steps reported with FixSyntax (as the scanner
// reports them).
var syntaxSteps = []Step{JoinStrings, MissingColon, StrayComma, MismatchedBracket, DoubledBraces, InvisibleSpace, MissingQuote,
	EscapedWhitespace, UnclosedKey, StrayCloser, WrongCloser, LiteralCase, LooseNumber, NumericKey, QuotedBareValue}

// modelRead is the fault model's reading of one raw text, made at most
// once per Repair and shared by its checks (habitAgrees, windowAgrees,
// readByModel).
type modelRead struct {
	raw  string
	w    engine.Window
	read bool
}

// window returns the model's window of raw (readings.ReadComplete),
// reading it the first time.
func (m *modelRead) window() engine.Window {
	if !m.read {
		m.w, m.read = engine.ReadComplete(m.raw), true
	}
	return m.w
}

// decide returns raw's window under opt and what the decision rule makes
// of it: where its readings differ, opt.Foreign (the schema) first drops
// those that name a member the tool does not have, among readings of one
// part of the text (readings.Window.Drop). False where the model does not
// read raw under opt: the node's options (FixSyntax and StripThinking),
// at most maxModelBytes bytes, UTF-8.
func (m *modelRead) decide(opt Options) (engine.Window, engine.Reading, engine.Verdict, bool) {
	if !opt.FixSyntax || !opt.StripThinking || len(m.raw) > maxModelBytes || !utf8.ValidString(m.raw) {
		return engine.Window{}, engine.Reading{}, engine.NoReading, false
	}
	w := m.window()
	r, v := w.Decide()
	if v == engine.Ambiguous && opt.Foreign != nil {
		w = w.Drop(func(r engine.Reading) bool { return opt.Foreign(r.Text) })
		r, v = w.Decide()
	}
	return w, r, v, true
}

// readByModel returns m's text's value by the fault model (see
// maxModelBytes and modelRead.decide), its steps those of the rows the
// reading undoes; false when the model does not decide it under opt.
func readByModel(m *modelRead, opt Options) (Result, bool) {
	w, r, v, ok := m.decide(opt)
	if !ok || w.Min != 1 && w.Min != 2 {
		return Result{}, false
	}
	if v != engine.Run || jsonread.Check(r.Text) != jsonread.OK {
		return Result{}, false
	}
	for _, op := range r.Ops {
		if !slices.Contains(switchedRows, op) {
			return Result{}, false
		}
	}
	var steps []Step
	for _, s := range r.Steps {
		st := Step(s)
		if slices.Contains(syntaxSteps, st) {
			steps = addStep(steps, FixSyntax)
		}
		steps = addStep(steps, st)
	}
	return Result{JSON: r.Text, Steps: steps}, true
}

// habitAgrees checks the scanner's repair res of raw against the habits
// of faultmodel's table (backslashes written as themselves, single quotes
// throughout, with apostrophes escaped or left bare, strings joined with
// '+'), which the scanner reads string by string while the model prices
// each at one fault for the whole text. Each text the whole-text
// readings make of raw with a habit among them (readings.HabitRewrites:
// a habit alone, or with double encoding, CSV quotes or template quotes
// read before or after it) is scanned. Where the scanner reads it as
// res's value, that value stands. Where it reads another value, the
// value stands only when the fault model's window holds it alone; where
// it cannot read it (the habit's reading needs more faults than the
// scanner reads, or leaves a value cut), the value stands when the
// window holds it alone, or every cheapest reading of the window gives
// it (two values at the cheapest cost refuse: "\20"+ "28" is the
// backslash written as itself or \u2028 with its u dropped), or the
// model has no window (no reading within its budget). Otherwise the
// text is refused as the scanner refuses it, and the fault model
// decides (readByModel). Like the model, the check
// reads texts of at most maxModelBytes bytes: a longer one is the
// scanner's alone. A backslash before an apostrophe (\') alone does not
// count as the backslash habit: in single quotes it escapes it, and the
// scanner refuses it in double ones.
func habitAgrees(m *modelRead, res Result, opt Options) error {
	raw := m.raw
	if len(res.Steps) == 0 && res.JSON == raw {
		return nil // a valid text
	}
	if len(raw) > maxModelBytes {
		return nil // past the model's reach, the scanner reads alone (as readByModel)
	}
	if plainSingleQuoted(raw) {
		return nil // the one habit text is raw's apostrophes as quotes, read alike
	}
	hs := engine.HabitRewrites(raw)
	if len(hs) == 0 {
		return nil // no habit reads the text
	}
	backslashes := strings.Contains(raw, `\`) && faultmodel.StrayBackslash(strings.ReplaceAll(raw, `\'`, "'"))
	var w engine.Window // the model's window of raw, read when needed
	for _, h := range hs {
		if slices.Contains(h.Rows, "literal_backslashes") && !backslashes {
			continue
		}
		r, err := scan(h.Text, opt)
		if err == nil && sameValue(r.JSON, res.JSON) {
			continue // the habit's reading agrees
		}
		v := engine.NoReading // past the model's reach: a text that is not UTF-8
		if utf8.ValidString(raw) {
			w = m.window()
			var rd engine.Reading
			rd, v = w.Decide()
			if v == engine.Run && sameValue(rd.Text, res.JSON) {
				continue // the window holds the scanner's value alone
			}
		}
		if err != nil && (v == engine.NoReading || v == engine.OverBudget || v == engine.Ambiguous && cheapestAre(w, res.JSON)) {
			continue // the scanner's value stands where the model has no window, or its cheapest readings give that value alone
		}
		habit := firstHabit(h.Rows)
		switch {
		case v == engine.Cut:
			return malformed("the argument string was cut off where, read as written in one habit throughout (%s), a value is cut; what it held is unknown", habit.Habit)
		case habit.Name == "literal_backslashes":
			return malformed("a backslash that starts no JSON escape and one that starts an escape are both in the text; whether its backslashes are characters (as in a path) is ambiguous")
		}
		return malformed("the text read as written in one habit throughout (%s) gives another value than read string by string; which is meant is ambiguous", habit.Habit)
	}
	return nil
}

// cheapestAre reports whether every reading of w at its cheapest cost
// gives value v.
func cheapestAre(w engine.Window, v string) bool {
	for _, r := range w.Readings {
		if r.Cost == w.Min && !sameValue(r.Text, v) {
			return false
		}
	}
	return len(w.Readings) > 0
}

// resendRow and bracesRow are the table's rows of re-sent copies
// (repeated_object) and of braces doubled or repeated around the object
// (doubled_braces), whose whole-text readings HabitRewrites combines with
// a habit's.
var (
	resendRow, _ = faultmodel.Lookup("repeated_object")
	bracesRow, _ = faultmodel.Lookup("doubled_braces")
)

// firstHabit returns the first habit row among the rows named rows.
func firstHabit(rows []string) faultmodel.Operator {
	for _, name := range rows {
		if o, _ := faultmodel.Lookup(name); o.Habit != "" {
			return o
		}
	}
	return faultmodel.Operator{}
}

// plainSingleQuoted reports whether raw is an object whose strings are
// all in single quotes and plain, so that habitAgrees needs no scan: the
// whole-text readings (readings.HabitRewrites) make one text of it, the
// single_quotes habit's, which is raw with each apostrophe a quote, and
// the scanner reads a plain string in apostrophes as it reads it in
// quotes. raw opens with '{' and ends with '}' (white space aside); each
// apostrophe opens a string after one of "{[,:" (white space aside), the
// next closes it before one of ",:]}", and the string holds at least one
// byte, each printable ASCII and none of the quotes, backslash, '+',
// backquote, '<', '&', '#', '/', '*', a bracket, a comma or a colon;
// outside the strings every colon follows a string and every byte is a
// bracket, a comma, a colon, white space, an ASCII letter or digit, '.'
// or '-'. Then no other whole-text reading finds a mark of its own in raw
// or in the habit's text (a backslash, a '+', a typographic quote, a
// quote token, a doubled or leading quote, a bare key, an apostrophe
// inside a word), no re-sent copy may be dropped from raw (the
// repeated_object row proposes no edit: HabitRewrites reads the habit
// again over what such a drop leaves), and no braces are read as doubled
// (the doubled_braces row proposes no edit: HabitRewrites reads it
// before and after the habit); TestPlainSingleQuoted and
// FuzzPlainSingleQuoted check both claims against HabitRewrites and the
// scanner.
func plainSingleQuoted(raw string) bool {
	t := strings.TrimSpace(raw)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	last := plainNone // the class of the last byte outside the strings that is not white space
	strs := 0
	for i := 0; i < len(raw); i++ {
		switch c := plainClass[raw[i]]; c {
		case plainSpace, plainWhite:
		case plainOpen, plainComma, plainClose, plainWord:
			last = c
		case plainColon:
			if last != plainApos {
				return false
			}
			last = c
		case plainApos:
			if last != plainOpen && last != plainComma && last != plainColon {
				return false
			}
			j := i + 1
			for ; j < len(raw) && raw[j] != '\''; j++ {
				if c := plainClass[raw[j]]; c != plainWord && c != plainInner && c != plainSpace {
					return false
				}
			}
			k := skipWhite(raw, j+1)
			if j == i+1 || k >= len(raw) || plainClass[raw[k]] != plainComma && plainClass[raw[k]] != plainColon && plainClass[raw[k]] != plainClose {
				return false
			}
			i, last = j, c
			strs++
		default:
			return false
		}
	}
	return strs > 0 && len(resendRow.Inverse(raw)) == 0 && len(bracesRow.Inverse(raw)) == 0
}

// The classes of bytes plainSingleQuoted reads.
const (
	plainNone  uint8 = iota // none it admits
	plainSpace              // ' '
	plainWhite              // the other white space, '\t', '\n', '\r'
	plainOpen               // '{', '['
	plainComma              // ','
	plainColon              // ':'
	plainClose              // '}', ']'
	plainApos               // '\''
	plainWord               // ASCII letters and digits, '.', '-'
	plainInner              // other printable ASCII admitted in a string
)

// plainClass is the class of each byte for plainSingleQuoted.
var plainClass = func() (t [256]uint8) {
	for c := 0x21; c < 0x7f; c++ {
		if strings.IndexByte("\"\\+`<&#/*", byte(c)) < 0 {
			t[c] = plainInner
		}
	}
	for c := range t {
		if 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-' {
			t[c] = plainWord
		}
	}
	t[' '], t['\t'], t['\n'], t['\r'] = plainSpace, plainWhite, plainWhite, plainWhite
	t['{'], t['['], t[','], t[':'], t['}'], t[']'], t['\''] = plainOpen, plainOpen, plainComma, plainColon, plainClose, plainClose, plainApos
	return t
}()

// windowAgrees checks the scanner's repair res of m's text against the
// fault model's window (modelRead.decide: under the node's options, for a
// text of at most maxModelBytes bytes in UTF-8): the value stands when the window's
// readings, those the schema drops aside (readings.Window.Drop), give it
// alone. Where they differ, or a cheapest reading cuts a value, the text
// is refused, naming the readings; where they give another value alone,
// or a list, the text is refused and the model decides it
// (readByModel). Where the model has no window (no reading within its
// budget, or more work than its bound), the scanner's value stands, as
// for a longer text.
func windowAgrees(m *modelRead, res Result, opt Options) error {
	if len(res.Steps) == 0 && res.JSON == m.raw {
		return nil // a valid text
	}
	w, r, v, ok := m.decide(opt)
	if !ok {
		return nil
	}
	var ways string
	switch v {
	case engine.NoReading, engine.OverBudget:
		return nil
	case engine.Run, engine.NotObject:
		if sameValue(r.Text, res.JSON) {
			return nil
		}
		// The window holds another value alone: the scanner's reading
		// and the model's are two ways, and the model's is taken where
		// it decides (readByModel).
		ways = describe(r)
	case engine.Ambiguous:
		if cutAtCheapest(w) && (cheapestAre(w, res.JSON) || placedBy(w, res.JSON)) {
			// The documented exception: a text cut after a complete
			// value is closed at its end; the readings one fault past
			// place its closers elsewhere, which Options.Choose may
			// pick.
			return nil
		}
		ways = describe(w.Readings[0])
		if rival, ok := w.Rival(); ok {
			ways += "; or " + describe(rival)
		}
	case engine.Cut:
		return malformed("the argument string was cut off where a value is cut (%s); what it held is unknown", describe(r))
	}
	return malformed("the text reads two ways within one fault of its cheapest reading (%s); which is meant is ambiguous", ways)
}

// cutAtCheapest reports whether a reading of w at its cheapest cost
// undoes a cut (closers added at the end of the text).
func cutAtCheapest(w engine.Window) bool {
	for _, r := range w.Readings {
		if r.Cost == w.Min && slices.Contains(r.Ops, "cut") {
			return true
		}
	}
	return false
}

// placedBy reports whether a reading of w that undoes a cut gives value
// v: one placement of the closers the cut left out.
func placedBy(w engine.Window, v string) bool {
	for _, r := range w.Readings {
		if slices.Contains(r.Ops, "cut") && !r.Unknown && sameValue(r.Text, v) {
			return true
		}
	}
	return false
}

// describe names the faults reading r undoes and where each starts.
func describe(r engine.Reading) string {
	var b strings.Builder
	for i, op := range r.Ops {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s at byte %d", op, r.At[i])
	}
	return b.String()
}
