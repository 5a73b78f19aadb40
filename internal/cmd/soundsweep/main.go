// Command soundsweep is the deterministic sweep of the repair stage's
// soundness oracle (package faultinject): it generates valid argument
// objects (random ones, and values of the corpus's tool schemas when the
// corpus file is there), breaks each with every fault operator at every
// position and with random pairs of operators, runs every broken text
// through a real node with a {"type":"object"} tool (with
// -schema-of-value, a tool whose schema only values of the object's shape
// pass; with -corpus-schema, an object generated from a corpus schema gets
// a tool with that schema), and prints a table
// per operator: broken texts, repaired to the original, refused, the two
// documented exceptions, aliased pairs (two faults whose text is also one
// fault of the value the tool received: a single fault of that value,
// which no repair can tell apart), alias (window), different (the goal is
// 0), and the time the node took on them (summed over the workers).
//
// The alias (window) column is the model's own judgement of a value that
// reached the tool different (faultinject.AliasByWindow): when the broken
// text is within the brute-force reader's reach (faultinject.Read, here up
// to faultinject.MaxJudgeBytes bytes) and its cheapest reading costs one
// fault, the reader's window (the cheapest cost and one fault more) is
// complete; when the original is not in it, the text has a reading
// cheaper than the original by two faults or more, which no repair can
// tell apart: an alias by the model, counted here. When the original is in
// the window the value stays different (a bug); a text beyond the
// reader's reach is excused only by the aliased column's test. The reader
// runs only for values that reached the tool different. Examples of both
// kinds of alias are printed as those of different values are.
//
//	go run ./internal/cmd/soundsweep -n 1000000
//
// With -window, it judges instead every single-fault mutation of the
// objects whose text is at most -max-bytes long against the window of the
// brute-force reader (faultinject.Read: every reading within one fault
// of the cheapest, under the fault model's table), and prints per
// operator: mutations, exact, exception (the two documented exceptions),
// refused-ambiguous, ambiguous +1 (refused; the cheapest readings cost
// two and agree, and a reading one fault past them, which the reader
// finds by one inverse edit more, gives another value), value cut (refused, every reading in the window
// agrees, and a cheapest one is the text cut inside its last string or
// right after its last number: the decision rule refuses what followed
// the cut, which is unknown), over-strict (refused although every reading
// in the window agrees, otherwise), alias (the original not in the window), different (a
// value other than the original although it is in the window: a bug), no
// reading, and the time the engine and the reader took.
//
//	go run ./internal/cmd/soundsweep -window -n 300
//
// With -window -engine readings, the engine judged is the readings engine
// (internal/readings) alone: it runs a text's value exactly when every
// reading in its window gives that value.
//
// It exits with status 1 when any value reached the tool different.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/saidex/saidex-go/internal/corpusfile"
	"github.com/saidex/saidex-go/internal/faultinject"
	"github.com/saidex/saidex-go/internal/readings"
)

// readingsMaxBytes is the longest example text whose readings are
// printed (the node reads at most 2 KiB by the model).
const readingsMaxBytes = 2 << 10

func main() {
	n := flag.Int("n", 1_000_000, "mutations to run, at least")
	seed := flag.Uint64("seed", 1, "seed of the first object")
	pairs := flag.Int("pairs", 150, "random pairs of operators per object")
	corpus := flag.String("corpus", "../shared/corpus/dev.jsonl", "corpus file whose tool schemas generate values (skipped when absent)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "parallel workers")
	examples := flag.Bool("examples", true, "print examples of values that reached the tool different")
	maxEx := flag.Int("max-examples", 5, "examples kept per operator")
	oneLine := flag.Bool("tsv", false, "print each example on one line: operator, original, sent, tool got (quoted)")
	only := flag.String("ops", "", "comma-separated operators to run (all when empty)")
	schemaOf := flag.Bool("schema-of-value", false, "give each object's tool the schema only values of its shape pass (faultinject.SchemaOf), not {\"type\":\"object\"}: the run where the schema tells the readings of missing closers apart")
	corpusSchema := flag.Bool("corpus-schema", false, "give the tool of each object generated from a corpus schema that schema (others: {\"type\":\"object\"}, or their -schema-of-value schema)")
	window := flag.Bool("window", false, "judge single faults of small texts against the brute-force reader's window (see the package doc); -n counts objects")
	maxBytes := flag.Int("max-bytes", 40, "with -window: the longest object text judged")
	engine := flag.String("engine", "node", "with -window: the engine judged: node (a real node, today's lenient engine) or readings (the readings engine alone, internal/readings, deciding by its window)")
	flag.Parse()
	ops := faultinject.Ops
	if *only != "" {
		ops = nil
		for _, name := range strings.Split(*only, ",") {
			op, ok := faultinject.OpByName(name)
			if !ok {
				fmt.Fprintf(os.Stderr, "soundsweep: no operator %q\n", name)
				os.Exit(2)
			}
			ops = append(ops, op)
		}
	}

	if *window {
		if *engine != "node" && *engine != "readings" {
			fmt.Fprintf(os.Stderr, "soundsweep: no engine %q\n", *engine)
			os.Exit(2)
		}
		os.Exit(runWindow(ops, *n, *seed, *workers, *maxBytes, *maxEx, *schemaOf, *engine == "readings"))
	}
	schemas := loadSchemas(*corpus)
	start := time.Now()
	total := faultinject.NewTally()
	total.MaxExamples = *maxEx
	var mu sync.Mutex
	var next uint64 = *seed
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repair, err := faultinject.NodeRepairer()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			var gen *faultinject.Gen
			under := func(v faultinject.Value) (faultinject.Repairer, error) {
				if s := gen.Schema(); *corpusSchema && s != nil {
					return faultinject.SchemaRepairer(s)
				}
				if *schemaOf {
					return faultinject.SchemaRepairer(faultinject.SchemaOf(v))
				}
				return repair, nil
			}
			for {
				mu.Lock()
				if done >= *n {
					mu.Unlock()
					return
				}
				s := next
				next++
				mu.Unlock()
				t := faultinject.NewTally()
				t.MaxExamples = *maxEx
				gen = faultinject.NewGen(s, schemas)
				if err := faultinject.CheckOpsUnder(gen, under, ops, *pairs, t); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				mu.Lock()
				total.Merge(t)
				done += count(t)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	print(total, elapsed, next-*seed, len(schemas))
	if *examples {
		printExamples(total, *oneLine)
	}
	if total.Count("", faultinject.Different) > 0 {
		os.Exit(1)
	}
}

func count(t *faultinject.Tally) int {
	n := 0
	for _, o := range faultinject.Outcomes {
		n += t.Count("", o)
	}
	return n
}

func loadSchemas(path string) []map[string]any {
	cases, err := corpusfile.Load(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soundsweep: no corpus schemas (%v); random objects only\n", err)
		return nil
	}
	var out []map[string]any
	for _, c := range cases {
		var s map[string]any
		if json.Unmarshal(c.Tool.Parameters, &s) == nil && s != nil {
			out = append(out, s)
		}
	}
	return out
}

func print(t *faultinject.Tally, elapsed time.Duration, objects uint64, schemas int) {
	ops := make([]string, 0, len(t.Counts))
	for op := range t.Counts {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	fmt.Printf("soundsweep: %d objects (%d corpus schemas), %s\n\n", objects, schemas, elapsed.Round(time.Millisecond))
	fmt.Printf("| %-24s | %9s | %9s | %9s | %9s | %9s | %10s | %9s | %14s | %9s | %9s |\n", "operator", "mutations", "broken", "original", "refused", "truncated", "closed_end", "aliased", "alias (window)", "different", "node time")
	d := strings.Repeat("-", 11)
	fmt.Printf("|%s|%s|%s|%s|%s|%s|%s-|%s|%s|%s|%s|\n", strings.Repeat("-", 26), d, d, d, d, d, d, d, strings.Repeat("-", 16), d, d)
	row := func(name, op string) {
		all := 0
		for _, o := range faultinject.Outcomes {
			all += t.Count(op, o)
		}
		c := func(o faultinject.Outcome) int { return t.Count(op, o) }
		var took time.Duration
		for o, tt := range t.Time {
			if o == op || op == "" {
				took += tt
			}
		}
		fmt.Printf("| %-24s | %9d | %9d | %9d | %9d | %9d | %10d | %9d | %14d | %9d | %9s |\n", name, all, all-c(faultinject.Unbroken),
			c(faultinject.Original), c(faultinject.Refused), c(faultinject.Truncated), c(faultinject.ClosedAtEnd), c(faultinject.Aliased), c(faultinject.AliasedWindow), c(faultinject.Different), took.Round(time.Millisecond))
	}
	for _, op := range ops {
		row(op, op)
	}
	row("total", "")
}

func printExamples(t *faultinject.Tally, oneLine bool) {
	ops := make([]string, 0, len(t.Examples))
	for op := range t.Examples {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		for _, ex := range t.Examples[op] {
			kind := "different"
			switch {
			case ex.Window:
				kind = "alias (window)"
			case ex.Aliased:
				kind = "aliased"
			}
			if oneLine {
				fmt.Printf("%s\t%s\t%q\t%q\t%q\n", kind, ex.Op, ex.Original, ex.Text, ex.Args)
				continue
			}
			fmt.Printf("\n%s (%s):\n  original: %q\n  sent:     %q\n  tool got: %s\n", ex.Op, kind, ex.Original, ex.Text, ex.Args)
			if len(ex.Text) <= readingsMaxBytes {
				// What the readings engine makes of the text, and the rows
				// its reading undoes: where the scanner refused, the node
				// ran this reading when its rows are switched
				// (internal/lenient/model.go).
				r, v := readings.Repair(ex.Text)
				fmt.Printf("  readings: %s %v %q\n", v, r.Ops, r.Text)
			}
		}
	}
}
