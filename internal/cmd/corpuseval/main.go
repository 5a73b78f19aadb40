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
// It exits with status 1 when a case did not pass (a silent corruption
// included), or when the files hold fewer than -min cases (default 1), so
// that CI fails as soon as the line drops below N/N; 2 on a usage error.
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
	"io"
	"os"
	"sort"
	"text/tabwriter"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/corpus"
	"github.com/saidex/saidex-go/internal/corpusfile"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments and outputs; it returns the exit
// status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("corpuseval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "list every case that did not pass")
	coerce := fs.Bool("coerce", false, "also run with saidex.WithCoercion(saidex.CoercionLax) and report the changes")
	minCases := fs.Int("min", 1, "fail when the files hold fewer cases")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: corpuseval [-v] [-coerce] [-min N] FILE.jsonl...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var cases []corpusfile.Case
	for _, f := range fs.Args() {
		cs, err := corpusfile.Load(f)
		if err != nil {
			fmt.Fprintf(stderr, "corpuseval: %s: %v\n", f, err)
			return 1
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
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
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
		fmt.Fprintf(stdout, "\ninvalid cases: issue precision %s, recall %s (%d expected, %d reported, %d matched)\n",
			ratio(invalid.Hit, invalid.Got), ratio(invalid.Hit, invalid.Want), invalid.Want, invalid.Got, invalid.Hit)
	}
	if *verbose && len(failures) > 0 {
		fmt.Fprintln(stdout, "\nfailures:")
		for _, o := range failures {
			fmt.Fprintf(stdout, "  %s [%s/%s] %s: %s\n", o.Case.ID, o.Case.Category, o.Case.Expect, o.Verdict, o.Detail)
		}
	}
	if *coerce {
		reportCoercion(ctx, stdout, cases, strict)
	}
	if total.N > 0 {
		fmt.Fprintf(stdout, "\npassed %.1f%%\n", 100*float64(total.Pass)/float64(total.N))
	}
	fmt.Fprintln(stdout, total.Line())
	switch {
	case total.N < *minCases:
		fmt.Fprintf(stderr, "corpuseval: %d cases, fewer than -min %d\n", total.N, *minCases)
		return 1
	case total.Pass != total.N:
		fmt.Fprintf(stderr, "corpuseval: %d of %d cases did not pass (%d silent corruptions)\n", total.N-total.Pass, total.N, total.Silent)
		return 1
	}
	return 0
}

// reportCoercion runs every case again with CoercionLax and lists the cases
// whose outcome or arguments change compared with the strict run.
func reportCoercion(ctx context.Context, w io.Writer, cases []corpusfile.Case, strict []corpus.Outcome) {
	fmt.Fprintln(w, "\nwith WithCoercion(CoercionLax) (labels assume CoercionNone; not part of the score):")
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
		fmt.Fprintf(w, "  %s [%s/%s]: %s -> %s, coercions %v\n", c.ID, c.Category, c.Expect, strict[i].Outcome, lax.Outcome, lax.Coercions)
	}
	fmt.Fprintf(w, "coerce: %d cases change outcome, %d calls coerced, %d changes outside wrong_type and nested_error\n", changed, coerced, outside)
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
