package faultinject

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The generator's texts are valid JSON that decodes to the generated
// value, and each token's span is what its kind says.
func TestEncodeWritesTheGeneratedValue(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		g := NewGen(seed, nil)
		o := g.Object()
		tx := Encode(o, g.RandomLayout())
		if !json.Valid([]byte(tx.S)) {
			t.Fatalf("seed %d: invalid JSON %q", seed, tx.S)
		}
		v, err := DecodeOrdered(tx.S)
		if err != nil || !Equal(v, o) {
			t.Fatalf("seed %d: %q decodes to %v (%v), want %v", seed, tx.S, v, err, o)
		}
		for i, k := range tx.Toks {
			span := tx.S[k.Start:k.End]
			switch k.Kind {
			case TokKey, TokString:
				var s string
				if json.Unmarshal([]byte(span), &s) != nil {
					t.Fatalf("seed %d: token %d %q is not a JSON string", seed, i, span)
				}
			case TokOpenObject, TokOpenArray:
				if tx.Toks[k.Match].Match != i {
					t.Fatalf("seed %d: bracket %d does not match", seed, i)
				}
			}
		}
	}
}

// The generator makes the values repair must keep: nested containers,
// empty ones, strings holding quotes, braces, comments, reasoning tags and
// non-ASCII characters, numbers of every form, pretty and compact texts.
func TestGeneratorCoversTheHardValues(t *testing.T) {
	var all strings.Builder
	for seed := uint64(0); seed < 300; seed++ {
		g := NewGen(seed, nil)
		all.WriteString(Encode(g.Object(), g.RandomLayout()).S)
	}
	s := all.String()
	for _, want := range []string{`\"`, "'", `\\`, `\n`, "{}", "[]", `""`, "//", "#", "<think>", "😀", `\u`, "1e-3", "-0.25", "\n  ", "[{", ": {"} {
		if !strings.Contains(s, want) {
			t.Errorf("no generated text holds %q", want)
		}
	}
}

// Values of a schema: required properties always, enums from the list.
func TestGeneratorFollowsASchema(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"zhost"}, "properties": map[string]any{
		"zhost": map[string]any{"type": "string"},
		"zport": map[string]any{"type": "integer"},
		"zmode": map[string]any{"enum": []any{"a", "b"}},
	}}
	for seed := uint64(0); seed < 100; seed++ {
		g := NewGen(seed, []map[string]any{schema})
		for range 4 {
			o := g.Object()
			keys := map[string]Value{}
			for _, m := range o {
				keys[m.Key] = m.Val
			}
			_, host := keys["zhost"]
			_, port := keys["zport"]
			_, mode := keys["zmode"]
			if (port || mode) && !host {
				t.Fatalf("schema value without its required property: %v", o)
			}
			if v, ok := keys["zmode"]; ok && v != String("a") && v != String("b") {
				t.Fatalf("mode %v is not in the enum", v)
			}
		}
	}
}

func TestGeneratorIsDeterministic(t *testing.T) {
	a, b := NewGen(7, nil), NewGen(7, nil)
	for range 20 {
		ta, tb := Encode(a.Object(), a.RandomLayout()), Encode(b.Object(), b.RandomLayout())
		if ta.S != tb.S {
			t.Fatalf("same seed, texts %q and %q", ta.S, tb.S)
		}
	}
}

func texts(ms []Mutation) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// Each operator makes the faults it names, at every position.
func TestOperatorsMakeTheirFaults(t *testing.T) {
	tx := Encode(Object{{"a", Number("1")}, {"b", Array{String("x"), Literal("null")}}}, Layout{})
	if tx.S != `{"a":1,"b":["x",null]}` {
		t.Fatalf("text %q", tx.S)
	}
	g := NewGen(1, nil)
	tests := []struct {
		op   string
		want []string
	}{
		{"quote_style", []string{`{'a':1,"b":["x",null]}`, `{"a":1,"b":[“x”,null]}`}},
		{"unquoted", []string{`{a:1,"b":["x",null]}`, `{"a":1,"b":[x,null]}`}}, // and never +42 or NaN as a value: below
		{"comma", []string{`{"a":1"b":["x",null]}`, `{"a":1,,"b":["x",null]}`, `{"a":1,"b":["x",null],}`, `{,"a":1,"b":["x",null]}`}},
		{"colon", []string{`{"a"1,"b":["x",null]}`, `{"a"::1,"b":["x",null]}`}},
		{"quote", []string{`{a":1,"b":["x",null]}`, `{"a:1,"b":["x",null]}`, `{"a":1,"b":["x",null]"}`}},
		{"stray_brace", []string{`{"a":1,{"b":["x",null]}`, `{"a":1},"b":["x",null]}`}},
		{"premature_closer", []string{`{"a":1},"b":["x",null]}`, `{"a":1,"b":["x"],null]}`}},
		{"dropped_closer", []string{`{"a":1,"b":["x",null}`, `{"a":1,"b":["x",null]`}},
		{"swapped_closer", []string{`{"a":1,"b":["x",null}}`, `{"a":1,"b":["x",null]]`}},
		{"comment", []string{`{"a":1 // note,"b":["x",null]}`, `{"a":1,/* note */"b":["x",null]}`, "{\"a\":1,\"b\":[\"x\" # note\n,null]}"}},
		{"escaped_space", []string{`{\n"a":1,"b":["x",null]}`}},
		{"py_js_literal", []string{`{"a":1,"b":["x",None]}`, `{"a":1,"b":["x",undefined]}`}},
		{"repeated_key", []string{`{"a":1,"a":1,"b":["x",null]}`, `{"a":1,"a":"other","b":["x",null]}`}},
		{"around", []string{"```json\n" + tx.S + "\n```", "<|python_tag|>" + tx.S + "<|eom_id|>"}},
		{"double_encoded", []string{`"{\"a\":1,\"b\":[\"x\",null]}"`, `{\"a\":1,\"b\":[\"x\",null]}`}},
		{"repeated_object", []string{tx.S + tx.S, tx.S + "\n" + tx.S}},
		{"concatenated", []string{tx.S + "{}", "{}\n" + tx.S}},
		{"csv_quotes", []string{`{""a"":1,""b"":[""x"",null]}`, `"{""a"":1,""b"":[""x"",null]}"`}},
		{"doubled_braces", []string{`{{"a":1,"b":["x",null]}}`, `{{{"a":1,"b":["x",null]}}}`}},
		{"cut", []string{`{"a":1,"b":["x"`, `{`, tx.S[:len(tx.S)-1]}},
		{"literal_case", []string{`{"a":1,"b":["x",NULL]}`, `{"a":1,"b":["x",none]}`, `{"a":1,"b":["x",Null]}`}},
		{"loose_number", []string{`{"a":1.,"b":["x",null]}`, `{"a":+1,"b":["x",null]}`}},
		{"numeric_key", nil}, // below
		{"unclosed_key", []string{`{"a:1,"b":["x",null]}`, `{"a":1,"b:["x",null]}`}},
		{"stray_closer", []string{tx.S + "]", tx.S + "\n]", tx.S + "}", tx.S + "\n}"}},
		{"stray_bracket", []string{`{"a":1,]"b":["x",null]}`, `{"a":1,"b":["x"],null]}`}},
		{"bare_value", []string{`{"a":1,"b":[x,null]}`}},
		{"template_quotes", []string{`{<|"|>a<|"|>:1,"b":["x",null]}`, `{"a":1,"b":[<|"|>x<|"|>,null]}`, `{a:1,b:[<|"|>x<|"|>,null]}`}},
		{"template_escapes", nil},    // below
		{"escape", nil},              // below
		{"literal_backslashes", nil}, // below
		{"single_quotes", nil},       // below
		{"bare_apostrophe", nil},     // below
		{"joined_strings", nil},      // below
		{"split_number", nil},        // below
		{"quote_moved", []string{`{"a":1,"b":[""x,null]}`, `{"a":1,"b":["x,"null]}`, `{"a":1,"b":[x"",null]}`, `{"a":1,"b":"[x",null]}`}},
		{"commented", []string{"# " + tx.S, "/* " + tx.S + " */", "args=" + tx.S}},
		{"backquotes", []string{"{`a`:1,\"b\":[\"x\",null]}", "{\"a\":1,\"b\":[`x`,null]}"}},
		{"entity_quotes", []string{`{&quot;a&quot;:1,"b":["x",null]}`, `{"a":1,"b":[&quot;x&quot;,null]}`}},
		{"invisible", []string{"\u200b" + tx.S, tx.S + "\ufeff", "{\"a\":\u00a01,\"b\":[\"x\",null]}", "{\"a\":1,\"b\":[\"x\"\u200b,null]}"}},
		{"punctuation", []string{`{"a":[1,"b":["x",null]}`, `"a":1,"b":["x",null]}`, `{"a":1]"b":["x",null]}`, `{'a":1,"b":["x",null]}`,
			`{"a":1,"b":["x",null}`, `{"a":1,"b":["x",null]}:`, `{"a":1,"b":["x",null]`, `{"a":1,"b":["x"",null]}`}},
	}
	for _, tt := range tests {
		op, ok := OpByName(tt.op)
		if !ok {
			t.Fatalf("no operator %s", tt.op)
		}
		got := texts(op.Singles(tx, g.Rand()))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no mutation %q among %d", tt.op, w, len(got))
			}
		}
		for _, s := range got {
			if s == tx.S {
				t.Errorf("%s: a mutation is the original text", tt.op)
			}
		}
	}
	esc, _ := OpByName("escape")
	tx2 := Encode(Object{{"a", String("x\ny\t\\/")}}, Layout{EscapeSlash: true})
	got := texts(esc.Singles(tx2, g.Rand()))
	for _, w := range []string{"{\"a\":\"x\ny\\t\\\\\\/\"}", `{"a":"x\ny\t\\/"}`, "{\"a\":\"x\\ny\t\\\\\\/\"}"} {
		if !slices.Contains(got, w) {
			t.Errorf("escape: no mutation %q among %q", w, got)
		}
	}
	tx4 := Encode(Object{{"a", String("say \"hi\" \u00e9 ab\n")}, {"n", Number("90")}, {"f", Number("1.5")}}, Layout{EscapeUnicode: true})
	got = texts(esc.Singles(tx4, g.Rand()))
	for _, w := range []string{
		`{"a":"say \\"hi\" \u00e9 ab\n","n":90,"f":1.5}`,                  // a quote escaped twice
		`{"a":"say \"hi\" \00e9 ab\n","n":90,"f":1.5}`,                    // \u with its u lost
		`{"a":"say \"hi\" \u00e9 ab"\n,"n":90,"f":1.5}`,                   // the closing quote moved before the last escape
		"{\"a\":\"s\\\nay \\\"hi\\\" \\u00e9 ab\\n\",\"n\":90,\"f\":1.5}", // a line continuation
	} {
		if !slices.Contains(got, w) {
			t.Errorf("escape: no mutation %q among %q", w, got)
		}
	}
	if got := texts(mustOp(t, "split_number").Singles(tx4, g.Rand())); !slices.Equal(got, []string{`{"a":"say \"hi\" \u00e9 ab\n","n":90,"f":1. 5}`}) {
		t.Errorf("split_number: %q", got)
	}
	// Thousands separators, one group boundary at a time.
	txN := Encode(Object{{"n", Number("-1234567")}, {"m", Array{Number("1"), Number("5432")}}}, Layout{})
	if got := texts(mustOp(t, "split_number").Singles(txN, g.Rand())); !slices.Equal(got, []string{`{"n":-1234 567,"m":[1,5432]}`, `{"n":-1 234567,"m":[1,5432]}`, `{"n":-1234567,"m":[1,5 432]}`}) {
		t.Errorf("split_number: %q", got)
	}
	// A trailing comma as a spaced layout writes commas; not in a compact one.
	spaced := Encode(Object{{"a", Array{String("x"), Literal("null")}}, {"o", Object{}}}, Layout{SpaceAfter: true})
	if got := texts(mustOp(t, "comma").Singles(spaced, g.Rand())); !slices.Contains(got, `{"a": ["x", null, ], "o": {}}`) || !slices.Contains(got, `{"a": ["x", null], "o": {}, }`) || slices.Contains(got, `{"a": ["x", null], "o": {, }}`) {
		t.Errorf("comma, spaced layout: %q", got)
	}
	if got := texts(mustOp(t, "comma").Singles(tx, g.Rand())); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, ", ") }) {
		t.Errorf("comma, compact layout: a spaced trailing comma among %q", got)
	}
	nk, _ := OpByName("numeric_key")
	tx3 := Encode(Object{{"7", Number("0.5")}, {"x", String("a b")}, {"-3", String("true")}, {"07", Literal("true")}}, Layout{})
	got = texts(nk.Singles(tx3, g.Rand()))
	if want := []string{`{7:0.5,"x":"a b","-3":"true","07":true}`, `{"7":0.5,"x":"a b",-3:"true","07":true}`}; !slices.Equal(got, want) {
		t.Errorf("numeric_key: %q, want %q", got, want)
	}
	nums := Encode(Object{{"+4", String("+42")}, {"n", String("NaN")}, {"x", String(".5e3")}}, Layout{})
	if got, want := texts(mustOp(t, "unquoted").Singles(nums, g.Rand())), []string{`{+4:"+42","n":"NaN","x":".5e3"}`, `{"+4":"+42",n:"NaN","x":".5e3"}`, `{"+4":"+42","n":"NaN",x:".5e3"}`}; !slices.Equal(got, want) {
		t.Errorf("unquoted of values a number's or a literal's spelling: %q, want the keys alone %q", got, want)
	}
	if got := texts(mustOp(t, "bare_value").Singles(tx3, g.Rand())); len(got) != 0 {
		t.Errorf("bare_value of strings with white space or a literal's name: %q", got)
	}
	if got := texts(mustOp(t, "loose_number").Singles(tx3, g.Rand())); !slices.Contains(got, `{"7":.5,"x":"a b","-3":"true","07":true}`) {
		t.Errorf("loose_number: no .5 among %q", got)
	}
	// The habits apply to every string of the text at once.
	sq := Encode(Object{{"a", String("it's")}, {"b", Array{String(`say "x"`)}}}, Layout{})
	if got, want := texts(mustOp(t, "single_quotes").Singles(sq, g.Rand())), []string{`{'a':'it\'s','b':['say "x"']}`, `{“a”:“it's”,“b”:[“say \"x\"”]}`}; !slices.Equal(got, want) {
		t.Errorf("single_quotes: %q, want %q", got, want)
	}
	if got, want := texts(mustOp(t, "bare_apostrophe").Singles(sq, g.Rand())), []string{`{'a':'it's','b':['say "x"']}`}; !slices.Equal(got, want) {
		t.Errorf("bare_apostrophe: %q, want %q", got, want)
	}
	for _, tt := range []struct {
		v    Value
		want []string
	}{
		{Object{{"a", String("x")}}, nil},                                     // no apostrophe: single_quotes' text
		{Object{{"a", String("x', 'y")}}, nil},                                // an apostrophe before a comma ends the string there
		{Object{{"a", String("it's")}, {"b", Array{String("5' 11\"")}}}, nil}, // an apostrophe beside a space ends the string
		{Object{{"Joe's", Array{String("rock'n'roll")}}}, []string{`{'Joe's':['rock'n'roll']}`}},
	} {
		if got := texts(mustOp(t, "bare_apostrophe").Singles(Encode(tt.v, Layout{}), g.Rand())); !slices.Equal(got, tt.want) {
			t.Errorf("bare_apostrophe of %v: %q, want %q", tt.v, got, tt.want)
		}
	}
	js := Encode(Object{{"ab", String("x")}, {"c", String(`d"e`)}}, Layout{})
	if got, want := texts(mustOp(t, "joined_strings").Singles(js, g.Rand())), []string{`{"a" + "b":"x","c":"d\"" + "e"}`, `{"a"+ "b":"x","c":"d\""+ "e"}`, `{"a" + "b":"x","c":"d\"e"}`}; !slices.Equal(got, want) {
		t.Errorf("joined_strings: %q, want %q", got, want)
	}
	te := mustOp(t, "template_escapes")
	if got := texts(te.Singles(tx, g.Rand())); len(got) != 0 {
		t.Errorf("template_escapes of a text without escapes: %q", got)
	}
	tq := Encode(Object{{"p", String("a\\nb\n")}, {"q", String(`"x"`)}}, Layout{})
	if got, want := texts(te.Singles(tq, g.Rand())), []string{`{p:<|"|>a\\nb\n<|"|>,q:<|"|>\"x\"<|"|>}`}; !slices.Equal(got, want) {
		t.Errorf("template_escapes: %q, want %q", got, want)
	}
	bs := mustOp(t, "literal_backslashes")
	for _, tt := range []struct {
		v    Value
		want []string
	}{
		{Object{{"p", String(`C:\x\new`)}, {"q", String(`"`)}}, []string{`{"p":"C:\x\new","q":"\""}`}},
		{Object{{"p", String(`C:\new`)}}, nil}, // every backslash then an escape: a valid text of another value
		{Object{{"p", String("x\\y\n")}}, nil}, // another escape kept: not the habit alone
		{Object{{"p", String(`x\`)}}, nil},     // a backslash before the closing quote
	} {
		if got := texts(bs.Singles(Encode(tt.v, Layout{}), g.Rand())); !slices.Equal(got, tt.want) {
			t.Errorf("literal_backslashes of %v: %q, want %q", tt.v, got, tt.want)
		}
	}
	// Every operator is tested above.
	for _, op := range Ops {
		if !slices.ContainsFunc(tests, func(tt struct {
			op   string
			want []string
		}) bool {
			return tt.op == op.Name
		}) {
			t.Errorf("operator %s has no test", op.Name)
		}
	}
}

// The habits read a text's strings as their inverse does (faultmodel's
// invSingleQuotes, invJoinedStrings): a text already in the habit is in
// it once, a string whose content the inverse would read as left open (a
// raw line break, after a fault shifted the quotes) is not written in
// single quotes, and a string in backquotes or single quotes is kept.
func TestHabitsReadStringsAsTheirInverse(t *testing.T) {
	g := NewGen(1, nil)
	sq, ba := mustOp(t, "single_quotes"), mustOp(t, "bare_apostrophe")
	for _, tt := range []struct {
		op   Op
		in   string
		want []string
	}{
		{sq, `{'a':'say "x"','b':'it\'s'}`, nil},
		{sq, `{“a”:“say \"x\"”}`, nil},
		{sq, `{'a':'x',"b":"y"}`, []string{`{'a':'x','b':'y'}`, `{'a':'x',“b”:“y”}`}},
		{sq, "{\"a\": 1,\n \"k: 2,\n \"b\": \"y\\\"z\"\n}", []string{"{“a”: 1,\n “k: 2,\n ”b“: ”y\\“z”\n}"}},
		{sq, `{'a: 1}`, nil}, // a single-quoted string left open
		{ba, "{\"k'\": 1,\n \"a: \"it's\"\n}", nil},
		{ba, `{'k\'': 1, "a": "it's"}`, []string{`{'k\'': 1, 'a': 'it's'}`}},
		{sq, "{\"a\": `it's`, \"b\": \"x\"}", []string{"{'a': `it's`, 'b': 'x'}", "{“a”: `it's`, “b”: “x”}"}},
		{mustOp(t, "joined_strings"), `{"ab": 'say "hi"'}`, []string{`{"a" + "b": 'say "hi"'}`, `{"a"+ "b": 'say "hi"'}`}},
	} {
		if got := tt.op.global(tt.in, g.Rand(), true); !slices.Equal(got, tt.want) {
			t.Errorf("%s of %q: %q, want %q", tt.op.Name, tt.in, got, tt.want)
		}
	}
}

// Pairs apply two faults, at different positions.
func TestPairsApplyBothFaults(t *testing.T) {
	tx := Encode(Object{{"a", Number("1")}, {"b", String("x")}, {"c", Literal("true")}}, Layout{})
	g := NewGen(1, nil)
	colon, _ := OpByName("colon")
	fence, _ := OpByName("around")
	cut, _ := OpByName("cut")
	for range 50 {
		singles := texts(colon.Singles(tx, g.Rand()))
		m, ok := Pair(tx, colon, colon, g.Rand())
		if !ok || m.Text == tx.S || slices.Contains(singles, m.Text) || m.Op != "colon+colon" {
			t.Fatalf("colon+colon: %+v", m)
		}
		m, ok = Pair(tx, fence, colon, g.Rand())
		if !ok || strings.Contains(m.Text, tx.S) || len(m.Text) <= len(tx.S)+2 {
			t.Fatalf("around+colon: %+v", m)
		}
		m, ok = Pair(tx, colon, cut, g.Rand())
		if !ok || !m.Cut || !m.DroppedCloser || len(m.Text) >= len(tx.S)+2 {
			t.Fatalf("colon+cut: %+v", m)
		}
	}
}

func TestClassify(t *testing.T) {
	orig := Object{{"a", Number("1")}, {"b", Object{{"c", String("x")}, {"d", Number("2")}}}, {"e", Literal("true")}}
	tests := []struct {
		name string
		m    Mutation
		args string
		ok   bool
		want Outcome
	}{
		{"repaired", Mutation{Text: `{'a':1}`}, `{"e":true,"b":{"d":2,"c":"x"},"a":1}`, true, Original},
		{"refused", Mutation{Text: `{'a':1}`}, "", false, Refused},
		{"unbroken", Mutation{Text: `{"a": 2}`}, `{"a": 2}`, true, Unbroken},
		{"a number written otherwise", Mutation{Text: `{'a':1}`}, `{"a":1.0,"b":{"c":"x","d":2},"e":true}`, true, Different},
		{"a member lost", Mutation{Text: `{"a":1}, "b": {}}`}, `{"a":1}`, true, Different},
		{"repeated names reach the tool", Mutation{Text: `{'a':1}`}, `{"a":1,"a":1,"b":{"c":"x","d":2},"e":true}`, true, Different},
		{"cut after a complete value", Mutation{Text: `{"a":1,"b":{"c":"x"`, Cut: true}, `{"a":1,"b":{"c":"x"}}`, true, Truncated},
		{"the same, not cut", Mutation{Text: `{"a":1,"b":{"c":"x"`}, `{"a":1,"b":{"c":"x"}}`, true, Different},
		{"cut, but a value changed", Mutation{Text: `{"a":1,"b":{"c":"y"`, Cut: true}, `{"a":1,"b":{"c":"y"}}`, true, Different},
		{"cut after an opener", Mutation{Text: `{"a":1,"b":{`, Cut: true}, `{"a":1,"b":{}}`, true, Different},
		{"cut before the brace", Mutation{Text: "\n  ", Cut: true}, `{}`, true, Truncated},
		{"the same, not cut", Mutation{Text: "\n  "}, `{}`, true, Different},
		{"cut right after the brace", Mutation{Text: "{", Cut: true}, `{}`, true, Different},
		{"closers added at the end", Mutation{Text: `{"a":1,"b":{"c":"x","d":2,"e":true}`, DroppedCloser: true}, `{"a":1,"b":{"c":"x","d":2,"e":true}}`, true, ClosedAtEnd},
		{"closers added elsewhere", Mutation{Text: `{"a":1,"b":{"c":"x","d":2,"e":true}`, DroppedCloser: true}, `{"a":1,"b":{"c":"x"},"d":2,"e":true}`, true, Different},
		{"not JSON", Mutation{Text: `{'a':1}`}, `{a:1}`, true, Different},
	}
	for _, tt := range tests {
		if got := Classify(orig, tt.m, tt.args, tt.ok); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A pair is aliased when its text is a single mutation of the value the
// tool received, in the original's layout; not when two faults are
// needed from that value too.
func TestIsAliasFindsSingleFaultsOfTheValueReceived(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	got := Object{{"k", Number("1")}}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`{'k':1}`, true},   // quote_style of {"k":1}: also {"k'":1} with two quotes broken
		{`{"k":1,}`, true},  // a trailing comma
		{`{'k':1,}`, false}, // two faults from {"k":1} as well
		{`{ 'k':1}`, false}, // another layout
		{`{"k":1}`, false},  // the value itself: no fault
		// Re-sent cumulatively, at cut points other than Singles draws.
		{`{"k{"k":{"k":1}`, true},
		{`{"k":1}{"k`, true},
		{`{"k":1{"k":1}`, true},
		{`{"k":1}{"j`, false},      // a prefix of another text
		{`{"k":{"k{"k":1}`, false}, // the longer prefix first
	} {
		if a := IsAlias(tt.text, got, `{"k":1}`, Layout{}, r); a != tt.want {
			t.Errorf("IsAlias(%s) = %v, want %v", tt.text, a, tt.want)
		}
	}
	// The text the tool received, in a layout of its own: a single fault
	// of it is an alias too; two faults of it are not.
	args := "{\"k\": 1\n}"
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"{\"k\": 1\n]", true},
		{"{\"k\": 1,\n}", true},
		{"{'k': 1\n]", false},
		{"{\"k\": 1}", false}, // the value itself, in another layout: no fault
	} {
		if a := IsAlias(tt.text, got, args, Layout{}, r); a != tt.want {
			t.Errorf("IsAlias(%q, args %q) = %v, want %v", tt.text, args, a, tt.want)
		}
	}
}

// Tokenize reads any JSON text's tokens as Encode records them.
func TestTokenizeMatchesEncode(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		g := NewGen(seed, nil)
		want := Encode(g.Object(), g.RandomLayout())
		got, ok := Tokenize(want.S)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q) = %+v, %v; want %+v", want.S, got.Toks, ok, want.Toks)
		}
	}
	for _, s := range []string{"", "{", `{"a": 1`, `{"a" 1}`, "{}}"} {
		if _, ok := Tokenize(s); ok {
			t.Errorf("Tokenize(%q) is ok, want not JSON", s)
		}
	}
}

func TestTallyMerges(t *testing.T) {
	a, b := NewTally(), NewTally()
	a.Add("x", Original, Example{})
	b.Add("x", Different, Example{Text: "t"})
	b.Add("y", Refused, Example{})
	a.Merge(b)
	if a.Count("x", Original) != 1 || a.Count("x", Different) != 1 || a.Count("", Refused) != 1 || len(a.Examples["x"]) != 1 {
		t.Fatalf("merged %+v", a.Counts)
	}
}

func mustOp(t *testing.T, name string) Op {
	t.Helper()
	op, ok := OpByName(name)
	if !ok {
		t.Fatalf("no operator %s", name)
	}
	return op
}

// Tokenize, on any input: ok exactly for JSON texts, and then its tokens
// cover the text in order, with only white space between them, their
// parents and bracket partners consistent.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x", {"b": null}]}`, "[]", `"s"`, "{\n\t\"k\": -2.5e3\n}", `{"a":1`, "{]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tx, ok := Tokenize(s)
		if ok != json.Valid([]byte(s)) {
			t.Fatalf("Tokenize(%q) ok = %v, json.Valid says otherwise", s, ok)
		}
		if !ok {
			return
		}
		pos := 0
		for i, tok := range tx.Toks {
			if tok.Start < pos || tok.End <= tok.Start || strings.Trim(s[pos:tok.Start], " \t\r\n") != "" {
				t.Fatalf("Tokenize(%q): token %d %+v does not follow white space after %d", s, i, tok, pos)
			}
			if tok.Match >= 0 && tx.Toks[tok.Match].Match != i {
				t.Fatalf("Tokenize(%q): token %d's partner %d does not point back", s, i, tok.Match)
			}
			if p := tok.Parent; p >= i || p >= 0 && tx.Toks[p].Kind != TokOpenObject && tx.Toks[p].Kind != TokOpenArray {
				t.Fatalf("Tokenize(%q): token %d's parent %d is no earlier opener", s, i, p)
			}
			pos = tok.End
		}
		if strings.Trim(s[pos:], " \t\r\n") != "" {
			t.Fatalf("Tokenize(%q): text after the last token", s)
		}
	})
}
