package faultinject

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// Outcome is what became of one mutation.
type Outcome int

// The outcomes. Only Different breaks the property.
const (
	// Unbroken: the mutation is still one object's JSON text, its names
	// distinct (a fault that changed nothing, or changed a value validly):
	// not a broken text, and not judged.
	Unbroken Outcome = iota
	Original         // the tool received a value equal to the original
	Refused          // the call was refused
	// Truncated: the first exception. The text was cut right after a
	// complete value and closed; the tool received the original minus its
	// trailing members. (A text cut before the object's brace, left empty
	// or white space, runs the tool with {}, as empty arguments do.)
	Truncated
	// ClosedAtEnd: the second exception. A closer was dropped, and the
	// tool received the text with the closers missing at its end added
	// there, or among the closers it ends with (which misreads the
	// nesting when the dropped closer was inside).
	ClosedAtEnd
	// Aliased: a pair of faults whose text is also one fault away from
	// the value the tool received (see [IsAlias]): the same text is a
	// single fault of that other value, which repair reads as its sender
	// meant, so no repair can tell the two apart. Counted apart, with
	// examples; never a single fault.
	Aliased
	// AliasedWindow: an alias by the model's window (see
	// [AliasByWindow]): the tool received a value other than the
	// original, the text is within the brute-force reader's reach, and
	// the original is not in its window although the window is complete
	// there (its cheapest reading costs at most MaxReadCost-1): the text
	// has a reading cheaper than the original by two faults or more, which
	// no repair can tell from it. Counted apart, with examples.
	AliasedWindow
	// Different: the tool received any other value. The goal is none.
	Different
	numOutcomes
)

// Outcomes lists the outcomes in table order.
var Outcomes = []Outcome{Unbroken, Original, Refused, Truncated, ClosedAtEnd, Aliased, AliasedWindow, Different}

// String returns the outcome's column name.
func (o Outcome) String() string {
	return [...]string{"unbroken", "original", "refused", "truncated", "closed_at_end", "aliased", "aliased_window", "different"}[o]
}

// AliasByWindow reports whether text, which a repair ran as a value other
// than orig, is an alias by the model's window: text is at most
// MaxJudgeBytes long, the brute-force reader ([Read], with that reach)
// finds a reading of it, its cheapest reading
// costs at most MaxReadCost-1 (so the reader's window, the cheapest cost
// and one fault more, is complete), and orig is not in that window. The
// original then costs at least two faults more than the cheapest reading
// (the alias). A text past the reader's reach, with no reading,
// or whose cheapest reading costs MaxReadCost (the window one fault
// dearer unseen) is not: there only [IsAlias] may excuse a value.
//
// cut says the text was cut (a prefix of a text with the original's
// faults): a cheapest reading of unknown value (a cut that leaves the
// value unknown) may then be the original, so a window holding one
// excuses nothing. One fault past the cheapest such a reading names no
// value, as the decision rule counts it (Window.Agree), and excuses as
// any other reading outside the window does. In a text that was not cut,
// such a reading completes a text no text of the original opens with,
// and is judged by its value.
//
// A text whose cheapest reading costs MaxReadCost, of at most
// MaxReadBytes bytes, is judged with one inverse edit more for the
// original alone (withinOneMore): it is an alias when no reading of the
// original costs MaxReadCost+1 or less. The engine reads such a text
// within a budget of MaxReadCost+1 where the referee reads at most
// MaxReadCost.
func AliasByWindow(text string, orig Value, cut bool) bool {
	w, err := readLong(text, MaxJudgeBytes)
	if err != nil || len(w.Readings) == 0 || w.Min < 1 || cut && w.cheapestUnknown() {
		return false
	}
	switch {
	case w.Min <= MaxReadCost-1:
		return !w.Holds(orig)
	case w.Min == MaxReadCost && len(text) <= MaxReadBytes:
		return !withinOneMore(text, orig)
	}
	return false
}

// withinOneMore reports whether orig has a reading of text that costs at
// most MaxReadCost+1: one inverse edit, then a reading of the text it
// makes, every one the reader finds (not only that text's window) at the
// cost left. A text the first edit makes valid is not read on (two more
// edits would turn one valid text into another, which no fault anyone
// could see is). A reading there is one fault past the cheapest, so one
// of unknown value names none (Window.Agree): only a known reading of the
// original counts.
func withinOneMore(text string, orig Value) bool {
	_, ok := oneMore(text, len(text), func(_ named, r *Reading) bool {
		return Equal(r.Value, orig) && r.known
	})
	return ok
}

// oneMore returns the first reading of text that costs at most
// MaxReadCost+1 and that keep accepts: one inverse edit e starting at or
// before limit, then a reading r of the text e makes, every one the reader
// finds (not only that text's window) at the cost left; r is as the reader
// found it, its Cost, Ops and edits without e's. A text the first edit
// makes valid is not read on (its one reading costs nothing more).
func oneMore(text string, limit int, keep func(e named, r *Reading) bool) (Reading, bool) {
	for _, e := range inverseEdits(text) {
		if e.cost > MaxReadCost+1 || e.Start > limit {
			continue
		}
		found, _ := readFound(e.Apply(text), true, MaxReadCost+1-e.cost)
		for _, r := range found {
			if r.Cost+e.cost <= MaxReadCost+1 && keep(e, r) {
				r.Cost += e.cost
				r.Ops = append([]string{e.op}, r.Ops...)
				r.edits = append([]named{e}, r.edits...)
				return *r, true
			}
		}
	}
	return Reading{}, false
}

// IsAlias reports whether text, a pair of faults, is also a single fault
// of the value got: one of the single mutations of every operator, of
// got written in layout l (the original's) or of args, the text the tool
// received (got in the layout repair kept: {"a": 1}\n} is got as
// written, and {"a": 1}\n] one fault away from it).
func IsAlias(text string, got Value, args string, l Layout, r *rand.Rand) bool {
	texts := []Text{Encode(got, l)}
	if t, ok := Tokenize(args); ok && t.S != texts[0].S {
		texts = append(texts, t)
	}
	for _, t := range texts {
		if resends(text, t.S) {
			return true
		}
		for _, op := range Ops {
			for _, m := range op.Singles(t, r) {
				if m.Text == text {
					return true
				}
			}
		}
	}
	return false
}

// resends reports whether text is s re-sent as repeated_object writes it
// with cut points of its own, which Singles draws at random: s and then a
// prefix of it, or one or two prefixes of s (the longer last) and then s.
func resends(text, s string) bool {
	if rest, ok := strings.CutPrefix(text, s); ok && rest != "" && strings.HasPrefix(s, rest) {
		return true
	}
	rest, ok := strings.CutSuffix(text, s)
	if !ok || rest == "" {
		return false
	}
	if strings.HasPrefix(s, rest) {
		return true
	}
	for a := 1; a < len(rest) && rest[a-1] == s[a-1]; a++ {
		if b := rest[a:]; len(b) >= a && strings.HasPrefix(s, b) {
			return true
		}
	}
	return false
}

// Repairer runs raw as a tool call's arguments. It returns the text the
// tool received, or ok false when the call was refused (the tool did not
// run).
type Repairer func(raw string) (args string, ok bool)

// Classify judges what the tool received (args, or nothing when ok is
// false) for mutation m of the valid object orig.
func Classify(orig Value, m Mutation, args string, ok bool) Outcome {
	if v, err := DecodeOrdered(m.Text); err == nil {
		if _, isObj := v.(Object); isObj {
			return Unbroken
		}
	}
	if !ok {
		return Refused
	}
	got, err := DecodeOrdered(args)
	if err != nil {
		return Different // not one JSON value, or repeated names
	}
	switch {
	case Equal(orig, got):
		return Original
	case m.Cut && isTruncation(orig, got):
		return Truncated
	case m.Cut && strings.TrimSpace(m.Text) == "" && Equal(got, Object{}):
		// Cut before the object's brace: empty arguments run the tool
		// with {} where its schema allows (the original minus all its
		// members).
		return Truncated
	case m.DroppedCloser:
		// The closers missing at the end added there, or among the
		// closers the text ends with ({"a": [1} read as {"a": [1]}).
		body := strings.TrimRight(m.Text, "}] \t\r\n")
		for _, alt := range []string{closeAtEnd(m.Text), closeAtEnd(body)} {
			if v, err := DecodeOrdered(alt); err == nil && Equal(v, got) {
				return ClosedAtEnd
			}
		}
	}
	return Different
}

var errRepeated = errors.New("repeated name")

// DecodeOrdered decodes one JSON text, members in order, numbers as
// written. Repeated names in an object are an error.
func DecodeOrdered(s string) (Value, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (Value, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			o := Object{}
			seen := map[string]bool{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if seen[k] {
					return nil, errRepeated
				}
				seen[k] = true
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				o = append(o, Member{k, v})
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := Array{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
	case string:
		return String(x), nil
	case json.Number:
		return Number(x), nil
	case bool:
		if x {
			return Literal("true"), nil
		}
		return Literal("false"), nil
	case nil:
		return Literal("null"), nil
	}
	return nil, errors.New("unexpected token")
}

// Equal reports whether a and b are the same JSON value: objects with the
// same members in any order, numbers written the same.
func Equal(a, b Value) bool {
	switch x := a.(type) {
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for _, m := range x {
			found := false
			for _, n := range y {
				if n.Key == m.Key {
					found = Equal(m.Val, n.Val)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case Array:
		y, ok := b.(Array)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// isTruncation reports whether got is orig minus trailing members: the
// same kind of container, the members (or items) of got those of orig in
// order, all but the last equal, the last a truncation in turn. A
// container cut right after its opener (nothing complete in it) is not a
// truncation.
func isTruncation(orig, got Value) bool {
	if Equal(orig, got) {
		return true
	}
	switch x := orig.(type) {
	case Object:
		y, ok := got.(Object)
		if !ok || len(y) > len(x) || len(y) == 0 {
			return false
		}
		for i, m := range y {
			if m.Key != x[i].Key {
				return false
			}
			if i < len(y)-1 && !Equal(x[i].Val, m.Val) || i == len(y)-1 && !isTruncation(x[i].Val, m.Val) {
				return false
			}
		}
		return true
	case Array:
		y, ok := got.(Array)
		if !ok || len(y) > len(x) || len(y) == 0 {
			return false
		}
		for i := range y {
			if i < len(y)-1 && !Equal(x[i], y[i]) || i == len(y)-1 && !isTruncation(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// closeAtEnd returns s with the closers of the brackets open at its end
// added there (strings read as JSON strings).
func closeAtEnd(s string) string {
	closers, _ := faultmodel.OpenAtEnd(s)
	return s + closers
}

// Tally counts outcomes per operator.
type Tally struct {
	Counts map[string]*[numOutcomes]int
	// Examples holds up to a few Different mutations per operator.
	Examples map[string][]Example
	// Time is the time the repairer took per operator.
	Time map[string]time.Duration
	// MaxExamples is how many examples are kept per operator (5 by
	// default).
	MaxExamples int
}

// Example is a mutation whose value reached the tool different.
type Example struct {
	Op                   string // the operator, or "a+b" for a pair
	Original, Text, Args string
	// Aliased: Aliased or AliasedWindow (Window tells which), else
	// Different.
	Aliased bool
	// Window: AliasedWindow, an alias by the model's window.
	Window bool
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{Counts: map[string]*[numOutcomes]int{}, Examples: map[string][]Example{}, Time: map[string]time.Duration{}, MaxExamples: 5}
}

// Add counts one outcome of op.
func (t *Tally) Add(op string, o Outcome, ex Example) {
	c := t.Counts[op]
	if c == nil {
		c = new([numOutcomes]int)
		t.Counts[op] = c
	}
	c[o]++
	if (o == Different || o == Aliased || o == AliasedWindow) && len(t.Examples[op]) < t.MaxExamples {
		t.Examples[op] = append(t.Examples[op], ex)
	}
}

// Merge adds u's counts and examples to t.
func (t *Tally) Merge(u *Tally) {
	for op, c := range u.Counts {
		d := t.Counts[op]
		if d == nil {
			d = new([numOutcomes]int)
			t.Counts[op] = d
		}
		for o := range c {
			d[o] += c[o]
		}
		t.Time[op] += u.Time[op]
		ex := append(t.Examples[op], u.Examples[op]...)
		t.Examples[op] = ex[:min(len(ex), t.MaxExamples)]
	}
}

// Count returns op's count of o ("" for all operators).
func (t *Tally) Count(op string, o Outcome) int {
	if op != "" {
		if c := t.Counts[op]; c != nil {
			return c[o]
		}
		return 0
	}
	n := 0
	for _, c := range t.Counts {
		n += c[o]
	}
	return n
}
