package readings_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/faultinject"
	. "github.com/saidex/saidex-go/internal/readings"
)

var refereeObjects = flag.Int("referee-objects", 2, "objects whose single faults TestWindowAgreesWithTheReferee judges")

// agreement counts, per operator, how the engine's window compares with
// the brute-force referee's (faultinject.Read).
type agreement struct {
	texts, same, run, unsafe int
	examples                 []string
}

// compare judges one broken text: same (equal minimum and equal value
// sets), and unsafe (the engine runs a value the referee's window does
// not hold alone, as the decision rule counts its readings: Agree).
func compare(s string) (same, ran, unsafe bool, note string, err error) {
	ref, err := faultinject.Read(s)
	if err != nil {
		return false, false, false, "", err
	}
	w := Read(s)
	var refVals []string
	for _, r := range ref.Readings {
		refVals = append(refVals, Canonical(mustText(r.Value)))
	}
	sort.Strings(refVals)
	engVals := append([]string(nil), w.Values()...)
	sort.Strings(engVals)
	same = ref.Min == w.Min && strings.Join(refVals, "\x00") == strings.Join(engVals, "\x00")
	r, v := w.Decide()
	ran = v == Run
	if ran {
		unsafe = !ref.Agree() || !ref.Holds(mustValue(r.Text))
	}
	if !same {
		note = fmt.Sprintf("%q\n    engine min %d %v (%v)\n    referee min %d %v", s, w.Min, describe(w), v, ref.Min, describeRef(ref))
	}
	return same, ran, unsafe, note, nil
}

func mustValue(text string) faultinject.Value {
	v, err := faultinject.DecodeOrdered(text)
	if err != nil {
		panic(err)
	}
	return v
}

func mustText(v faultinject.Value) string {
	return faultinject.Encode(v, faultinject.Layout{}).S
}

func describe(w Window) []string {
	var out []string
	for _, r := range w.Readings {
		out = append(out, fmt.Sprintf("%d%v%v:%s", r.Cost, r.Ops, r.At, r.Text))
	}
	return out
}

func describeRef(w faultinject.Window) []string {
	var out []string
	for _, r := range w.Readings {
		out = append(out, fmt.Sprintf("%d%v:%s", r.Cost, r.Ops, mustText(r.Value)))
	}
	return out
}

// The key correctness test: for every single fault, by every operator,
// of small generated objects, the engine's window is compared with the
// brute-force referee's, and the engine never runs a value unless the
// referee's window holds that value alone. Disagreements on the window
// itself (where the engine refuses) are reported per operator.
func TestWindowAgreesWithTheReferee(t *testing.T) {
	if testing.Short() {
		t.Skip("the referee takes about 20 ms a text")
	}
	per := map[string]*agreement{}
	done := 0
	for seed := uint64(1); done < *refereeObjects; seed++ {
		g := faultinject.NewGen(seed, nil)
		tx := faultinject.Encode(g.Object(), g.RandomLayout())
		if len(tx.S) > 40 {
			continue
		}
		done++
		for _, op := range faultinject.Ops {
			a := per[op.Name]
			if a == nil {
				a = &agreement{}
				per[op.Name] = a
			}
			for _, m := range op.Singles(tx, g.Rand()) {
				if len(m.Text) > faultinject.MaxReadBytes || json.Valid([]byte(m.Text)) {
					continue
				}
				same, ran, unsafe, note, err := compare(m.Text)
				if err != nil {
					continue
				}
				a.texts++
				if same {
					a.same++
				} else if len(a.examples) < 2 {
					a.examples = append(a.examples, note)
				}
				if ran {
					a.run++
				}
				if unsafe {
					a.unsafe++
					t.Errorf("%s: the engine runs a value the referee's window does not hold alone: %s", op.Name, note)
				}
			}
		}
	}
	var names []string
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := per[n]
		t.Logf("%-16s texts %5d  same window %5d  run %5d  unsafe %d", n, a.texts, a.same, a.run, a.unsafe)
		for _, ex := range a.examples {
			t.Logf("  %s", ex)
		}
	}
}

// The rows of the wrapper, the bare token and the other quote marks, on
// texts of their own: the engine's window is the referee's.
func TestWindowAgreesOnTheSkipAndBareRows(t *testing.T) {
	for _, s := range []string{
		"{\"file_type\":css\\n  }",
		`{"a": [x \n, ""]}`,
		`{"mode":&quot;both&quot;}`,
		"{\"mode\":`both`}",
		"{\"mode\":``}",
		"{`mode`:\"both\"}",
		`{"mode": two words}`,
		"{\"mode\":\u200bboth}",
		`Options: {"city": "Oslo"} or {"q": 1}`,
		`<think>I'll send {"n": 1} once I`,
		`{"n": 1}<think>or maybe`,
		`id={"a": 1}`,
		`args={"a": 1}`,
		`# {"a": 1}`,
		`/* {"a": 1} */`,
	} {
		same, _, unsafe, note, err := compare(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !same || unsafe {
			t.Errorf("windows differ (unsafe %v): %s", unsafe, note)
		}
	}
}

// The cut row at every place a stream can be cut, and the invisible
// row: the engine's window is the referee's, and so is whether a cheapest
// reading leaves the value unknown.
func TestWindowAgreesOnCutsAndInvisibles(t *testing.T) {
	for _, s := range []string{
		`{"`, `{"ke`, `{"a": 1, "b`, `{"a"`, `{"a" `, `{"a":`, `{"a": `, `{"a": 1,`, "{\"a\": 1,\n", `{"a":[1,`, `{"a":[`,
		`{"a":tr`, `{"a":nul`, `{"a":-`, `{"a":1.`, `{"a":1e`, `{"a":1e+`, `{"a":12`, `{"a":"x\`, `{"a":"\u00`, `{"a\`, `{"a":"x`,
		`{"a":{"b":"c"}`, `{"a":{"b":"c"},`, `{"a":[{"b`, `{"key\"q": false:`, `{"mode":1:`,
		"{\"a\":\u200b1}", "\ufeff{\"a\": 1}", "{\"a\": 1\u00a0}", "{\"a\": \"\"\u200b, \"b\": 1}", "{\"a\":1\u200b2}", "{\"a\u200b\":1}",
		"{\"a\":\u2060true,\u3000\"b\":[1,\u200b2]}",
	} {
		same, _, unsafe, note, err := compare(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !same || unsafe {
			t.Errorf("windows differ (unsafe %v): %s", unsafe, note)
		}
		ref, _ := faultinject.Read(s)
		refCut := false
		for _, r := range ref.Readings {
			refCut = refCut || r.Cost == ref.Min && r.Unknown
		}
		if _, v := Read(s).Decide(); (v == Cut) != refCut {
			t.Errorf("%q: engine's verdict %v, referee's cheapest reading unknown: %v", s, v, refCut)
		}
	}
}

// HabitRewrites skips a text with no habit's mark (mayHoldHabit): on
// generated texts with one fault each, the rewrites of every text
// without a mark hold no habit, and those of some with one do.
func TestHabitRewritesNeedAHabitsMark(t *testing.T) {
	without, with := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		g := faultinject.NewGen(seed, nil)
		tx := faultinject.Encode(g.Object(), g.RandomLayout())
		for _, op := range faultinject.Ops {
			for _, m := range op.Singles(tx, g.Rand()) {
				hs := HabitRewritesAll(m.Text)
				if MayHoldHabit(m.Text) {
					with += min(len(hs), 1)
					continue
				}
				without++
				if len(hs) > 0 {
					t.Errorf("%q holds no habit's mark, but reads as %q by %v", m.Text, hs[0].Text, hs[0].Rows)
				}
			}
		}
	}
	if without == 0 || with == 0 {
		t.Fatalf("texts without a mark %d, with a habit's reading %d: want both", without, with)
	}
}
