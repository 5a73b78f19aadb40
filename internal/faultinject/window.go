package faultinject

import (
	"slices"
	"strings"
	"time"
)

// Verdict is what the brute-force reader's window (see [Read]) says of
// what the engine made of a broken text.
type Verdict int

// The verdicts.
const (
	// VExact: the tool received the original.
	VExact Verdict = iota
	// VException: the tool received a value one of the two documented
	// exceptions allows (a text cut after a complete value and closed;
	// closers missing at the end added at the end).
	VException
	// VAmbiguous: refused, and the window's readings differ.
	VAmbiguous
	// VOverStrict: refused, and the window's readings all agree (on the
	// original): the map of what reading by the model wins. Where
	// the cheapest reading costs MaxReadCost, the window reaches one
	// fault past it as the engine's does (see VAmbiguousPast).
	VOverStrict
	// VAlias: the original is not in the window (the text has a cheaper
	// reading by two faults or more, or the table cannot express its
	// fault within MaxReadCost); refused, or ran another value.
	VAlias
	// VDifferent: the tool received another value, with the original in
	// the window: a bug.
	VDifferent
	// VNoReading: refused, and the reader found no reading up to
	// MaxReadCost.
	VNoReading
	// VValueCut: refused, and one of the window's cheapest readings is
	// the cut row's where what followed the cut leaves the value unknown
	// (faultmodel.Cut: inside a string or a key, after a key or its
	// colon, right after a number). What followed is unknown (the row's
	// reason), so the decision rule refuses: not over-strict, whatever
	// the other readings are.
	VValueCut
	// VAmbiguousPast: refused; the cheapest readings, at MaxReadCost,
	// agree on the original, and a reading one fault past them gives
	// another value (PastReading: one inverse edit, then every reading
	// the reader finds of the text it makes). The window the decision
	// rule reads is [cheapest, cheapest+1], so the readings differ.
	VAmbiguousPast
	// VLucky: the tool received the original, but the window does not
	// hold it alone (its readings differ, or the original is not among
	// them): the repair ran where the decision rule refuses, right by
	// luck, not by the model.
	VLucky
	numVerdicts
)

// Verdicts lists the verdicts in table order.
var Verdicts = []Verdict{VExact, VLucky, VException, VAmbiguous, VAmbiguousPast, VValueCut, VOverStrict, VAlias, VDifferent, VNoReading}

// String returns the verdict's column name.
func (v Verdict) String() string {
	return [...]string{"exact", "exception", "ambiguous", "over_strict", "alias", "different", "no_reading", "value_cut", "ambiguous_past", "lucky"}[v]
}

// JudgeWindow returns the verdict on what the tool received (args, or
// nothing when ran is false) for mutation m of the value orig, whose
// window is w; false when m's text is not broken (it is one JSON object).
func JudgeWindow(orig Value, m Mutation, w Window, args string, ran bool) (Verdict, bool) {
	switch Classify(orig, m, args, ran) {
	case Unbroken:
		return 0, false
	case Original:
		if !w.Agree() || !w.Holds(orig) {
			return VLucky, true
		}
		return VExact, true
	case Truncated, ClosedAtEnd:
		return VException, true
	}
	in := w.counted(orig) || m.Cut && w.cutHolds(m.Text)
	switch {
	case ran && in:
		return VDifferent, true
	case ran || len(w.Readings) > 0 && !in:
		return VAlias, true
	case len(w.Readings) == 0:
		return VNoReading, true
	case w.cheapestUnknown():
		return VValueCut, true
	case !w.Agree():
		return VAmbiguous, true
	case w.Min == MaxReadCost:
		if _, ok := PastReading(m.Text, orig); ok {
			return VAmbiguousPast, true
		}
	}
	return VOverStrict, true
}

// PastReading returns a reading of text one fault past MaxReadCost (at
// most MaxReadCost+1) whose value is not v, if there is one: one inverse
// edit, then every reading the reader finds of the text it makes (not
// only its window) at the cost left, where the first edit is made as the
// reader makes its own (past: needed, and its character structure), and
// starts at or before the text's syntax error (as the first of any
// reading's edits, in the text's order, does). A text the first edit
// makes valid is not read on, as withinOneMore does not.
func PastReading(text string, v Value) (Reading, bool) {
	// The first edit of a reading's edits in the text's order starts at
	// or before the text's syntax error: the reader looks at those.
	return oneMore(text, errorLimit(text), func(e named, r *Reading) bool {
		return !Equal(r.Value, v) && past(text, e, *r)
	})
}

// past reports whether e, made on text before the edits of r (a reading
// of the text e makes), is made as the reader makes the first of two
// edits: needed (r's edits, moved back to text, do not read it: as
// needed checks) and, for a character edit, where its character is
// structure in r's text (as structuralPair checks). e's place moves with
// each edit of r made before it; where one of them rewrites e's text, e
// counts as needed, and as placed unless that edit writes one string
// around it.
func past(text string, e named, r Reading) bool {
	a, b := e.Start, e.Start+len(e.Repl) // e's text, in the text the next edit is made on
	d := len(e.Repl) - (e.End - e.Start)
	without := text // r's edits made on text, without e
	for _, f := range r.edits {
		df := len(f.Repl) - (f.End - f.Start)
		switch {
		case f.Start >= b:
			g := f.Edit
			g.Start, g.End = f.Start-d, f.End-d
			without = g.Apply(without)
		case f.End <= a:
			without = f.Apply(without)
			a, b = a+df, b+df
		default:
			quoted := len(f.Repl) >= 2 && f.Repl[0] == '"' && f.Repl[len(f.Repl)-1] == '"'
			return !(e.placed() && quoted && f.Start < a && b < f.End)
		}
	}
	if _, reads := rootOf(without); reads {
		return false // e is not needed
	}
	return !e.placed() || structural(r.Text, a, e.Repl == "")
}

// cheapestUnknown reports whether a cheapest reading of w leaves the
// value unknown (a cut, see Reading.Unknown): the decision rule refuses.
func (w Window) cheapestUnknown() bool {
	for _, r := range w.Readings {
		if r.Cost == w.Min && r.Unknown {
			return true
		}
	}
	return false
}

// counted reports whether v is the value of a reading of w that counts
// (as Agree counts them).
func (w Window) counted(v Value) bool {
	for _, r := range w.Readings {
		if r.counts(w.Min) && Equal(r.Value, v) {
			return true
		}
	}
	return false
}

// cutHolds reports whether w holds, among its cheapest, a reading that
// completes text itself where it was cut, leaving the value unknown: when
// text is a cut of the original's text, the original is one of that
// reading's values. One fault past the cheapest such a reading names no
// value (Agree).
func (w Window) cutHolds(text string) bool {
	for _, r := range w.Readings {
		if r.Unknown && r.Cost == w.Min && r.Prefix == text {
			return true
		}
	}
	return false
}

// Unknown reports whether a reading of w leaves its value unknown.
func (w Window) Unknown() bool {
	for _, r := range w.Readings {
		if r.Unknown {
			return true
		}
	}
	return false
}

// WindowTally counts verdicts per operator.
type WindowTally struct {
	Counts map[string]*[numVerdicts]int
	// Examples holds up to MaxExamples mutations per operator and
	// verdict (over-strict, ambiguous, alias, different, no reading).
	Examples map[string][]WindowExample
	// Engine and Reader are the time the engine and the brute-force
	// reader took per operator.
	Engine, Reader map[string]time.Duration
	MaxExamples    int
	// Lucky counts, per operator, the lucky mutations by what put another
	// value in the window: the rows of each reading whose value is not
	// the original, joined ("quote_moved", "comment+unquoted"), sorted
	// and joined with " | ". It maps where the node's runs are the
	// scanner's guesses, not the model's: a reading the table prices too
	// low, or one it really writes.
	Lucky map[string]map[string]int
}

// WindowExample is one judged mutation.
type WindowExample struct {
	Op, Original, Text, Args string
	Verdict                  Verdict
	Window                   Window
}

// NewWindowTally returns an empty tally keeping 3 examples per operator
// and verdict.
func NewWindowTally() *WindowTally {
	return &WindowTally{Counts: map[string]*[numVerdicts]int{}, Examples: map[string][]WindowExample{},
		Engine: map[string]time.Duration{}, Reader: map[string]time.Duration{}, MaxExamples: 3, Lucky: map[string]map[string]int{}}
}

// Add counts one verdict.
func (t *WindowTally) Add(ex WindowExample) {
	c := t.Counts[ex.Op]
	if c == nil {
		c = new([numVerdicts]int)
		t.Counts[ex.Op] = c
	}
	c[ex.Verdict]++
	if ex.Verdict == VLucky {
		t.addLucky(ex.Op, luckyCause(ex), 1)
	}
	if t.keeps(ex.Op, ex.Verdict) {
		t.Examples[ex.Op] = append(t.Examples[ex.Op], ex)
	}
}

// keeps reports whether t keeps the next example of op with verdict v:
// fewer than MaxExamples kept, and v neither exact nor an exception.
func (t *WindowTally) keeps(op string, v Verdict) bool {
	if v == VExact || v == VException {
		return false
	}
	n := 0
	for _, e := range t.Examples[op] {
		if e.Verdict == v {
			n++
		}
	}
	return n < t.MaxExamples
}

// Merge adds u to t.
func (t *WindowTally) Merge(u *WindowTally) {
	for op, c := range u.Counts {
		d := t.Counts[op]
		if d == nil {
			d = new([numVerdicts]int)
			t.Counts[op] = d
		}
		for v := range c {
			d[v] += c[v]
		}
		t.Engine[op] += u.Engine[op]
		t.Reader[op] += u.Reader[op]
		for cause, n := range u.Lucky[op] {
			t.addLucky(op, cause, n)
		}
		for _, ex := range u.Examples[op] {
			if t.keeps(op, ex.Verdict) {
				t.Examples[op] = append(t.Examples[op], ex)
			}
		}
	}
}

func (t *WindowTally) addLucky(op, cause string, n int) {
	if t.Lucky[op] == nil {
		t.Lucky[op] = map[string]int{}
	}
	t.Lucky[op][cause] += n
}

// luckyCause names what put another value in the window of the lucky
// mutation ex (see WindowTally.Lucky).
func luckyCause(ex WindowExample) string {
	orig, err := DecodeOrdered(ex.Original)
	if err != nil {
		return "?"
	}
	var causes []string
	for _, r := range ex.Window.Readings {
		if Equal(r.Value, orig) {
			continue
		}
		c := strings.Join(slices.Sorted(slices.Values(r.Ops)), "+")
		if !slices.Contains(causes, c) {
			causes = append(causes, c)
		}
	}
	if !ex.Window.Holds(orig) {
		causes = append(causes, "(original not in the window)")
	}
	slices.Sort(causes)
	return strings.Join(causes, " | ")
}

// Count returns op's count of v ("" for all operators).
func (t *WindowTally) Count(op string, v Verdict) int {
	n := 0
	for o, c := range t.Counts {
		if op == "" || o == op {
			n += c[v]
		}
	}
	return n
}

// CheckWindows judges every single mutation, by every operator of ops, of
// the object g generates next, when its text is at most maxBytes long
// (else it returns false, nothing counted): the engine (repair) and the
// brute-force reader each read the broken text, and tally counts the
// verdict.
func CheckWindows(g *Gen, repair Repairer, ops []Op, maxBytes int, tally *WindowTally) bool {
	o := g.Object()
	l := g.RandomLayout()
	t := Encode(o, l)
	if len(t.S) > maxBytes {
		return false
	}
	orig, _ := DecodeOrdered(t.S)
	for _, op := range ops {
		for _, m := range op.Singles(t, g.Rand()) {
			if len(m.Text) > MaxReadBytes {
				continue
			}
			start := time.Now()
			args, ran := repair(m.Text)
			mid := time.Now()
			w, err := Read(m.Text)
			tally.Engine[op.Name] += mid.Sub(start)
			tally.Reader[op.Name] += time.Since(mid)
			if err != nil {
				continue
			}
			v, broken := JudgeWindow(orig, m, w, args, ran)
			if v == VAmbiguousPast && tally.keeps(op.Name, v) {
				r, _ := PastReading(m.Text, orig) // the reading the example shows
				w.Readings = append(w.Readings, r)
			}
			if broken {
				tally.Add(WindowExample{Op: op.Name, Original: t.S, Text: m.Text, Args: args, Verdict: v, Window: w})
			}
		}
	}
	return true
}
