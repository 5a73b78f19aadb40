package jsonread

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/corpusfile"
)

// corpusRawArguments returns the raw argument strings of the shared dev
// corpus, or nil when it is absent.
func corpusRawArguments(tb testing.TB) []string {
	tb.Helper()
	return corpusfile.RawArguments("../../../shared/corpus/dev.jsonl")
}

// decoderVerdict is what encoding/json's Decoder with UseNumber says of s:
// OK and the value, TooDeep ("exceeded max depth") or Invalid.
func decoderVerdict(s string) (Syntax, any) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	switch {
	case err != nil && strings.Contains(err.Error(), "exceeded max depth"):
		return TooDeep, nil
	case err != nil, strings.TrimLeft(s[dec.InputOffset():], " \t\r\n") != "":
		return Invalid, nil
	}
	return OK, v
}

// checkAgainstEncodingJSON checks Check, Decode and Read on s
// against encoding/json: the same verdict and the same value (deeply
// equal, types included).
func checkAgainstEncodingJSON(t *testing.T, s string) {
	t.Helper()
	want, wantValue := decoderVerdict(s)
	if got := Check(s); got != want {
		t.Fatalf("Check(%.80q) = %d, encoding/json says %d", s, got, want)
	}
	got, err := Decode(s)
	gotValid, errValid := Read(s)
	switch want {
	case OK:
		if err != nil || !reflect.DeepEqual(got, wantValue) {
			t.Fatalf("Decode(%.80q) = %#v, %v; encoding/json decodes %#v", s, got, err, wantValue)
		}
		if errValid != nil || !reflect.DeepEqual(gotValid, wantValue) {
			t.Fatalf("Read(%.80q) = %#v, %v; encoding/json decodes %#v", s, gotValid, errValid, wantValue)
		}
	case TooDeep:
		if !errors.Is(err, ErrTooDeep) || !errors.Is(errValid, ErrTooDeep) {
			t.Fatalf("Decode(%.80q): %v, Read: %v; want ErrTooDeep", s, err, errValid)
		}
	default:
		if !errors.Is(err, ErrNotJSON) {
			t.Fatalf("Decode(%.80q): %v, want ErrNotJSON", s, err)
		}
		if errValid == nil {
			t.Fatalf("Read(%.80q) = %#v, accepted a text encoding/json refuses", s, gotValid)
		}
	}
}

func syntaxCases() []string {
	deep := strings.Repeat("[", MaxDepth)
	return []string{
		``, ` `, `{}`, `[]`, ` {"a": [1, -2.5e+3, true, false, null, "x\n\u00e9\"\\\/"]} `, `"s"`, `0`, `-0`, `1.`, `.5`,
		`01`, `1e`, `1E+`, `-`, `+1`, `tru`, `nul`, `falsey`, `{"a" 1}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
		`{a:1}`, `{'a':1}`, `{"a":1}}`, `[1]]`, `{"a":1]`, `[1}`, "\"a\tb\"", "\"a\x00\"", `"\x"`, `"\u12"`, `"\u12G4"`,
		"\"\xff\xfe\"", "\uFEFF{}", "{}\n\t\r ", "{} x", `{"a":1}{"a":1}`, `1 2`, `"abc`, `"abc\`, `[[[`, `{"a":{"b":[{}]}}`,
		"\u00a0{}", `{"a":"b"`, `{"a":1,"a":2}`, `{"a":[],"b":{},"c":[{}]}`, `"\ud800"`, `"\ud800\udc00"`, `"\ud800\u0041"`,
		`"\udc00\ud800"`, "\"\xed\xa0\x80\"", "\"\xc3\"", `"\u0000"`, "\"\u2028\"", `{"a":-0.0e-0}`, ` [ 1 , { "a" : [ ] } ] `, `[1 2]`, `[true false]`, `{"a":1 "b":2}`,
		deep + strings.Repeat("]", MaxDepth),
		"[" + deep + strings.Repeat("]", MaxDepth+1),
		"[" + deep,
		"x" + deep + "[",
		strings.Repeat("[", MaxDepth-1) + "x" + "[[",
	}
}

func TestCheckAndDecodeAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range append(syntaxCases(), corpusRawArguments(t)...) {
		checkAgainstEncodingJSON(t, s)
		if got, want := Valid(s), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.80q) = %v, json.Valid = %v", s, got, want)
		}
	}
}

func TestDecodeRefusesBeforeDecoding(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"a trailing comma", `{"a": 1,}`, ErrNotJSON},
		{"text after the value", `{"a": 1} and more`, ErrNotJSON},
		{"nested too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode(tt.in); !errors.Is(err, tt.want) {
				t.Fatalf("Decode: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDecodeStringReadsTheLeadingString(t *testing.T) {
	tests := []struct {
		in   string
		want string
		n    int
		ok   bool
	}{
		{`"{\"a\": 1}" as asked`, `{"a": 1}`, 12, true},
		{`"x"`, "x", 3, true},
		{`"x"y`, "x", 3, true},
		{`"caf\u00e9",`, "café", 11, true},
		{`"cut`, "", 0, false},
		{` "x"`, "", 0, false},
		{`{"a": 1}`, "", 0, false},
	}
	for _, tt := range tests {
		v, n, ok := DecodeString(tt.in)
		if v != tt.want || n != tt.n || ok != tt.ok {
			t.Errorf("DecodeString(%q) = %q, %d, %v; want %q, %d, %v", tt.in, v, n, ok, tt.want, tt.n, tt.ok)
		}
	}
}

// TestDecoderModes pins what strict changes: repeated names and invalid
// UTF-8 are refused by a strict decoder and read by a lenient one.
func TestDecoderModes(t *testing.T) {
	for _, in := range []string{`{"a": 1, "a": 2}`, "{\"a\": \"\xff\"}"} {
		for _, strict := range []bool{false, true} {
			d := NewDecoder([]byte(in), strict)
			err := d.SkipValue()
			d.Release()
			if (err != nil) != strict {
				t.Errorf("NewDecoder(%q, strict=%v).SkipValue() = %v", in, strict, err)
			}
		}
	}
}

func TestDecoderRewindReadsTheSameTextAgain(t *testing.T) {
	d := NewStringDecoder(`{"a": [1, "x"]}`, false)
	defer d.Release()
	first, err := d.Value()
	if err != nil {
		t.Fatal(err)
	}
	d.Rewind()
	second, err := d.Value()
	if err != nil || !reflect.DeepEqual(first, second) || !d.AtEnd() {
		t.Fatalf("after Rewind: %#v, %v; want %#v", second, err, first)
	}
}

// checkUnquote checks Unquote against encoding/json on s read as the
// content of a JSON string, when it is one.
func checkUnquote(t *testing.T, s string) {
	t.Helper()
	lit := `"` + s + `"`
	var want string
	if json.Unmarshal([]byte(lit), &want) != nil {
		return
	}
	if got := Unquote(lit); got != want {
		t.Fatalf("Unquote(%q) = %q, encoding/json reads %q", lit, got, want)
	}
}

func TestUnquoteReadsAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `caf\u00e9`, `\"\\\/\b\f\n\r\t`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ude00\ud83d`, `\ud83d\u0041`,
		`\ud83d\ud83d\ude00`, "\xff", "a\xc3", "\xed\xa0\x80", "é\\n", `\u0000`, `\uD83D\uDE00`,
	} {
		checkUnquote(t, s)
	}
}

// FuzzDecode checks that Check accepts exactly what encoding/json decodes,
// and reports the nesting limit where it does; that Decode and
// Read decode the same values; and that Unquote reads strings as
// encoding/json does.
func FuzzDecode(f *testing.F) {
	for _, s := range syntaxCases() {
		if len(s) < 200 {
			f.Add(s)
		}
	}
	for _, s := range corpusRawArguments(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAgainstEncodingJSON(t, s)
		checkUnquote(t, s)
	})
}

// BenchmarkDecode reports the cost of the decoder's copy of a string
// (NewStringDecoder then Release: the copy and the pool) next to the
// check and the decode it serves, on a 200-byte object and a 1 MiB one.
func BenchmarkDecode(b *testing.B) {
	small := `{"city": "Oslo", "days": 3, "unit": "celsius", "hourly": true, "location": {"lat": 48.85, "lon": 2.35}, "note": "bring an umbrella"}`
	big := `{"content": "` + strings.Repeat("abcdefghij", 1<<20/10) + `"}`
	for _, in := range []struct{ name, s string }{{"200B", small}, {"1MiB", big}} {
		b.Run("copy/"+in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				NewStringDecoder(in.s, false).Release()
			}
		})
		b.Run("check/"+in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				Check(in.s)
			}
		})
		b.Run("decode/"+in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(in.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
