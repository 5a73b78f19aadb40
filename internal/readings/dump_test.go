package readings_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/faultinject"
	"github.com/saidex/saidex-go/internal/readings"
)

var (
	dumpWindows = flag.String("dump-windows", "", "TestDumpWindows writes every field of the window of many broken texts to this file")
	dumpObjects = flag.Int("dump-objects", 300, "objects whose single faults and pairs TestDumpWindows reads")
)

// TestDumpWindows (with -dump-windows FILE) writes the whole window
// (minimum, over, and each reading's text, cost, operators, places,
// steps, unknown and value) of the single faults and random pairs of
// generated objects, the short benchmark texts and the 1 KiB benchmark
// shapes: two versions of the engine that write equal files give equal
// results on all of them (a check of a change meant to change no result).
func TestDumpWindows(t *testing.T) {
	if *dumpWindows == "" {
		t.Skip("no -dump-windows")
	}
	f, err := os.Create(*dumpWindows)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	dump := func(s string) {
		win := readings.Read(s)
		fmt.Fprintf(w, "%q min %d over %v\n", s, win.Min, win.Over)
		for i, r := range win.Readings {
			fmt.Fprintf(w, "  %d %q %q %v %v %v %v\n", r.Cost, r.Text, win.Values()[i], r.Ops, r.At, r.Steps, r.Unknown)
		}
		r, v := readings.Repair(s)
		fmt.Fprintf(w, "  repair %v %q\n", v, r.Text)
	}
	for _, x := range shortTexts() {
		dump(x.text)
	}
	for _, sh := range benchfixture.Shapes {
		dump(benchfixture.BrokenArguments(sh, 1<<10))
	}
	for seed := uint64(1); seed <= uint64(*dumpObjects); seed++ {
		g := faultinject.NewGen(seed, nil)
		text := faultinject.Encode(g.Object(), g.RandomLayout())
		if len(text.S) > 300 {
			continue
		}
		fmt.Fprintln(w, "object", strconv.FormatUint(seed, 10))
		for _, op := range faultinject.Ops {
			for _, m := range op.Singles(text, g.Rand()) {
				dump(m.Text)
			}
		}
		for range 20 {
			a := faultinject.Ops[g.Rand().IntN(len(faultinject.Ops))]
			b := faultinject.Ops[g.Rand().IntN(len(faultinject.Ops))]
			if m, ok := faultinject.Pair(text, a, b, g.Rand()); ok {
				dump(m.Text)
			}
		}
	}
}
