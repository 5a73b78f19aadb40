package readings

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// The window names each value's reading by a fixed order, not by the
// order the search found the readings in: readings found in any order
// give the same window, the same edits named for each value.
func TestWindowNamesReadingsWhateverTheirOrder(t *testing.T) {
	texts := []string{
		`{"k": 'v'}`,                        // a string's quote style, or the single-quote habit
		`// {"a": 1}`,                       // a comment dropped, or the wrapper
		`{"a":"4#2"}{"a":"4#2"}`,            // a copy re-sent, or either of two objects
		`{"a": 1, "b": {"c": ["x", 2]}`,     // the cut, or a closer inserted at the end
		`{"a": [1, 2}, "b": 3}`,             // a closer swapped, or dropped and stray
		"{\"a\": 1,\n# why\n\"b\": 2}",      // a comment
		`{"a": 1 "b": None}`,                // two faults
		`{"q": "x", "n": [1, 2,], "z": "ab`, // a comma, and a value cut off
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range texts {
		fs, over, _ := readAll(s, true, Budget)
		want := window(needed(fs), over)
		if len(want.Readings) == 0 {
			t.Fatalf("%q: no reading", s)
		}
		for range 20 {
			shuffled := append([]found(nil), fs...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := window(needed(shuffled), over); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: the window depends on the order its readings were found in:\n%+v\n%+v", s, got, want)
			}
		}
	}
}
