// Package jsonpointer builds, splits and orders RFC 6901 JSON Pointers, the
// form in which saidex reports the location of a value in a call's
// arguments: "" is the whole document, "/a/0" member "a"'s first item, and
// a reference token escapes "~" as "~0" and "/" as "~1".
//
// The functions take pointers that are "" or start with "/", as the ones
// they build do; they do not validate their input.
package jsonpointer

import (
	"cmp"
	"strconv"
	"strings"
)

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Escape returns tok as a reference token: "~" becomes "~0" and "/"
// becomes "~1". A token without either is returned as it is.
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return escaper.Replace(tok)
}

// Unescape reverses [Escape]: "~1" becomes "/" and "~0" becomes "~", so
// "~01" is "~1", not "/".
func Unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return unescaper.Replace(tok)
}

// Append returns the pointer to the member or item tok (unescaped) of the
// value p points to.
func Append(p, tok string) string {
	return p + "/" + Escape(tok)
}

// Format returns the pointer made of the unescaped tokens toks; "" for
// none.
func Format(toks []string) string {
	if len(toks) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range toks {
		b.WriteByte('/')
		b.WriteString(Escape(tok))
	}
	return b.String()
}

// Tokens returns the unescaped tokens of p, nil for "". It reverses
// [Format].
func Tokens(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks
}

// Next splits a pointer other than "" into its first token, unescaped, and
// the pointer to the rest: "/a~1b/c" into "a/b" and "/c". Walking a pointer
// with Next allocates nothing for tokens without escapes.
func Next(p string) (tok, rest string) {
	tok, rest = next(p)
	return Unescape(tok), rest
}

// Split returns the pointer to the parent of the value p points to and
// p's last token, unescaped. For "" it returns "" and "".
func Split(p string) (parent, last string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", Unescape(p)
	}
	return p[:i], Unescape(p[i+1:])
}

// Compare orders pointers token by token: tokens that are both array
// indexes in numeric order ("/2" before "/10"), other tokens by their
// escaped bytes, and a pointer before the pointers below it. It returns
// -1, 0 or +1, as [strings.Compare] does.
func Compare(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = next(a)
		tb, b = next(b)
		if ta == tb {
			continue
		}
		na, errA := strconv.Atoi(ta)
		nb, errB := strconv.Atoi(tb)
		if errA == nil && errB == nil {
			return cmp.Compare(na, nb)
		}
		return strings.Compare(ta, tb)
	}
	return cmp.Compare(len(a), len(b))
}

// next splits "/a/b" into the escaped token "a" and the rest "/b".
func next(p string) (tok, rest string) {
	p = p[1:]
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}
