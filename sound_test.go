package saidex_test

import (
	"sync"
	"testing"

	"github.com/saidex/saidex-go/internal/faultinject"
)

// soundRepairer is one node for the fuzz target's calls (a fuzz worker
// runs them one at a time; the mutex keeps -race and parallel seeds safe).
var soundRepairer = struct {
	sync.Mutex
	repair faultinject.Repairer
}{}

func repairThroughNode(t testing.TB, raw string) (string, bool) {
	soundRepairer.Lock()
	defer soundRepairer.Unlock()
	if soundRepairer.repair == nil {
		r, err := faultinject.NodeRepairer()
		if err != nil {
			t.Fatal(err)
		}
		soundRepairer.repair = r
	}
	return soundRepairer.repair(raw)
}

// FuzzRepairIsSound is the soundness oracle as a fuzz target: a valid
// object, broken by one fault operator (or a pair) at a position, run
// through a real node with a {"type":"object"} tool, reaches the tool as
// a value equal to the original, or is refused; the two documented
// exceptions aside (see package faultinject). The deterministic sweep of
// the same oracle is internal/cmd/soundsweep.
func FuzzRepairIsSound(f *testing.F) {
	for i := range len(faultinject.Ops) {
		f.Add(uint64(i), uint8(i), uint8(i+3), uint16(i*7), i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, seed uint64, op, op2 uint8, pos uint16, pair bool) {
		orig, m, ok := faultinject.Pick(seed, op, op2, pos, pair)
		if !ok {
			return
		}
		args, called := repairThroughNode(t, m.Text)
		if out := faultinject.Classify(orig, m, args, called); out == faultinject.Different {
			t.Fatalf("%s: the tool received a value the model did not send\nsent:     %q\ntool got: %s", m.Op, m.Text, args)
		}
	})
}
