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
