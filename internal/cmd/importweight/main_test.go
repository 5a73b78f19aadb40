package main

import (
	"strings"
	"testing"
)

func TestReportChecksTheGoal(t *testing.T) {
	base := measure{label: "without", packages: 216, nonStd: 20, binary: 10_000_000, stripped: 7_000_000,
		modules: map[string]int{"importweight": 1, "github.com/tmc/langchaingo": 11}}
	tests := []struct {
		name string
		with measure
		want []string
	}{
		{
			name: "within the goal",
			with: measure{label: "with", packages: 251, nonStd: 40, binary: 12_500_000, stripped: 8_000_000,
				modules: map[string]int{"importweight": 1, "github.com/tmc/langchaingo": 11, "example.com/dep": 20}},
			want: []string{"| **+35** (+20) | **+2.5** | **+1.0** |", "| Extra packages | ≤ 35 | 35 | yes |",
				"| Extra binary, unstripped | ≤ 2.5 MB | 2.50 MB | yes |", "| `example.com/dep` | +20 |", "| standard library | +15 |"},
		},
		{
			name: "over the goal",
			with: measure{label: "with", packages: 257, nonStd: 49, binary: 13_300_000, stripped: 9_600_000,
				modules: map[string]int{"importweight": 1, "github.com/tmc/langchaingo": 11, "example.com/dep": 29}},
			want: []string{"| Extra packages | ≤ 35 | 41 | **no** |", "| Extra binary, unstripped | ≤ 2.5 MB | 3.30 MB | **no** |",
				"| Extra binary, stripped | ≤ 2.5 MB | 2.60 MB | **no** |"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			report(&b, []measure{base, tt.with}, "go1.x", "v0.1.14", true)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "langchaingo` |") {
				t.Errorf("a module both programs share is listed:\n%s", b.String())
			}
		})
	}
}
