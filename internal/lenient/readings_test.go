package lenient

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestReadingsPlaceTheMissingClosersWhereAMemberEnds(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // nil: no choice offered
	}{
		{"one nested object", `{"a": {"b": 1, "c": "x"`,
			[]string{`{"a":{"b":1,"c":"x"}}`, `{"a":{"b":1},"c":"x"}`}},
		{"ends with a brace", `{"a": {"b": 1, "c": {"d": 2}`,
			[]string{`{"a":{"b":1,"c":{"d":2}}}`, `{"a":{"b":1},"c":{"d":2}}`}},
		{"two closers missing, one reading", `{"a": {"b": "x"`, nil},
		{"two closers missing, two places", `{"a": {"b": 1, "c": {"d": 2, "e": "x"`,
			[]string{`{"a":{"b":1,"c":{"d":2,"e":"x"}}}`, `{"a":{"b":1,"c":{"d":2},"e":"x"}}`, `{"a":{"b":1,"c":{"d":2}},"e":"x"}`, `{"a":{"b":1},"c":{"d":2,"e":"x"}}`, `{"a":{"b":1},"c":{"d":2},"e":"x"}`}},
		{"an array's items cannot become members", `{"a": {"b": [1, "x"]`, nil},
		{"members of the root only", `{"a": 1, "b": "x"`, nil},
		{"commas inside strings are not places", `{"a": {"b": "x, y"`, nil},
		{"a member moved up repeats a name", `{"c": 0, "a": {"b": 1, "c": "x"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			res, err := Repair(tt.raw, Options{FixSyntax: true, Choose: func(rs []string) int {
				got = slices.Clone(rs)
				return -1
			}})
			if !slices.Equal(got, tt.want) {
				t.Fatalf("readings %q, want %q", got, tt.want)
			}
			if strings.Contains(tt.name, "ends with a brace") {
				if err == nil {
					t.Fatalf("Repair = %q; want the refusal when Choose cannot tell", res.JSON)
				}
			} else if err != nil {
				t.Fatalf("Repair refused: %v", err)
			}
		})
	}
}

func TestRepairTakesTheReadingChooseTakes(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"a": {"b": 1, "c": "x"`, `{"a":{"b":1},"c":"x"}`},
		{`{"a": {"b": 1, "c": {"d": 2}`, `{"a":{"b":1},"c":{"d":2}}`},
		{`{"a": {"b": {"x": 1}, "c": {"d": 2}, "e": "x"`, `{"a":{"b":{"x":1}},"c":{"d":2},"e":"x"}`},
	} {
		res, err := Repair(tt.raw, Options{FixSyntax: true, Choose: func(rs []string) int { return len(rs) - 1 }})
		if err != nil || res.JSON != tt.want {
			t.Errorf("Repair(%q) = %q, %v; want %q", tt.raw, res.JSON, err, tt.want)
		}
	}
}

func TestReadingsAreBounded(t *testing.T) {
	var b strings.Builder
	for k := range 40 {
		fmt.Fprintf(&b, `"k%d": 1, `, k)
	}
	many := `{"a": {` + b.String() + `"z": "x"`
	called := false
	res, err := Repair(many, Options{FixSyntax: true, Choose: func([]string) int { called = true; return 1 }})
	if called || err != nil || !strings.HasSuffix(res.JSON, `"z":"x"}}`) {
		t.Fatalf("Choose called %v, Repair = %q, %v; want no choice past maxReadings, the closers at the end", called, res.JSON, err)
	}
	if n, ok := placements(3, 2); !ok || n != 6 {
		t.Fatalf("placements(3, 2) = %d, %v; want 6", n, ok)
	}
	if _, ok := placements(1000, 1000); ok {
		t.Fatal("placements(1000, 1000) within bounds")
	}
}
