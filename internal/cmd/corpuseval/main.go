// Command corpuseval scores saidex on malformed tool-call corpus files
// (shared/corpus/*.jsonl) through the public API: one ToolNode per case,
// with a recording tool made by saidex.ToolWithSchema, default options and no
// correction model.
//
//	go run ./internal/cmd/corpuseval [-v] FILE.jsonl...
//
// It prints a table per category and expect class, issue precision and
// recall on the invalid cases, and ends with exactly one line:
//
//	corpus: N cases, P passed, S silent corruptions, O over-strict, W wrong issue sets
//
// With -v it lists every case that did not pass. With -coerce it also runs
// every case with saidex.WithCoercion(saidex.CoercionLax) and reports that run
// separately (the labels assume strict validation): the cases whose outcome
// changes, their coercions, and whether any case outside the wrong_type and
// nested_error categories changed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/corpus"
	"github.com/saidex/saidex-go/internal/corpusfile"
)

func main() {
	verbose := flag.Bool("v", false, "list every case that did not pass")
	coerce := flag.Bool("coerce", false, "also run with saidex.WithCoercion(saidex.CoercionLax) and report the changes")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: corpuseval [-v] [-coerce] FILE.jsonl...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var cases []corpusfile.Case
	for _, f := range flag.Args() {
		cs, err := corpusfile.Load(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "corpuseval: %s: %v\n", f, err)
			os.Exit(1)
		}
		cases = append(cases, cs...)
	}
	ctx := context.Background()
	type key struct{ category, expect string }
	rows := map[key]*corpus.Summary{}
	classes := map[string]*corpus.Summary{}
	var total, invalid corpus.Summary
	var failures []corpus.Outcome
	strict := make([]corpus.Outcome, len(cases))
	for i := range cases {
		o := corpus.Score(ctx, &cases[i])
		strict[i] = o
		k := key{cases[i].Category, cases[i].Expect}
		if rows[k] == nil {
			rows[k] = &corpus.Summary{}
		}
		if classes[k.expect] == nil {
			classes[k.expect] = &corpus.Summary{}
		}
		rows[k].Add(o)
		classes[k.expect].Add(o)
		total.Add(o)
		if k.expect == "invalid" {
			invalid.Add(o)
		}
		if o.Verdict != corpus.Pass {
			failures = append(failures, o)
		}
	}

	keys := make([]key, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].category != keys[j].category {
			return keys[i].category < keys[j].category
		}
		return keys[i].expect < keys[j].expect
	})
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\texpect\tn\tpassed\tsilent\tover-strict\twrong issues\tother\t")
	for _, k := range keys {
		s := rows[k]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", k.category, k.expect, s.N, s.Pass, s.Silent, s.OverStrict, s.WrongIssues, s.Other)
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t")
	classNames := make([]string, 0, len(classes))
	for c := range classes {
		classNames = append(classNames, c)
	}
	sort.Strings(classNames)
	for _, c := range classNames {
		s := classes[c]
		fmt.Fprintf(tw, "all\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c, s.N, s.Pass, s.Silent, s.OverStrict, s.WrongIssues, s.Other)
	}
	tw.Flush()
	if invalid.N > 0 {
		fmt.Printf("\ninvalid cases: issue precision %s, recall %s (%d expected, %d reported, %d matched)\n",
			ratio(invalid.Hit, invalid.Got), ratio(invalid.Hit, invalid.Want), invalid.Want, invalid.Got, invalid.Hit)
	}
	if *verbose && len(failures) > 0 {
		fmt.Println("\nfailures:")
		for _, o := range failures {
			fmt.Printf("  %s [%s/%s] %s: %s\n", o.Case.ID, o.Case.Category, o.Case.Expect, o.Verdict, o.Detail)
		}
	}
	if *coerce {
		reportCoercion(ctx, cases, strict)
	}
	if total.N > 0 {
		fmt.Printf("\npassed %.1f%%\n", 100*float64(total.Pass)/float64(total.N))
	}
	fmt.Println(total.Line())
}

// reportCoercion runs every case again with CoercionLax and lists the cases
// whose outcome or arguments change compared with the strict run.
func reportCoercion(ctx context.Context, cases []corpusfile.Case, strict []corpus.Outcome) {
	fmt.Println("\nwith WithCoercion(CoercionLax) (labels assume CoercionNone; not part of the score):")
	changed, outside, coerced := 0, 0, 0
	for i := range cases {
		lax := corpus.Score(ctx, &cases[i], saidex.WithCoercion(saidex.CoercionLax))
		if len(lax.Coercions) > 0 {
			coerced++
		}
		if lax.Outcome == strict[i].Outcome && lax.Verdict == strict[i].Verdict {
			continue
		}
		changed++
		c := &cases[i]
		if c.Category != "wrong_type" && c.Category != "nested_error" {
			outside++
		}
		fmt.Printf("  %s [%s/%s]: %s -> %s, coercions %v\n", c.ID, c.Category, c.Expect, strict[i].Outcome, lax.Outcome, lax.Coercions)
	}
	fmt.Printf("coerce: %d cases change outcome, %d calls coerced, %d changes outside wrong_type and nested_error\n", changed, coerced, outside)
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
