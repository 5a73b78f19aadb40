package faultinject

import (
	"strings"
	"testing"
)

// TestJudgeNamesAliasesByTheWindow checks the model's alias judgement on
// hand-made texts: a value other than the original that reached the tool
// is an alias by the window only when the text is within the brute-force
// reader's reach, its cheapest reading costs one fault, and the original
// is not among the readings within one fault of it.
func TestJudgeNamesAliasesByTheWindow(t *testing.T) {
	long := strings.Repeat("x", MaxJudgeBytes)
	tests := []struct {
		name, orig, op, text, args string
		want                       Outcome
	}{
		{
			// A quote moved over the colon (2) and a member repeated (1):
			// the original costs 3, the text reads at one fault (a colon
			// dropped after the key "n:") as another value. Written with
			// a space after the comma and the colon, but none after the
			// moved quote, it is no single fault of the value received
			// by the forward forms (IsAlias), only by the window.
			name: "original three faults away, cheapest one", orig: `{"n": [1]}`, op: "quote_moved+repeated_key",
			text: `{"n:"[1], "n": true}`, args: `{"n:":[1],"n":true}`, want: AliasedWindow,
		},
		{
			// The same quote moved alone: the original costs 2, within
			// one fault of the cheapest reading (1), so running the
			// cheapest is a bug.
			name: "original in the window", orig: `{"n":[1]}`, op: "quote_moved",
			text: `{"n:"[1]}`, args: `{"n:":[1]}`, want: Different,
		},
		{
			// The same pair past the reader's reach: only IsAlias may
			// excuse it, and it does not.
			name: "beyond the reader's reach", orig: `{"n": [1], "s": "` + long + `"}`, op: "quote_moved+repeated_key",
			text: `{"n:"[1], "n": true, "s": "` + long + `"}`, args: `{"n:":[1],"n":true,"s":"` + long + `"}`, want: Different,
		},
		{
			// A key's closing quote moved one letter back (2) and a quote
			// added after the value (2): the original costs 4, the text
			// reads at two faults (a colon and the value's opening quote)
			// as another value, and at three as nothing else. The referee
			// reads that with one edit more for the original alone.
			name: "original four faults away, cheapest two", orig: `{"options": null}`, op: "quote_moved+quote",
			text: "{\n    \"option\"s: null\"\n}", args: `{"option":"s: null"}`, want: AliasedWindow,
		},
		{
			// The key's quote moved alone (2): the original is the cheapest.
			name: "original at two faults, the cheapest", orig: `{"options": null}`, op: "quote_moved",
			text: `{"option"s: null}`, args: `{"option":"s: null"}`, want: Different,
		},
		{
			name: "the original ran", orig: `{"n":[1]}`, op: "quote_moved",
			text: `{"n:"[1]}`, args: `{"n":[1]}`, want: Original,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, err := DecodeOrdered(tt.orig)
			if err != nil {
				t.Fatal(err)
			}
			p := Picked{Orig: orig, Layout: Layout{SpaceAfter: true}, M: Mutation{Op: tt.op, Text: tt.text}}
			if got := p.Judge(tt.args, true); got != tt.want {
				t.Errorf("Judge = %v, want %v", got, tt.want)
			}
			if got, want := AliasByWindow(tt.text, orig, false), tt.want == AliasedWindow; got != want {
				t.Errorf("AliasByWindow = %v, want %v", got, want)
			}
		})
	}
}

// A cut text's reading of unknown value counts as the decision rule
// counts it: among the cheapest, it may be the original, and excuses
// nothing; one fault past them, it names no value, and a run of the
// cheapest reading is an alias where no known reading of the original is
// within the window.
func TestAliasByWindowCountsACutReadingOnlyAmongTheCheapest(t *testing.T) {
	tests := []struct {
		orig, text string
		want       bool
	}{
		// Cut after the key, then an empty object appended (2): the
		// window reads a colon dropped and the brace cut (2); the
		// readings at 3 that cut a string name no value.
		{`{"data": []}`, `{"data"{}`, true},
		// Cut inside a string: the cheapest reading is the cut's.
		{`{"data": "abc"}`, `{"data": "ab`, false},
	}
	for _, tt := range tests {
		orig, err := DecodeOrdered(tt.orig)
		if err != nil {
			t.Fatal(err)
		}
		if got := AliasByWindow(tt.text, orig, true); got != tt.want {
			t.Errorf("AliasByWindow(%q, %s, cut) = %v, want %v", tt.text, tt.orig, got, tt.want)
		}
	}
}
