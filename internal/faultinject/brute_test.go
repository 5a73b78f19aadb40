package faultinject

import (
	"errors"
	"strings"
	"testing"
)

func values(w Window) []string {
	var out []string
	for _, r := range w.Readings {
		out = append(out, canonical(r.Value))
	}
	return out
}

// The reader finds what a text means under the table: one reading where
// one fault explains it and nothing else within one fault does, two where
// two faults of the same cost read it differently.
func TestReadFindsTheWindow(t *testing.T) {
	tests := []struct {
		text string
		min  int
		want []string // the window's values, cheapest first (then by text)
	}{
		{`{"a":1 "b":2}`, 1, []string{`{"a":1,"b":2}`}},
		{`{"a":None}`, 1, []string{`{"a":null}`}},
		{`{"a":TRUE}`, 1, []string{`{"a":true}`}},
		{`{'a': 1}`, 1, []string{`{"a":1}`}},
		{`{'a': 'it's'}`, 1, []string{`{"a":"it's"}`}},               // an apostrophe left bare (bare_apostrophe)
		{`{'a': 'it's', 'n': 1}`, 1, []string{`{"a":"it's","n":1}`}}, // no long key: an apostrophe beside no word is a quote
		{`{'a':1,'b':[]}`, 1, []string{`{"a":1,"b":[]}`}},            // no key a":1,"b: no string is read inside another's content
		{`{"\u00e9": "x","\u00e9": "x"}`, 1, []string{`{"é":"x"}`}},  // no comma inside the key that breaks its escape, then the backslash habit: not structure where the habit places it
		{`{"a": hello}`, 1, []string{`{"a":"hello"}`}},
		{`{"a":1,"a":2}`, 1, []string{`{"a":1}`, `{"a":2}`}}, // which copy is meant: two readings
		{`{"a":1,"a":1}`, 1, []string{`{"a":1}`}},
		{"Sure: {\"a\":1} (done)", 1, []string{`{"a":1}`}},
		{`{"a":[1,2}`, 1, []string{`{"a":[1,2]}`}},
		{`"{\"a\":1}"`, 1, []string{`{"a":1}`}},
		{`{"a":1}{"a":1}`, 1, []string{`{"a":1}`}},
		{`{"a":.5}`, 1, []string{`{"a":0.5}`}},
		// the key's quote dropped, or a colon dropped after a key that
		// ends in a colon and that key's quote: the colon inserted
		// after its twin is structure, before it is not
		// (and, at one fault, a stream cut inside the key "ab:1}...",
		// whose value is unknown)
		{`{"ab:1}`, 1, []string{`{"ab":1}`, `{"ab:1}":null}`, `{"ab:":1}`}},
		// a comma after a string: a trailing comma, never the string's
		// closing quote moved back over it; an opening quote moved
		// back over the comma before it is a reading, beside a comma
		// dropped before a string that starts with one
		{`{"a":"x",}`, 1, []string{`{"a":"x"}`}},
		{`{"a":["x"",b"]}`, 1, []string{`{"a":["x",",b"]}`, `{"a":["x","b"]}`}},
		// a quote before a colon that opens a string is no key's
		// closing quote (unclosed_key): the quote row's, two faults, as
		// the quote's other places and a colon written for it are
		{`{"a": :b"}`, 2, []string{`{"a":" :b"}`, `{"a":": :b"}`, `{"a":":b"}`, `{"a":"b"}`}},
		{`{"a":1}`, 0, []string{`{"a":1}`}}, // not broken
		{`hello`, 0, nil},                   // nothing within two faults
	}
	for _, tt := range tests {
		w, err := Read(tt.text)
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if got := values(w); w.Min != tt.min || strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: min %d, window %q; want min %d, %q", tt.text, w.Min, got, tt.min, tt.want)
		}
	}
}

// A reading's edits are each needed: a junk edit inside a string next to
// the edit that reads the text is no second reading.
func TestReadKeepsOnlyNeededEdits(t *testing.T) {
	w, err := Read(`{"a":"x,y" "b":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(w); len(got) != 1 || got[0] != `{"a":"x,y","b":1}` {
		t.Errorf("window %q, want the comma reading alone", got)
	}
}

// The two pruning rules drop no reading: on small broken texts, the
// pruned reader's window is the unpruned one's.
func TestReadPruningDropsNoReading(t *testing.T) {
	texts := []string{`{"a:1}`, `{"a":1 "b":2}`, `{"a":[1}`, `{"a" 1}`, `{"a":"b}`, `{a:1,}`, `["a":1]`, `{"a":{"b":1}`, `{"a"::1]`, `{"a":1]]`}
	for seed := uint64(1); len(texts) < 30; seed++ {
		g := NewGen(seed, nil)
		tx := Encode(g.Object(), Layout{})
		if len(tx.S) > 14 {
			continue
		}
		for _, name := range []string{"punctuation", "quote"} {
			op, _ := OpByName(name)
			ms := op.Singles(tx, g.Rand())
			if len(ms) > 0 {
				texts = append(texts, ms[int(seed)%len(ms)].Text)
			}
		}
	}
	if testing.Short() {
		texts = texts[:6]
	}
	for _, s := range texts {
		pruned, err := read(s, true)
		if err != nil {
			t.Fatal(err)
		}
		full, err := read(s, false)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := strings.Join(values(pruned), " "), strings.Join(values(full), " "); a != b || pruned.Min != full.Min {
			t.Errorf("%q: pruned min %d %q, unpruned min %d %q", s, pruned.Min, a, full.Min, b)
		}
		if pruned.Candidates > full.Candidates {
			t.Errorf("%q: pruning made more candidates (%d > %d)", s, pruned.Candidates, full.Candidates)
		}
	}
}

func TestReadRefusesALongText(t *testing.T) {
	if _, err := Read(strings.Repeat(" ", MaxReadBytes+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("err %v, want ErrTooLong", err)
	}
}

// The verdicts: what the engine did, judged against the window.
func TestJudgeWindow(t *testing.T) {
	orig := Object{{"a", Number("1")}, {"b", Number("2")}}
	m := Mutation{Op: "comma", Text: `{"a":1 "b":2}`}
	one, _ := Read(m.Text)
	two, _ := Read(`{"a":1,"a":2}`)
	tests := []struct {
		name string
		w    Window
		args string
		ran  bool
		want Verdict
	}{
		{"ran the original", one, `{"a":1,"b":2}`, true, VExact},
		{"ran the original where the readings differ", Window{Min: 1, Readings: append(one.Readings, Reading{Value: Object{}, Cost: 2, known: true})}, `{"a":1,"b":2}`, true, VLucky},
		{"ran the original, not in the window", two, `{"a":1,"b":2}`, true, VLucky},
		{"refused one reading", one, "", false, VOverStrict},
		{"refused readings that differ", Window{Min: 1, Readings: append(one.Readings, Reading{Value: Object{}, Cost: 2, known: true})}, "", false, VAmbiguous},
		{"ran another value", one, `{"a":1}`, true, VDifferent},
		{"original not in the window", two, "", false, VAlias},
		{"nothing reads it", Window{}, "", false, VNoReading},
	}
	for _, tt := range tests {
		if got, ok := JudgeWindow(orig, m, tt.w, tt.args, tt.ran); !ok || got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// A refusal the decision rule makes: the text may be cut inside its
	// last number or string, and the cut is among the cheapest readings.
	for _, tt := range []struct {
		text string
		want Verdict
	}{
		{`{"a":1,"b":2`, VValueCut},  // the number may have gone on
		{`{"a":1,"b":"x`, VValueCut}, // so may the string
		{`{"a":1,"b`, VValueCut},     // so may the key, whose value was never written
		{`{"a":1,"b":`, VValueCut},   // nor here
		{`{"a":1,"b":2 `, VOverStrict},
		{`{"a":1,"b":true`, VOverStrict},
	} {
		orig := Object{{"a", Number("1")}, {"b", Number("2")}}
		if strings.Contains(tt.text, `"x`) {
			orig = Object{{"a", Number("1")}, {"b", String("x")}}
		}
		if !strings.Contains(tt.text, "2") && !strings.Contains(tt.text, "x") && !strings.Contains(tt.text, "true") {
			orig = Object{{"a", Number("1")}, {"bc", Number("2")}}
		}
		if strings.Contains(tt.text, "true") {
			orig = Object{{"a", Number("1")}, {"b", Literal("true")}}
		}
		w, err := Read(tt.text)
		if err != nil || !w.Agree() {
			t.Fatalf("%s: window %v, %v; want one reading", tt.text, w.Readings, err)
		}
		if got, _ := JudgeWindow(orig, Mutation{Op: "cut", Text: tt.text, Cut: true}, w, "", false); got != tt.want {
			t.Errorf("%s refused: %v, want %v", tt.text, got, tt.want)
		}
	}
	if _, ok := JudgeWindow(orig, Mutation{Text: `{"a":1,"b":2}`}, one, "", false); ok {
		t.Error("an unbroken text was judged")
	}
}

// The cut row reads a cut wherever it fell, at one fault: inside a key,
// after a key or its colon, after a comma (dropped) and with an array
// open the value is unknown (the window says so).
func TestReadReadsACutAnywhere(t *testing.T) {
	for _, tt := range []struct {
		text, want string
		unknown    bool
	}{
		{`{"`, `{"":null}`, true},
		{`{"a":1,"ke`, `{"a":1,"ke":null}`, true},
		{`{"a"`, `{"a":null}`, true},
		{`{"a": `, `{"a":null}`, true},
		{`{"a":1,`, `{"a":1}`, true},
		{`{"a":[1, `, `{"a":[1]}`, true},
		{`{"a":1 `, `{"a":1}`, false},
		{`[{"a":1}`, `[{"a":1}]`, true}, // a list is a reading too: its other items are unknown
	} {
		w, err := Read(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := values(w); w.Min != 1 || len(got) == 0 || got[0] != tt.want || w.Readings[0].Unknown != tt.unknown || tt.unknown && w.Readings[0].Prefix != tt.text {
			t.Errorf("%q: min %d, window %q, unknown %v; want min 1, %q first, unknown %v", tt.text, w.Min, got, w.Readings[0].Unknown, tt.want, tt.unknown)
		}
	}
}

// An invisible character reads as white space where white space may
// stand, and nowhere else: not inside a string, nor inside a number.
func TestReadReadsAnInvisibleCharacterAsLayout(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"{\"a\":\u200b1}", []string{`{"a":1}`}},
		{"\ufeff{\"a\":1}", []string{`{"a":1}`}},
		{"{\"a\":1\u200b2}", nil},
	} {
		w, err := Read(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		got := values(w)
		if len(tt.want) == 0 && w.Min == 1 || len(tt.want) > 0 && (w.Min != 1 || strings.Join(got, " ") != strings.Join(tt.want, " ")) {
			t.Errorf("%q: min %d, window %q; want %q at one fault", tt.text, w.Min, got, tt.want)
		}
	}
}
