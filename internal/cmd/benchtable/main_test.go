package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const sample = `# command: go test -run '^$' -bench . -benchmem -count 3 .
goos: linux
cpu: Test CPU
BenchmarkRun/stock/8-2   	   10000	     40000 ns/op	    9000 B/op	     200 allocs/op
BenchmarkRun/stock/8-2   	   10000	     50000 ns/op	    9000 B/op	     200 allocs/op
BenchmarkRun/stock/8-2   	   10000	     60000 ns/op	    9000 B/op	     200 allocs/op
BenchmarkRun/functions-agent/8-2   	   10000	    100000 ns/op	    9000 B/op	     300 allocs/op
BenchmarkRun/valid/8-2      	   10000	     60000 ns/op	    9000 B/op	     400 allocs/op
BenchmarkRun/valid/8-2      	   10000	     99000 ns/op	    9000 B/op	     400 allocs/op
BenchmarkRun/valid/8-2      	   10000	     70000 ns/op	    9000 B/op	     400 allocs/op
BenchmarkInvoke/valid/8-2   	   10000	     60000 ns/op	    9000 B/op	     400 allocs/op
BenchmarkToolOnly/8-2       	   10000	     20000 ns/op	    9000 B/op	     120 allocs/op
BenchmarkRunScale/calls=1-2 	   10000	      5000 ns/op	    5000 ns/call	    1 B/op	     50 allocs/op
BenchmarkRunScale/calls=10-2 	   10000	     60000 ns/op	    6000 ns/call	    1 B/op	     500 allocs/op
BenchmarkParseSize/valid/1KB-2 	   10000	      1000 ns/op	 1000.00 MB/s
BenchmarkParseSize/valid/100KB-2 	   100	    100000 ns/op	  500.00 MB/s
BenchmarkRepairSize/text/deep_cut/1KiB-2 	   10000	      4000 ns/op	   2.00 ns/byte
BenchmarkRepairSize/text/deep_cut/64KiB-2 	   100	    200000 ns/op	   3.00 ns/byte
BenchmarkRepairSize/text/deep_cut/1MiB-2 	   10	    3000000 ns/op	   4.00 ns/byte
BenchmarkBaseRepairSize/text/long_string/1KiB-2 	   10000	      4000 ns/op	   5.00 ns/byte
BenchmarkBaseRepairSize/text/deep_cut/64KiB-2 	   100	    200000 ns/op	   12.00 ns/byte
BenchmarkHugeBroken/default-cap-2 	  10	  25000000 ns/op	    3000 B/op	      44 allocs/op
BenchmarkToolsNode/valid/8/eino-2 	  2000	     40000 ns/op	     30000 cpu-ns/op	    9365 B/op	     155 allocs/op
BenchmarkToolsNode/valid/8/saidex-2 	  2000	     50000 ns/op	     33000 cpu-ns/op	    9245 B/op	     155 allocs/op
BenchmarkToolsNodeBroken/invalid/8/eino-2 	  2000	     40000 ns/op	     20000 cpu-ns/op	         0 answered/op	    9000 B/op	     255 allocs/op
BenchmarkToolsNodeBroken/invalid/8/saidex-2 	  2000	     90000 ns/op	     60000 cpu-ns/op	         8.000 answered/op	    9000 B/op	     1019 allocs/op
BenchmarkScaleHistory/calls=1000-2 	  10	   1000000 ns/op	    100 B/op	      10 allocs/op
BenchmarkScaleHistory/calls=10000-2 	  10	  12000000 ns/op	   1000 B/op	      10 allocs/op
BenchmarkScaleUnknownTool/tools=1000-2 	  10	     50000 ns/op	   300 bytes/msg	    100 B/op	      5 allocs/op
BenchmarkScaleUnknownTool/tools=10000-2 	  10	    900000 ns/op	   310 bytes/msg	    100 B/op	      5 allocs/op
BenchmarkScaleDeep/depth=1000-2 	  10	   1000000 ns/op	    100 B/op	      10 allocs/op
BenchmarkScaleDeep/depth=8000-2 	  10	  10000000 ns/op	    800 B/op	      10 allocs/op
PASS
`

func TestReportTakesMediansAndRatios(t *testing.T) {
	res := results{}
	meta, cpu, err := parse(strings.NewReader(sample), res)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta) != 1 || cpu != "Test CPU" {
		t.Fatalf("meta %q, cpu %q", meta, cpu)
	}
	if v, _ := res.get("BenchmarkRun/valid/8", "ns/op"); v != 70000 {
		t.Fatalf("median = %v, want 70000", v)
	}
	var b bytes.Buffer
	report(&b, res, meta, cpu)
	out := b.String()
	for _, want := range []string{
		"| 8 | 1.40× | 1.20× | ≤ 1.3× (Invoke) | yes | 0.70× |", // valid Run and Invoke / stock: 70000 and 60000 / 50000, the goal at 8 on Invoke; Run / functions-agent
		"| 8 | 50.0 | 15.0 | 35.0 | **no** | 25.0 | 37.5 |",     // (400-120)/8 allocs beyond the tool's own; the baselines' allocs/call
		"| 10 | 1.20× | 50.0 |",                                 // ns/call ratio to one call
		"| valid | 100KB | 2.00 | 2.00× |",                      // ns/byte and its ratio to 1 KB
		"| 0.50× | yes | 44 |",                                  // 25 ms of the 50 ms budget
		"go test -run '^$' -bench . -benchmem -count 3 .",
		"| 1 | n/a | not measured |",
		"| a message of n calls, half answered by earlier tool messages | 1.0 ms | 12.0 ms | 12.00× | yes | 10.00× | — | — |",
		"| one call of an unknown tool, n tools | 50 µs | 900 µs | 18.00× | **no** | 1.00× | 300 | 310 |",
		"| 8000 | 10.0 ms | 800 | 10.00× | 8.00× | 8.0× | yes | yes |",
		"| text | deep_cut | 2.00 | 3.00 | 4.00 | yes | 2.00× | **no** |", // RepairSize: ns/byte, growth to 1 MiB
		"| deep_cut | 64KiB | 12.00 | 3.00 | 0.25× |",                     // before (the base commit's build) and after
		"| long_string | 1KiB | 5.00 | n/a | n/a |",
		"| 8 | 1.25× | 1.10× | yes | 155 | 155 |",         // Eino: wall and CPU ratios, the target on CPU
		"| schema-invalid | 0 | 8 | 3.00× | 255 | 1019 |", // Eino, broken calls
		"| 64 | n/a | n/a | not measured | n/a | n/a |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestREADMECostMatchesBENCHMARKS fails when the generated Cost section of
// docs/cost.md (the README links it) is not what benchtable -readme writes
// from BENCHMARKS.md: every figure it states is the measured one.
func TestREADMECostMatchesBENCHMARKS(t *testing.T) {
	bench, err := os.ReadFile("../../../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../docs/cost.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := costSection(string(bench))
	if err != nil {
		t.Fatal(err)
	}
	got, err := currentCost(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("docs/cost.md's generated Cost section differs from BENCHMARKS.md's figures; run go run ./internal/cmd/benchtable -readme docs/cost.md BENCHMARKS.md\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// TestCostSectionReadsTheTables checks costSection on a report of the
// sample: a missing table is an error, not a blank figure.
func TestCostSectionReadsTheTables(t *testing.T) {
	if _, err := costSection("# Benchmarks\n"); err == nil {
		t.Error("costSection of a document without tables: no error")
	}
}
