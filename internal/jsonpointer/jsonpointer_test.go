package jsonpointer

import (
	"reflect"
	"slices"
	"testing"
)

func TestEscapeAndUnescapeAToken(t *testing.T) {
	for _, tt := range []struct{ tok, escaped string }{
		{"", ""},
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~1", "~01"}, // escaped "~" first, so it is not read back as "/"
		{"/~", "~1~0"},
		{"//", "~1~1"},
		{"~~", "~0~0"},
		{"0", "0"},
		{"é ü", "é ü"},
	} {
		if got := Escape(tt.tok); got != tt.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tt.tok, got, tt.escaped)
		}
		if got := Unescape(tt.escaped); got != tt.tok {
			t.Errorf("Unescape(%q) = %q, want %q", tt.escaped, got, tt.tok)
		}
	}
}

func TestFormatAndTokensRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		toks []string
		p    string
	}{
		{nil, ""},
		{[]string{""}, "/"},        // the member named ""
		{[]string{"", ""}, "//"},   // member "" of member ""
		{[]string{"a", ""}, "/a/"}, // member "" of "a"
		{[]string{"items", "0", "sku"}, "/items/0/sku"},
		{[]string{"a/b", "c~d"}, "/a~1b/c~0d"},
		{[]string{"~1"}, "/~01"},
	} {
		if got := Format(tt.toks); got != tt.p {
			t.Errorf("Format(%q) = %q, want %q", tt.toks, got, tt.p)
		}
		if got := Tokens(tt.p); !reflect.DeepEqual(got, tt.toks) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.p, got, tt.toks)
		}
	}
}

func TestNextWalksTheTokensUnescaped(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/items/0/sku", "/a~1b/c~0d/", "/~01"} {
		var got []string
		for rest := p; rest != ""; {
			var tok string
			tok, rest = Next(rest)
			got = append(got, tok)
		}
		if want := Tokens(p); !reflect.DeepEqual(got, want) {
			t.Errorf("Next walks %q as %q, want %q", p, got, want)
		}
	}
}

func TestAppendAndSplit(t *testing.T) {
	for _, tt := range []struct{ parent, tok, p string }{
		{"", "a", "/a"},
		{"", "", "/"},
		{"/a", "b/c", "/a/b~1c"},
		{"/a", "~", "/a/~0"},
		{"/x/0", "", "/x/0/"},
	} {
		if got := Append(tt.parent, tt.tok); got != tt.p {
			t.Errorf("Append(%q, %q) = %q, want %q", tt.parent, tt.tok, got, tt.p)
		}
		if parent, last := Split(tt.p); parent != tt.parent || last != tt.tok {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.p, parent, last, tt.parent, tt.tok)
		}
	}
	if parent, last := Split(""); parent != "" || last != "" {
		t.Errorf(`Split("") = %q, %q; want "", ""`, parent, last)
	}
}

func TestCompareOrdersIndexesNumericallyAndParentsFirst(t *testing.T) {
	want := []string{"", "/a", "/a/2", "/a/10", "/a/b", "/a~1b", "/b", "/b/0", "/b/0/x"}
	got := []string{"/b/0/x", "/a/10", "/a~1b", "", "/b", "/a/b", "/a/2", "/b/0", "/a"}
	slices.SortFunc(got, Compare)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
	for _, p := range want {
		if Compare(p, p) != 0 {
			t.Errorf("Compare(%q, %q) != 0", p, p)
		}
	}
}

func FuzzPointerRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", "a/b", "~0", "~1", "~01", "/", "~"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if Unescape(Escape(a)) != a {
			t.Fatalf("Unescape(Escape(%q)) = %q", a, Unescape(Escape(a)))
		}
		toks := []string{a, b}
		p := Format(toks)
		if got := Tokens(p); !slices.Equal(got, toks) {
			t.Fatalf("Tokens(Format(%q)) = %q", toks, got)
		}
		if tok, rest := Next(p); tok != a || rest != Format(toks[1:]) {
			t.Fatalf("Next(%q) = %q, %q", p, tok, rest)
		}
		if parent, last := Split(p); parent != Format(toks[:1]) || last != b {
			t.Fatalf("Split(%q) = %q, %q", p, parent, last)
		}
		if Compare(Format(toks[:1]), p) >= 0 {
			t.Fatalf("Compare(%q, %q) >= 0: a parent must sort first", Format(toks[:1]), p)
		}
	})
}
