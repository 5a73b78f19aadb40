package saidex

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// decoderVerdict is what encoding/json's Decoder, as decodeJSON used it
// alone, says of s: syntaxOK, syntaxTooDeep ("exceeded max depth") or
// syntaxInvalid.
func decoderVerdict(s string) int {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	err := dec.Decode(&v)
	switch {
	case err != nil && strings.Contains(err.Error(), "exceeded max depth"):
		return syntaxTooDeep
	case err != nil, strings.TrimLeft(s[dec.InputOffset():], " \t\r\n") != "":
		return syntaxInvalid
	}
	return syntaxOK
}

func syntaxCases() []string {
	deep := strings.Repeat("[", MaxNestingDepth)
	return []string{
		``, ` `, `{}`, `[]`, ` {"a": [1, -2.5e+3, true, false, null, "x\n\u00e9\"\\\/"]} `, `"s"`, `0`, `-0`, `1.`, `.5`,
		`01`, `1e`, `1E+`, `-`, `+1`, `tru`, `nul`, `falsey`, `{"a" 1}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
		`{a:1}`, `{'a':1}`, `{"a":1}}`, `[1]]`, `{"a":1]`, `[1}`, "\"a\tb\"", "\"a\x00\"", `"\x"`, `"\u12"`, `"\u12G4"`,
		"\"\xff\xfe\"", "\uFEFF{}", "{}\n\t\r ", "{} x", `{"a":1}{"a":1}`, `1 2`, `"abc`, `"abc\`, `[[[`, `{"a":{"b":[{}]}}`,
		"\u00a0{}", `{"a":"b"`, `[1 2]`, `[true false]`, `{"a":1 "b":2}`,
		deep + strings.Repeat("]", MaxNestingDepth),
		"[" + deep + strings.Repeat("]", MaxNestingDepth+1),
		"[" + deep,
		"x" + deep + "[",
		strings.Repeat("[", MaxNestingDepth-1) + "x" + "[[",
	}
}

func TestCheckSyntaxAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range append(syntaxCases(), corpusRawArguments(t)...) {
		if got, want := checkSyntax(s), decoderVerdict(s); got != want {
			t.Errorf("checkSyntax(%.80q) = %d, encoding/json says %d", s, got, want)
		}
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

// FuzzCheckSyntax checks that the pre-check accepts exactly what
// encoding/json decodes, and reports the nesting limit where it does.
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
		if got, want := checkSyntax(s), decoderVerdict(s); got != want {
			t.Fatalf("checkSyntax(%q) = %d, encoding/json says %d", s, got, want)
		}
	})
}
