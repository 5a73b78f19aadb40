package readings_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/internal/readings"
)

// benchShapes are the repair benchmarks' broken shapes
// (benchfixture.Shapes), plus deep nesting with one comma dropped in
// the middle and a long object with many single faults.
func benchShapes(size int) map[string]string {
	out := map[string]string{}
	for _, sh := range benchfixture.Shapes {
		out[string(sh)] = benchfixture.BrokenArguments(sh, size)
	}
	depth := size / 8
	out["deep_comma"] = strings.Repeat(`{"a":[`, depth/6) + `1 2` + strings.Repeat(`]}`, depth/6)
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size-32; i++ {
		fmt.Fprintf(&b, `"k%d": "v%d" `, i, i) // every comma dropped
	}
	b.WriteString(`"end": 1}`)
	out["many_faults"] = b.String()
	return out
}

// BenchmarkReadSize is the readings engine's cost per byte (ns/byte) on
// broken shapes of 1 KiB, 64 KiB and 1 MiB, next to today's engine
// (lenient.Repair) on the same texts. The target is at most 10 ns/byte.
func BenchmarkReadSize(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
		shapes := benchShapes(size.bytes)
		var names []string
		for _, sh := range benchfixture.Shapes {
			names = append(names, string(sh))
		}
		for _, name := range append(names, "deep_comma", "many_faults") {
			in := shapes[name]
			for _, engine := range []string{"readings", "lenient"} {
				b.Run(fmt.Sprintf("%s/%s/%s", engine, name, size.name), func(b *testing.B) {
					b.SetBytes(int64(len(in)))
					b.ReportAllocs()
					for b.Loop() {
						if engine == "readings" {
							readings.Repair(in)
						} else {
							_, _ = lenient.Repair(in, lenient.Options{StripThinking: true, FixSyntax: true})
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/byte")
				})
			}
		}
	}
}
