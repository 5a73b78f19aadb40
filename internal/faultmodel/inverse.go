package faultmodel

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inverses. Each proposes every edit that undoes one fault of its
// kind, wherever that fault can occur: at every character boundary for an
// inserted character, at every occurrence for a deleted or replaced one,
// inside what looks like a string as much as outside it (in a broken text
// nobody knows where the strings are). Only the catch-alls restrict what
// they skip, and their rows say so.

// boundaries returns every character boundary of s, 0 and len(s)
// included.
func boundaries(s string) []int {
	out := make([]int, 0, len(s)+1)
	for i := 0; i <= len(s); i++ {
		if i == len(s) || utf8.RuneStart(s[i]) {
			out = append(out, i)
		}
	}
	return out
}

// insertEverywhere: each character of chars inserted at every boundary.
func insertEverywhere(s, chars string) []Edit {
	var out []Edit
	for _, i := range boundaries(s) {
		for j := 0; j < len(chars); j++ {
			out = append(out, Edit{i, i, chars[j : j+1]})
		}
	}
	return out
}

// deleteEach: each occurrence of a character of chars (ASCII) deleted.
func deleteEach(s, chars string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) >= 0 {
			out = append(out, Edit{i, i + 1, ""})
		}
	}
	return out
}

// replaceEach: each occurrence of a character of from (ASCII) written as
// each other character of to.
func replaceEach(s, from, to string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(from, s[i]) < 0 {
			continue
		}
		for j := 0; j < len(to); j++ {
			if to[j] != s[i] {
				out = append(out, Edit{i, i + 1, to[j : j+1]})
			}
		}
	}
	return out
}

// replaceWords: each occurrence of each key of words written as its value.
func replaceWords(s string, words map[string]string) []Edit {
	var out []Edit
	for w, r := range words {
		for i := 0; ; {
			j := strings.Index(s[i:], w)
			if j < 0 {
				break
			}
			out = append(out, Edit{i + j, i + j + len(w), r})
			i += j + 1
		}
	}
	return out
}

func invComma(s string) []Edit {
	return append(insertEverywhere(s, ","), deleteEach(s, ",")...)
}

func invColon(s string) []Edit {
	return append(insertEverywhere(s, ":"), deleteEach(s, ":")...)
}

// invQuote: a quote inserted anywhere or deleted; a bare quote escaped
// (an inner quote left unescaped).
func invQuote(s string) []Edit {
	out := append(insertEverywhere(s, `"`), deleteEach(s, `"`)...)
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, Edit{i, i + 1, `\"`})
		}
	}
	return out
}

func invDeleteBrace(s string) []Edit   { return deleteEach(s, "{}") }
func invDeleteCloser(s string) []Edit  { return deleteEach(s, "}]") }
func invDeleteBracket(s string) []Edit { return deleteEach(s, "]") }
func invInsertCloser(s string) []Edit  { return insertEverywhere(s, "}]") }
func invSwapCloser(s string) []Edit    { return replaceEach(s, "}]", "}]") }

// invPunctuation: a structural character inserted anywhere; a structural
// character or an apostrophe deleted, or written for another structural
// character.
func invPunctuation(s string) []Edit {
	out := insertEverywhere(s, Structural)
	out = append(out, deleteEach(s, Structural+"'")...)
	return append(out, replaceEach(s, Structural+"'", Structural)...)
}

// invQuoteStyle: a string between single quotes (its \' unescaped, its
// bare quotes escaped), each pair that encloses no other quote
// (apostrophePairs), or between typographic ones, up to its first
// closing mark.
func invQuoteStyle(s string) []Edit {
	out := apostrophePairs(s)
	const open, close = "“", "”"
	for i := 0; ; {
		a := strings.Index(s[i:], open)
		if a < 0 {
			break
		}
		a += i
		if b := strings.Index(s[a+len(open):], close); b >= 0 {
			b += a + len(open)
			out = append(out, Edit{a, b + len(close), `"` + s[a+len(open):b] + `"`})
		}
		i = a + len(open)
	}
	return out
}

// quotedContent returns the content of a string between quotes q (a
// single quote or a backquote) as JSON string content: the quote escaped
// (\' or \`) as itself, a bare " escaped, other escapes kept.
func quotedContent(c string, q byte) string {
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		switch {
		case c[i] == '\\' && i+1 < len(c) && c[i+1] == q:
			b.WriteByte(q)
			i++
		case c[i] == '\\' && i+1 < len(c):
			b.WriteString(c[i : i+2])
			i++
		case c[i] == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c[i])
		}
	}
	return b.String()
}

// bareDelims end a bare token.
const bareDelims = "{}[],\""

var (
	numberLike = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	otherValue = regexp.MustCompile(`(?i)^([+-]?(nan|inf|infinity)|undefined|nil|none|null|true|false)$`)
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// invBare: a bare token quoted: a run of text between brackets, commas
// and quotes, from its start or a colon in it to its end or a colon in it
// (a bare value may hold a colon: http://x, but neither begins nor ends
// with one, which is the member's). The white space around it is layout,
// never the string's. A token in a value's place (no colon right
// after it) that reads as a number or a literal in any case (escaped
// white space around it aside) is never quoted: it is that number or
// literal, written loosely. A token holding
// a quote mark (an apostrophe, a typographic quote, a backquote or the
// entity &quot;), an invisible character or a comment opener ('#', "/*",
// or "//" at its start or after white space: HoldsLineComment), or
// starting or ending with white space outside ASCII, or whose first word,
// with more after it, is a number or a literal (220 * 2, LeadingValue), is not one bare
// string; nor is one of escaped white space alone (\n written bare is
// layout, as the white space around a token is); nor is one that ends in
// an odd run of backslashes, whose
// closing quote would be escaped (a string's content, unquoted, ends in
// whole escapes).
// A token may end where escaped white space (the layout's, escaped_space)
// follows it, as anywhere an edit writes a delimiter.
func invBare(s string) []Edit {
	var out []Edit
	for a := 0; a < len(s); {
		b := a
		for b < len(s) && strings.IndexByte(bareDelims, s[b]) < 0 {
			b++
		}
		starts, ends := []int{a}, []int{b}
		for i := a; i < b; i++ {
			if s[i] == ':' {
				starts, ends = append(starts, i+1), append(ends, i)
			}
		}
		for _, i := range starts {
			for _, j := range ends {
				if e, ok := BareToken(s, i, j); ok {
					out = append(out, e)
				}
			}
		}
		a = b + 1
	}
	return out
}

// BareToken returns the edit quoting s[i:j] without its white space, and
// false when that is no bare string (see invBare).
func BareToken(s string, i, j int) (Edit, bool) {
	if i >= j {
		return Edit{}, false
	}
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	tok := s[i:j]
	k := j
	for k < len(s) && isSpace(s[k]) {
		k++
	}
	key := k < len(s) && s[k] == ':'
	if TrimEscapedSpace(tok) == "" || tok[0] == ':' || tok[len(tok)-1] == ':' || strings.ContainsAny(tok, "'“”‘’`#") || strings.Contains(tok, EntityQuote) || HoldsLineComment(tok) || strings.Contains(tok, "/*") ||
		invisibleEnd(tok) || LeadingValue(tok) || backslashesBefore(tok, len(tok))%2 == 1 ||
		!key && (numberLike.MatchString(TrimEscapedSpace(tok)) || otherValue.MatchString(TrimEscapedSpace(tok))) {
		return Edit{}, false
	}
	return Edit{i, j, `"` + tok + `"`}, true
}

// invisibleEnd reports whether tok holds an invisible character (a
// format character, such as U+200B), or starts or ends with white space
// outside ASCII: no bare string holds them, and JSON's layout neither.
func invisibleEnd(tok string) bool {
	first, _ := utf8.DecodeRuneInString(tok)
	last, _ := utf8.DecodeLastRuneInString(tok)
	return unicode.IsSpace(first) || unicode.IsSpace(last) || strings.ContainsFunc(tok, func(r rune) bool { return unicode.Is(unicode.Cf, r) })
}

// LeadingValue reports whether tok's first word (up to white space or
// "//"), with more after it, reads as a number or a literal: a value and
// more (220 * 2, 1 2, true// note), never one bare string.
func LeadingValue(tok string) bool {
	i := strings.IndexAny(tok, " \t\r\n")
	if j := strings.Index(tok, "//"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i <= 0 {
		return false
	}
	w := tok[:i]
	return numberLike.MatchString(w) || otherValue.MatchString(w)
}

// TrimEscapedSpace trims the white space, and the escaped white space
// (\n, \r, \t written as two characters), around s.
func TrimEscapedSpace(s string) string {
	for {
		t := strings.TrimSpace(s)
		for _, e := range []string{`\n`, `\r`, `\t`} {
			t = strings.TrimSuffix(strings.TrimPrefix(t, e), e)
		}
		if t == s {
			return t
		}
		s = t
	}
}

// HoldsLineComment reports whether the bare token tok holds "//" at its
// start or after white space, which opens a line comment. Inside a word
// (a/b//c, the "//" of a URL) it is the token's text; read as a comment
// there too, it is a second reading (the comment row's).
func HoldsLineComment(tok string) bool {
	for i := 0; i+1 < len(tok); i++ {
		if tok[i:i+2] == "//" && (i == 0 || isSpace(tok[i-1])) {
			return true
		}
	}
	return false
}

var integer = regexp.MustCompile(`-?[0-9]+`)

// invNumericKey: a run of digits quoted where a colon follows it (white
// space aside): a key's place. A run in a value's place is a number (the
// unquoted row never reads one as a string).
func invNumericKey(s string) []Edit {
	var out []Edit
	for _, m := range integer.FindAllStringIndex(s, -1) {
		k := m[1]
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k < len(s) && s[k] == ':' {
			out = append(out, Edit{m[0], m[1], `"` + s[m[0]:m[1]] + `"`})
		}
	}
	return out
}

// invUnclosedKey: a quote inserted before a colon, where it closes a key
// in the reading (the engine inserts it inside a key; the brute-force
// reader checks where it lands).
func invUnclosedKey(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			out = append(out, Edit{i, i, `"`})
		}
	}
	return out
}

// invEscape: a line break, tab or carriage return escaped (where no
// backslash of its own precedes it); a lone backslash doubled (where it
// starts no escape); \\" written \"; \XXXX (four hex digits) written \uXXXX; a
// quote moved back after the escape it precedes ("s"\n); a backslash and
// line break (a line continuation) dropped; an apostrophe escaped as
// JavaScript and Python escape it (\') written as itself.
func invEscape(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '\n' || c == '\t' || c == '\r') && backslashesBefore(s, i)%2 == 0 {
			out = append(out, Edit{i, i + 1, ControlEscape(c)})
		}
		switch {
		case c == '\\':
			if backslashesBefore(s, i)%2 == 0 && (i+1 == len(s) || strings.IndexByte(`"\\/bfnrtu`, s[i+1]) < 0) {
				out = append(out, Edit{i, i + 1, `\\`})
			}
			if strings.HasPrefix(s[i:], `\\"`) {
				out = append(out, Edit{i, i + 3, `\"`})
			}
			if i+5 <= len(s) && isHex(s[i+1:i+5]) {
				out = append(out, Edit{i, i + 1, `\u`})
			}
			if i+1 < len(s) && s[i+1] == '\n' {
				out = append(out, Edit{i, i + 2, ""})
			}
			if i+1 < len(s) && s[i+1] == '\'' && backslashesBefore(s, i)%2 == 0 {
				out = append(out, Edit{i, i + 2, "'"})
			}
		case c == '"' && i+3 <= len(s) && s[i+1] == '\\' && strings.IndexByte("ntr", s[i+2]) >= 0:
			out = append(out, Edit{i, i + 3, s[i+1:i+3] + `"`})
		}
	}
	return out
}

// backslashesBefore returns how many backslashes run up to s[i].
func backslashesBefore(s string, i int) int {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// invEscapedSpace: \n, \t or \r written as two characters dropped.
func invEscapedSpace(s string) []Edit {
	var out []Edit
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' && strings.IndexByte("ntr", s[i+1]) >= 0 {
			out = append(out, Edit{i, i + 2, ""})
		}
	}
	return out
}

// invComment: a comment dropped: /* to any */ after it; // or # to the
// end of its line (or of the text), or ended early, at any place before
// that (a line comment written where the text has no line break to end
// it), but never inside its own marker. A comment stands where white
// space may, so it is read as a space (it ends a number or a literal
// before it), and the referee keeps the edit only outside a string's
// content (a bare token's included), as the oracle writes comments
// between tokens.
func invComment(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "/*"):
			for j := i + 2; j+2 <= len(s); j++ {
				if s[j:j+2] == "*/" {
					out = append(out, Edit{i, j + 2, " "})
				}
			}
		case strings.HasPrefix(s[i:], "//") || s[i] == '#':
			end := strings.IndexAny(s[i:], "\r\n")
			if end < 0 {
				end = len(s) - i
			}
			marker := 1
			if s[i] == '/' {
				marker = 2
			}
			for j := i + marker; j <= i+end; j++ {
				if j == len(s) || utf8.RuneStart(s[j]) {
					out = append(out, Edit{i, j, " "})
				}
			}
		}
	}
	return out
}

func invPyLiteral(s string) []Edit {
	return replaceWords(s, map[string]string{"True": "true", "False": "false", "None": "null", "undefined": "null"})
}

func invLiteralCase(s string) []Edit {
	return replaceWords(s, map[string]string{"TRUE": "true", "FALSE": "false", "NULL": "null", "Null": "null", "none": "null", "NONE": "null"})
}

// invLooseNumber: a 0 inserted before a point no digit precedes (.5), a
// point no digit follows dropped (5.), a plus sign dropped where a number
// goes on after it (+5, +.5, +-5: a '+' before a quote, a word or white
// space is no number's sign), a leading 0 dropped (05: LeadingZero).
func invLooseNumber(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		switch {
		case LeadingZero(s, i):
			out = append(out, Edit{i, i + 1, ""})
		case s[i] == '.' && (i == 0 || !isDigit(s[i-1])):
			out = append(out, Edit{i, i, "0"})
		case s[i] == '.' && (i+1 == len(s) || !isDigit(s[i+1])):
			out = append(out, Edit{i, i + 1, ""})
		case s[i] == '+' && i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '.' || s[i+1] == '-'):
			out = append(out, Edit{i, i + 1, ""})
		}
	}
	return out
}

// LeadingZero reports whether s[i] is a 0 written before a number's
// first digit (05): a digit follows it, it starts a token (white space,
// a sign or one of ":,[{" precedes it, or nothing), and no colon follows
// its run of digits (white space aside): a key's place holds no number.
func LeadingZero(s string, i int) bool {
	if s[i] != '0' || i+1 >= len(s) || !isDigit(s[i+1]) || i > 0 && !NumberMayStartAfter(s[i-1]) {
		return false
	}
	j := i + 1
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	return j == len(s) || s[j] != ':'
}

// NumberMayStartAfter reports whether a number may start right after
// the byte b: white space, a sign, a colon, a comma or an opener.
func NumberMayStartAfter(b byte) bool {
	return isSpace(b) || strings.IndexByte("+-:,[{", b) >= 0
}

// invSplitNumber: a space dropped where it groups a number's digits by
// thousands (after a digit, before a multiple of three digits:
// [SplitsThousands]) or follows its point (before a digit).
func invSplitNumber(s string) []Edit {
	var out []Edit
	for i := 1; i+1 < len(s); i++ {
		if s[i] == ' ' && (isDigit(s[i-1]) && SplitsThousands(s[i+1:]) || s[i-1] == '.' && isDigit(s[i+1])) {
			out = append(out, Edit{i, i + 1, ""})
		}
	}
	return out
}

// SplitsThousands reports whether after, the text after a space that
// follows a digit, opens with a run of digits whose length is a multiple
// of three: the space may be a thousands separator (1 000, 9007 199254),
// which split_number reads as inside the number. A space before any other
// run of digits is no separator ([1, 54 3] is a comma dropped, never
// 543).
func SplitsThousands(after string) bool {
	n := 0
	for n < len(after) && isDigit(after[n]) {
		n++
	}
	return n > 0 && n%3 == 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// invQuoteMoved: a quote moved back over the character (or escape) next
// to it, on either side, where a quote moves ([QuoteMovesOver]).
func invQuoteMoved(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		if i+1 < len(s) { // over the piece after it
			n := PieceAfter(s, i+1)
			if QuoteMovesOverNext(s[i+1 : i+1+n]) {
				out = append(out, Edit{i, i + 1 + n, s[i+1:i+1+n] + `"`})
			}
		}
		for _, n := range PiecesBefore(s, i) {
			if QuoteMovesOver(s[i-n : i]) {
				out = append(out, Edit{i - n, i + 1, `"` + s[i-n:i]})
			}
		}
	}
	return out
}

// QuoteMovesOverNext reports whether the quote_moved row's inverse moves a
// quote over piece, the character or escape after it: where
// [QuoteMovesOver], and not over '}' or ']'. Read so, the quote would be a
// closing quote the forward form moved in over its string's final '}' or
// ']', which it does not ("x"}} is an extra closing brace, which real
// models send), or an opening quote moved out over a closer before it,
// where no string starts. Over a ',' the quote must open a string where
// it lands ([MovedQuoteOpens]).
func QuoteMovesOverNext(piece string) bool {
	return piece != "}" && piece != "]" && QuoteMovesOver(piece)
}

// MovedQuoteOpens reports whether a quote the quote_moved row's inverse
// moves over piece, the character after it, must open a string where it
// lands: over a ','. The forward form moves an opening quote out over the
// comma before it (,"b" written ",b"), never a closing quote in over its
// string's final comma ("x," written "x",): that text is a trailing or
// doubled comma after a string, one keystroke real models make, which a
// moved quote would read too, one fault past it.
func MovedQuoteOpens(piece string) bool { return piece == "," }

// QuoteMovesOver reports whether the quote_moved row moves a quote over
// piece, one character or escape: not over white space, an escape of it
// (\n, \t, \r) or an invisible character ([Invisible]). A quote moved over
// the layout's white space writes another valid text, a value holding it,
// which no repair can see; over escaped or invisible white space it would
// read the layout slips of the escaped_space and invisible rows (one fault)
// as a string's text.
func QuoteMovesOver(piece string) bool {
	switch piece {
	case "", `\n`, `\t`, `\r`:
		return false
	}
	r, _ := utf8.DecodeRuneInString(piece)
	return !unicode.IsSpace(r) && !Invisible(r)
}

// PieceAfter returns the length of the character or escape at s[i:].
func PieceAfter(s string, i int) int {
	if s[i] == '\\' && i+1 < len(s) {
		if s[i+1] == 'u' && i+6 <= len(s) {
			return 6
		}
		return 2
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// PiecesBefore returns the lengths the character or escape ending at
// s[:i] may have.
func PiecesBefore(s string, i int) []int {
	if i == 0 {
		return nil
	}
	_, n := utf8.DecodeLastRuneInString(s[:i])
	out := []int{n}
	if i >= 2 && s[i-2] == '\\' && n == 1 {
		out = append(out, 2)
	}
	if i >= 6 && s[i-6:i-4] == `\u` {
		out = append(out, 6)
	}
	return out
}

// quoteToken is Gemma 4's quote token.
const quoteToken = `<|"|>`

// invTemplateQuotes: a string between two quote tokens (its text as it
// is) as a JSON string, each pair of them; and every pair of them at
// once, left to right, with the bare keys quoted where they are
// identifiers.
func invTemplateQuotes(s string) []Edit {
	out := betweenPairs(s, quoteToken, jsonQuote)
	if all, ok := templateAll(s, asText, true); ok && all.Text != s {
		out = append(out, Edit{0, len(s), all.Text})
	}
	return out
}

// invTemplateEscapes: every pair of quote tokens at once, left to right,
// read as a JSON string with its escapes (the writer kept JSON's escapes
// in a format that has none), the bare keys quoted as invTemplateQuotes
// quotes them; only where a string between the tokens holds a backslash
// (without one the reading is invTemplateQuotes' own).
func invTemplateEscapes(s string) []Edit {
	if !strings.Contains(s, quoteToken) || !strings.Contains(s, `\`) {
		return nil
	}
	escaped := false
	all, ok := templateAll(s, func(c string) (string, bool) {
		escaped = escaped || strings.Contains(c, `\`)
		q := `"` + c + `"`
		return q, json.Valid([]byte(q))
	}, true)
	if !ok || !escaped {
		return nil
	}
	return []Edit{{0, len(s), all.Text}}
}

// asText reads the text between two quote tokens as it is.
func asText(c string) (string, bool) { return jsonQuote(c), true }

// identifier returns the identifier ([A-Za-z_][A-Za-z0-9_]*) s starts
// with, or "" (a loop: an anchored regexp's backtracker allocates for
// the whole rest of s at each call).
func identifier(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z' || i > 0 && '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return s[:i]
}

// templateAll reads every quote-token pair of s, left to right, as the
// JSON string str writes for its text (false: it cannot), and quotes each
// identifier after '{' or ',' that a colon follows. Its source map
// places a pair's string at its first token and a key's quotes at the
// key's ends; with noMap, it writes none. A text it rewrites nothing of
// is s itself.
func templateAll(s string, str func(string) (string, bool), noMap bool) (Rewrite, bool) {
	w := rewriter{noMap: noMap}
	from := 0       // s[from:i] is written as it is, when a rewrite follows
	last := byte(0) // the last character read that is not white space
	for i := 0; i < len(s); {
		switch {
		case s[i] == quoteToken[0] && strings.HasPrefix(s[i:], quoteToken):
			j := strings.Index(s[i+len(quoteToken):], quoteToken)
			if j < 0 {
				return Rewrite{}, false
			}
			q, ok := str(s[i+len(quoteToken) : i+len(quoteToken)+j])
			if !ok {
				return Rewrite{}, false
			}
			w.copy(s, from, i)
			w.write(q, i)
			i += 2*len(quoteToken) + j
			from, last = i, '"'
			continue
		case s[i] == '"':
			i, last = min(StringEnd(s, i)+1, len(s)), '"'
			continue
		case last == '{' || last == ',':
			if id := identifier(s[i:]); id != "" {
				k := i + len(id)
				for k < len(s) && isSpace(s[k]) {
					k++
				}
				if k < len(s) && s[k] == ':' {
					w.copy(s, from, i)
					w.write(`"`, i)
					w.copy(s, i, i+len(id)) // an identifier needs no escape
					w.write(`"`, i+len(id))
					i += len(id)
					from, last = i, '"'
					continue
				}
			}
		}
		if !isSpace(s[i]) {
			last = s[i]
		}
		i++
	}
	if from == 0 {
		return Rewrite{Text: s}, true // nothing rewritten (a rewrite moves from past 0)
	}
	w.copy(s, from, len(s))
	return w.done(len(s)), true
}

// TemplateQuotes returns the template_quotes row's whole-text reading of
// s (every quote-token pair read as a JSON string, each bare key quoted)
// with its source map (Rewrite.Src); false where the row reads no text of
// s but s itself.
func TemplateQuotes(s string) (Rewrite, bool) {
	r, ok := templateAll(s, asText, false)
	return r, ok && r.Text != s
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// wrapperSkips is what the wrapper catch-all may skip.
const wrapperSkips = "before the object: any text up to a '{', when the text opens (after white space) with none of JSON's marks " +
	"(a bracket, a quote or apostrophe, a comma or a colon; a '[' before a letter opens a template token), " +
	"and the text skipped, after its last closing reasoning tag (</think>), opens no reasoning block (<think>), holds no object " +
	"nor the start of one (a '{' followed by a ':' before any '}', or by a '}' after white space alone: broken or not) and ends with no '=' after a name other than args, arguments, params, parameters or input; " +
	"after the object: the text after its last '}', when it opens with white space, a backtick or '<' and holds no quote, colon, comma, bracket or reasoning tag"

var (
	// thinkTag is a reasoning tag, opening or closing (submatch 1 holds
	// the slash of a closing one).
	thinkTag = regexp.MustCompile(`(?i)<(/?)think(?:ing)?>`)
	// keyword is a name and '=' at the end of a text: the object after it
	// is that name's value, unless the name is the arguments'.
	keyword    = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*$`)
	argsByName = regexp.MustCompile(`(?i)^(args|arguments|params|parameters|input)$`)
)

// opensAsJSON reports whether t (white space trimmed on the left) opens
// with one of JSON's marks, as wrapperSkips says.
func opensAsJSON(t string) bool {
	switch {
	case t == "":
		return false
	case strings.IndexByte(`{}]",:'`, t[0]) >= 0 || strings.HasPrefix(t, "“") || strings.HasPrefix(t, "‘"):
		return true
	case t[0] == '[':
		return len(t) < 2 || !(t[1] >= 'A' && t[1] <= 'Z' || t[1] >= 'a' && t[1] <= 'z')
	}
	return false
}

// WrapperBounds returns where the wrapper catch-all may cut s, as
// wrapperSkips says: the places the object may start (0, and each '{'
// that may end the text skipped before it) and end (len(s), and after
// the last '}' when the text after it may be skipped).
func WrapperBounds(s string) (starts, ends []int) {
	starts = []int{0}
	wrapperScan(s, func(i int) {
		if s[i] == '{' && namedArgs(s[:i]) {
			starts = append(starts, i)
		}
	})
	ends = []int{len(s)}
	for j := len(s); j > 0; j-- {
		if s[j-1] == '}' && j < len(s) && strings.IndexByte(" \t\r\n`<", s[j]) >= 0 && !thinkTag.MatchString(s[j:]) {
			ends = append(ends, j)
		}
		if strings.IndexByte(`":,{}[]`, s[j-1]) >= 0 {
			break
		}
	}
	return starts, ends
}

// WrapperMadeStarts returns the places i > 0 where the object may start
// after a wrapper with its opening '{' made by an edit (inserted before
// s[i], or written for s[i]): the text before i is what the around row
// may skip (wrapperSkips), as before a '{' written there.
func WrapperMadeStarts(s string) []int {
	var out []int
	wrapperScan(s, func(i int) {
		if namedArgs(s[:i]) {
			out = append(out, i)
		}
	})
	return out
}

// wrapperScan calls start with each place i > 0 before which the around
// row may skip the text (wrapperSkips), but for the name before a '='
// (namedArgs, which the caller checks where it needs to): a '{' there
// starts the object.
func wrapperScan(s string, start func(i int)) {
	if opensAsJSON(strings.TrimLeft(s, " \t\r\n")) {
		return
	}
	tags := thinkTag.FindAllStringSubmatchIndex(s, -1)
	// obj: 1 after a '{' with no '}' after it, 2 when a ':' followed
	// it or a '}' after white space alone (an object or its start:
	// no object starts after it).
	obj, open, ti, brace := 0, false, 0, 0
	for i := 0; i < len(s); i++ {
		if ti < len(tags) && tags[ti][0] == i {
			open = tags[ti][2] == tags[ti][3] // no slash: an opening tag
			if !open {
				obj = 0 // what came before a closing tag is reasoning
			}
			i = tags[ti][1] - 1
			ti++
			continue
		}
		if i > 0 && obj < 2 && !open {
			start(i)
		}
		switch s[i] {
		case '{':
			obj, brace = max(obj, 1), i
		case ':':
			if obj == 1 {
				obj = 2
			}
		case '}':
			switch {
			case obj == 1 && strings.TrimLeft(s[brace+1:i], " \t\r\n") == "":
				obj = 2 // {}
			case obj == 1:
				obj = 0
			}
		}
	}
}

// namedArgs reports whether the text p before the object ends with no
// name and '=', or with the arguments' name and '='.
func namedArgs(p string) bool {
	if !strings.HasSuffix(strings.TrimRight(p, " \t\r\n"), "=") {
		return true
	}
	m := keyword.FindStringSubmatch(p)
	return m != nil && argsByName.MatchString(m[1])
}

// invWrapper: the text before the object and after it dropped together,
// as wrapperSkips says.
func invWrapper(s string) []Edit {
	starts, ends := WrapperBounds(s)
	var out []Edit
	for _, i := range starts {
		for _, j := range ends {
			if i < j && (i > 0 || j < len(s)) {
				out = append(out, Edit{0, len(s), s[i:j]})
			}
		}
	}
	return out
}

// resendSkips is what the re-send catch-all may skip.
const resendSkips = "after the object: a copy of its text or of a prefix of it (white space before it); " +
	"before the object: one or two prefixes of its text, each opening with '{', or with '\"' where the text is a string (an encoded object; white space after the last)"

// ResendTail reports whether the text of s from j on, white space before
// it aside, is a copy of the text before j or of a prefix of it: the tail
// the re-send catch-all may drop.
func ResendTail(s string, j int) bool {
	tail := strings.TrimLeft(s[j:], " \t\r\n")
	return tail != "" && strings.HasPrefix(s[:j], tail)
}

// ResendHead reports whether the text of s before i is one or two
// prefixes of the text from i on, each opening with the text's first
// byte ('{'; '"', the text from i a string: an encoded object re-sent;
// or a wrapper's first byte, the wrapper re-sent with each head: // {…),
// white space after the last aside (a stream cut inside its layout):
// the head the re-send catch-all may drop.
func ResendHead(s string, i int) bool {
	if i <= 0 || i >= len(s) || s[i] != s[0] || isSpace(s[0]) {
		return false
	}
	head, tail := strings.TrimRight(s[:i], " \t\r\n"), s[i:]
	if strings.HasPrefix(tail, head) {
		return true
	}
	for k := 1; k < len(head) && k <= len(tail) && tail[k-1] == head[k-1]; k++ {
		if head[k] == s[0] && strings.HasPrefix(tail, head[k:]) {
			return true
		}
	}
	return false
}

// invResend: a trailing copy (or prefix) of the text before it dropped,
// or the one or two prefixes of the text after them dropped (a stream's
// cumulative re-sends).
func invResend(s string) []Edit {
	var out []Edit
	for j := 1; j < len(s); j++ {
		if ResendTail(s, j) {
			out = append(out, Edit{j, len(s), ""})
		}
	}
	for i := 1; i < len(s); i++ {
		if ResendHead(s, i) {
			out = append(out, Edit{0, i, ""})
		}
	}
	return out
}

// concatSkips is what the concatenation catch-all may skip.
const concatSkips = "another object, after the object or before it (white space between): " +
	"each of the two a text that reads as one object with the reading's other edits made"

// Concatenated reports whether s is two JSON objects, the second opening
// at j (white space around each aside): the place where the
// concatenation catch-all may drop the second object, or the first.
func Concatenated(s string, j int) bool {
	if j <= 0 || j >= len(s) || s[j] != '{' {
		return false
	}
	head, tail := strings.Trim(s[:j], " \t\r\n"), strings.TrimRight(s[j:], " \t\r\n")
	return head != "" && head[0] == '{' && json.Valid([]byte(head)) && json.Valid([]byte(tail))
}

// invConcat: of two objects, the second dropped or the first, as
// concatSkips says.
func invConcat(s string) []Edit {
	var out []Edit
	for j := 1; j < len(s); j++ {
		if Concatenated(s, j) {
			out = append(out, Edit{j, len(s), ""}, Edit{0, j, ""})
		}
	}
	return out
}

// invDoubleEncoded: layers of JSON-string encoding decoded (all of them),
// or the text decoded as the body of a JSON string (its outer quotes
// lost); every \" read as a quote, with a pair of outer quotes dropped or
// not.
func invDoubleEncoded(s string) []Edit {
	var out []Edit
	t := strings.TrimSpace(s)
	for layer := 0; layer < 8 && t != "" && t[0] == '"'; layer++ { // only a string decodes
		var u string
		if json.Unmarshal([]byte(t), &u) != nil {
			break
		}
		out = append(out, Edit{0, len(s), u})
		t = strings.TrimSpace(u)
	}
	switch backslash := strings.IndexByte(s, '\\') >= 0; {
	case !backslash && strings.IndexByte(s, '"') >= 0:
		// A quote no backslash escapes ends the string early: no body.
	case !backslash && plainBody(s):
		out = append(out, Edit{0, len(s), s}) // the body decodes as it is
	default:
		// The text as the body of a JSON string, its line breaks and
		// tabs written raw or escaped (a layer of a pretty-printed
		// object whose layout was not escaped).
		var body string
		if t, ok := escapeRawControls(s); ok && json.Unmarshal([]byte(`"`+t+`"`), &body) == nil {
			out = append(out, Edit{0, len(s), body})
		}
	}
	out = append(out, Edit{0, len(s), strings.ReplaceAll(s, `\"`, `"`)})
	if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		out = append(out, Edit{0, len(s), strings.ReplaceAll(t[1:len(t)-1], `\"`, `"`)})
	}
	return out
}

// ControlEscape returns the JSON escape of c, a line break or a tab:
// \n, \t, or otherwise \r.
func ControlEscape(c byte) string {
	switch c {
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	}
	return `\r`
}

// escapeRawControls returns s with its line breaks and tabs written raw
// escaped; false when a backslash escapes one of them (a line
// continuation, the escape row's, not the layer's layout).
func escapeRawControls(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n', '\r', '\t':
			if backslashesBefore(s, i)%2 == 1 {
				return "", false
			}
			b.WriteString(ControlEscape(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// plainBody reports whether s, with no backslash or quote in it, decodes
// as the body of a JSON string to itself: valid UTF-8 (json.Unmarshal
// reads an invalid byte as U+FFFD) with no control character.
func plainBody(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// invDoubledBraces: the braces of a text written with doubled braces
// read as single ones, two ways: every "{{" and "}}" outside the text's
// strings read as one brace (a template's escapes), and the outer braces
// beyond the first pair dropped ({{{…}}} read as {…}: wrappings a retry
// added). Only a text whose first and last non-space characters are
// doubled braces is read so.
func invDoubledBraces(s string) []Edit {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") || len(t) < 4 {
		return nil
	}
	var out []Edit // (the two readings may be one text: an edit may be proposed twice)
	var b strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			c = s[i]
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			i++
		}
		b.WriteByte(c)
	}
	if h := b.String(); h != s {
		out = append(out, Edit{0, len(s), h})
	}
	lead := len(s) - len(strings.TrimLeft(s, " \t\r\n"))
	n, m := 0, 0 // the outer braces, doubled or more, beyond one
	for n+1 < len(t) && t[n+1] == '{' {
		n++
	}
	for m+1 < len(t) && t[len(t)-2-m] == '}' {
		m++
	}
	if k := min(n, m); k > 0 && 2*k+2 <= len(t) {
		out = append(out, Edit{0, len(s), s[:lead] + t[k:len(t)-k] + s[lead+len(t):]})
	}
	return out
}

// invCSVQuotes: every doubled quote read as one, with a pair of outer
// quotes dropped or not, in a text whose every quote is doubled.
func invCSVQuotes(s string) []Edit {
	var out []Edit
	if evenQuoteRuns(s) {
		out = append(out, Edit{0, len(s), strings.ReplaceAll(s, `""`, `"`)})
	}
	if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' && evenQuoteRuns(t[1:len(t)-1]) {
		out = append(out, Edit{0, len(s), strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)})
	}
	return out
}

// evenQuoteRuns reports whether s holds quotes, each run of them of even
// length: every quote doubled, as the CSV layer writes them.
func evenQuoteRuns(s string) bool {
	n, any := 0, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] == '"' {
			n++
			any = true
			continue
		}
		if n%2 != 0 {
			return false
		}
		n = 0
	}
	return any
}

// invCloseAtEnd: the text completed where it was cut (see Cut).
func invCloseAtEnd(s string) []Edit {
	if e, _, ok := Cut(s); ok {
		return []Edit{e}
	}
	return nil
}

// Cut returns the edit that completes s where a stream was cut off, at
// its end, wherever the cut fell, and whether what followed the cut
// leaves the value unknown; false when s opens no bracket still open at
// its end (nothing was cut, or only before the object).
//
// The completion, by the place of the cut (strings read as JSON strings):
//   - after a complete value or a literal's first letters (the literal
//     completed): the closers of the brackets open there; the value is
//     known (the text's members so far) unless an array is open at the
//     cut: how many items it had is unknown;
//   - after an opener: the closers; unknown (the writer opened it to
//     write what is lost);
//   - after a comma: the comma dropped, and the closers; unknown (the
//     writer began another member or item);
//   - inside a string (after a backslash: the escape completed as \\;
//     inside \uXXXX: its digits as 0): the string's quote and the
//     closers; unknown (the string may have gone on);
//   - inside a key, after a key, after a key's colon: the key closed,
//     ":null" or "null" written for the value the writer never wrote, and
//     the closers; unknown;
//   - right after a number (no white space after it): the closers (a
//     number that needs a digit, as "-", "1." or "1e+", gets a 0);
//     unknown (the number may have gone on);
//   - after a bare token's text, a quote mark other than '"' or a
//     comment's text (CutMayGoOn): the closers; unknown (the token, the
//     string in single quotes or the comment may have gone on).
//
// Every completion but the comma's is written at the end of s.
func Cut(s string) (e Edit, unknown, ok bool) {
	var stack []byte
	inString, key := false, false
	last, lastAt := byte(0), -1 // the last character outside strings that is no white space, and where
	lastKey := false            // the last string closed was a key
	esc := -1                   // inside a string: where an escape pending at the end starts
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && c == '\\':
			esc = i
			if i+1 < len(s) && s[i+1] == 'u' {
				j := i + 2
				for j < len(s) && j < i+6 && isHex(s[j:j+1]) {
					j++
				}
				if j == len(s) && j < i+6 {
					i = len(s)
					continue
				}
				i = j - 1
			} else {
				i++
			}
			if i < len(s) {
				esc = -1
			}
		case c == '"' && inString:
			inString, lastKey = false, key
			last, lastAt = c, i
		case c == '"':
			inString = true
			key = len(stack) > 0 && stack[len(stack)-1] == '}' && (last == '{' || last == ',')
		case inString:
		case isSpace(c):
		default:
			switch {
			case c == '{':
				stack = append(stack, '}')
			case c == '[':
				stack = append(stack, ']')
			case (c == '}' || c == ']') && len(stack) > 0:
				stack = stack[:len(stack)-1]
			}
			last, lastAt = c, i
		}
	}
	b := make([]byte, 0, len(stack))
	for i := len(stack) - 1; i >= 0; i-- {
		b = append(b, stack[i])
	}
	closers := string(b)
	if closers == "" {
		return Edit{}, false, false
	}
	at := func(repl string, unknown bool) (Edit, bool, bool) {
		return Edit{len(s), len(s), repl + closers}, unknown, true
	}
	inObject := stack[len(stack)-1] == '}'
	inArray := slices.Contains(stack, ']')
	switch {
	case inString:
		done := `"`
		if esc >= 0 && s[esc+1:] == "" {
			done = `\"`
		} else if esc >= 0 {
			done = strings.Repeat("0", 4-len(s[esc+2:])) + `"`
		}
		if key {
			done += ":null"
		}
		return at(done, true)
	case last == ',':
		return Edit{lastAt, len(s), closers}, true, true
	case last == '{' || last == '[':
		return at("", true)
	case last == ':' && inObject:
		return at("null", true)
	case last == '"' && lastKey && lastAt == len(strings.TrimRight(s, " \t\r\n"))-1:
		return at(":null", true)
	}
	if lastAt == len(s)-1 {
		if tok := lastToken(s); tok != "" && (tok[0] == '-' || isDigit(tok[0])) {
			if isDigit(tok[len(tok)-1]) {
				return at("", true)
			}
			return at("0", true)
		} else if tok != "" {
			for _, lit := range []string{"true", "false", "null"} {
				if strings.HasPrefix(lit, tok) {
					return at(lit[len(tok):], inArray)
				}
			}
		}
	}
	return at("", inArray || CutMayGoOn(s))
}

// CutMayGoOn reports whether what s ends with may have gone on past its
// end, whichever edit of a reading reads it: it ends (white space aside)
// with neither a complete value's last character ('"', '}' or ']'), nor
// a literal (or, with no white space after it, a literal's first
// letters), nor a number with white space after it, nor a place the cut
// row reads itself (an opener, a comma, a colon). So a bare token's text
// (a word, or a word and more, as a bare string may hold white space), a
// quote mark other than '"' (an apostrophe may stand inside a string in
// single quotes) or a comment's text: a cut there leaves the value
// unknown (Cut).
func CutMayGoOn(s string) bool {
	t := strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) // (invisible characters are white space)
	if t == "" || strings.IndexByte(`"}]{[,:`, t[len(t)-1]) >= 0 {
		return false
	}
	spaced := len(t) < len(s)
	tok := lastToken(t)
	if tok != "" && (tok[0] == '-' || isDigit(tok[0])) {
		return !spaced // (right after a number, Cut's own case)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if tok == lit || tok != "" && !spaced && strings.HasPrefix(lit, tok) {
			return false
		}
	}
	return true
}

// lastToken returns the run of letters, digits and number characters
// that ends s, when a delimiter or white space (or nothing) precedes it.
func lastToken(s string) string {
	j := len(s)
	for j > 0 && (isDigit(s[j-1]) || strings.IndexByte(".eE+-", s[j-1]) >= 0 || s[j-1] >= 'a' && s[j-1] <= 'z') {
		j--
	}
	if j > 0 && strings.IndexByte(" \t\r\n:,[", s[j-1]) < 0 {
		return ""
	}
	return s[j:]
}

// OpenAtEnd returns the closers of the brackets still open at the end of
// s, innermost first, and whether a string is open there; strings are read
// as JSON strings (a backslash escapes the next byte).
func OpenAtEnd(s string) (closers string, inString bool) {
	var stack []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			stack = append(stack, '}')
		case c == '[':
			stack = append(stack, ']')
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	b := make([]byte, 0, len(stack))
	for i := len(stack) - 1; i >= 0; i-- {
		b = append(b, stack[i])
	}
	return string(b), inString
}

// member is one member of an object of a valid JSON text: its name, and
// its span from its key's quote to the end of its value.
type member struct {
	name       string
	start, end int
}

// invRepeatedKey: in a valid JSON text, a member whose name another
// member of its object repeats dropped (either of them), with the comma
// that separates it.
func invRepeatedKey(s string) []Edit {
	if !json.Valid([]byte(s)) {
		return nil
	}
	p := &validParser{s: s}
	p.value()
	var out []Edit
	for _, ms := range p.objects {
		for m := range ms {
			repeated := false
			for o := range ms {
				repeated = repeated || o != m && ms[o].name == ms[m].name
			}
			switch {
			case !repeated:
			case m > 0:
				out = append(out, Edit{ms[m-1].end, ms[m].end, ""})
			default:
				out = append(out, Edit{ms[0].start, ms[1].start, ""})
			}
		}
	}
	return out
}

// validParser reads a valid JSON text, recording each object's members.
type validParser struct {
	s       string
	i       int
	objects [][]member
}

func (p *validParser) ws() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *validParser) value() {
	p.ws()
	switch p.s[p.i] {
	case '{':
		var ms []member
		p.i++
		p.ws()
		for p.s[p.i] != '}' {
			start := p.i
			name := p.str()
			p.ws()
			p.i++ // ':'
			p.value()
			ms = append(ms, member{name, start, p.i})
			p.ws()
			if p.s[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
		p.objects = append(p.objects, ms)
	case '[':
		p.i++
		p.ws()
		for p.s[p.i] != ']' {
			p.value()
			p.ws()
			if p.s[p.i] == ',' {
				p.i++
			}
			p.ws()
		}
		p.i++
	case '"':
		p.str()
	default:
		for p.i < len(p.s) && strings.IndexByte(" \t\r\n,]}", p.s[p.i]) < 0 {
			p.i++
		}
	}
}

func (p *validParser) str() string {
	start := p.i
	p.i++
	for p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var name string
	_ = json.Unmarshal([]byte(p.s[start:p.i]), &name) // a valid text's string
	return name
}

// The habits: a writer's way of writing every string of a text, one
// fault for the whole text. Their inverses read the whole text again, as
// the stacks' rows do, so that a text written in the habit reads at one
// fault however many strings it holds, and the per-string rows
// (quote_style, escape) never read it cheaper as something else alone.

// LiteralBackslash reports whether the backslash at s[i] is one the
// literal_backslashes habit reads as itself: every backslash but one
// before a quote (which escapes it) or a line break (a line
// continuation, the escape row's).
func LiteralBackslash(s string, i int) bool {
	return s[i] == '\\' && (i+1 == len(s) || strings.IndexByte("\"\r\n", s[i+1]) < 0)
}

// StringEnd returns the index of the quote that closes the string
// whose opening double quote is at i (the first '"' after it that no
// backslash escapes), or len(s) when the string is left open.
func StringEnd(s string, i int) int { return QuoteEnd(s, i, '"') }

// QuoteEnd is StringEnd for a string whose opening quote q is at i.
func QuoteEnd(s string, i int, q byte) int {
	j := i + 1
	for j < len(s) && s[j] != q {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	return min(j, len(s))
}

// StrayBackslash reports whether s holds a backslash the habit reads as
// itself (see LiteralBackslash) that starts no JSON escape (escapes read
// left to right: \" \\ \/ \b \f \n \r \t, and \u with four hex digits).
func StrayBackslash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch {
		case !LiteralBackslash(s, i):
			i++
		case i+1 == len(s):
			return true
		case s[i+1] == 'u':
			if i+6 > len(s) || !isHex(s[i+2:i+6]) {
				return true
			}
			i += 5
		case strings.IndexByte(`\/bfnrt`, s[i+1]) >= 0:
			i++
		default:
			return true
		}
	}
	return false
}

// Rewrite is a habit's reading of a whole text: its text, and for each
// byte of it the index of the byte of the text read that it stands for
// (Src has one entry more, the length of the text read), so that an edit
// made on the rewrite is placed in the text read.
type Rewrite struct {
	Text string
	Src  []int
}

// rewriter writes a Rewrite; with noMap, its text alone (Src nil).
type rewriter struct {
	b     []byte
	src   []int
	noMap bool
}

// write writes t for the byte at index at of the text read.
func (w *rewriter) write(t string, at int) {
	w.b = append(w.b, t...)
	for i := 0; i < len(t) && !w.noMap; i++ {
		w.src = append(w.src, at)
	}
}

// copy writes s[i:j] as it is.
func (w *rewriter) copy(s string, i, j int) {
	w.b = append(w.b, s[i:j]...)
	for ; i < j && !w.noMap; i++ {
		w.src = append(w.src, i)
	}
}

// done returns what w wrote, for a text read of n bytes; the Rewrite
// shares nothing with w, which may go on writing.
func (w *rewriter) done(n int) Rewrite {
	if w.noMap {
		return Rewrite{Text: string(w.b)}
	}
	return Rewrite{Text: string(w.b), Src: append(w.src[:len(w.src):len(w.src)], n)}
}

// Habits returns the readings of s by the habit row named name
// (literal_backslashes, single_quotes, bare_apostrophe or joined_strings),
// each once and each other than s; nil for another row.
func Habits(name, s string) []Rewrite { return habits(name, s, false) }

// HabitTexts is Habits without the source maps (each Src nil), for a
// caller that reads the texts alone.
func HabitTexts(name, s string) []Rewrite { return habits(name, s, true) }

func habits(name, s string, noMap bool) []Rewrite {
	var out []Rewrite
	switch name {
	case "literal_backslashes":
		if StrayBackslash(s) {
			w := rewriter{noMap: noMap}
			for i := 0; i < len(s); i++ {
				w.copy(s, i, i+1)
				if LiteralBackslash(s, i) {
					w.write(`\`, i)
				}
			}
			out = append(out, w.done(len(s)))
		}
	case "joined_strings":
		if !strings.Contains(s, "+") {
			break // no piece joined: no habit to read
		}
		out = joinAll(s, noMap)
	case "single_quotes", "bare_apostrophe":
		bare := name == "bare_apostrophe"
		if bare && !apostropheInWord(s) {
			break // no apostrophe to leave bare: the single_quotes habit's reading
		}
		for _, k := range quoteKinds(s) {
			if bare && k&apostrophes == 0 {
				continue
			}
			r, kept, ok := singleQuotesAll(s, k, bare, noMap)
			if !ok || r.Text == s || bare && !kept || slices.ContainsFunc(out, func(o Rewrite) bool { return o.Text == r.Text }) {
				continue // (bare: no apostrophe left bare, the single_quotes habit's reading)
			}
			out = append(out, r)
		}
	}
	return out
}

// The quotes the single-quote habits read as a string's: apostrophes,
// typographic quotes, or both.
const (
	apostrophes = 1 << iota
	typographic
)

// quoteKinds returns the quotes the single-quote habits read s's
// strings in: each kind s holds, and where it holds both, both at once
// and each alone (a writer of typographic quotes leaves apostrophes as
// they are, and the other way round: read together, an apostrophe
// between two typographic strings would open a string of its own).
func quoteKinds(s string) []int {
	k := 0
	if strings.Contains(s, "'") {
		k |= apostrophes
	}
	if strings.Contains(s, "“") {
		k |= typographic
	}
	switch k {
	case 0:
		return nil
	case apostrophes | typographic:
		return []int{k, apostrophes, typographic}
	}
	return []int{k}
}

func habitEdits(name, s string) []Edit {
	var out []Edit
	for _, r := range HabitTexts(name, s) {
		out = append(out, Edit{0, len(s), r.Text})
	}
	return out
}

// invBackquotes: a string between backquotes (its \` unescaped, its bare
// quotes escaped, other escapes kept), each pair of them.
func invBackquotes(s string) []Edit { return quotePairs(s, '`') }

// apostrophePairs is quotePairs for single quotes: a pair encloses no
// apostrophe but one inside a word (InWord: Joe's) or escaped (\', a
// backslash and what follows it read as one escape pair); any other is a
// quote, and a string holding it would hold a second fault, the quote
// left bare ({'a': 'x'} is no one string a': 'x).
func apostrophePairs(s string) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			switch {
			case s[j] == '\\' && j+1 < len(s) && s[j+1] == '\'':
				// \': the string's own, or its closing quote (as the
				// engine reads it too).
				out = append(out, Edit{i, j + 2, `"` + quotedContent(s[i+1:j+1], '\'') + `"`})
				j++
				continue
			case s[j] == '\\':
				j++ // an escape pair (\\, \n, …): no quote
				continue
			case s[j] != '\'':
				continue
			}
			out = append(out, Edit{i, j + 1, `"` + quotedContent(s[i+1:j], '\'') + `"`})
			if !InWord(s, j) {
				break
			}
		}
	}
	return out
}

// quotePairs returns, for each pair of quotes q in s (every two, in
// order, not only neighbours), the edit writing the text between them as
// a JSON string (quotedContent).
func quotePairs(s string, q byte) []Edit {
	var out []Edit
	for i := 0; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			if s[j] == q {
				out = append(out, Edit{i, j + 1, `"` + quotedContent(s[i+1:j], q) + `"`})
			}
		}
	}
	return out
}

// invLiteralBackslashes: every backslash read as itself (doubled), but
// one before a quote, which escapes it, or before a line break (see
// LiteralBackslash); proposed only for a text holding such a backslash
// that starts no JSON escape (where every one does, the habit writes a
// valid text of another value: no fault anyone could see).
func invLiteralBackslashes(s string) []Edit { return habitEdits("literal_backslashes", s) }

// invSingleQuotes: every string between single quotes (or typographic
// ones) read as a JSON string at once, left to right, the strings between
// double quotes, and those in backquotes on one line (BackquoteEnd), as
// they are (a template string's apostrophes are its own, and what
// backquotes read is the backquotes row's); a single-quoted string ends at its next
// quote that no backslash escapes, on its line (a string holds no raw
// line break). Its content is read as quote_style reads it (\' as ', a
// bare " escaped, other escapes kept). A writer who leaves apostrophes
// bare in single quotes writes a text this habit does not read: where
// each string ends is then quote_style's question, one string at a time
// (an apostrophe before a colon or a comma ends a string as well as it
// sits inside one). Where a text holds strings in both kinds of quote,
// each kind is read alone too (quoteKinds): a writer of typographic
// quotes leaves apostrophes as they are.
func invSingleQuotes(s string) []Edit { return habitEdits("single_quotes", s) }

// invBareApostrophes: every string between single quotes (or
// typographic ones) read as a JSON string at once, as invSingleQuotes
// reads them, but with the apostrophes inside words left bare (InWord: a
// letter or a digit on each side, as in Joe's or don't): such an
// apostrophe is a character of its string, and a single-quoted string
// ends at its next apostrophe that no backslash escapes and that stands
// inside no word, on its line. Proposed only where it reads s otherwise
// than single_quotes does (an apostrophe is left bare). An apostrophe
// beside a space, a '+' or punctuation is a quote: read as the string's,
// it gave every text of pieces joined with '+' ({'q': 'a' + 'c'}) a
// second reading at one fault, the one string a' + 'c. So
// {'id': 'Joe's', 'n': 5} reads as {"id": "Joe's", "n": 5} (and, at one
// fault too, as the long key {"id': 'Joe's', 'n": 5} of quote_style: the
// text is refused), and the same text cut after 5 reads at two faults
// (the habit and the cut), inside the window of that long key.
func invBareApostrophes(s string) []Edit { return habitEdits("bare_apostrophe", s) }

// singleQuotesAll reads s as invSingleQuotes says, or, bare, as
// invBareApostrophes says, its strings in the quotes of kinds (the
// others left as characters); kept reports an apostrophe kept as a
// string's own (bare only), ok false a string left open.
func singleQuotesAll(s string, kinds int, bare, noMap bool) (r Rewrite, kept, ok bool) {
	const open, close = "“", "”"
	w := rewriter{noMap: noMap}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"':
			j := min(StringEnd(s, i)+1, len(s))
			w.copy(s, i, j)
			i = j
		case s[i] == '\'' && kinds&apostrophes != 0:
			j, k := SingleEnd(s, i+1, bare)
			kept = kept || k
			if j < 0 {
				return Rewrite{}, false, false
			}
			w.write(`"`, i)
			for k := i + 1; k < j; k++ { // as quotedContent writes it
				switch {
				case s[k] == '\\' && k+1 < j && s[k+1] == '\'':
					w.write(`'`, k+1)
					k++
				case s[k] == '\\' && k+1 < j:
					w.copy(s, k, k+2)
					k++
				case s[k] == '"':
					w.write(`\"`, k)
				default:
					w.copy(s, k, k+1)
				}
			}
			w.write(`"`, j)
			i = j + 1
		case kinds&typographic != 0 && strings.HasPrefix(s[i:], open):
			j := strings.Index(s[i+len(open):], close)
			if j < 0 {
				return Rewrite{}, false, false
			}
			j += i + len(open)
			w.write(`"`, i)
			w.copy(s, i+len(open), j)
			w.write(`"`, j)
			i = j + len(close)
		case s[i] == '`':
			j := BackquoteEnd(s, i+1) + 1 // past a string in backquotes, kept as it is
			if j == 0 {
				j = i + 1 // a backquote that closes nothing on its line (a fence's)
			}
			w.copy(s, i, j)
			i = j
		default:
			w.copy(s, i, i+1)
			i++
		}
	}
	return w.done(len(s)), kept, true
}

// BackquoteEnd returns the index of the backquote that closes a string
// in backquotes whose content starts at i, on its line (a backslash
// escapes what follows it), or -1. The single-quote habits read such a
// string as a string (a template string of the writer's JavaScript),
// kept as it is: its apostrophes are its own.
func BackquoteEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\n', '\r':
			return -1
		case '\\':
			j++
		case '`':
			return j
		}
	}
	return -1
}

// SingleEnd returns the index of the quote that closes a single-quoted
// string whose content starts at i (see invSingleQuotes; bare, see
// invBareApostrophes), or -1; kept reports an apostrophe inside a word
// it read as the string's own (bare only).
func SingleEnd(s string, i int, bare bool) (end int, kept bool) {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\n', '\r':
			return -1, kept
		case '\\':
			j++
		case '\'':
			if !bare || !InWord(s, j) {
				return j, kept
			}
			kept = true
		}
	}
	return -1, kept
}

// apostropheInWord reports whether an apostrophe of s stands inside a
// word (InWord): only such an apostrophe is read as a string's own by the
// bare_apostrophe habit (SingleEnd's kept).
func apostropheInWord(s string) bool {
	for j := strings.IndexByte(s, '\''); j >= 0; {
		if InWord(s, j) {
			return true
		}
		k := strings.IndexByte(s[j+1:], '\'')
		if k < 0 {
			break
		}
		j += 1 + k
	}
	return false
}

// InWord reports whether the apostrophe at s[j] stands inside a word, as
// a contraction's or a possessive's does (Joe's, don't, rock'n'roll): a
// letter or a digit on each side of it. Such an apostrophe, left bare in
// a single-quoted string, is the string's own character
// (bare_apostrophe); any other ends the string.
func InWord(s string, j int) bool {
	p, _ := utf8.DecodeLastRuneInString(s[:j])
	n, _ := utf8.DecodeRuneInString(s[j+1:])
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return word(p) && word(n)
}

// invJoinedStrings: every pair of quoted pieces joined with '+' read as
// one string, at once, left to right: the closing quote of a piece, the
// '+' and the opening quote of the next piece, of the same kind (double
// or single quotes), dropped. White space stands on at least one side of
// the '+': a '+' glued to both quotes ("+") is as likely a string's own
// character between two inner quotes left unescaped. Strings are read as
// JSON strings, a single-quoted one up to its next quote that no
// backslash escapes. A text that ends right after a piece (white space
// and at most one '+' after it) may have been cut between two pieces: it
// is also read with that last string left open, a value the cut leaves
// unknown (as a cut inside a string), when the text joins pieces
// elsewhere or ends with the '+'.
func invJoinedStrings(s string) []Edit { return habitEdits("joined_strings", s) }

// joinAll returns the readings of s as invJoinedStrings says: the text
// with its pieces joined, when a piece is joined, and the text with its
// last string left open, when it ends after a piece as invJoinedStrings
// says.
func joinAll(s string, noMap bool) []Rewrite {
	w := rewriter{noMap: noMap}
	var open *Rewrite
	joined, plus := false, false
	for i := 0; i < len(s); {
		q := s[i]
		if q != '"' && q != '\'' {
			w.copy(s, i, i+1)
			i++
			continue
		}
		w.copy(s, i, i+1) // the opening quote
		for i++; ; {
			j := i
			for j < len(s) && s[j] != q {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				w.copy(s, i, len(s))
				if joined {
					return []Rewrite{w.done(len(s))}
				}
				return nil
			}
			w.copy(s, i, j)
			k := j + 1 // after the closing quote: white space, '+', white space, the next opening quote?
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k < len(s) && s[k] == '+' {
				glued := k == j+1
				k++
				for k < len(s) && isSpace(s[k]) {
					k++
				}
				if k < len(s) && s[k] == q && !(glued && s[k-1] == '+') {
					joined = true
					i = k + 1
					continue
				}
				plus = k == len(s)
			}
			if k == len(s) {
				// The text ends after this piece: the next may be cut.
				r := w.done(len(s))
				open = &r
			}
			w.copy(s, j, j+1) // the closing quote
			i = j + 1
			break
		}
	}
	var out []Rewrite
	if joined {
		out = append(out, w.done(len(s)))
	}
	if open != nil && (joined || plus) {
		out = append(out, *open)
	}
	return out
}

// EntityQuote is the HTML entity written for a quote.
const EntityQuote = "&quot;"

// invEntityQuotes: a string between two &quot; entities (its text as it
// is) as a JSON string, each pair of them.
func invEntityQuotes(s string) []Edit {
	return betweenPairs(s, EntityQuote, func(c string) string { return `"` + c + `"` })
}

// betweenPairs returns, for each pair of occurrences of the quote token
// tok in s (every two, in order, not only neighbours), the edit writing
// the text from the first to the second as str writes the text between
// them.
func betweenPairs(s, tok string, str func(between string) string) []Edit {
	var at []int
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + len(tok)
	}
	var out []Edit
	for a := range at {
		for b := a + 1; b < len(at); b++ {
			out = append(out, Edit{at[a], at[b] + len(tok), str(s[at[a]+len(tok) : at[b]])})
		}
	}
	return out
}

// Invisible reports whether r is a character the scanner reads as white
// space outside ASCII: Unicode white space (U+00A0, U+2028, U+3000, ...)
// or a format character (category Cf: U+200B, U+2060, U+FEFF, ...).
func Invisible(r rune) bool {
	return r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.Is(unicode.Cf, r))
}

// invInvisible: one invisible character read as white space (written as
// a space, so that it stands only where JSON's white space may: a space
// inside a number or a literal is no JSON, and the referee makes the edit
// only outside a string's content). Each character is one fault.
func invInvisible(s string) []Edit {
	var out []Edit
	for i, r := range s {
		if Invisible(r) {
			out = append(out, Edit{i, i + utf8.RuneLen(r), " "})
		}
	}
	return out
}
