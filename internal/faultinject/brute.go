package faultinject

import (
	"encoding/json"
	"errors"
	"iter"
	"sort"
	"strings"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// The brute-force reader is the referee of the fault model: for a small
// broken text it makes every sequence of at most two inverse edits of
// faultmodel.Table, decodes each text it gets with encoding/json (the
// strict decoder, DecodeOrdered), and keeps the objects. It shares no
// code with the repair engine, so the engine cannot be right by
// construction and wrong in code.
//
// Two pruning rules keep it fast, and neither drops a reading:
//   - A second edit is only made at or before the place where the text
//     after the first stops being a prefix of any JSON text (the offset of
//     encoding/json's syntax error): an edit after it leaves that prefix,
//     and so the error, in place.
//   - Two character edits (faultmodel.IsChar: a structural character
//     inserted, deleted or replaced, whatever surrounds it, by a row that
//     makes it at every place at one cost) are made left to right only:
//     made right to left they give the same text at the same cost.
//
// A character edit must be made where its character is structure in the
// reading: outside the content of its strings (or as a string's own
// quote). The structural faults never edit a string's content, so their
// inverses do not either; nor is a comment dropped from inside one (it
// stands where white space may: the oracle writes comments between
// tokens).
//
// A reading's edits must each be needed: a text that two edits make
// valid, where one of them alone already made it valid, is not a reading
// at cost 2 (the other edit turned one valid text into another, which is
// no fault anyone could see).

// MaxReadBytes is the longest text [Read] reads. The reader makes at most
// E² candidate texts of at most 2n bytes each, where E, the inverse edits
// of a text of n bytes, is about 16n (the structural characters inserted
// at each of n+1 places, and the edits of each structural character
// there): O(n³) time; measured, about 20 ms a text for the single faults
// of objects of at most 40 bytes.
const MaxReadBytes = 128

// MaxReadCost is the highest cost [Read] looks at.
const MaxReadCost = 2

// ErrTooLong is returned by [Read] for a text longer than MaxReadBytes.
var ErrTooLong = errors.New("faultinject: text too long for the brute-force reader")

// Reading is one value a broken text reads back to.
type Reading struct {
	Value Value
	Cost  int      // the cost of the cheapest edits that reach it
	Text  string   // a text those edits make
	Ops   []string // the operators whose inverses made those edits
	// Unknown: a reading at this cost completes a text cut where what
	// followed leaves the value unknown (faultmodel.Cut): Value is one
	// completion of it, with null for a value never written.
	Unknown bool
	// Prefix, for an Unknown reading, is the text that was cut (its
	// completion follows it, or drops its last comma): every text that
	// opens with it is a value of it.
	Prefix string
	// edits are the inverse edits that made Text, in the order made, each
	// on the text the one before made.
	edits []named
	// known: some edits at Cost reach Value with no cut that leaves it
	// unknown (an Unknown reading may be known too).
	known bool
}

// Window is what a text means under the fault model: its readings at the
// cheapest cost and at one fault more (only the cheapest when that is
// MaxReadCost).
type Window struct {
	// Min is the cost of the cheapest reading; 0 when there is none up to
	// MaxReadCost.
	Min int
	// Readings are the window's values, each once, cheapest first.
	Readings []Reading
	// Candidates is how many texts were decoded.
	Candidates int
}

// Agree reports whether the window holds exactly one value, as the
// decision rule counts them: a reading that leaves its value unknown (a
// cut inside a string, a number or a bare word) counts only among the
// cheapest, where the rule refuses the text as cut; one fault past them
// it names no value to weigh against the cheapest (faultmodel's cut row),
// unless other edits at its cost reach its value known. A list counts
// only among the cheapest too (where the rule refuses it as no
// arguments): one fault past them it names no arguments a call could
// run, so it is no rival to the cheapest object ({"a": 1}] is not
// [{"a": 1}]).
func (w Window) Agree() bool {
	n := 0
	for _, r := range w.Readings {
		if r.counts(w.Min) {
			n++
		}
	}
	return n == 1
}

// counts reports whether r counts in a window whose cheapest cost is min:
// at min always; one fault past it only where some of its edits leave its
// value known, and it is an object.
func (r Reading) counts(min int) bool {
	_, obj := r.Value.(Object)
	return r.Cost == min || r.known && obj
}

// Holds reports whether v is one of the window's values.
func (w Window) Holds(v Value) bool {
	for _, r := range w.Readings {
		if Equal(r.Value, v) {
			return true
		}
	}
	return false
}

// named is an inverse edit with the cost of the cheapest operator that
// proposed it, and that operator.
type named struct {
	faultmodel.Edit
	cost int
	op   string
	// char: a character edit whose cost is the same wherever it is made
	// (see everywhere), so the order of two of them does not matter.
	char bool
	// white: an edit that drops what stands where white space may (a
	// comment): like a character edit, it is made only outside the
	// content of the reading's strings.
	white bool
	// quote, where an edit writes a quote whose role its row states, is
	// that quote's place in Repl (-1 for none); opens says the role: it
	// opens a string (a quote moved back over the comma after it,
	// faultmodel.MovedQuoteOpens), or else closes a key (a key's closing
	// quote, unclosed_key).
	quote int
	opens bool
}

// newNamed names the edit e that row's inverse proposed for s.
func newNamed(row faultmodel.Operator, s string, e faultmodel.Edit) named {
	n := named{e, row.Cost, row.Name, isChar(row.Name, s, e), row.Name == "comment", -1, false}
	switch {
	case row.Name == "quote_moved" && e.End-e.Start == 2 && s[e.Start] == '"' && faultmodel.MovedQuoteOpens(s[e.Start+1:e.End]):
		n.quote, n.opens = 1, true
	case row.Name == "unclosed_key":
		n.quote = 0
	}
	return n
}

// quoteHolds reports whether the quote e writes (named.quote), standing
// at p in t, the reading's text, plays its role there: it opens one of
// t's strings, or closes a key (a string a colon follows).
func (e named) quoteHolds(t string, p int) bool {
	for i, j := range stringsOf(t) {
		switch {
		case i == p:
			return e.opens
		case j == p:
			k := j + 1
			for k < len(t) && strings.IndexByte(" \t\r\n", t[k]) >= 0 {
				k++
			}
			return !e.opens && k < len(t) && t[k] == ':'
		}
	}
	return false
}

// stringsOf yields the place of the opening and of the closing quote of
// each string of t, a JSON text, in order (the closing place is len(t)
// for a string t ends in).
func stringsOf(t string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(t); i++ {
			if t[i] != '"' {
				continue
			}
			j := i + 1
			for j < len(t) && t[j] != '"' {
				if t[j] == '\\' {
					j++
				}
				j++
			}
			if !yield(i, j) {
				return
			}
			i = j
		}
	}
}

// placed reports whether e must be made where the reading's text is
// structure (outside its strings' content): a character edit, or one of
// what stands where white space may.
func (e named) placed() bool { return e.char || e.white }

// everywhere are the operators whose character edits apply at every
// place (insertions at every boundary, deletions and replacements at
// every occurrence), at one cost.
var everywhere = map[string]bool{"comma": true, "colon": true, "quote": true, "stray_brace": true, "premature_closer": true,
	"dropped_closer": true, "swapped_closer": true, "stray_closer": true, "stray_bracket": true, "punctuation": true}

// isChar reports whether e, made by row op on s, is a context-free
// character edit: a structural character (faultmodel.IsChar) of a row
// that makes it everywhere, or an invisible character read as white
// space (made wherever one stands, at one cost, and only where it is not
// a string's content).
func isChar(op, s string, e faultmodel.Edit) bool {
	return everywhere[op] && faultmodel.IsChar(s, e) || op == "invisible"
}

// cutUnknown reports whether e is the cut row's completion of t and what
// followed the cut leaves the value unknown (the text cut is then t
// itself, a comma the completion drops included: see Reading.Prefix).
func cutUnknown(t string, e faultmodel.Edit) bool {
	c, unknown, ok := faultmodel.Cut(t)
	return ok && unknown && c == e
}

// inverseEdits returns the inverse edits of every row for s, each once
// (under the cheapest row that proposed it, the first of equals), changes
// only.
func inverseEdits(s string) []named {
	type key struct {
		start, end int
		repl       string
		quote      int // an edit whose quote has a role is another edit (named.quote)
	}
	at := map[key]int{}
	var out []named
	for _, row := range faultmodel.Table {
		for _, e := range row.Inverse(s) {
			if s[e.Start:e.End] == e.Repl {
				continue
			}
			n := newNamed(row, s, e)
			k := key{e.Start, e.End, e.Repl, n.quote}
			if i, ok := at[k]; ok {
				if row.Cost < out[i].cost {
					out[i] = n
				}
				continue
			}
			at[k] = len(out)
			out = append(out, n)
		}
	}
	return out
}

// rootOf returns the value t decodes to strictly, and false when t is
// not one JSON object or array with distinct member names: a reading's
// value is an object, or a list, which no tool takes as its arguments but
// a writer may have meant (a list cut after its first item is not that
// item).
func rootOf(t string) (Value, bool) {
	if !json.Valid([]byte(t)) {
		return nil, false
	}
	v, err := DecodeOrdered(t)
	if err != nil {
		return nil, false
	}
	switch v.(type) {
	case Object, Array:
		return v, true
	}
	return nil, false
}

// errorLimit returns the last place an edit can start and still make t
// valid: the offset of encoding/json's syntax error (one past the byte
// that no JSON text continues with, or the end), or len(t) when t is
// valid JSON (but not a reading: not an object, or names repeated).
func errorLimit(t string) int {
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal([]byte(t), &raw); errors.As(err, &se) {
		return int(se.Offset)
	}
	return len(t)
}

// Read returns the window of s, a broken text of at most MaxReadBytes
// bytes. A text that is itself one JSON object has the window of that
// object alone, at cost 0.
func Read(s string) (Window, error) { return read(s, true) }

// MaxJudgeBytes is the longest text [AliasByWindow] reads. It reads only
// the texts a repair ran as another value, few enough that a reach past
// MaxReadBytes costs seconds per text (O(n³); measured, about 0.1 s for
// 140 bytes, 1.6 s for 572), not hours per sweep.
const MaxJudgeBytes = 1024

// readLong is Read up to limit bytes instead of MaxReadBytes.
func readLong(s string, limit int) (Window, error) {
	if len(s) > limit {
		return Window{}, ErrTooLong
	}
	return readPruned(s, true)
}

// read is Read, with its two pruning rules (prune) or without them (a
// test compares the two).
func read(s string, prune bool) (Window, error) {
	if len(s) > MaxReadBytes {
		return Window{}, ErrTooLong
	}
	return readPruned(s, prune)
}

// readPruned is read without its bound on the text's length.
func readPruned(s string, prune bool) (Window, error) {
	found, candidates := readFound(s, prune, MaxReadCost)
	return Window{Candidates: candidates}.finish(found), nil
}

// readFound returns every reading of s that costs at most maxCost (at
// most MaxReadCost), each value at its cheapest cost (not only the
// window), and the texts decoded.
func readFound(s string, prune bool, maxCost int) (map[string]*Reading, int) {
	var w Window
	found := map[string]*Reading{} // by the value's canonical text
	// A value reached at one cost by a cut that leaves it unknown and
	// by other edits is unknown (as the engine keeps it), and known too
	// (known: it counts one fault past the cheapest).
	add := func(v Value, cost int, text, prefix string, unknown bool, edits ...named) {
		k := canonical(v)
		r, ok := found[k]
		if ok && r.Cost == cost {
			r.known = r.known || !unknown
		}
		if ok && (r.Cost < cost || r.Cost == cost && (r.Unknown || !unknown)) {
			return
		}
		var ops []string
		for _, e := range edits {
			ops = append(ops, e.op)
		}
		known := !unknown || ok && r.Cost == cost && r.known
		found[k] = &Reading{Value: v, Cost: cost, Text: text, Ops: ops, Unknown: unknown, Prefix: prefix, edits: edits, known: known}
	}
	w.Candidates++
	if v, ok := rootOf(s); ok {
		add(v, 0, s, "", false)
		return found, w.Candidates
	}
	type pending struct {
		t  string
		e1 named
	}
	var next []pending
	seen := map[string]int{s: 0} // the cheapest cost of each text made
	for _, e := range inverseEdits(s) {
		if e.cost > maxCost {
			continue
		}
		t := e.Apply(s)
		// A character edit that makes a text another edit made at the
		// same cost is kept too: the same character inserted on either
		// side of its twin is structure at one place and not at the
		// other, and the second edit decides which (structuralPair).
		if c, ok := seen[t]; ok && (c < e.cost || c == e.cost && !e.char) {
			continue
		}
		w.Candidates++
		if v, ok := rootOf(t); ok {
			// (A text one edit makes where its character is not
			// structure may be made by another edit where it is.)
			if (!e.placed() || structural(t, e.Start, e.Repl == "")) && (e.quote < 0 || e.quoteHolds(t, e.Start+e.quote)) {
				seen[t] = e.cost
				prefix, unknown := "", cutUnknown(s, e.Edit)
				if unknown {
					prefix = s
				}
				add(v, e.cost, t, prefix, unknown, e)
			}
			continue
		}
		seen[t] = e.cost
		next = append(next, pending{t, e})
	}
	invalid := map[string]bool{}
	reads := map[string]bool{} // whether an operator's edits alone read s
	alone := func(op string) bool {
		r, ok := reads[op]
		if !ok {
			row, _ := faultmodel.Lookup(op)
			for _, e := range row.Inverse(s) {
				if _, r = rootOf(e.Apply(s)); r {
					break
				}
			}
			reads[op] = r
		}
		return r
	}
	for _, p := range next {
		if seen[p.t] < p.e1.cost {
			continue // made cheaper by another edit
		}
		limit := len(p.t)
		if prune {
			limit = errorLimit(p.t)
		}
		after1 := p.e1.Start + len(p.e1.Repl) // the end of e1's text in p.t
		// A cut that leaves the value unknown writes a completion no
		// writer wrote (a quote, null, closers): no later edit rewrites
		// it, as nothing follows the end of a stream.
		cut1 := cutUnknown(s, p.e1.Edit)
		cutT, unknownT, _ := faultmodel.Cut(p.t)
		for _, row := range faultmodel.Table {
			cost := p.e1.cost + row.Cost
			if cost > maxCost {
				continue
			}
			for _, e := range row.Inverse(p.t) {
				// Not deduplicated: an edit two rows propose makes the
				// same text twice, which the maps below catch.
				e2 := newNamed(row, p.t, e)
				if e2.Start > limit || prune && p.e1.char && e2.char && e2.Start < after1 || p.t[e.Start:e.End] == e.Repl ||
					cut1 && e2.End > p.e1.Start && e2.Start < after1 {
					continue
				}
				t := e2.Apply(p.t)
				unknown := cut1 || unknownT && e2.Edit == cutT
				if c, ok := seen[t]; ok && (c < cost || c == cost && !unknown) || invalid[t] {
					continue // a cheaper reading's text (or as cheap, and known), or known not to be one
				}
				w.Candidates++
				v, ok := rootOf(t)
				if !ok {
					invalid[t] = true
					continue
				}
				if !needed(s, p.t, p.e1, e2, alone) || !structuralPair(p.t, t, p.e1, e2) {
					continue
				}
				prefix := ""
				switch {
				case unknownT && e2.Edit == cutT:
					prefix = p.t
				case cut1 && strings.HasSuffix(t, p.e1.Repl):
					// The cut first, then an edit before it: the
					// completion is still at the end (with the comma
					// it dropped, the text cut is e2 made on s).
					prefix = t[:len(t)-len(p.e1.Repl)] + s[p.e1.Start:]
				}
				add(v, cost, t, prefix, unknown, p.e1, e2)
			}
		}
	}
	return found, w.Candidates
}

// oneString reports whether s is one JSON string.
func oneString(s string) bool {
	return len(s) >= 2 && s[0] == '"' && json.Valid([]byte(s))
}

// stringRows are the rows whose inverse reads a string: a string token
// written otherwise (quoted otherwise, or not at all).
var stringRows = map[string]bool{"quote_style": true, "backquotes": true, "entity_quotes": true, "template_quotes": true,
	"unquoted": true, "bare_value": true, "numeric_key": true, "unclosed_key": true}

// mends are the rows whose dropped text must read as a value of its own
// (either of two concatenated objects, faultmodel.Concatenated): an edit
// inside that text mends it, and is needed unless the row reads the
// broken text alone.
var mends = map[string]bool{"concatenated": true}

// needed reports whether e1 is needed in the reading that e2, made on
// t1 (s with e1 made), gives: e2 alone (moved back to s) does not read s;
// where e2 rewrites e1's text, e2 does not drop that text (a skipped
// wrapper's, a deleted copy's; a text e2's row mends is not dropped
// unmended), e2 does not write it as the content of a
// string when e1 read a string (no fault writes a string token inside
// another's content: {'a':1,'b':[]} is never the key a":1,"b read from
// the string ':1,' and the one around it), and e2's operator reads
// nothing on s alone.
func needed(s, t1 string, e1, e2 named, alone func(op string) bool) bool {
	after1 := e1.Start + len(e1.Repl)
	moved := e2.Edit
	switch d := len(e1.Repl) - (e1.End - e1.Start); {
	case e2.End <= e1.Start:
	case e2.Start >= after1:
		moved.Start, moved.End = e2.Start-d, e2.End-d
	case mends[e2.op] && e2.Repl == "":
		return !alone(e2.op) // e1 mends the object e2 drops
	default:
		if k := strings.Index(t1[e2.Start:e2.End], e2.Repl); k >= 0 {
			kept := e2.Start + k
			if after1 <= kept || e1.Start >= kept+len(e2.Repl) {
				return false // e2 drops e1's text
			}
		}
		if stringRows[e1.op] && stringRows[e2.op] && e2.Start < e1.Start && after1 < e2.End && oneString(e2.Repl) {
			return false // e1's string is e2's content
		}
		return !alone(e2.op)
	}
	_, reads := rootOf(moved.Apply(s))
	return !reads
}

// structural reports whether place p of t, a JSON text, is outside the
// content of its strings: the character at p (or, for a deletion, the
// boundary before p) is not after a string's opening quote and before
// (for a boundary: up to) its closing one.
func structural(t string, p int, boundary bool) bool {
	for i, j := range stringsOf(t) {
		if i < p && (p < j || boundary && p == j) {
			return false
		}
	}
	return true
}

// structuralPair reports whether the character edits and the comments
// dropped (named.placed) among e1 (made on s) and e2 (made after it) are
// made where their characters are structure in t, the reading they give
// (t1 is s with e1 made). Where e2 rewrites e1's text, e1 is checked
// against the string e2 may write around it, or, where e2 is a habit's,
// where its source map places it.
func structuralPair(t1, t string, e1, e2 named) bool {
	if e2.placed() && !structural(t, e2.Start, e2.Repl == "") || e2.quote >= 0 && !e2.quoteHolds(t, e2.Start+e2.quote) {
		return false
	}
	at1, apart := e1.Start, true // where e1's text starts in t, e2 made apart from it
	switch {
	case e2.Start >= e1.Start+len(e1.Repl):
	case e2.End <= e1.Start:
		at1 += len(e2.Repl) - (e2.End - e2.Start)
	default:
		apart = false
	}
	if e1.quote >= 0 && (!apart || !e1.quoteHolds(t, at1+e1.quote)) {
		return false // (not apart: e2 rewrites the quote's text)
	}
	if !apart && (e2.op == "unquoted" || e2.op == "bare_value") && rawControlEscape(e1) && (e1.Start == e2.Start || e1.Start+len(e1.Repl) == e2.End) {
		return false // the white space around a bare token is the layout's (the unquoted and bare_value rows), never its content's
	}
	if !e1.placed() {
		return true
	}
	if apart {
		return structural(t, at1, e1.Repl == "")
	}
	// e2 rewrites e1's text: where it writes one string (quotes a bare
	// token, reads a quote style), e1's character is that string's.
	quoted := len(e2.Repl) >= 2 && e2.Repl[0] == '"' && e2.Repl[len(e2.Repl)-1] == '"'
	if quoted && e2.Start < e1.Start && e1.Start+len(e1.Repl) < e2.End {
		return false
	}
	// A habit (a whole-text reading) places e1's character by its source
	// map: it must be structure where it lands.
	if p, ok := habitPlace(t1, e2, e1.Start); ok {
		return structural(t, p, e1.Repl == "")
	}
	return true
}

// rawControlEscape reports whether e is the escape row's edit of a
// control character written raw (a line break or a tab), which is white
// space outside a string.
func rawControlEscape(e named) bool {
	return e.op == "escape" && e.End-e.Start == 1 && (e.Repl == `\n` || e.Repl == `\t` || e.Repl == `\r`)
}

// habitPlace returns where habit edit e2, made on t1 (its whole text),
// writes the byte at index i of t1: the first byte of its reading whose
// source is i or after; false when e2 is no habit's, or its text is none
// of the habit's readings of t1.
func habitPlace(t1 string, e2 named, i int) (int, bool) {
	if row, ok := faultmodel.Lookup(e2.op); !ok || row.Habit == "" || e2.Start != 0 || e2.End != len(t1) {
		return 0, false
	}
	for _, r := range faultmodel.Habits(e2.op, t1) {
		if r.Text != e2.Repl {
			continue
		}
		for k, src := range r.Src {
			if src >= i {
				return k, true
			}
		}
	}
	return 0, false
}

// finish keeps the readings at the cheapest cost and one more.
func (w Window) finish(found map[string]*Reading) Window {
	for _, r := range found {
		if w.Min == 0 || r.Cost < w.Min {
			w.Min = r.Cost
		}
	}
	for _, r := range found {
		if r.Cost <= w.Min+1 { // only the cheapest when Min is MaxReadCost
			w.Readings = append(w.Readings, *r)
		}
	}
	sort.Slice(w.Readings, func(i, j int) bool {
		a, b := w.Readings[i], w.Readings[j]
		if a.Cost != b.Cost {
			return a.Cost < b.Cost
		}
		return canonical(a.Value) < canonical(b.Value)
	})
	return w
}

// canonical returns v's JSON text with each object's members sorted by
// name: equal values (see [Equal]) have equal texts.
func canonical(v Value) string {
	var b strings.Builder
	var write func(v Value)
	write = func(v Value) {
		switch x := v.(type) {
		case Object:
			ms := append(Object(nil), x...)
			sort.Slice(ms, func(i, j int) bool { return ms[i].Key < ms[j].Key })
			b.WriteByte('{')
			for i, m := range ms {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(Quote(m.Key, Layout{}))
				b.WriteByte(':')
				write(m.Val)
			}
			b.WriteByte('}')
		case Array:
			b.WriteByte('[')
			for i, it := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				write(it)
			}
			b.WriteByte(']')
		case String:
			b.WriteString(Quote(string(x), Layout{}))
		case Number:
			b.WriteString(string(x))
		case Literal:
			b.WriteString(string(x))
		}
	}
	write(v)
	return b.String()
}
