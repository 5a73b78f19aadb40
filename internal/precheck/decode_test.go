package precheck

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/saidex/saidex-go/internal/jsonread"
)

type decInner struct {
	X    int        `json:"x"`
	Kids []decInner `json:"kids,omitempty"`
}

type decName string

// decKinds holds every kind a Target reads.
type decKinds struct {
	S     string    `json:"s"`
	B     bool      `json:"b,omitempty"`
	I     int8      `json:"i"`
	U     uint16    `json:"u"`
	F     float32   `json:"f"`
	G     float64   `json:"g"`
	P     *int      `json:"p"`
	PS    *string   `json:"ps,omitzero"`
	L     []string  `json:"l"`
	N     *decInner `json:"n"`
	V     decInner  `json:"v"`
	M     decName   `json:"m"`
	NoTag int
	Skip  int `json:"-"`
	priv  int // unexported: never decoded
}

var _ = decKinds{priv: 0} // priv is there to be left out by the decoders

// decSchemas are the schemas decKinds is decoded under: one that
// constrains nothing, one that describes it, and one that allows other
// members and null in places.
var decSchemas = []string{
	`{"type": "object"}`,
	`{"type": "object", "properties": {
		"s": {"type": "string", "maxLength": 5}, "b": {"type": "boolean"},
		"i": {"type": "integer", "minimum": -5}, "u": {"type": "integer"},
		"f": {"type": "number"}, "g": {"type": "number", "maximum": 100},
		"p": {"type": ["integer", "null"]}, "ps": {"type": "string"},
		"l": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
		"n": {"$ref": "#/$defs/inner"}, "v": {"$ref": "#/$defs/inner"},
		"m": {"enum": ["x", "y"]}, "NoTag": {"type": "integer"}},
	  "required": ["s"], "additionalProperties": false,
	  "$defs": {"inner": {"type": "object", "properties": {"x": {"type": "integer"},
		"kids": {"type": "array", "items": {"$ref": "#/$defs/inner"}}}, "additionalProperties": false}}}`,
	`{"properties": {"s": {"type": ["string", "null"]}, "l": {"type": ["array", "null"]}, "n": {"type": ["object", "null"]}}}`,
}

// decodeAgrees fails t when Decode vouched for text and the value it
// returned is not exactly what the decoders produce, or when the precheck
// (and so santhosh-tekuri) would not accept text.
func decodeAgrees(t *testing.T, x compiled, text string, plain bool, got any) {
	t.Helper()
	if ok := slowValid(x.c, text, plain); !ok {
		t.Fatalf("Decode accepted %s, which the jsontext scan (plain %v) refuses", text, plain)
	}
	if slow, ok := x.c.slowDecode(text, plain, decTarget); !ok || !reflect.DeepEqual(got, slow) {
		t.Fatalf("Decode of %s: %+v; on the jsontext scan: %+v, %v", text, got, slow, ok)
	}
	agrees(t, x.s, []byte(text), plain)
	v2 := new(decKinds)
	if err := jsonv2.Unmarshal([]byte(text), v2, jsonv1.DefaultOptionsV1()); err != nil {
		t.Fatalf("Decode accepted %s, which go-json-experiment's v1 semantics refuse: %v", text, err)
	}
	if !reflect.DeepEqual(got, v2) {
		t.Fatalf("Decode of %s:\n got %+v\nwant %+v (go-json-experiment, v1 semantics)", text, got, v2)
	}
	v1 := new(decKinds)
	if err := json.Unmarshal([]byte(text), v1); err != nil {
		t.Fatalf("Decode accepted %s, which encoding/json refuses: %v", text, err)
	}
	if !reflect.DeepEqual(got, v1) {
		t.Fatalf("Decode of %s:\n got %+v\nwant %+v (encoding/json)", text, got, v1)
	}
}

func compileDec(t testing.TB) []compiled {
	var out []compiled
	for _, src := range decSchemas {
		s := compile(t, src)
		c := Compile(s)
		if c == nil {
			t.Fatalf("no checker for %s", src)
		}
		out = append(out, compiled{s, c})
	}
	return out
}

var decTarget = NewTarget(reflect.TypeFor[decKinds]())

func TestDecodeReads(t *testing.T) {
	if decTarget == nil {
		t.Fatal("no target for decKinds")
	}
	all := compileDec(t)
	text := `{"s": "ab\u00e9", "b": true, "i": -5, "u": 65535, "f": 0.1, "g": 5e1, "p": null, "ps": "x",
		"l": ["a", "b"], "n": {"x": 1, "kids": [{"x": 2}, {"kids": []}]}, "v": {"x": -1}, "m": "y", "NoTag": 7}`
	for i, x := range all {
		got, ok := x.c.Decode(text, false, decTarget)
		if !ok {
			t.Fatalf("schema %d: Decode refused %s", i, text)
		}
		decodeAgrees(t, x, text, false, got)
	}
}

func TestDecodeRefuses(t *testing.T) {
	all := compileDec(t)
	for _, tt := range []struct {
		name, text string
		schema     int
	}{
		{"a member named by case only", `{"S": "a"}`, 0},
		{"a member naming no field", `{"s": "a", "other": 1}`, 0},
		{"the field left out", `{"s": "a", "-": 1}`, 0},
		{"the unexported field", `{"s": "a", "priv": 1}`, 0},
		{"a fraction for an integer", `{"s": "a", "i": 1.0}`, 0},
		{"an exponent for an integer", `{"s": "a", "i": 1e1}`, 0},
		{"an integer out of range", `{"s": "a", "i": 128}`, 0},
		{"a negative unsigned", `{"s": "a", "u": -1}`, 0},
		{"a float32 out of range", `{"s": "a", "f": 1e39}`, 0},
		{"a string for an integer", `{"s": "a", "i": "1"}`, 0},
		{"an object for a string", `{"s": {}}`, 0},
		{"a repeated name", `{"s": "a", "s": "b"}`, 0},
		{"trailing data", `{"s": "a"} x`, 0},
		{"not an object", `["s"]`, 0},
		{"invalid UTF-8", "{\"s\": \"\xff\"}", 0},
		{"what the schema rejects: length", `{"s": "abcdef"}`, 1},
		{"what the schema rejects: required", `{"b": true}`, 1},
		{"what the schema rejects: enum", `{"s": "a", "m": "z"}`, 1},
		{"what the schema rejects: null", `{"s": null}`, 1},
		{"what the schema rejects: nested", `{"s": "a", "n": {"x": "1"}}`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := all[tt.schema].c.Decode(tt.text, false, decTarget); ok {
				t.Fatalf("Decode accepted %s: %+v", tt.text, got)
			}
		})
	}
	t.Run("plain refuses a fraction", func(t *testing.T) {
		if _, ok := all[0].c.Decode(`{"g": 1.5}`, true, decTarget); ok {
			t.Fatal("accepted")
		}
	})
}

func TestNewTargetRefuses(t *testing.T) {
	type withMethod struct{ time.Duration }
	type embedded struct{ decInner }
	type stringOpt struct {
		A int `json:"a,string"`
	}
	type quoted struct {
		A int `json:"'a'"`
	}
	dupName := reflect.StructOf([]reflect.StructField{ // two fields named "a": both ignored
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
	})
	for _, typ := range []reflect.Type{
		reflect.TypeFor[int](), reflect.TypeFor[*decKinds](),
		reflect.TypeFor[struct{ M map[string]int }](),
		reflect.TypeFor[struct{ A any }](),
		reflect.TypeFor[struct{ B []byte }](),
		reflect.TypeFor[struct{ A [2]int }](),
		reflect.TypeFor[struct{ T time.Time }](),
		reflect.TypeFor[struct{ D time.Duration }](),
		reflect.TypeFor[struct{ N json.Number }](),
		reflect.TypeFor[struct{ N jsonv1.Number }](),
		reflect.TypeFor[withMethod](), reflect.TypeFor[embedded](), reflect.TypeFor[stringOpt](),
		reflect.TypeFor[quoted](), dupName,
	} {
		if NewTarget(typ) != nil {
			t.Errorf("NewTarget(%v) is not nil", typ)
		}
	}
}

// TestDecodeAgreesWithTheDecoders generates arguments (deterministically)
// from the names of decKinds, names it does not have, and values of every
// JSON type around the fields' ranges, and checks every acceptance of
// Decode against Valid, santhosh-tekuri, go-json-experiment's v1
// semantics and encoding/json.
func TestDecodeAgreesWithTheDecoders(t *testing.T) {
	values := []string{"0", "-0", "1", "-5", "-6", "127", "128", "-129", "65535", "65536", "1.0", "1e2", "0.1", "-2.5",
		"3.4028235e38", "3.5e38", "1e400", "1e-400", "100", "100.0000000000000001", "9007199254740993",
		`""`, `"a"`, `"x"`, `"y"`, `"abcde"`, `"abcdef"`, `"\u00e9"`, `"\ud83d\ude00"`, "\"\xff\"",
		`null`, `true`, `false`, `[]`, `["a"]`, `["a", "b", "c", "d"]`, `[1]`, `[null]`, `{}`, `{"x": 1}`,
		`{"x": 1, "kids": [{"x": 2}]}`, `{"x": 1.5}`, `{"y": 1}`, `{"kids": null}`, `{"X": 1}`}
	keys := []string{"s", "b", "i", "u", "f", "g", "p", "ps", "l", "n", "v", "m", "NoTag", "notag", "S", "Skip", "-", "priv", "\\u0073", "zz"}
	spaces := []string{"", " ", "\n\t"}
	all := compileDec(t)
	r := rand.New(rand.NewPCG(5, 6))
	accepted := 0
	for range 20000 {
		var b strings.Builder
		b.WriteString(spaces[r.IntN(len(spaces))] + "{")
		for j, n := 0, r.IntN(5); j < n; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(spaces[r.IntN(len(spaces))] + `"` + keys[r.IntN(len(keys))] + `":`)
			b.WriteString(values[r.IntN(len(values))])
		}
		b.WriteString("}" + spaces[r.IntN(len(spaces))])
		text := b.String()
		for _, x := range all {
			for _, plain := range []bool{false, true} {
				if got, ok := x.c.Decode(text, plain, decTarget); ok {
					accepted++
					decodeAgrees(t, x, text, plain, got)
				}
			}
		}
	}
	if accepted < 2000 {
		t.Fatalf("only %d generated arguments accepted: the generator misses the target", accepted)
	}
	t.Logf("%d acceptances checked", accepted)
}

// FuzzDecode is the differential check of Decode: whatever it accepts,
// Valid and santhosh-tekuri accept, and it decodes exactly as
// go-json-experiment's v1 semantics and encoding/json do.
func FuzzDecode(f *testing.F) {
	for i, s := range []string{
		`{"s": "ab", "b": true, "i": -5, "u": 7, "f": 0.1, "g": 1e2, "p": 3, "ps": "x", "l": ["a"], "n": {"x": 1, "kids": [{"x": 2}]}, "v": {}, "m": "x", "NoTag": 7}`,
		`{"s": "\u00e9", "p": null, "n": null, "l": null}`,
		`{"s": "a", "i": 1.0}`, `{"S": "a"}`, `{"s": "a", "s": "b"}`, `{"s": "a", "l": []}`,
		`{"s": "a", "f": 3.4028235e38, "g": -0}`, `{"s": "a"} `, `{}`, `null`,
	} {
		f.Add(uint8(i), s, i%2 == 0)
	}
	all := compileDec(f)
	f.Fuzz(func(t *testing.T, which uint8, text string, plain bool) {
		x := all[int(which)%len(all)]
		if got, ok := x.c.Decode(text, plain, decTarget); ok {
			decodeAgrees(t, x, text, plain, got)
		}
	})
}

// slowValid is Checker.valid without fastValid: the jsontext scan alone.
func slowValid(c *Checker, text string, plain bool) bool {
	s := newScan(jsonread.NewStringDecoder(text, true), plain)
	defer s.release()
	if s.dec.PeekKind() != '{' {
		return false
	}
	return s.value(c.root) && s.atEOF() && !s.loose
}

// TestFastValidTakesTheCommonShape checks that fastValid decides the
// arguments of the usual shape itself.
func TestFastValidTakesTheCommonShape(t *testing.T) {
	all := compileAll(t)
	text := `{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "both": 6, "meta": {"k": true}}`
	if !fastValid(all[0].c.root, text, false) {
		t.Fatalf("fastValid refused %s", text)
	}
	for _, text := range []string{`{"id": 1, "id": 2}`, `{"id": 1, "name": "\u00e9"}`, "{\"id\": 1, \"name\": \"\xff\"}", `{"id": 01}`, `{"id": 1} x`, `{"id": 1,}`} {
		if fastValid(all[0].c.root, text, false) {
			t.Errorf("fastValid accepted %s", text)
		}
	}
}

// FuzzFastValid is the differential check of fastValid against the
// jsontext scan: whatever it accepts, the scan accepts.
func FuzzFastValid(f *testing.F) {
	for i, s := range []string{
		`{"id": 3, "name": "été", "mail": "a@b.example", "kind": false, "ratio": 0.5, "tags": ["x"], "both": 6, "meta": {"k": true}}`,
		`{"addr": {"city": "Oslo"}, "stops": [{"name": "a", "count": 2}]}`,
		`{"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}`,
		`{"n": -2.5, "i": 1, "s": "ab", "l": [], "o": {"x": true}}`,
		`{"a": "x", "b": [1, -0, 1e5, 2.5E-3, true, null, {"c": []}]}`,
		`{"id": 1, "id": 2}`, `{"id": 01}`, `{"id": 1.}`, `{"id": -}`, `{"id": tru}`,
	} {
		f.Add(uint8(i), s, i%2 == 0)
	}
	all := compileAll(f)
	f.Fuzz(func(t *testing.T, which uint8, text string, plain bool) {
		x := all[int(which)%len(all)]
		if fastValid(x.c.root, text, plain) {
			if !slowValid(x.c, text, plain) {
				t.Fatalf("fastValid accepted %q (plain %v), which the jsontext scan refuses", text, plain)
			}
			agrees(t, x.s, []byte(text), plain)
		}
	})
}

// TestFastValidAgreesWithTheScan generates arguments (deterministically)
// as TestNeverAcceptsWhatSanthoshRejects does, and checks that fastValid
// accepts none that the jsontext scan refuses, and most that it accepts.
func TestFastValidAgreesWithTheScan(t *testing.T) {
	values := []string{"-2.5", "-3", "0", "-0", "1", "1.0", "1e3", "1000", "3", "6", "0.5", "01", "1.", "-", "1e", "1e+2", "12345678901234567890",
		`""`, `"a"`, `"xy"`, `"été"`, `"\u00e9"`, `"A"`, `"a@b.example"`, `"2024-01-31T09:00:00Z"`, "\"\xff\"", "\"a\tb\"",
		`null`, `true`, `false`, `tru`, `nul`, `[]`, `{}`, `["x"]`, `[1, null]`, `[1,]`, `{"x": true}`, `{"x": 1, "x": 2}`,
		`{"city": "a"}`, `[{"name": "a"}]`, `[{"name": "a", "count": -1}]`, `{"v": 1}`, `[{"v": 2}]`}
	keys := []string{"id", "name", "mail", "kind", "ratio", "tags", "either", "both", "meta", "free",
		"n", "i", "s", "e", "d", "l", "o", "v", "kids", "addr", "stops", "a", "b", "\\u0069d"}
	spaces := []string{"", " ", "\n\t"}
	all := compileAll(t)
	r := rand.New(rand.NewPCG(7, 8))
	fast, slow := 0, 0
	for range 20000 {
		var b strings.Builder
		b.WriteString(spaces[r.IntN(len(spaces))] + "{")
		for j, n := 0, r.IntN(5); j < n; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(spaces[r.IntN(len(spaces))] + `"` + keys[r.IntN(len(keys))] + `":`)
			b.WriteString(values[r.IntN(len(values))])
		}
		b.WriteString("}" + spaces[r.IntN(len(spaces))])
		text := b.String()
		for _, x := range all {
			for _, plain := range []bool{false, true} {
				s := slowValid(x.c, text, plain)
				if s {
					slow++
				}
				if fastValid(x.c.root, text, plain) {
					fast++
					if !s {
						t.Fatalf("fastValid accepted %s (plain %v), which the jsontext scan refuses", text, plain)
					}
				}
			}
		}
	}
	if fast < slow*3/4 {
		t.Fatalf("fastValid accepted %d of the %d texts the scan accepts", fast, slow)
	}
	t.Logf("fastValid accepted %d of the %d texts the scan accepts", fast, slow)
}

// TestSpecialFindsTheFirstByteNotPlain checks the word scan of str
// against plainByte: for every byte value at every place of a word of
// plain bytes, and after another byte that is not plain, special's lowest
// bit is the first byte that is not plain.
func TestSpecialFindsTheFirstByteNotPlain(t *testing.T) {
	for c := 0; c < 256; c++ {
		for p := 0; p < 8; p++ {
			for _, later := range []byte{'a', '"', 0x00, 0xff, '\\'} {
				w := []byte("abcdefgh")
				w[p] = byte(c)
				if p < 7 {
					w[7] = later
				}
				want := 8
				for i, b := range w {
					if !plainByte[b] {
						want = i
						break
					}
				}
				got := 8
				if m := special(binary.LittleEndian.Uint64(w)); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("% x: first byte not plain at %d, special says %d", w, want, got)
				}
			}
		}
	}
}
