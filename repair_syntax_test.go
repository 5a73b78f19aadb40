package saidex

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// decoderVerdict is what encoding/json's Decoder with UseNumber, as
// decodeJSON used it alone, says of s: syntaxOK and the value,
// syntaxTooDeep ("exceeded max depth") or syntaxInvalid.
func decoderVerdict(s string) (int, any) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	switch {
	case err != nil && strings.Contains(err.Error(), "exceeded max depth"):
		return syntaxTooDeep, nil
	case err != nil, strings.TrimLeft(s[dec.InputOffset():], " \t\r\n") != "":
		return syntaxInvalid, nil
	}
	return syntaxOK, v
}

// checkAgainstEncodingJSON checks checkSyntax, decodeJSON and readMatching
// on s against encoding/json: the same verdict, the same value (deeply
// equal, types included), the same compact text, the same tokens; and no
// acceptance by readMatching of a text encoding/json refuses.
func checkAgainstEncodingJSON(t *testing.T, s string) {
	t.Helper()
	want, wantValue := decoderVerdict(s)
	if got := checkSyntax(s); got != want {
		t.Fatalf("checkSyntax(%.80q) = %d, encoding/json says %d", s, got, want)
	}
	if want != syntaxOK {
		// readMatching checks the syntax itself: the tokens jsontext
		// reads before the first error (or all of them, for a stream of
		// values) never make it accept.
		prefix, _ := jsonTokens(s)
		if v, text, ok := readMatching(s, prefix); ok {
			t.Fatalf("readMatching(%.80q) = %#v, %q, accepted a text encoding/json refuses", s, v, text)
		}
		return
	}
	got, err := decodeJSON(s)
	if err != nil || !reflect.DeepEqual(got, wantValue) {
		t.Fatalf("decodeJSON(%.80q) = %#v, %v; encoding/json decodes %#v", s, got, err, wantValue)
	}
	toks, err := jsonTokens(s)
	if err != nil {
		return // jsontext is stricter (an invalid \u surrogate escape)
	}
	v, text, ok := readMatching(s, toks)
	var compact bytes.Buffer
	_ = json.Compact(&compact, []byte(s))
	if !ok || text != compact.String() || !reflect.DeepEqual(v, wantValue) {
		t.Fatalf("readMatching(%.80q, its own tokens) = %#v, %q, %v; want %#v, %q", s, v, text, ok, wantValue, compact.String())
	}
	if len(toks) > 0 {
		other := slices.Clone(toks)
		other[len(other)-1].text += "x"
		if _, _, ok := readMatching(s, other); ok {
			t.Fatalf("readMatching(%.80q) matched tokens that differ in the last one", s)
		}
		if _, _, ok := readMatching(s, toks[:len(toks)-1]); ok {
			t.Fatalf("readMatching(%.80q) matched one token fewer", s)
		}
	}
}

func syntaxCases() []string {
	deep := strings.Repeat("[", MaxNestingDepth)
	return []string{
		``, ` `, `{}`, `[]`, ` {"a": [1, -2.5e+3, true, false, null, "x\n\u00e9\"\\\/"]} `, `"s"`, `0`, `-0`, `1.`, `.5`,
		`01`, `1e`, `1E+`, `-`, `+1`, `tru`, `nul`, `falsey`, `{"a" 1}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
		`{a:1}`, `{'a':1}`, `{"a":1}}`, `[1]]`, `{"a":1]`, `[1}`, "\"a\tb\"", "\"a\x00\"", `"\x"`, `"\u12"`, `"\u12G4"`,
		"\"\xff\xfe\"", "\uFEFF{}", "{}\n\t\r ", "{} x", `{"a":1}{"a":1}`, `1 2`, `"abc`, `"abc\`, `[[[`, `{"a":{"b":[{}]}}`,
		"\u00a0{}", `{"a":"b"`, `{"a":1,"a":2}`, `{"a":[],"b":{},"c":[{}]}`, `"\ud800"`, `"\ud800\udc00"`, `"\ud800\u0041"`,
		`"\udc00\ud800"`, "\"\xed\xa0\x80\"", "\"\xc3\"", `"\u0000"`, "\"\u2028\"", `{"a":-0.0e-0}`, ` [ 1 , { "a" : [ ] } ] `, `[1 2]`, `[true false]`, `{"a":1 "b":2}`,
		deep + strings.Repeat("]", MaxNestingDepth),
		"[" + deep + strings.Repeat("]", MaxNestingDepth+1),
		"[" + deep,
		"x" + deep + "[",
		strings.Repeat("[", MaxNestingDepth-1) + "x" + "[[",
	}
}

func TestCheckSyntaxAndDecodeAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range append(syntaxCases(), corpusRawArguments(t)...) {
		checkAgainstEncodingJSON(t, s)
		if got, want := checkSyntax(s) == syntaxOK, json.Valid([]byte(s)); got != want {
			t.Errorf("checkSyntax(%.80q) ok = %v, json.Valid = %v", s, got, want)
		}
	}
}

func TestDecodeJSONRefusesBeforeDecoding(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"a trailing comma", `{"a": 1,}`, errNotJSON},
		{"text after the value", `{"a": 1} and more`, errNotJSON},
		{"nested too deep", strings.Repeat("[", MaxNestingDepth+1) + strings.Repeat("]", MaxNestingDepth+1), errTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeJSON(tt.in); !errors.Is(err, tt.want) {
				t.Fatalf("decodeJSON: %v, want %v", err, tt.want)
			}
		})
	}
}

// checkUnquote checks unquoteJSON against encoding/json on s read as the
// content of a JSON string, when it is one.
func checkUnquote(t *testing.T, s string) {
	t.Helper()
	lit := `"` + s + `"`
	var want string
	if json.Unmarshal([]byte(lit), &want) != nil {
		return
	}
	if got := unquoteJSON(lit); got != want {
		t.Fatalf("unquoteJSON(%q) = %q, encoding/json reads %q", lit, got, want)
	}
}

func TestUnquoteJSONReadsAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `caf\u00e9`, `\"\\\/\b\f\n\r\t`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ude00\ud83d`, `\ud83d\u0041`,
		`\ud83d\ud83d\ude00`, "\xff", "a\xc3", "\xed\xa0\x80", "é\\n", `\u0000`, `\uD83D\uDE00`,
	} {
		checkUnquote(t, s)
	}
}

// checkPrechecks checks that the cheap tests before the repair stage's
// regular expressions never say "no" where the expression matches.
func checkPrechecks(t *testing.T, s string) {
	t.Helper()
	if (thinkOpen.MatchString(s) || thinkClose.MatchString(s)) && !mayHoldThinkTag(s) {
		t.Fatalf("mayHoldThinkTag(%.80q) = false, but a think tag matches", s)
	}
	if templateToken.MatchString(s) && !mayHoldTemplateToken(s) {
		t.Fatalf("mayHoldTemplateToken(%.80q) = false, but a template token matches", s)
	}
	if fence.MatchString(s) && !mayHoldFence(s) {
		t.Fatalf("mayHoldFence(%.80q) = false, but a fence matches", s)
	}
}

func TestRegexpPrechecksNeverMissAMatch(t *testing.T) {
	tests := []struct {
		in    string
		think bool // a think tag matches
	}{
		{"<think>a</think>{}", true}, {"<THINKING>", true}, {"x </Think>", true}, {"</tHiNk>", true},
		{"<tool_call>{}</tool_call>", false}, {"<|im_end|>", false}, {"[TOOL_CALLS]", false}, {"```json\n{}\n```", false},
		{"a < b, <t", false}, {"no tags", false}, {"<", false}, {"</", false},
	}
	for _, tt := range tests {
		checkPrechecks(t, tt.in)
		if got := thinkOpen.MatchString(tt.in) || thinkClose.MatchString(tt.in); got != tt.think {
			t.Errorf("%q: a think tag matches = %v, want %v (test case wrong)", tt.in, got, tt.think)
		}
	}
	for _, s := range corpusRawArguments(t) {
		checkPrechecks(t, s)
	}
}

// FuzzCheckSyntax checks that the pre-check accepts exactly what
// encoding/json decodes, and reports the nesting limit where it does; and
// that the decoder behind it decodes the same values; and that the
// prechecks before the regular expressions are sound.
func FuzzCheckSyntax(f *testing.F) {
	for _, s := range syntaxCases() {
		if len(s) < 200 {
			f.Add(s)
		}
	}
	for _, s := range corpusRawArguments(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		before := strings.Clone(s)
		checkAgainstEncodingJSON(t, s)
		checkUnquote(t, s)
		checkPrechecks(t, s)
		if s != before {
			t.Fatalf("reading %q changed it to %q", before, s)
		}
	})
}

// The JSON reader reads the caller's string in place (readOnlyBytes): no
// read, accepted or refused, may write into it.
func TestJSONReaderNeverWritesItsInput(t *testing.T) {
	inputs := append(syntaxCases(),
		`{"a": "x\"y", "b": [1, 2.5e3, true, null, {"c": "\u00e9"}]}`,
		`{"a": 1} {"b": 2}`, `{"a": [1, 2,]}`, `{"a" 1}`, `[`+strings.Repeat(`"v", `, 500)+`]`,
		strings.Repeat("[", 10001)+strings.Repeat("]", 10001))
	for _, in := range inputs {
		s := strings.Clone(in) // on the heap, like an argument string
		want := strings.Clone(in)
		_ = checkSyntax(s)
		_, _ = decodeJSON(s)
		toks, _ := jsonTokens(want)
		_, _, _ = readMatching(s, toks)
		if s != want {
			t.Fatalf("reading %.80q changed it to %.80q", want, s)
		}
	}
}

// allocatedBy returns how many bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestRepairRefusesAHugeBrokenObjectWithTheRepairLimitWithoutDecodingIt(t *testing.T) {
	const size = 4 << 20
	tests := []struct {
		name string
		raw  string
	}{
		{"a trailing comma at the end", `{"note": "` + strings.Repeat("abcdefghij", size/10) + `",}`},
		{"single quotes from the start", `{'note': '` + strings.Repeat("abcdefghij", size/10) + `'}`},
		{"a missing comma at the end", `{"a": [` + strings.Repeat(`"abcdefghij", `, size/14) + `1 2]}`},
	}
	opt := repairOptions{stripThinking: true, jsonRepair: true, maxBytes: 16 << 20, maxRepair: DefaultMaxRepairBytes}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			// Decoding (or copying the text into a decoder) would allocate
			// at least twice its size; the syntax check allocates nothing
			// and the scan, the text's size once.
			n := allocatedBy(func() { _, err = repairArguments(tt.raw, opt) })
			var me *MalformedArgumentsError
			if !errors.As(err, &me) || !strings.Contains(me.Reason, "too large to repair") {
				t.Fatalf("repairArguments: %v, want the repair-limit refusal", err)
			}
			if limit := uint64(len(tt.raw)) * 3 / 2; n > limit {
				t.Errorf("refusing %d bytes allocated %d bytes, want at most %d", len(tt.raw), n, limit)
			}
		})
	}
}

func TestRepairComparesRepeatedCopiesBeyondTheRepairLimit(t *testing.T) {
	big := `{"note": "` + strings.Repeat("abcdefghij", 20000) + `", "n": [1, 2]}`
	other := strings.Replace(big, "[1, 2]", "[1, 3]", 1)
	small := `{"a": 1}`
	tests := []struct {
		name   string
		raw    string
		repair bool   // jsonRepair
		want   string // the refusal's words; "" when the first copy is kept
	}{
		{"a big object sent twice", big + big, true, ""},
		{"a big object then a different one", big + other, true, "two different JSON objects"},
		{"a small object sent twice, repair disabled", small + " " + small, false, ""},
		{"a small object then a different one, repair disabled", small + `{"a": 2}`, false, "two different JSON objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := repairOptions{stripThinking: true, jsonRepair: tt.repair, maxBytes: 16 << 20, maxRepair: DefaultMaxRepairBytes}
			res, err := repairArguments(tt.raw, opt)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("repairArguments: %v, want a refusal saying %q", err, tt.want)
				}
				return
			}
			first := tt.raw[:strings.IndexByte(tt.raw, '}')+1]
			if err != nil || res.json != first || !slices.Equal(res.steps, []RepairStep{RepairRepeatedObject}) {
				t.Fatalf("repairArguments: %d bytes, steps %v, %v; want the first copy (%d bytes), repeated_object", len(res.json), res.steps, err, len(first))
			}
		})
	}
}

// jsonTokens lists the significant tokens of valid JSON text, in the
// scanner's form, for comparison with a scan (tests only: readMatching
// compares tokens as it reads). Text holding a stream of
// values gives all their tokens; invalid text, those before the error, with
// the error.
func jsonTokens(text string) ([]scanTok, error) {
	// Duplicate names and invalid UTF-8 are accepted, as encoding/json
	// does (invalid bytes read as U+FFFD): the comparison is of token
	// sequences, and validation judges the value afterwards.
	dec := jsontext.NewDecoder(strings.NewReader(text),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var toks []scanTok
	for {
		t, err := dec.ReadToken()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return toks, err
		}
		switch k := t.Kind(); k {
		case '{', '}', '[', ']':
			toks = append(toks, scanTok{kind: byte(k)})
		case '"':
			toks = append(toks, scanTok{kind: 's', text: t.String()})
		case '0':
			toks = append(toks, scanTok{kind: 'n', text: t.String()})
		default: // true, false, null
			toks = append(toks, scanTok{kind: 'l', text: t.String()})
		}
	}
}
