package saidex

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// The over-strict classes of issue 18 are repaired by the repair stage,
// each reported by its exported step after RepairJSON (or by the
// extraction step it is), and their near misses are refused with feedback
// that names what is wrong, never a cut where the text is not cut.
func TestRepairArgumentsRepairsEachClassByName(t *testing.T) {
	tests := []struct {
		raw, want string
		step      RepairStep
	}{
		{`{"q": 'abc' + 'def'}`, `{"q":"abcdef"}`, RepairJoinStrings},
		{`{"city" "Oslo", "days" 3}`, `{"city":"Oslo","days":3}`, RepairMissingColon},
		{`{, "a": 1}`, `{"a":1}`, RepairStrayComma},
		{`{"a": 1},`, `{"a":1}`, RepairStrayComma},
		{`{"xs": [1, 2}`, `{"xs":[1,2]}`, RepairMismatchedBracket},
		{`{{city: "Oslo"}}`, `{"city":"Oslo"}`, RepairDoubledBraces},
		{`Weather in {city}: {"city": "Oslo"}`, `{"city":"Oslo"}`, RepairPlaceholders},
		{`{"a": 1, "b": 2} {"b": 2, "a": 1}`, `{"a":1,"b":2}`, RepairRepeatedObject},
		{`{"a": 1, {"a": 1, "b": 2}`, `{"a":1,"b":2}`, RepairCumulativeStream},
		{"{\"a\":\u00a0\"x\"}", `{"a":"x"}`, RepairInvisibleSpace},
		{`{name": "Ann"}`, `{"name":"Ann"}`, RepairMissingQuote},
		{"{\"a\": \"x\"// note\n}", `{"a":"x"}`, RepairJSON},
		{`{ \"a\": 1 }`, `{"a":1}`, RepairDoubleEncoded},
		{`"` + "```json\\n{\\\"a\\\": 1}\\n```" + `"`, `{"a":1}`, RepairCodeFence},
		{`{"item": "a 27" monitor"}`, `{"item":"a 27\" monitor"}`, RepairJSON},
		{"{\"a\":\\n 1}", `{"a":1}`, RepairEscapedWhitespace},
		{`{"a: 1}`, `{"a":1}`, RepairUnclosedKey},
		{`{"a": 1}]`, `{"a":1}`, RepairStrayCloser},
		{`{"xs": [1, 2}, "b": 3}`, `{"xs":[1,2],"b":3}`, RepairWrongCloser},
		{`{"a": NULL}`, `{"a":null}`, RepairLiteralCase},
		{`{"a": 5.}`, `{"a":5}`, RepairLooseNumber},
		{`{5: "a"}`, `{"5":"a"}`, RepairNumericKey},
	}
	for _, tt := range tests {
		res, err := repairArguments(tt.raw, defaultRepairOptions())
		if err != nil {
			t.Errorf("repairArguments(%q): %v", tt.raw, err)
			continue
		}
		want, _ := jsonread.Decode(tt.want)
		if !sameJSON(res.value, want) || !slices.Contains(res.steps, tt.step) {
			t.Errorf("repairArguments(%q) = %s %v, want %s with %s", tt.raw, res.json, res.steps, tt.want, tt.step)
		}
	}

	refusals := []struct{ raw, reason string }{
		{`{"q": "abc" + name}`, "joined with '+' to something that is not a quoted string"},
		{`{"a" b}`, "not followed by a colon and a value"},
		{`{"a": 1}}]}`, "match no opening bracket"},
		{`{"xs": [1, 2}, "b": [3}}`, "closes an array"},
		{`{{"a": 1}`, "closed with a single '}'"},
		{`{"a": 1} or {b: 2}`, "two JSON objects"},
		{`{"a": {"a": 1}`, "ambiguous"},
	}
	for _, tt := range refusals {
		_, err := repairArguments(tt.raw, defaultRepairOptions())
		var me *MalformedArgumentsError
		if !errors.As(err, &me) || !strings.Contains(me.Reason, tt.reason) || strings.Contains(me.Reason, "cut off") {
			t.Errorf("repairArguments(%q): %v, want a refusal naming %q", tt.raw, err, tt.reason)
		}
	}
}
