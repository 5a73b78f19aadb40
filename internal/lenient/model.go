package lenient

import (
	"slices"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonread"
	engine "github.com/saidex/saidex-go/internal/readings"
)

// The fault model decides where the scanner refuses. A text the scanner
// refuses, under the node's options (FixSyntax and StripThinking), of at
// most maxModelBytes bytes, is read by the readings engine (package
// readings): its window is the set of values the text reads back to by
// undoing faults of faultmodel.Table at the cheapest cost and at one fault
// more. Repair returns the window's value when the cheapest reading costs
// one fault (so the window, up to two, is complete within the engine's
// budget), every reading in the window gives that one value, and every
// fault that reading undoes is of a row in switchedRows. Anything else
// keeps the scanner's refusal. A text that is not UTF-8 is left to the
// scanner, which decides how such bytes are written (its canonical text
// writes them as U+FFFD, the engine's reading copies them), so that a text
// repairs to one text whichever engine reads it.

// maxModelBytes bounds the texts the readings engine reads after the
// scanner refused them: its work is bounded per byte, but each byte costs
// far more than the scanner's (a refused text of 1.8 KB nested 900 deep
// took about 80 ms), so only short texts are read.
const maxModelBytes = 2 << 10

// switchedRows are the rows of faultmodel.Table whose faults the readings
// engine repairs where the scanner refuses: each row is switched once the
// sweeps (internal/cmd/soundsweep, default and -window) show it sound and
// recalling more (docs/repair-model.md, "Step 2: switched").
var switchedRows = []string{
	"comma", "colon", "stray_brace", "premature_closer", "dropped_closer", "swapped_closer", "stray_closer", "stray_bracket",
	"escaped_space", "py_js_literal", "repeated_key", "literal_case", "loose_number", "numeric_key", "unclosed_key",
	"split_number", "double_encoded", "repeated_object", "csv_quotes", "comment", "around", "commented", "unquoted", "bare_value", "backquotes", "entity_quotes", "invisible",
}

// syntaxSteps are the named steps reported with FixSyntax (as the scanner
// reports them).
var syntaxSteps = []Step{JoinStrings, MissingColon, StrayComma, MismatchedBracket, DoubledBraces, InvisibleSpace, MissingQuote,
	EscapedWhitespace, UnclosedKey, StrayCloser, WrongCloser, LiteralCase, LooseNumber, NumericKey, QuotedBareValue}

// readByModel returns raw's value by the fault model (see maxModelBytes),
// its steps those of the rows the reading undoes; false when the model
// does not decide it under opt.
func readByModel(raw string, opt Options) (Result, bool) {
	if !opt.FixSyntax || !opt.StripThinking || len(raw) > maxModelBytes || !utf8.ValidString(raw) {
		return Result{}, false
	}
	w := engine.Read(raw)
	if w.Min != 1 {
		return Result{}, false
	}
	r, v := w.Decide()
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
