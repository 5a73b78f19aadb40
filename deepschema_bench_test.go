package saidex

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/tools"
)

// nestedSchema returns an object schema of depth nested objects, each
// with one property "a" (38 bytes a level: 800 levels are 30 KB), as a
// hostile server's inputSchema may be.
func nestedSchema(depth int) string {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString(`}}`)
	}
	return b.String()
}

// boundSchema is a schema near every bound: 30 nested objects (60 levels
// of JSON), then an object of props string properties.
func boundSchema(props int) string {
	var b strings.Builder
	for range 30 {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"object","properties":{`)
	for i := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`}}`)
	for range 30 {
		b.WriteString(`}}`)
	}
	return b.String()
}

// TestSchemaBounds: a schema past MaxSchemaDepth, MaxSchemaObjects or
// MaxSchemaBytes is refused by NewToolNode with ErrInvalidConfig naming
// the tool; one within them compiles.
func TestSchemaBounds(t *testing.T) {
	tests := []struct {
		name, schema string
		refused      string // a text the error holds; "" when it compiles
	}{
		{"800 nested objects", nestedSchema(800), "MaxSchemaDepth"},
		{"1,600 nested objects", nestedSchema(1600), "MaxSchemaDepth"},
		{"nested to the depth bound", nestedSchema(MaxSchemaDepth/2 - 1), ""},
		{"an array nested past the bound", `{"type":"object","properties":{"a":{"enum":[` + strings.Repeat("[", MaxSchemaDepth) + strings.Repeat("]", MaxSchemaDepth) + `]}}}`, "MaxSchemaDepth"},
		{"brackets inside strings do not count", `{"type":"object","description":"` + strings.Repeat("{[", 5000) + `\"{"}`, ""},
		{"many subschemas", boundSchema(MaxSchemaObjects), "MaxSchemaObjects"},
		{"near every bound", boundSchema(MaxSchemaObjects - 70), ""},
		{"too many bytes", `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, "MaxSchemaBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolNode([]tools.Tool{ToolWithSchema(plainTool{name: "deep"}, tt.schema)}, WithLogger(sanDiscard))
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("NewToolNode: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `tool "deep"`) || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("err = %v, want ErrInvalidConfig naming the tool and %s", err, tt.refused)
			}
		})
	}
}

// BenchmarkNewToolNodeDepth measures schema setup against schema size:
// 800 and 1,600 nested objects (both refused by MaxSchemaDepth, after one
// pass over the text), and a schema near every bound (compiled).
func BenchmarkNewToolNodeDepth(b *testing.B) {
	for _, depth := range []int{800, 1600} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			tl := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(depth))}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = NewToolNode(tl, WithLogger(sanDiscard))
			}
		})
	}
	b.Run("near every bound", func(b *testing.B) {
		tl := []tools.Tool{ToolWithSchema(plainTool{name: "wide"}, boundSchema(MaxSchemaObjects-70))}
		b.ReportAllocs()
		for b.Loop() {
			_, _ = NewToolNode(tl, WithLogger(sanDiscard))
		}
	})
}

// BenchmarkSchemaSetupRatio reports the setup time of the 1,600-level
// schema over that of the 800-level one ("ratio"): linear setup keeps it
// near 2.
func BenchmarkSchemaSetupRatio(b *testing.B) {
	small := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(800))}
	large := []tools.Tool{ToolWithSchema(plainTool{name: "deep"}, nestedSchema(1600))}
	var ts, tl time.Duration
	for b.Loop() {
		start := time.Now()
		_, _ = NewToolNode(small, WithLogger(sanDiscard))
		mid := time.Now()
		_, _ = NewToolNode(large, WithLogger(sanDiscard))
		ts, tl = ts+mid.Sub(start), tl+time.Since(mid)
	}
	b.ReportMetric(float64(tl)/float64(ts), "ratio")
}
