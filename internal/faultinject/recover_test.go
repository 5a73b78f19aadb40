package faultinject

import (
	"fmt"
	"testing"
)

// The operators of issue 22's classes come back exact: every single
// mutation by one of them reaches the tool as the original value or is
// refused, never as another value, and each class is recovered (some of
// its mutations come back as the original). bare_value, literal_case and
// loose_number run against the schema of the original's shape (SchemaOf),
// under which every location's type is known; the others against
// {"type":"object"}.
func TestRecoveredClassesComeBackExact(t *testing.T) {
	objects := 400
	if testing.Short() {
		objects = 60
	}
	ops := []string{"escaped_space", "unclosed_key", "stray_closer", "swapped_closer", "stray_bracket", "literal_case", "loose_number", "numeric_key", "bare_value", "template_quotes"}
	plain, err := NodeRepairer()
	if err != nil {
		t.Fatal(err)
	}
	tally := NewTally()
	for seed := uint64(1); seed <= uint64(objects); seed++ {
		g := NewGen(seed, nil)
		o := g.Object()
		tx := Encode(o, g.RandomLayout())
		orig, _ := DecodeOrdered(tx.S)
		guided, err := SchemaRepairer(SchemaOf(orig))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range ops {
			repair := plain
			switch name {
			case "bare_value", "literal_case", "loose_number", "unclosed_key":
				// Read only where the schema types the location (a
				// string there; a literal or number not written as JSON
				// writes it may be a string whose quotes are missing).
				repair = guided
			}
			for _, m := range mustOp(t, name).Singles(tx, g.Rand()) {
				args, ok := repair(m.Text)
				out := Classify(orig, m, args, ok)
				tally.Add(name, out, Example{Op: m.Op, Original: tx.S, Text: m.Text, Args: args})
			}
		}
	}
	for _, name := range ops {
		c := func(o Outcome) int { return tally.Count(name, o) }
		t.Logf("%-14s broken %6d original %6d refused %6d different %d", name, c(Original)+c(Refused)+c(Truncated)+c(ClosedAtEnd)+c(Different),
			c(Original), c(Refused), c(Different))
		if c(Original) == 0 {
			t.Errorf("%s: no mutation came back as the original", name)
		}
	}
	if n := tally.Count("", Different); n > 0 {
		for _, exs := range tally.Examples {
			for _, ex := range exs {
				fmt.Printf("%s:\n  original: %q\n  sent:     %q\n  tool got: %s\n", ex.Op, ex.Original, ex.Text, ex.Args)
			}
		}
		t.Errorf("%d values reached the tool different", n)
	}
}
