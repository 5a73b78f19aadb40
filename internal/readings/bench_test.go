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

// shortTexts are typical short broken texts (20-300 bytes, the sweeps'
// size), one fault or two each, built here (not corpus cases).
func shortTexts() []struct{ name, text string } {
	obj := `{"city": "Paris", "days": 3, "units": "metric", "tags": ["a", "b"], "opts": {"x": 1, "y": null}}`
	long := `{"query": "select name, price from products where price > 10 order by price desc", "limit": 25, "offset": 0, "explain": false, "columns": ["name", "price", "stock"], "filters": {"stock": {"gt": 0}, "tag": "sale"}}`
	return []struct{ name, text string }{
		{"comma", `{"a": 1 "b": 2}`},
		{"comma_obj", strings.Replace(obj, `, "units"`, ` "units"`, 1)},
		{"comma_long", strings.Replace(long, `, "offset"`, ` "offset"`, 1)},
		{"trailing_comma", `{"a": [1, 2, 3,], "b": "x",}`},
		{"colon", `{"name" "Ada", "age": 36}`},
		{"cut_value", obj[:40]},
		{"cut_string", long[:30]},
		{"cut_after_comma", `{"a": "xy", "b": 12,`},
		{"cut_long", long[:150]},
		{"single_quotes", `{'city': 'Paris', 'days': 3}`},
		{"single_quotes_long", strings.ReplaceAll(obj, `"`, `'`)},
		{"one_single_quoted", `{"k": 'v', "n": 2}`},
		{"line_comment", "{\"a\": 1, // the count\n\"b\": 2}"},
		{"block_comment", `{"a": 1, /* note */ "b": [true, false]}`},
		{"hash_comment", "{\"a\": 1,\n# why\n\"b\": 2}"},
		{"prose_around", "Sure! Here is the call:\n" + obj + "\nLet me know."},
		{"fenced", "```json\n" + obj + "\n```"},
		{"stray_brace", `{"a": 1}, "b": 2}`},
		{"stray_brace_long", strings.Replace(long, `"limit"`, `{"limit"`, 1)},
		{"stray_bracket", `{"a": [1, 2]], "b": 3}`},
		{"dropped_closer", `{"a": [{"b": 1}, {"c": 2}}`},
		{"swapped_closer", `{"a": [1, 2}, "b": 3}`},
		{"python_literals", `{"x": None, "y": True, "z": False}`},
		{"literal_case", `{"ok": TRUE, "v": NULL}`},
		{"unquoted_key", `{city: "Paris", days: 3}`},
		{"unquoted_value", `{"city": Paris, "days": 3}`},
		{"loose_number", `{"a": .5, "b": +3, "c": 1.}`},
		{"escape", "{\"text\": \"line one\nline two\", \"n\": 1}"},
		{"windows_path", `{"path": "C:\new\app.exe"}`},
		{"double_encoded", `"{\"a\": 1, \"b\": [2, 3]}"`},
		{"repeated_object", obj + obj},
		{"repeated_key", `{"a": 1, "b": 2, "a": 1}`},
		{"template_quotes", `{"a": <|"|>hello<|"|>, "b": 2}`},
		{"typographic", `{“a”: 1, “b”: “x”}`},
		{"invisible", "{\"a\":\u200b1, \"b\": 2}"},
		{"two_faults", `{'a': 1 'b': None}`},
		{"two_faults_long", strings.Replace(strings.Replace(long, `, "offset"`, ` "offset"`, 1), `false`, `False`, 1)},
		{"no_reading", `hello there`},
	}
}

// BenchmarkReadShort is the readings engine's cost on short broken texts
// (one sub-benchmark per shape, and all of them in turn).
func BenchmarkReadShort(b *testing.B) {
	texts := shortTexts()
	bytes := 0
	for _, t := range texts {
		bytes += len(t.text)
	}
	b.Run("all", func(b *testing.B) {
		b.SetBytes(int64(bytes))
		b.ReportAllocs()
		for b.Loop() {
			for _, t := range texts {
				readings.Repair(t.text)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/text")
	})
	for _, t := range texts {
		b.Run(t.name, func(b *testing.B) {
			b.SetBytes(int64(len(t.text)))
			b.ReportAllocs()
			for b.Loop() {
				readings.Repair(t.text)
			}
		})
	}
}
