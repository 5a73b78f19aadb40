package faultinject

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// knownGaps are the operators whose every forward fault the table's
// inverse does not yet undo in one edit, and why.
var knownGaps = map[string]string{}

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
				// What followed a cut is unknown: one edit reads the
				// text as a value of unknown content that opens with
				// it, or as the original's members so far.
				for _, m := range op.Singles(tx, g.Rand()) {
					if strings.TrimSpace(m.Text) == "" {
						continue // cut before the object
					}
					e, unknown, ok := faultmodel.Cut(m.Text)
					v, valid := rootOf(e.Apply(m.Text))
					// (A key cut open may be completed as a name the
					// object already holds: {"":1,"" as {"":1,"":null}.)
					repeats := unknown && json.Valid([]byte(e.Apply(m.Text)))
					if !ok || !valid && !repeats || valid && !unknown && !membersSoFar(orig, v) {
						missed[op.Name]++
						example[op.Name] = [2]string{tx.S, m.Text}
					}
				}
				continue
			}
			for _, m := range op.Singles(tx, g.Rand()) {
				if v, err := DecodeOrdered(m.Text); err == nil {
					if _, ok := v.(Object); ok {
						continue // not broken
					}
				}
				found := false
				for _, e := range op.Inverse(m.Text) {
					if v, ok := rootOf(e.Apply(m.Text)); ok && Equal(v, orig) {
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

// membersSoFar reports whether got is orig cut after its members (or
// items) so far: its containers hold the first members of orig's, the
// last of them cut in turn, and may be empty.
func membersSoFar(orig, got Value) bool {
	if Equal(orig, got) {
		return true
	}
	switch x := orig.(type) {
	case Object:
		y, ok := got.(Object)
		if !ok || len(y) > len(x) {
			return false
		}
		for i, m := range y {
			if m.Key != x[i].Key || i < len(y)-1 && !Equal(x[i].Val, m.Val) || i == len(y)-1 && !membersSoFar(x[i].Val, m.Val) {
				return false
			}
		}
		return true
	case Array:
		y, ok := got.(Array)
		if !ok || len(y) > len(x) {
			return false
		}
		for i := range y {
			if i < len(y)-1 && !Equal(x[i], y[i]) || i == len(y)-1 && !membersSoFar(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}
