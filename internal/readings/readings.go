// Package readings is the readings engine of the repair stage: for a
// broken text it computes the window, the set of values the text reads
// back to by undoing faults of faultmodel.Table at the cheapest cost and
// at one fault more, each with the operators and places of its edits.
//
// The model: every row of the table is an inverse edit with a cost;
// a reading is the text those edits make, read by strict JSON as one
// object or one list, and its cost is the sum of the edits' costs. Each
// edit must be needed (with one left out the text is not a reading), and
// a character edit is made only where its character is structure in the
// reading. A list is no arguments, but a writer may have meant one (a
// list cut after its first item is not that item), so among the cheapest
// it stands in the window as any other value. Repair runs a value exactly
// when every reading in the window gives it, and it is an object;
// a reading that leaves a value unknown (a cut inside a string, a number
// or a bare word), or that is a list, refuses when it is among the
// cheapest, and one fault past them does not count (it names no value,
// or no arguments a call could run); past the budget (cost Budget,
// MaxLive configurations live at once) it refuses.
//
// The engine is an error-correcting parser in the manner of Aho and
// Peterson's minimum-distance parsing and CPCT+: a left-to-right JSON
// pushdown parser whose configurations (position, parser state with its
// bracket stack as an index into a shared arena, cost, the edits made,
// the compact text written as a chain of shared segments) advance byte by
// byte (one that can make no edit over a run of bytes that leaves its
// state as it is in one move); at each position every inverse edit that starts there is tried
// (character insertions, deletions and replacements, quote styles, bare
// tokens, literal spellings, escapes, comments, moved quotes, after a
// whole object a second one read from a root of its own, either of the
// two a reading, and at the end the cut), and whole-text readings (double encoding, CSV quotes,
// template quotes throughout, a writer's habits) are read as texts of their own at their
// row's cost, over the whole text and over what a re-sent copy's drop leaves (the model
// makes its edits in any order). A configuration whose parser state equals one already at
// its position with a subset of its edits is dropped: it reads on the
// same way, so its readings hold an edit that is not needed or lie
// outside the window.
package readings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/saidex/saidex-go/internal/faultmodel"
	"github.com/saidex/saidex-go/internal/jsonread"
)

// Budget is the highest cost the engine looks at: the cheapest reading
// and one fault more, when the cheapest costs at most Budget-1.
const Budget = 2

// MaxLive bounds the configurations alive at once; past it the engine
// refuses (Window.Over).
const MaxLive = 4096

// Reading is one value a broken text reads back to.
type Reading struct {
	// Text is the value's compact JSON text, as the cheapest edits that
	// reach it write it.
	Text string
	// Cost is the cost of those edits.
	Cost int
	// Ops names the rows of faultmodel.Table those edits undo, and At
	// where each starts in the broken text (for a whole-text reading, 0).
	Ops []string
	At  []int
	// Steps names the repair steps of those rows (faultmodel's Step),
	// each once, in the order of Ops.
	Steps []string
	// Unknown: the reading cuts the text inside a string or a number, so
	// what the value held is unknown.
	Unknown bool
	key     string // the value's canonical text
	// known: some edits at Cost reach the value with no cut that leaves
	// it unknown (an Unknown reading may be known too); one fault past the
	// cheapest, only a known reading counts (Decide).
	known bool
}

// Window is what a broken text means under the fault model.
type Window struct {
	// Min is the cost of the cheapest reading (0 when there is none).
	Min int
	// Readings are the window's values, each once at its cheapest cost,
	// cheapest first.
	Readings []Reading
	// Over: the live set passed MaxLive, so the window is unknown.
	Over bool
}

// Verdict is what the decision rule makes of a window.
type Verdict int

// The verdicts.
const (
	// Run: every reading in the window gives one value.
	Run Verdict = iota
	// Ambiguous: the readings in the window differ.
	Ambiguous
	// Cut: a cheapest reading cuts a value, which is unknown.
	Cut
	// NoReading: no reading within the budget.
	NoReading
	// OverBudget: more configurations than MaxLive.
	OverBudget
	// NotObject: every reading in the window gives one value, and it is
	// not an object (a list): no arguments to run.
	NotObject
)

// String names the verdict.
func (v Verdict) String() string {
	return [...]string{"run", "ambiguous", "cut", "no reading", "over budget", "not an object"}[v]
}

// object reports whether r is an object (else a list).
func (r Reading) object() bool { return strings.HasPrefix(r.Text, "{") }

// spanRows are the rows that choose which part of a text is the object:
// a wrapper, a copy, a second object, a layer read over the whole text.
var spanRows = []string{"around", "commented", "repeated_object", "concatenated", "double_encoded", "csv_quotes", "doubled_braces"}

// Drop returns w without the readings drop reports, where a schema tells
// readings of one object apart: every reading of w keeps the same part of
// the text as the object (the same spanRows edits at the same places), so
// a schema never chooses between two objects, or between an object and
// the prose around it. A reading that leaves its value unknown, or that
// is a list, is never dropped, and at least one of the cheapest readings
// must stay (past them, the window of the rest is not read). Otherwise
// Drop returns w.
func (w Window) Drop(drop func(Reading) bool) Window {
	span := func(r Reading) string {
		var b strings.Builder
		for i, op := range r.Ops {
			if slices.Contains(spanRows, op) {
				fmt.Fprintf(&b, "%s@%d;", op, r.At[i])
			}
		}
		return b.String()
	}
	var kept []Reading
	cheapest, first := false, ""
	for i, r := range w.Readings {
		switch sp := span(r); {
		case i == 0:
			first = sp
		case sp != first:
			return w
		}
		if !r.Unknown && r.object() && drop(r) {
			continue
		}
		kept = append(kept, r)
		cheapest = cheapest || r.Cost == w.Min
	}
	if !cheapest || len(kept) == len(w.Readings) {
		return w
	}
	w.Readings = kept
	return w
}

// Decide applies the decision rule: the window's one value, or why not.
func (w Window) Decide() (Reading, Verdict) {
	switch {
	case w.Over:
		return Reading{}, OverBudget
	case len(w.Readings) == 0:
		return Reading{}, NoReading
	}
	for _, r := range w.Readings {
		if r.Cost == w.Min && r.Unknown {
			return r, Cut
		}
	}
	n := 0 // the readings that decide: one of unknown value, or a list, only among the cheapest
	for _, r := range w.Readings {
		if w.counts(r) {
			n++
		}
	}
	switch {
	case n > 1:
		return w.Readings[0], Ambiguous
	case !w.Readings[0].object():
		return w.Readings[0], NotObject
	}
	return w.Readings[0], Run
}

// counts reports whether r decides in w: at the cheapest cost always; one
// fault past it only where some of its edits leave its value known, and
// it is an object.
func (w Window) counts(r Reading) bool {
	return r.Cost == w.Min || r.known && r.object()
}

// Rival returns the first reading of w after the first whose value
// differs from the first's, among those the decision rule counts; false
// when there is none.
func (w Window) Rival() (Reading, bool) {
	for _, r := range w.Readings[min(1, len(w.Readings)):] {
		if r.key != w.Readings[0].key && w.counts(r) {
			return r, true
		}
	}
	return Reading{}, false
}

// Values returns the canonical text of each reading's value (members
// sorted by name, strings and numbers as written), in order.
func (w Window) Values() []string {
	out := make([]string, len(w.Readings))
	for i, r := range w.Readings {
		out[i] = r.key
	}
	return out
}

// Read returns the window of s. A text that is itself one JSON object
// has no window here (the caller's fast path reads it): Read reads it
// as it is, at cost 0.
func Read(s string) Window { return ReadWithin(s, Budget) }

// ReadComplete returns the window of s, complete: Read, and, where the
// cheapest reading costs Budget, s read again within Budget+1, so that
// the readings one fault past the cheapest are all in it.
func ReadComplete(s string) Window {
	w := Read(s)
	if w.Min == Budget && !w.Over {
		w = ReadWithin(s, Budget+1)
	}
	return w
}

// ReadWithin is Read looking at readings that cost up to budget: with a
// budget of 3, the window of a text whose cheapest reading costs 2 is
// complete. Its work is bounded per byte as Read's (past it, Over).
func ReadWithin(s string, budget int) Window {
	w, dups := read(s, true, budget)
	if dups {
		// A repeated name: the subset rule assumed values never change
		// which readings exist; read again without it.
		w, _ = read(s, false, budget)
	}
	return w
}

// read computes the window, dropping dominated configurations when
// prune is set; dups reports a reading that held a repeated name.
func read(s string, prune bool, budget int) (Window, bool) {
	found, over, dups := readAll(s, prune, budget)
	return window(needed(found), over), dups
}

// readAll returns the readings of s the engine finds within budget, over
// s and over each text whole-text readings make of it, placed in s; over
// when the work passed its bounds, dups when a reading held a repeated
// name.
func readAll(s string, prune bool, budget int) (found []found, over, dups bool) {
	resent, over := resentRewrites(s, true, budget)
	for _, r := range append(rewrites(s, true, budget), resent...) {
		e := newEngine(r.text, budget, prune)
		e.endOpen = faultmodel.CutMayGoOn(s) || faultmodel.CutMayGoOn(r.text)
		e.run(r.base, r.pre)
		n := len(found)
		for _, d := range e.done {
			found = append(found, e.readingsOf(d)...)
		}
		over = over || e.over
		dups = dups || e.dups
		e.release()
		mapped := func(j int) bool {
			return slices.ContainsFunc(r.maps, func(m placeMap) bool { return m.k == j+1 })
		}
		for m := len(r.maps) - 1; m >= 0; m-- {
			placeBack(found[n:], r.maps[m].k, r.maps[m].src, mapped)
		}
	}
	return found, over, dups
}

// rewritten is a text whole-text readings make of the text read: their
// cost, their edits in order, and, for each habit or template quotes
// among them, where it places its text's bytes in the text it read.
type rewritten struct {
	text string
	base int
	pre  []edit
	maps []placeMap // outermost first
}

// placeMap is a whole-text reading's source map (a habit's or template
// quotes') and the number of edits made up to it, its own included (see
// placeBack).
type placeMap struct {
	k   int
	src []int
}

// rewrites returns s (at cost 0) and each text whole-text readings make
// of it within the budget, a reading of a text made by another after it,
// depth first; with maps, each with the source maps of the habits and
// template quotes among them.
func rewrites(s string, maps bool, budget int) []rewritten {
	return rewritesFrom(rewritten{text: s}, maps, budget)
}

// rewritesFrom is rewrites of from.text, with from's cost and edits made
// first.
func rewritesFrom(from rewritten, maps bool, budget int) []rewritten {
	var out []rewritten
	var walk func(r rewritten)
	walk = func(r rewritten) {
		out = append(out, r)
		if r.base+1 > budget {
			return
		}
		seen := map[string]bool{r.text: true}
		for i, v := range wholeTexts(r.text, maps) {
			if seen[v.Repl] || r.base+rowCost(v.row) > budget {
				continue
			}
			seen[v.Repl] = true
			next := rewritten{text: v.Repl, base: r.base + rowCost(v.row), maps: r.maps,
				pre: append(r.pre[:len(r.pre):len(r.pre)], edit{kind: kWhole, arg: uint8(i), row: v.row, start: int32(len(r.pre))})}
			if v.src != nil {
				next.maps = append(r.maps[:len(r.maps):len(r.maps)], placeMap{len(r.pre) + 1, v.src})
			}
			walk(next)
		}
	}
	walk(from)
	return out
}

// resentRewrites returns the texts whole-text readings make of s once a
// re-sent copy is dropped from it (the re-send catch-all's tail or head,
// faultmodel.ResendTail and ResendHead), each with that drop as its first
// edit (with maps, a head's part with a source map placing it where it
// stands in s, see placeBack): the model makes its edits in any order,
// and a layer or a habit read over the whole text may read the copy
// otherwise than over the object alone ({\"a\": 1}\n{\"a\": 1} is one encoded object
// re-sent, not one text encoded). The text the drop leaves itself is
// the engine's to read (its roots and tails). Past maxRoots places
// where a copy may be dropped (a text that repeats itself throughout),
// over: the window is unknown, as the engine's own roots say.
func resentRewrites(s string, maps bool, budget int) (out []rewritten, over bool) {
	cost := rowCost(rResend)
	if cost+1 > budget || len(s) == 0 {
		return nil, false
	}
	type split struct {
		part string
		off  int
		drop edit
	}
	var splits []split
	for j := 1; j < len(s); j++ {
		// j is the copy's first byte (white space before it is dropped
		// with it, as the engine's tail drop does).
		if isWS(s[j]) || s[j] != s[0] || !faultmodel.ResendTail(s, j) {
			continue
		}
		splits = append(splits, split{strings.TrimRight(s[:j], " \t\r\n"), 0, edit{start: int32(j), end: int32(len(s)), kind: kTail, row: rResend}})
		if len(splits) > maxRoots {
			return nil, true
		}
	}
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] || !faultmodel.ResendHead(s, i) {
			continue
		}
		splits = append(splits, split{s[i:], i, edit{start: 0, end: int32(i), kind: kHead, row: rResend}})
		if len(splits) > maxRoots {
			return nil, true
		}
	}
	for _, sp := range splits {
		from := rewritten{text: sp.part, base: cost, pre: []edit{sp.drop}}
		if maps && sp.off > 0 {
			// A head's part places its bytes off further on (placeBack).
			src := make([]int, len(sp.part)+1)
			for i := range src {
				src[i] = i + sp.off
			}
			from.maps = []placeMap{{1, src}}
		}
		rs := rewritesFrom(from, maps, budget)
		if sp.off == 0 || sp.part[0] == '{' || sp.part[0] == '"' {
			rs = rs[1:] // the part itself: the engine drops such a head or tail (resendHeads, complete)
		}
		out = append(out, rs...) // a part opening with a wrapper re-sent with each head is read as a text of its own
	}
	return out, false
}

// Rewrite is a text a broken text reads as by whole-text readings alone.
type Rewrite struct {
	// Text is the text the readings write.
	Text string
	// Rows names the rows of faultmodel.Table read, in order.
	Rows []string
}

// HabitRewrites returns the texts s reads as by whole-text readings
// (double encoding, CSV quotes, template quotes, the habits) within the
// budget, as Read reads them (over s, or over what is left once a
// re-sent copy is dropped), where at least one of the readings is a
// habit: the texts on which a reader that reads strings one by one may
// read a habit otherwise than the model, which prices it once for the
// whole text.
func HabitRewrites(s string) []Rewrite {
	if !mayHoldHabit(s) {
		return nil
	}
	return habitRewrites(s)
}

// mayHoldHabit reports whether a habit may read s or a text a whole-text
// reading makes of it: each habit needs a mark of its own in the text it
// reads (a backslash for literal_backslashes, an apostrophe or a
// typographic quote for single_quotes and bare_apostrophe, a '+' for
// joined_strings), and the other whole-text readings write none that s
// lacks (undoing an escape, or keeping one, needs a backslash in s;
// template quotes write only JSON's own escapes).
func mayHoldHabit(s string) bool {
	// One vectorised pass per mark (ContainsAny walks byte by byte).
	return strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '\'') >= 0 || strings.IndexByte(s, '+') >= 0 ||
		strings.Contains(s, "“")
}

// habitRewrites is HabitRewrites without its check of mayHoldHabit.
func habitRewrites(s string) []Rewrite {
	var out []Rewrite
	resent, _ := resentRewrites(s, false, Budget) // (past its bound the window is over: Read refuses)
	for _, r := range append(rewrites(s, false, Budget), resent...) {
		var rows []string
		hab := false
		for _, ed := range r.pre {
			rows = append(rows, faultmodel.Table[ed.row].Name)
			hab = hab || habit(ed.row)
		}
		if hab {
			out = append(out, Rewrite{r.text, rows})
		}
	}
	return out
}

// whole is a whole-text inverse edit and its row; for a habit or
// template quotes (read with maps), src places each byte of its text in
// the text it read (faultmodel.Rewrite).
type whole struct {
	faultmodel.Edit
	row uint8
	src []int
}

// wholeTexts returns the whole-text readings of the rows that rewrite a
// text throughout: double encoding, CSV quotes, doubled braces, template
// quotes, and the
// habits (backslashes written as themselves, single quotes, single
// quotes with apostrophes left bare, strings joined with '+'); with
// maps, each habit's and template quotes' with its source map.
func wholeTexts(s string, maps bool) []whole {
	var out []whole
	for _, r := range []uint8{rDouble, rCSV, rBraces, rTemplate, rTemplEsc} {
		for _, ed := range faultmodel.Table[r].Inverse(s) {
			if ed.Start == 0 && ed.End == len(s) && ed.Repl != s {
				out = append(out, whole{ed, r, nil})
				if !maps || r != rTemplate {
					continue
				}
				// Template quotes throughout place their text back too:
				// an edit made after them that their text did not need
				// is then the edit made on s.
				if t, ok := faultmodel.TemplateQuotes(s); ok && t.Text == ed.Repl {
					out[len(out)-1].src = t.Src
				}
			}
		}
	}
	habits := faultmodel.HabitTexts
	if maps {
		habits = faultmodel.Habits
	}
	for r := range uint8(len(faultmodel.Table)) {
		if !habit(r) {
			continue
		}
		for _, h := range habits(faultmodel.Table[r].Name, s) {
			out = append(out, whole{faultmodel.Edit{Start: 0, End: len(s), Repl: h.Text}, r, h.Src})
		}
	}
	return out
}

// habit reports whether row r is a habit (a writer's habit, read for the
// whole text: a row with faultmodel's Habit set).
func habit(r uint8) bool {
	return faultmodel.Table[r].Habit != ""
}

// placeBack places the edits after the first k of each reading of fs,
// made on a whole-text reading's text (a habit's, or template quotes'),
// in the text it read (src, see faultmodel.Rewrite): an edit that text
// did not need is then the same edit as the one made on the text read,
// and needed drops the reading that holds the whole-text reading without
// need. An edit named by a member's ordinal (start < 0) is left as it
// is, and so is every edit after another whole-text reading that no map
// places (mapped reports, by index, the edits that have one).
func placeBack(fs []found, k int, src []int, mapped func(j int) bool) {
	for i := range fs {
		if len(fs[i].ed) <= k {
			continue
		}
		ed := slices.Clone(fs[i].ed)
		at := slices.Clone(fs[i].At)
	edits:
		for j := k; j < len(ed); j++ {
			switch {
			case ed[j].kind == kWhole && !mapped(j):
				break edits
			case ed[j].kind == kWhole || ed[j].start < 0 || int(ed[j].end) >= len(src):
				continue
			}
			ed[j].start, ed[j].end = int32(src[ed[j].start]), int32(src[ed[j].end])
			at[j] = int(ed[j].start)
		}
		fs[i].ed, fs[i].At = ed, at
	}
}

// found is one reading before the window is taken.
type found struct {
	Reading
	ed []edit
	// inBare: an edit's text lies inside a bare token's (see
	// insideBare), which then rewrites it; commentInBare: a comment
	// dropped from inside it, never a reading (a comment stands where
	// white space may, never inside a string's content).
	inBare, commentInBare bool
}

// readingsOf returns the readings d gives: itself, or, when it repeats a
// name, each text that drops one of the members repeated (repeated_key).
func (e *engine) readingsOf(d done) []found {
	mk := func(text string, cost int, ed []edit) found {
		r := Reading{Text: text, Cost: cost, Unknown: d.unknown, key: canonical(text)}
		for _, x := range ed {
			r.Ops = append(r.Ops, faultmodel.Table[x.row].Name)
			at := max(0, int(x.start))
			if x.kind == kWhole {
				at = 0 // (its start numbers it among the edits)
			}
			r.At = append(r.At, at)
			if st := faultmodel.Table[x.row].Step; !slices.Contains(r.Steps, st) {
				r.Steps = append(r.Steps, st)
			}
		}
		in, comment := e.insideBare(ed)
		return found{r, ed, in, comment}
	}
	if !jsonread.RepeatsName(d.text) {
		return []found{mk(d.text, d.cost, d.ed)}
	}
	e.dups = true
	var out []found
	// Each text that drops members repeated until no name repeats, one
	// repeated_key fault per member dropped, within the budget. A member
	// is named by the ordinal of its key in d.text, the same in every
	// reading of the text that keeps its members.
	seen := map[string]bool{}
	var drop func(t string, cost int, ords []int32, back func(int) int)
	drop = func(t string, cost int, ords []int32, back func(int) int) {
		if cost+rowCost(rRepKey) > e.budget {
			return
		}
		for _, x := range faultmodel.Table[rRepKey].Inverse(t) {
			u := x.Apply(t)
			k := int32(keysBefore(d.text, back(x.Start)))
			o := slices.Sorted(slices.Values(append(slices.Clone(ords), k)))
			if !jsonread.RepeatsName(u) {
				// The same members dropped in another order: one reading.
				id := fmt.Sprint(o) + "\x00" + u
				if seen[id] {
					continue
				}
				seen[id] = true
				ed := slices.Clone(d.ed)
				for _, k := range o {
					ed = append(ed, edit{start: -1 - k, end: -1 - k, kind: kRepKey, row: rRepKey})
				}
				out = append(out, mk(u, cost+rowCost(rRepKey), ed))
				continue
			}
			// Still a repeat: drop another member (a second fault).
			shift, at := x.End-x.Start-len(x.Repl), x.Start
			drop(u, cost+rowCost(rRepKey), o, func(i int) int {
				if i >= at {
					i += shift
				}
				return back(i)
			})
		}
	}
	drop(d.text, d.cost, nil, func(i int) int { return i })
	return out
}

// needed drops the readings one of whose edits is not needed: the
// reading without it is a reading too. A whole-text reading's later edit
// is not needed when its row alone reads the text (it would have been
// made without the whole-text edit).
func needed(fs []found) []found {
	alone := map[uint8]bool{}
	bareOnly := map[int]bool{} // readings of n bare tokens and no other edit
	for _, f := range fs {
		if len(f.ed) == 1 {
			alone[f.ed[0].row] = true
		}
		if n := bareTokens(f.ed); n == len(f.ed) {
			bareOnly[n] = true
		}
	}
	var out []found
	for _, f := range fs {
		// An edit whose text a bare token quotes is needed only when the
		// bare tokens alone do not read the text, as the referee judges
		// an edit that rewrites another's text (every bare token is the
		// unquoted row's).
		ok := !(f.inBare && bareOnly[bareTokens(f.ed)]) && !f.commentInBare
		for i := range f.ed {
			if !ok || len(f.ed) < 2 {
				break
			}
			rest := append(append([]edit(nil), f.ed[:i]...), f.ed[i+1:]...)
			for _, g := range fs {
				if sameEdits(g.ed, rest) {
					ok = false
					break
				}
			}
			if f.ed[i].off == rewrite && alone[f.ed[i].row] {
				ok = false
			}
			// A whole-text reading of another's text rewrites all the
			// first wrote: needed only when its row does not read the
			// text alone (as the referee judges an edit that rewrites
			// another's text).
			if b := f.ed[i]; i > 0 && b.kind == kWhole && f.ed[0].kind == kWhole && alone[b.row] {
				ok = false
			}
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

// bareTokens returns how many of ed are bare tokens (the unquoted row's).
func bareTokens(ed []edit) int {
	n := 0
	for _, x := range ed {
		if x.row == rUnquoted {
			n++
		}
	}
	return n
}

// window keeps each value once at its cheapest, and the values at the
// cheapest cost and one more.
func window(fs []found, over bool) Window {
	w := Window{Over: over}
	best := map[string]int{}
	known := map[string]bool{} // the value reached at its cheapest cost with nothing cut
	for i, f := range fs {
		j, ok := best[f.key]
		if ok && f.Cost == fs[j].Cost {
			known[f.key] = known[f.key] || !f.Unknown
		}
		if !ok || f.Cost < fs[j].Cost || f.Cost == fs[j].Cost && f.Unknown && !fs[j].Unknown ||
			f.Cost == fs[j].Cost && f.Unknown == fs[j].Unknown && before(f, fs[j]) {
			if !ok || f.Cost < fs[j].Cost {
				known[f.key] = !f.Unknown
			}
			best[f.key] = i
		}
	}
	for _, i := range best {
		if w.Min == 0 || fs[i].Cost < w.Min {
			w.Min = fs[i].Cost
		}
	}
	hasZero := false
	for _, i := range best {
		hasZero = hasZero || fs[i].Cost == 0
	}
	if hasZero {
		w.Min = 0
	}
	for _, i := range best {
		if fs[i].Cost <= w.Min+1 {
			r := fs[i].Reading
			r.known = known[r.key]
			w.Readings = append(w.Readings, r)
		}
	}
	sort.Slice(w.Readings, func(i, j int) bool {
		a, b := w.Readings[i], w.Readings[j]
		if a.Cost != b.Cost {
			return a.Cost < b.Cost
		}
		return a.key < b.key
	})
	return w
}

// before orders two readings of one value at one cost, so that the
// window names the same edits whatever order the engine found them in:
// one that undoes a cut first (the documented exception of closers added
// at the end reads the window's cuts), then fewer edits, then by its
// edits (editKeys), and the text.
func before(a, b found) bool {
	if ac, bc := slices.Contains(a.Ops, "cut"), slices.Contains(b.Ops, "cut"); ac != bc {
		return ac
	}
	if len(a.ed) != len(b.ed) {
		return len(a.ed) < len(b.ed)
	}
	if c := slices.Compare(editKeys(a), editKeys(b)); c != 0 {
		return c < 0
	}
	return a.Text < b.Text
}

// editKeys returns a key for each edit of f, sorted: first the rows that
// choose which part of the text is the object (spanRows, in their order:
// they drop text around it), then an edit of a character or a token (in
// the table's order), then a reading of the whole text (rewriting it
// throughout); at one rank, by where the edit starts.
func editKeys(f found) []int64 {
	keys := make([]int64, len(f.ed))
	for i, x := range f.ed {
		name := faultmodel.Table[x.row].Name
		var rank int64
		switch k := slices.Index(spanRows, name); {
		case x.kind == kWhole:
			rank = 2<<8 | int64(x.row)
		case k >= 0:
			rank = int64(k)
		default:
			rank = 1<<8 | int64(x.row)
		}
		keys[i] = rank<<32 | int64(uint32(f.At[i]))
	}
	slices.Sort(keys)
	return keys
}

// canonical returns the canonical text of the JSON text t: members sorted
// by name, strings re-encoded, numbers as written.
func canonical(t string) string {
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return t
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return t
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Repair reads s: a text that is one JSON object with distinct member
// names as it is (cost 0, no window computed), else by the decision rule
// on its complete window (ReadComplete).
func Repair(s string) (Reading, Verdict) {
	if json.Valid([]byte(s)) {
		if t := strings.TrimLeft(s, " \t\r\n"); t != "" && t[0] == '{' && !jsonread.RepeatsName(s) {
			return Reading{Text: s}, Run
		}
	}
	return ReadComplete(s).Decide()
}

// keysBefore returns how many member names of the compact JSON text t
// start before i (a member dropped at i, after its comma, is the next).
func keysBefore(t string, i int) int {
	n := 0
	for j := 0; j < len(t); j++ {
		if t[j] != '"' {
			continue
		}
		k := j + 1
		for k < len(t) && t[k] != '"' {
			if t[k] == '\\' {
				k++
			}
			k++
		}
		if k+1 < len(t) && t[k+1] == ':' && j <= i {
			n++
		}
		j = k
	}
	return n
}

// Canonical returns the canonical text of the JSON text t (members sorted
// by name, strings re-encoded, numbers as written): two texts of equal
// values have equal canonical texts.
func Canonical(t string) string { return canonical(t) }

// insideBare reports whether an edit of ed lies inside the text of a bare
// token of ed as the table's row quotes it, without the white space at
// its ends (in the engine's text e.s, which ed's places are of): an edit
// that writes text other than white space anywhere in the token's span,
// or one that writes none or white space only with the token's text on
// both sides of it. An edit made on text another edit wrote, or a token
// that starts there, is never inside: the reading is kept (the referee's
// window is compared, refusing more at worst). comment reports whether a
// comment dropped is inside.
func (e *engine) insideBare(ed []edit) (inside, comment bool) {
	for _, b := range ed {
		if b.kind != kBare || b.off == rewrite {
			continue
		}
		covered := func(p int32) bool {
			for _, y := range ed {
				if y != b && y.kind != kWhole && y.start <= p && p < y.end {
					return true
				}
			}
			return false
		}
		// The token's text's first and last bytes read as they are.
		first, last := int32(-1), int32(-1)
		for p := b.start; p < b.end && int(p) < len(e.s); p++ {
			if !isWS(e.s[p]) && !covered(p) {
				if first < 0 {
					first = p
				}
				last = p
			}
		}
		for _, x := range ed {
			if x == b || x.kind == kWhole || x.off == rewrite || x.start < b.start || x.start >= b.end || x.end > b.end {
				continue
			}
			if writesText(x) || first >= 0 && first < x.start && last >= x.end {
				inside = true
				comment = comment || x.kind == kLine || x.kind == kBlock
			}
		}
	}
	return inside, comment
}

// writesText reports whether x, an edit inside a bare token's span,
// writes text other than white space.
func writesText(x edit) bool {
	switch x.kind {
	case kDel, kLine, kBlock, kEscSpace, kSplit, kInvis:
		return false
	case kEsc:
		return x.arg != 4 // a backslash and a line break dropped
	case kLoose:
		return x.arg == 0 // a zero written
	}
	return true
}
