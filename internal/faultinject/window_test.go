package faultinject

import (
	"testing"
)

// TestEngineIsNeverDifferentFromTheWindow is the referee in CI: every
// single fault of a few small generated objects goes through the node's
// repair and through the brute-force reader (Read), and no repair may run
// a value the reader's window does not justify (VDifferent). The full map
// is `go run ./internal/cmd/soundsweep -window`; this keeps a regression of
// the engine, or of the table, from landing unseen.
func TestEngineIsNeverDifferentFromTheWindow(t *testing.T) {
	objects := 2
	if testing.Short() || raceEnabled {
		objects = 1
	}
	repair, err := NodeRepairer()
	if err != nil {
		t.Fatal(err)
	}
	tally := NewWindowTally()
	judged := 0
	for seed := uint64(1); judged < objects && seed < 200; seed++ {
		if CheckWindows(NewGen(seed, nil), repair, Ops, 32, tally) {
			judged++
		}
	}
	if judged < objects {
		t.Fatalf("judged %d objects, want %d: the generator made no object of at most 32 bytes", judged, objects)
	}
	all := 0
	for _, c := range tally.Counts {
		for _, n := range c {
			all += n
		}
	}
	if all == 0 {
		t.Fatal("no mutation was judged")
	}
	if n := tally.Count("", VDifferent); n > 0 {
		for op, exs := range tally.Examples {
			for _, ex := range exs {
				if ex.Verdict == VDifferent {
					t.Errorf("%s: %q ran as %s, a value its window does not hold (original %q)", op, ex.Text, ex.Args, ex.Original)
				}
			}
		}
		t.Fatalf("%d of %d mutations ran a different value", n, all)
	}
	t.Logf("%d mutations judged against the window, %d over-strict", all, tally.Count("", VOverStrict))
}

// A refusal whose cheapest readings cost MaxReadCost and agree is judged
// against the readings one fault past them too (PastReading), as the
// engine's window holds them: a value there that differs makes the
// refusal ambiguous, not over-strict. The first edit of such a reading
// is made as the reader makes its own: needed.
func TestJudgeWindowOneFaultPastTheCheapest(t *testing.T) {
	for _, tt := range []struct {
		text, orig string
		want       Verdict
		why        string
	}{
		{`{"a" 1, "b": [2}`, `{"a": 1, "b": [2]}`, VAmbiguousPast,
			"a colon and a ']' dropped cost 2; a colon dropped and '[' inserted cost 3, and give b 2"},
		{`{"a": 1, "b": 2]]`, `{"a": 1, "b": 2}`, VAmbiguousPast,
			"two closers swapped and dropped cost 2; b's value cut inside a string costs 3"},
		{`{"a": 1,, "b" 2}`, `{"a": 1, "b": 2}`, VOverStrict,
			"a comma doubled and a colon dropped cost 2; quoting the 1 as a numeric key is not needed, so no reading at 3 differs"},
	} {
		orig, err := DecodeOrdered(tt.orig)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Read(tt.text)
		if err != nil || w.Min != MaxReadCost || !w.Agree() || !w.Holds(orig) {
			t.Fatalf("%s: window %+v, %v; want one reading, the original, at %d", tt.text, w.Readings, err, MaxReadCost)
		}
		if got, _ := JudgeWindow(orig, Mutation{Op: "punctuation", Text: tt.text}, w, "", false); got != tt.want {
			r, _ := PastReading(tt.text, orig)
			t.Errorf("%s refused: %v, want %v (%s); reading past the cheapest: %v %q", tt.text, got, tt.want, tt.why, r.Ops, r.Text)
		}
	}
}
