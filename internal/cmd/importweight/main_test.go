package main

import (
	"slices"
	"strings"
	"testing"
)

// graph builds a measure's packages from "path:module:import,import"
// entries; module "std" marks the standard library.
func graph(entries ...string) map[string]pkg {
	pkgs := map[string]pkg{}
	for _, e := range entries {
		f := strings.SplitN(e, ":", 3)
		p := pkg{std: f[1] == "std"}
		if !p.std {
			p.module = f[1]
		}
		if f[2] != "" {
			p.imports = strings.Split(f[2], ",")
		}
		pkgs[f[0]] = p
	}
	return pkgs
}

func TestReportChecksTheGoal(t *testing.T) {
	base := measure{label: "without", packages: 216, nonStd: 20, binary: 10_000_000, stripped: 7_000_000}
	tests := []struct {
		name string
		with measure
		want []string
	}{
		{
			name: "within the goal",
			with: measure{label: "with", packages: 251, nonStd: 40, binary: 12_500_000, stripped: 8_000_000},
			want: []string{"| **+35** (+20) | **+2.5** | **+1.0** |", "| Extra packages | ≤ 35 | 35 | yes |",
				"| Extra binary, unstripped | ≤ 2.5 MB | 2.50 MB | yes |", "| Extra binary, stripped | ≤ 2.5 MB | 1.00 MB | yes |"},
		},
		{
			name: "over the goal",
			with: measure{label: "with", packages: 257, nonStd: 49, binary: 13_300_000, stripped: 9_600_000},
			want: []string{"| Extra packages | ≤ 35 | 41 | **no** |", "| Extra binary, unstripped | ≤ 2.5 MB | 3.30 MB | **no** |",
				"| Extra binary, stripped | ≤ 2.5 MB | 2.60 MB | **no** |"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			report(&b, []measure{base, tt.with}, "go1.x", "v0.1.14", false)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestByDependencyAttributesAddedPackages(t *testing.T) {
	base := measure{pkgs: graph(
		"importweight/without:importweight:fmt,example.com/lc",
		"fmt:std:", "example.com/lc:example.com/lc:fmt",
	)}
	with := measure{pkgs: graph(
		"importweight/with:importweight:github.com/saidex/saidex-go,example.com/lc",
		"github.com/saidex/saidex-go:github.com/saidex/saidex-go:fmt,example.com/lc,example.com/schema,example.com/repair,example.com/json,hash/maphash",
		"fmt:std:", "example.com/lc:example.com/lc:fmt",
		"example.com/schema:example.com/schema:go/ast,example.com/schema/sub",
		"example.com/schema/sub:example.com/schema:",
		"go/ast:std:",
		"example.com/repair:example.com/repair:example.com/json",
		"example.com/json:example.com/json:",
		"hash/maphash:std:",
	)}
	got := byDependency(base, with)
	want := []depRow{
		{"`example.com/schema`", 3, 1}, // its two packages and go/ast
		{"`example.com/json` + `example.com/repair`", 1, 0},
		{"`example.com/repair`", 1, 0},
		{"saidex itself", 1, 0},
		{"standard library", 1, 1}, // hash/maphash, imported by saidex directly
	}
	if !slices.Equal(got, want) {
		t.Errorf("byDependency =\n%v\nwant\n%v", got, want)
	}
}
