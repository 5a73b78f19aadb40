package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The generated Cost section of docs/cost.md lies between these markers;
// benchtable -readme writes it from BENCHMARKS.md, and
// TestREADMECostMatchesBENCHMARKS checks it, so that it cannot drift from
// the measured figures.
const (
	costBegin = "<!-- Cost: generated from BENCHMARKS.md by `go run ./internal/cmd/benchtable -readme docs/cost.md BENCHMARKS.md` (scripts/bench.sh runs it); do not edit -->\n"
	costEnd   = "<!-- end of the generated Cost section -->\n"
)

// tables are the Markdown tables of a document: each "## " heading's rows,
// header row first, separator rows left out, cells trimmed and without
// bold marks.
type tables map[string][][]string

func parseTables(md string) tables {
	t := tables{}
	heading := ""
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## "):
			heading = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "|---") && !strings.HasPrefix(line, "|--"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i, c := range cells {
				cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "**", "")) // bold marks a verdict or a total
			}
			t[heading] = append(t[heading], cells)
		}
	}
	return t
}

// lookup finds cells by heading prefix, row key and column header; its
// first error is kept, and the cells it returns are then "".
type lookup struct {
	t   tables
	err error
}

// cell returns the cell of the table under the heading starting with
// heading, in the row whose leading cells, joined by "|", are row, and in
// the column whose header is col (or the n-th table of that heading when
// several share it: col "#2:header").
func (l *lookup) cell(heading, row, col string) string {
	if l.err != nil {
		return ""
	}
	var rows [][]string
	for h, r := range l.t {
		if strings.HasPrefix(h, heading) {
			rows = r
		}
	}
	// Several tables under one heading: a header row starts each.
	var blocks [][][]string
	for _, r := range rows {
		if len(blocks) == 0 || isHeader(r) {
			blocks = append(blocks, nil)
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], r)
	}
	for _, b := range blocks {
		ci := -1
		for i, h := range b[0] {
			if h == col {
				ci = i
			}
		}
		if ci < 0 {
			continue
		}
		k := strings.Count(row, "|") + 1
		for _, r := range b[1:] {
			if len(r) > ci && len(r) >= k && strings.Join(r[:k], "|") == row {
				return r[ci]
			}
		}
	}
	l.err = fmt.Errorf("BENCHMARKS.md: no cell %q / %q / %q", heading, row, col)
	return ""
}

// isHeader reports whether a row is a table's header: benchtable's headers
// start with a word column ("calls", "repair", "Program", ...).
func isHeader(r []string) bool {
	switch r[0] {
	case "calls", "repair", "path", "calls per message", "arguments", "configuration", "Program", "Goal (issue 14)", "Brought in by":
		return true
	}
	return false
}

// num parses a cell's number ("0.72×", "+46", "262 (54)", "3.05 MB").
func (l *lookup) num(cell string) float64 {
	if l.err != nil {
		return 0
	}
	f := strings.Fields(cell)
	if len(f) == 0 {
		l.err = fmt.Errorf("BENCHMARKS.md: empty cell")
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimRight(strings.TrimLeft(f[0], "+"), "×"), 64)
	if err != nil {
		l.err = fmt.Errorf("BENCHMARKS.md: cell %q: %v", cell, err)
	}
	return v
}

// three returns a column's cells at 1, 8 and 64 calls as "a, b and c".
func (l *lookup) three(heading, col string) string {
	return fmt.Sprintf("%s, %s and %s", l.cell(heading, "1", col), l.cell(heading, "8", col), l.cell(heading, "64", col))
}

// metAt lists the call counts at which a verdict column says yes.
func (l *lookup) metAt(heading, col string) string {
	var met []string
	for _, n := range []string{"1", "8", "64"} {
		if l.cell(heading, n, col) == "yes" {
			met = append(met, n)
		}
	}
	switch len(met) {
	case 0:
		return "not met at any size"
	case 3:
		return "met at every size"
	}
	return "met at " + strings.Join(met, " and ") + " calls only"
}

// costSection returns the generated Cost section of docs/cost.md, from
// the tables of BENCHMARKS.md, between its markers.
func costSection(benchmarks string) (string, error) {
	l := &lookup{t: parseTables(benchmarks)}
	const run, alloc = "Valid, repaired and invalid calls vs two baselines", "Allocations per valid call"
	const rs, eino, huge, iw = "Repair cost by size", "saidex vs Eino", "A 10 MB broken argument", "Import weight"
	const hostile = "Repair of hostile shapes"
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("%s", costBegin)
	p("Measured with Go benchmarks, on valid calls of one tool written for a stock executor\n")
	p("(encoding/json decode, unknown members refused), against two baselines in the same run: the\n")
	p("**stock executor**, a loop calling `tool.Call` (one decode, in the tool), and the\n")
	p("**langchaingo functions-agent path**, which parses each call's arguments for `__arg1` before\n")
	p("the tool decodes them again. Goals are stated against the stock executor, the stricter.\n")
	p("[BENCHMARKS.md](../BENCHMARKS.md) has the command lines, the machine and every ratio; the\n")
	p("figures below are those of its one run (a shared 2-core machine; `scripts/bench.sh`\n")
	p("interleaves the benchmarks, every round running each once, so that a change of load hits\n")
	p("both sides of a ratio), and this section is generated from it.\n\n")

	p("- A message of valid calls to a `NewTool` tool, run with `Run`, costs %s the stock\n", l.three(run, "valid (Run) / stock"))
	p("  executor's time at 1, 8 and 64 calls, and %s through `Invoke` (goals: ≤ 1.5× at 1 call\n", l.three(run, "valid (Invoke) / stock"))
	p("  and ≤ 1.1× at 64 with `Run`, ≤ 1.3× at 8 with `Invoke`: %s), and %s the time of\n", l.metAt(run, "goal met"), l.three(run, "valid (Run) / functions-agent"))
	p("  the functions-agent path, which decodes twice (for reference).\n")
	p("  The node makes %s allocations per call beyond the tool's own (the stock executor makes %s per call).\n",
		l.three(alloc, "beyond the tool's own"), l.three(alloc, "stock executor allocs/call"))
	p("  Arguments valid as sent are checked and decoded in one pass (`internal/precheck`'s\n")
	p("  `Decode`, for argument types of strings, numbers, booleans, pointers, slices and structs;\n")
	p("  other types are checked on their bytes and decoded by the tool), never repaired, and the\n")
	p("  tool runs with the decoded value: one scan, where the stock executor's tool decodes once.\n")
	p("- A message of repaired calls (single quotes, Python literals, trailing commas) costs %s\n", l.three(run, "repaired / stock"))
	p("  the stock executor's time (goal ≤ 1.5×: %s) and %s the functions-agent\n", l.metAt(run, "target ≤ 1.5× met"), l.three(run, "repaired / functions-agent"))
	p("  path's: each call is scanned once, read by the fault model (a text of at most 2 KiB: its\n")
	p("  window must give the scanner's value alone), and its canonical text decoded once.\n")
	p("- Against Eino's `ToolsNode`, which validates nothing: %s its time at 1, 8 and 64 calls\n", l.three(eino, "saidex / eino, time"))
	p("  with `NewTool` tools, %s with identical tool code (encoding/json on both sides).\n", l.three(eino, "saidex, same tool code / eino"))
	const guard = "Eino's ToolsNode with the saidex configuration"
	p("- Eino's own `ToolsNode` with the Guard's middleware (`saidexeino`, the same `utils.InferTool`\n")
	p("  tool on both sides) costs %s the CPU time of bare Eino at 1, 8 and 64 calls (goal ≤ 1.15×:\n", l.three(guard, "saidex / eino, CPU"))
	p("  %s): the middleware adds one precheck scan of each call's arguments.\n", l.metAt(guard, "target ≤ 1.15× met (CPU)"))

	shapes := []string{"long_string", "many_members", "deep_cut"}
	var growText, growStage, scanMin, scanMax, stageMin, stageMax float64
	scanMin, stageMin = 1e9, 1e9
	for _, sh := range shapes {
		growText = max(growText, l.num(l.cell(rs, "text|"+sh, "1 MiB / 1 KiB")))
		growStage = max(growStage, l.num(l.cell(rs, "stage|"+sh, "1 MiB / 1 KiB")))
		for _, col := range []string{"ns/byte at 1 KiB", "at 64 KiB", "at 1 MiB"} {
			v := l.num(l.cell(rs, "text|"+sh, col))
			scanMin, scanMax = min(scanMin, v), max(scanMax, v)
		}
		text, stage := l.num(l.cell(rs, "text|"+sh, "at 1 MiB")), l.num(l.cell(rs, "stage|"+sh, "at 1 MiB"))
		if text > 0 {
			stageMin, stageMax = min(stageMin, stage/text), max(stageMax, stage/text)
		}
	}
	p("- Repair is linear (`BenchmarkRepairSize`): the cost per byte at 1 MiB is at most %.2f× the\n", growText)
	p("  cost at 1 KiB for the repair itself, %.2f× with the decode of the repaired text. The\n", growStage)
	p("  repair costs %.1f–%.1f ns/byte from 1 KiB to 1 MiB (at 1 KiB the fault model's window of the text\n", scanMin, scanMax)
	p("  too, read for every repair of a text of at most 2 KiB) across three shapes (a long string with\n")
	p("  line breaks and inner quotes, many single-quoted members, deeply nested arrays and objects\n")
	p("  cut off at the end); with the decode into the value validation reads, the stage costs %.1f–%.1f× the scan at\n", stageMin, stageMax)
	p("  1 MiB: the decode costs what decoding any JSON of that shape costs.\n")
	hostileMin, hostileMax := 1e9, 0.0
	for _, sh := range []string{"invisible_run", "inner_quotes", "backslashes_before_quote", "closers_before_object", "block_comments",
		"escaped_line_breaks", "joined_pieces", "strings_ending_with_closers", "empty_strings_trailing_commas", "single_quoted_double_quotes"} {
		v := l.num(l.cell(hostile, sh, "128 KiB / 16 KiB"))
		hostileMin, hostileMax = min(hostileMin, v), max(hostileMax, v)
	}
	p("- So is repair of ten argument strings built against checks that look back or ahead once\n")
	p("  per token (`BenchmarkRepairHostile`: a run of invisible characters, inner quotes,\n")
	p("  backslashes before a quote, closers before the object, ...): the cost per byte at 128 KiB\n")
	p("  is %.2f–%.2f× the cost at 16 KiB, repaired or refused.\n", hostileMin, hostileMax)
	raised := l.num(l.cell(huge, "WithMaxArgumentBytes(16 MiB): parsed, then repaired or refused", "time / 50 ms")) * 0.050
	refused := l.num(l.cell(huge, "default WithMaxArgumentBytes (1 MiB): refused unparsed", "time / 50 ms")) * 50e3
	p("- A 10 MB broken argument, with `WithMaxArgumentBytes` raised to 16 MiB, is repaired,\n")
	p("  validated and answered in %.2f s (goal 50 ms: %s); under the default limit it is refused\n", raised,
		map[bool]string{true: "met", false: "not met"}[raised < 0.050])
	p("  unparsed in about %.0f µs.\n", refused)
	without := "langchaingo OpenAI client + `tools` + one tool, without saidex"
	with := "the same with `saidex.NewTool` and a `saidex.ToolNode`"
	p("- Import weight: a minimal program (langchaingo's OpenAI client, `tools`, one tool) compiles\n")
	p("  %s packages into a %s MB binary (%s MB stripped); with a `NewTool` tool run by a\n",
		first(l.cell(iw, without, "Packages")), l.cell(iw, without, "Binary (MB)"), l.cell(iw, without, "Stripped (MB)"))
	p("  `ToolNode`, %s packages and %s MB (%s MB stripped): saidex adds %s packages and %s MB\n",
		first(l.cell(iw, with, "Packages")), l.cell(iw, with, "Binary (MB)"), l.cell(iw, with, "Stripped (MB)"),
		strings.TrimPrefix(first(l.cell(iw, "saidex adds", "Packages")), "+"), strings.TrimPrefix(l.cell(iw, "saidex adds", "Binary (MB)"), "+"))
	p("  (%s MB stripped); BENCHMARKS.md lists them by the dependency that brings them in.\n", strings.TrimPrefix(l.cell(iw, "saidex adds", "Stripped (MB)"), "+"))
	p("  langchaingo's agents and chains are compiled only by programs that import the `agent` package.\n")
	p("%s", costEnd)
	return b.String(), l.err
}

// first returns a cell's first word ("262 (54)" -> "262").
func first(cell string) string {
	if f := strings.Fields(cell); len(f) > 0 {
		return f[0]
	}
	return cell
}

// replaceCost returns readme with its Cost section replaced by section.
func replaceCost(readme, section string) (string, error) {
	i := strings.Index(readme, costBegin)
	j := strings.Index(readme, costEnd)
	if i < 0 || j < i {
		return "", errors.New("the file has no generated Cost section (its markers)")
	}
	return readme[:i] + section + readme[j+len(costEnd):], nil
}

// currentCost returns readme's Cost section, markers included.
func currentCost(readme string) (string, error) {
	i := strings.Index(readme, costBegin)
	j := strings.Index(readme, costEnd)
	if i < 0 || j < i {
		return "", errors.New("the file has no generated Cost section (its markers)")
	}
	return readme[i : j+len(costEnd)], nil
}

// writeREADME rewrites the generated Cost section of the file at
// readmePath (docs/cost.md) from the BENCHMARKS.md at benchPath.
func writeREADME(readmePath, benchPath string) error {
	bench, err := os.ReadFile(benchPath)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		return err
	}
	section, err := costSection(string(bench))
	if err != nil {
		return err
	}
	out, err := replaceCost(string(readme), section)
	if err != nil {
		return err
	}
	return os.WriteFile(readmePath, []byte(out), 0o644)
}
