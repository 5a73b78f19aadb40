package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/saidex/saidex-go/internal/faultinject"
	"github.com/saidex/saidex-go/internal/readings"
)

// runWindow judges the single faults of n objects (of at most maxBytes
// bytes, random objects only, seeds from seed on) against the brute-force
// reader's window, prints the table and the examples, and returns the
// exit status: 1 when a value reached the tool different.
func runWindow(ops []faultinject.Op, n int, seed uint64, workers, maxBytes, maxEx int, schemaOf, useReadings bool) int {
	start := time.Now()
	total := faultinject.NewWindowTally()
	total.MaxExamples = maxEx
	var mu sync.Mutex
	next, done := seed, 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plain, err := faultinject.NodeRepairer()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			for {
				mu.Lock()
				if done >= n {
					mu.Unlock()
					return
				}
				s := next
				next++
				mu.Unlock()
				g := faultinject.NewGen(s, nil)
				repair := plain
				if useReadings {
					repair = readingsRepair
				}
				if schemaOf && !useReadings {
					// The object the generator makes next, for its schema.
					probe := faultinject.NewGen(s, nil)
					v, _ := faultinject.DecodeOrdered(faultinject.Encode(probe.Object(), probe.RandomLayout()).S)
					if repair, err = faultinject.SchemaRepairer(faultinject.SchemaOf(v)); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(2)
					}
				}
				t := faultinject.NewWindowTally()
				t.MaxExamples = maxEx
				if !faultinject.CheckWindows(g, repair, ops, maxBytes, t) {
					continue
				}
				mu.Lock()
				total.Merge(t)
				done++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("soundsweep -window: %d objects of at most %d bytes (seeds %d–%d), %s\n\n", done, maxBytes, seed, next-1, time.Since(start).Round(time.Second))
	printWindow(total)
	printLucky(total)
	printWindowExamples(total)
	if total.Count("", faultinject.VDifferent) > 0 {
		return 1
	}
	return 0
}

// readingsRepair is the readings engine as a repairer: a text that is
// one JSON object as it is, else the window's value when every reading in
// it agrees.
func readingsRepair(raw string) (string, bool) {
	r, verdict := readings.Repair(raw)
	return r.Text, verdict == readings.Run
}

func printWindow(t *faultinject.WindowTally) {
	var ops []string
	for op := range t.Counts {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	fmt.Printf("| %-16s | %4s | %9s | %6s | %5s | %9s | %9s | %12s | %9s | %11s | %5s | %9s | %10s | %10s | %10s |\n", "operator", "cost", "mutations", "exact", "lucky", "exception", "ambiguous", "ambiguous +1", "value cut", "over-strict", "alias", "different", "no reading", "engine", "reader")
	fmt.Printf("|%s|------|-----------|--------|-------|-----------|-----------|--------------|-----------|-------------|-------|-----------|------------|------------|------------|\n", strings.Repeat("-", 18))
	row := func(name, op string) {
		c := func(v faultinject.Verdict) int { return t.Count(op, v) }
		all := 0
		for _, v := range faultinject.Verdicts {
			all += c(v)
		}
		var eng, rd time.Duration
		for o := range t.Counts {
			if op == "" || o == op {
				eng += t.Engine[o]
				rd += t.Reader[o]
			}
		}
		cost := ""
		if o, ok := faultinject.OpByName(op); ok {
			cost = fmt.Sprint(o.Cost)
		}
		pct := func(k int) string {
			if all == 0 {
				return "0"
			}
			return fmt.Sprintf("%d (%.0f%%)", k, 100*float64(k)/float64(all))
		}
		fmt.Printf("| %-16s | %4s | %9d | %6d | %5d | %9d | %9d | %12d | %9d | %11s | %5d | %9d | %10d | %10s | %10s |\n", name, cost, all, c(faultinject.VExact), c(faultinject.VLucky), c(faultinject.VException),
			c(faultinject.VAmbiguous), c(faultinject.VAmbiguousPast), c(faultinject.VValueCut), pct(c(faultinject.VOverStrict)), c(faultinject.VAlias), c(faultinject.VDifferent), c(faultinject.VNoReading),
			eng.Round(time.Millisecond), rd.Round(time.Second))
	}
	for _, op := range ops {
		row(op, op)
	}
	row("total", "")
}

func printWindowExamples(t *faultinject.WindowTally) {
	var ops []string
	for op := range t.Examples {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		for _, ex := range t.Examples[op] {
			fmt.Printf("\n%s (%s):\n  original: %q\n  sent:     %q\n  tool got: %q\n  window (min cost %d):\n", op, ex.Verdict, ex.Original, ex.Text, ex.Args, ex.Window.Min)
			for _, r := range ex.Window.Readings {
				fmt.Printf("    cost %d %v: %q\n", r.Cost, r.Ops, r.Text)
			}
		}
	}
}

// printLucky prints, per operator, what put another value in the window
// of its lucky mutations (faultinject.WindowTally.Lucky), the most
// frequent first.
func printLucky(t *faultinject.WindowTally) {
	var ops []string
	for op := range t.Lucky {
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return
	}
	sort.Strings(ops)
	fmt.Printf("\nLucky mutations by the rows of the readings that give another value:\n")
	for _, op := range ops {
		type cause struct {
			rows string
			n    int
		}
		var cs []cause
		for rows, n := range t.Lucky[op] {
			cs = append(cs, cause{rows, n})
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].n > cs[j].n || cs[i].n == cs[j].n && cs[i].rows < cs[j].rows })
		for _, c := range cs {
			fmt.Printf("  %-16s %6d  %s\n", op, c.n, c.rows)
		}
	}
}
