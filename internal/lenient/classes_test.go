package lenient

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// classSeeds are FuzzRepair's seeds for the repair classes of this file.
var classSeeds = []string{
	`{'q': 'abc' + 'def'}`, "{\"q\": \"a\" +\n \"b\"}", `{"q": "Use "+" to add"}`, `{"q": "abc" + name}`,
}

// repairCase is a repair the scanner must make: raw comes out as the value
// of want (JSON), with step among the steps reported.
type repairCase struct {
	name, raw, want string
	step            Step
}

// refusalCase is a near miss that must stay an error, whose reason
// contains reason.
type refusalCase struct {
	name, raw, reason string
}

func checkRepairs(t *testing.T, tests []repairCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, fix)
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.raw, err)
			}
			got, err := jsonread.Decode(res.JSON)
			if err != nil {
				t.Fatalf("Repair(%q) = %q: %v", tt.raw, res.JSON, err)
			}
			want, err := jsonread.Decode(tt.want)
			if err != nil {
				t.Fatalf("bad want %q: %v", tt.want, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Repair(%q) = %s, want %s", tt.raw, res.JSON, tt.want)
			}
			if !slices.Contains(res.Steps, tt.step) {
				t.Fatalf("Repair(%q): steps %v, want %s among them", tt.raw, res.Steps, tt.step)
			}
			if !slices.IsSortedFunc(res.Steps, func(a, b Step) int {
				return slices.Index(stepOrder, a) - slices.Index(stepOrder, b)
			}) {
				t.Fatalf("Repair(%q): steps %v out of order", tt.raw, res.Steps)
			}
		})
	}
}

func checkRefusals(t *testing.T, tests []refusalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Repair(tt.raw, fix)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Repair(%q) = %s %v, %v; want a refusal", tt.raw, res.JSON, res.Steps, err)
			}
			if !strings.Contains(e.Reason, tt.reason) {
				t.Fatalf("Repair(%q): reason %q, want it to contain %q", tt.raw, e.Reason, tt.reason)
			}
		})
	}
}

// A string written as quoted pieces joined by '+' is the joined value,
// never a value holding the quotes and the plus sign.
func TestRepairJoinsAStringWrittenAsQuotedPieces(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"single quotes", `{'q': 'abc' + 'def'}`, `{"q":"abcdef"}`, JoinStrings},
		{"double quotes", `{"q": "abc" + "def", "n": 1}`, `{"q":"abcdef","n":1}`, JoinStrings},
		{"across a line break", "{\"q\": \"Hello, \" +\n    \"world\"}", `{"q":"Hello, world"}`, JoinStrings},
		{"plus on the next line", "{\"q\": \"a\"\n + \"b\"\n}", `{"q":"ab"}`, JoinStrings},
		{"three pieces, mixed quotes", `{"q": 'a' + "b" + 'c'}`, `{"q":"abc"}`, JoinStrings},
		{"no white space", `{"q": "ab"+"cd"}`, `{"q":"abcd"}`, JoinStrings},
		{"in an array", `{"xs": ["a" + "b", "c"]}`, `{"xs":["ab","c"]}`, JoinStrings},
		{"a key", `{"ab" + "c": 1}`, `{"abc":1}`, JoinStrings},
		{"quotes of the other kind inside", `{"q": 'say "hi"' + ' now'}`, `{"q":"say \"hi\" now"}`, JoinStrings},
	})
	checkRefusals(t, []refusalCase{
		{"joined to a variable", `{"q": "abc" + name}`, "not a quoted string"},
		{"joined to a number", `{"q": "abc" + 1}`, "not a quoted string"},
		{"a quoted plus sign", `{"q": "Use "+" to add"}`, "quoted '+'"},
		{"an inner quote before the plus", `{"q": "he said "x" + "y" later"}`, "unescaped quote next to a '+'"},
		{"cut after the plus", `{"q": "abc" + `, "cut off inside a string value"},
	})
}
