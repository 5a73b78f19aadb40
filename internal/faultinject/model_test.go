package faultinject

import (
	"testing"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// knownGaps are the operators whose every forward fault the table's
// inverse does not yet undo in one edit, and why.
var knownGaps = map[string]string{
	// A cut loses what followed it; closing at the end reads the original
	// only when the cut took closers alone.
	"cut": "what followed the cut is unknown",
}

// The table is complete on its own operators: every single fault the
// oracle makes (its forward form) is undone by one edit of the same row's
// inverse, back to the original value, on generated values. Every
// operator of the oracle is a row of the table, and every row has a
// forward form.
func TestForwardThenInverseRecoversTheOriginal(t *testing.T) {
	if len(Ops) != len(faultmodel.Table) || len(forwards) != len(faultmodel.Table) {
		t.Fatalf("%d operators, %d forward forms, %d rows", len(Ops), len(forwards), len(faultmodel.Table))
	}
	for i, op := range Ops {
		if op.Name != faultmodel.Table[i].Name || op.edits == nil && op.global == nil {
			t.Fatalf("operator %d: %q, no forward form: %v", i, op.Name, op.edits == nil && op.global == nil)
		}
	}
	objects := 14
	if testing.Short() {
		objects = 6
	}
	missed := map[string]int{}
	example := map[string][2]string{}
	for seed := uint64(1); seed <= uint64(objects); seed++ {
		g := NewGen(seed, nil)
		tx := Encode(g.Object(), g.RandomLayout())
		if len(tx.S) > 120 {
			continue // the faults are the same on a short text, and cheaper to undo
		}
		orig, _ := DecodeOrdered(tx.S)
		for _, op := range Ops {
			if op.Name == "cut" {
				continue // see knownGaps
			}
			for _, m := range op.Singles(tx, g.Rand()) {
				if v, err := DecodeOrdered(m.Text); err == nil {
					if _, ok := v.(Object); ok {
						continue // not broken
					}
				}
				found := false
				for _, e := range op.Inverse(m.Text) {
					if v, ok := objectOf(e.Apply(m.Text)); ok && Equal(v, orig) {
						found = true
						break
					}
				}
				if !found {
					missed[op.Name]++
					example[op.Name] = [2]string{tx.S, m.Text}
				}
			}
		}
	}
	for name, n := range missed {
		if _, known := knownGaps[name]; known {
			t.Logf("%s: %d faults not undone in one edit (known: %s)", name, n, knownGaps[name])
			continue
		}
		t.Errorf("%s: %d faults not undone in one edit, e.g. %q broken as %q", name, n, example[name][0], example[name][1])
	}
}
