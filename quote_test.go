package saidex

import (
	"encoding/json"
	"strings"
	"testing"
)

// encoderContent is a string's content as a json.Encoder writes it: what
// quoteContent must match byte for byte, since the scrub searches for the
// encodings encoding/json (and the clients built on it) write.
func encoderContent(t testing.TB, s string, html bool) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

var quoteSeeds = []string{
	"", "plain", shapeSecret, `a"b`, `back\slash`, "tab\tnew\nret\rbs\bff\f",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "caf\u00e9 \u2028 \u2029 \u65e5\u672c",
	"bad \xff utf8 \xc3", "\xe2\x80", `{"password":"Xq7-secret-Zp9"}`, "emoji \U0001F600",
}

func TestQuoteContentMatchesEncodingJSON(t *testing.T) {
	for _, s := range quoteSeeds {
		for _, html := range []bool{false, true} {
			if got, want := quoteContent(s, html), encoderContent(t, s, html); got != want {
				t.Errorf("quoteContent(%q, %v) = %q, want %q", s, html, got, want)
			}
		}
	}
}

func FuzzQuoteContent(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			if got, want := quoteContent(s, html), encoderContent(t, s, html); got != want {
				t.Fatalf("quoteContent(%q, %v) = %q, want %q", s, html, got, want)
			}
		}
	})
}
