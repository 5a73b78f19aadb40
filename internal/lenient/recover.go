package lenient

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// This file holds the scanner's repairs of issue 22: faults real models
// emit, each with one reading.

// escapedSpaceAt returns the length of the escaped white space s[i:]
// starts with, \n, \r or \t written as two characters, or 0.
func escapedSpaceAt(s string, i int) int {
	if i+1 < len(s) && s[i] == '\\' && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't') {
		return 2
	}
	return 0
}

// touchesToken reports whether the escaped white space s[i:i+n] touches
// a letter, a digit or another character of a bare token on either side.
func touchesToken(s string, i, n int) bool {
	tok := func(c byte) bool {
		return c >= utf8.RuneSelf || c == '_' || c == '$' || c == '.' || c == '-' || c == '+' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	before := i > 0 && tok(s[i-1]) && !(i >= 2 && escapedSpaceAt(s, i-2) == 2) // \r\n: the r is the escape's
	return before || i+n < len(s) && tok(s[i+n])
}

// trimEscapedSpace trims the JSON white space and escaped white space
// (see escapedSpaceAt) s starts with.
func trimEscapedSpace(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		n := escapedSpaceAt(t, 0)
		if n == 0 {
			return t
		}
		s = t[n:]
	}
}

// trimEscapedSpaceRight is trimEscapedSpace at the end of s: it trims
// JSON white space and escaped \n, \r and \t.
func trimEscapedSpaceRight(s string) string {
	for {
		t := strings.TrimRight(s, " \t\r\n")
		if len(t) >= 2 && t[len(t)-2] == '\\' && strings.IndexByte("nrt", t[len(t)-1]) >= 0 {
			s = t[:len(t)-2]
			continue
		}
		return t
	}
}

// literals maps the literals the scanner reads to their JSON text: JSON's
// own, Python's (True, False, None), and the other cases models write
// (TRUE, Null, none, ...), which are reported as LiteralCase.
var literals = map[string]string{
	"true": "true", "false": "false", "null": "null",
	"True": "true", "False": "false", "None": "null",
	"TRUE": "true", "FALSE": "false", "NULL": "null", "Null": "null", "NONE": "null", "none": "null",
}

// spelledAs refuses tok, a literal or number the value being read is
// written as but not as JSON writes it (True, TRUE, none, +5, .5), where
// the schema accepts tok as a string at its location: the same token with
// its quotes dropped ("None", "+42") reads so too, and only the schema
// tells them apart. Without a Schema tok is read as the literal or number.
// what names the reading, for the reason.
func (sc *scanner) spelledAs(tok, what string) error {
	if sc.schema == nil || !sc.schema.AcceptsString(sc.path(), tok) {
		return nil
	}
	return &Error{Reason: fmt.Sprintf("a value at byte %d is written %s, which is no JSON %s, where the tool's schema accepts a string: it may be a string whose quotes are missing", sc.i, tok, what), spelled: true}
}

// literalStep returns the step a literal w is reported with: none for
// JSON's, FixSyntax for Python's (the rule before issue 22), LiteralCase
// for the others.
func literalStep(w string) (Step, bool) {
	switch w {
	case "true", "false", "null":
		return "", false
	case "True", "False", "None":
		return FixSyntax, true
	}
	return LiteralCase, true
}

// notBare are the tokens an unquoted value is never read as a string
// from, in any case: they name a value of another type (NaN, undefined),
// which a model meant as that value.
var notBare = []string{"nan", "inf", "infinity", "-inf", "-infinity", "+inf", "+infinity", "undefined", "nil", "none", "null", "true", "false"}

// bareToken returns the end of the unquoted token s[i:] starts with, when
// it is one a schema may read as a string: it holds no white space (nor
// invisible characters), quote or backquote (nor an HTML entity's),
// backslash, control character, bracket, comma, '#' or comment ("//" only
// after ':', as in a URL), is no ellipsis (...), does not end with a
// colon, and is followed by a comma (not a trailing one: it may be the
// value's) or a closing bracket, right after it or after a line break,
// carriage return or tab (and any white space after that), never after a
// space, escape or invisible character (see layout). A token at the end
// of the text may be cut off, and is not one.
func bareToken(s string, i int) (int, bool) {
	j := i
	for j < len(s) {
		c := s[j]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == 0x7f || strings.IndexByte(",{}[]#", c) >= 0 {
				break
			}
			if c == '`' {
				// ``, `x`: a string in backquotes, the quotes no character.
				return 0, false
			}
			if c == '/' && j+1 < len(s) && (s[j+1] == '*' || s[j+1] == '/' && (j == i || s[j-1] != ':')) {
				return 0, false
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if r == utf8.RuneError || isQuote(r) || isInvisible(r) {
			break
		}
		j += n
	}
	if j == i {
		return 0, false
	}
	if s[j-1] == ':' {
		// high:, : a key and its colon, the value missing, as likely.
		return 0, false
	}
	if j < len(s) && (s[j] == ' ' || s[j] == '\\' || s[j] >= utf8.RuneSelf) {
		// A space, an escaped one or an invisible character after the
		// token may be its value's own (see layout).
		return 0, false
	}
	k := skipInvisible(s, j)
	if k >= len(s) || strings.IndexByte(",}]", s[k]) < 0 {
		return 0, false
	}
	if n := skipInvisible(s, k+1); s[k] == ',' && n < len(s) && (s[n] == '}' || s[n] == ']') {
		// "go":Paris,}: a trailing comma, or the value's own ("Paris,")?
		return 0, false
	}
	for _, w := range notBare {
		if strings.EqualFold(s[i:j], w) {
			return 0, false
		}
	}
	if tok := s[i:j]; strings.Trim(tok, ".…") == "" || strings.Contains(tok, "&quot;") || strings.Contains(tok, "&#") || strings.Contains(tok, "&apos;") {
		// ..., …: items elided, no string; &quot;hi&quot;: a string
		// quoted with HTML entities, the quotes no characters.
		return 0, false
	}
	return j, true
}

// bareValue reads the unquoted token at sc.i as a string, when the schema
// accepts only a string there (see bareToken for the token). started says
// whether the caller has already called valueStart; wasValue whether a
// value was expected (not after another value: a missing comma too would
// be a second guess). done is false, with no error, when the token is not
// read so; the caller then refuses it as before.
func (sc *scanner) bareValue(started, wasValue bool) (done bool, err error) {
	if sc.schema == nil || !wasValue {
		return false, nil
	}
	end, ok := bareToken(sc.s, sc.i)
	if !ok {
		return false, nil
	}
	if !started {
		if err := sc.valueStart(); err != nil {
			return true, err
		}
	}
	if !sc.schema.OnlyString(sc.path()) {
		return false, nil
	}
	if err := sc.note(QuotedBareValue); err != nil {
		return true, err
	}
	sc.bareRead(sc.s[sc.i:end])
	start := sc.out.Len()
	sc.out.WriteByte('"')
	sc.out.WriteString(sc.s[sc.i:end]) // no quote, backslash or control character
	sc.out.WriteByte('"')
	sc.i = end
	sc.valueDone()
	sc.started = true
	sc.lastNumber = false
	sc.lastStr = start
	return true, nil
}

// numberEnd reads the number s[i:] starts with: a JSON number, or one
// written .5, 5. or +5 (loose). It returns its end, whether it is loose,
// and whether it is a number at all (the text after it must not continue
// it: a digit, '.', a letter, '_' or '$').
func numberEnd(s string, i int) (end int, loose, ok bool) {
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '-':
		i++
	case i < len(s) && s[i] == '+':
		i++
		loose = true
	}
	intDigits := 0
	if i < len(s) && s[i] == '0' {
		i++
		intDigits = 1
	} else {
		intDigits = digits()
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			if intDigits == 0 {
				return i, false, false // "." or "-."
			}
			loose = true // 5.
		}
		if intDigits == 0 {
			loose = true // .5
		}
	} else if intDigits == 0 {
		return i, false, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, false, false
		}
	}
	if i >= len(s) && loose && s[i-1] == '.' {
		return i, false, false // 5. at the end of the text: maybe 5.2, cut off
	}
	if i < len(s) {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '_', c == '$', c < utf8.RuneSelf && unicode.IsLetter(rune(c)):
			return i, false, false
		}
	}
	return i, loose, true
}

// writeNumber writes the JSON text of the number s (numberEnd read it):
// as written, or, loose, with its '+' dropped, a 0 before a leading '.'
// and a trailing '.' dropped.
func (sc *scanner) writeNumber(s string, loose bool) {
	if !loose {
		sc.out.WriteString(s)
		return
	}
	s = strings.TrimPrefix(s, "+")
	if strings.HasPrefix(s, "-") {
		sc.out.WriteByte('-')
		s = s[1:]
	}
	if strings.HasPrefix(s, ".") {
		sc.out.WriteByte('0')
	}
	mant, exp := s, ""
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		mant, exp = s[:k], s[k:]
	}
	sc.out.WriteString(strings.TrimSuffix(mant, "."))
	sc.out.WriteString(exp)
}

// numericKey reads a key written as an integer, {1: "a"}, as the string
// of its digits. done is false, with no error, when s[sc.i:] is not an
// integer (-?(0|[1-9][0-9]*)) followed by a colon.
func (sc *scanner) numericKey() (done bool, err error) {
	if sc.state != stKey {
		return false, nil
	}
	s, j := sc.s, sc.i
	if s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	default:
		return false, nil
	}
	if isIdentByte(s, j) || j < len(s) && s[j] == '.' || !nextIsColon(s[j:]) {
		return false, nil
	}
	if err := sc.note(NumericKey); err != nil {
		return true, err
	}
	sc.comma()
	start := sc.out.Len()
	sc.out.WriteByte('"')
	sc.out.WriteString(s[sc.i:j])
	sc.out.WriteByte('"')
	sc.keyRead(start)
	sc.i = j
	sc.started = true
	sc.state = stColon
	sc.afterOpen, sc.afterComma, sc.lastNumber = false, false, false
	return true, nil
}

// unclosedKey reads a key written without its closing quote, up to its
// colon: {"selected: [1, 2]}. The key (after the opening quote q at sc.i,
// ASCII) holds no quote, white space, backslash, control character,
// bracket or comma up to the colon, a value follows the colon, and the
// ordinary reading of the key fails (see keyCloses). done is false, with
// no error, when the key is not such a key.
func (sc *scanner) unclosedKey(q byte) (done bool, err error) {
	s := sc.s
	k := sc.i + 1
	for k < len(s) && s[k] != ':' {
		c := s[k]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == '`' || c == 0x7f || strings.IndexByte(",{}[]", c) >= 0 {
				return false, nil
			}
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[k:])
		if r == utf8.RuneError || isQuote(r) || isInvisible(r) {
			return false, nil
		}
		k += n
	}
	if k >= len(s) || k == sc.i+1 || !valueAhead(s[skipInvisible(s, k+1):]) || strings.Contains(s[sc.i+1:k], "&quot;") || quotedValueAfter(s, k, q) || sc.keyCloses(q, k) {
		// (A key holding a backquote or &quot; is quoted otherwise: its
		// own quotes may be those, the one before it stray.)
		return false, nil
	}
	if k+2 < len(s) && s[k+1] == q && (s[k+2] == ' ' || s[k+2] == '\t' || s[k+2] == '\\') && sc.quoteAfterKeyColon < 0 {
		// {"k:" v"}, {"k:"\"x"}: a quote after the colon, then white
		// space or a backslash: the key's own quote moved past its
		// colon, the value's quote next to it moved too, or the value's
		// opening quote and first character? Refused once the text is
		// read (a rival reading of a closer fix may hold it, and is a
		// reading all the same).
		sc.quoteAfterKeyColon = sc.i
	}
	sc.quoteGluedAfterKeyColon = sc.quoteGluedAfterKeyColon || k+1 < len(s) && s[k+1] == q
	if err := sc.note(UnclosedKey); err != nil {
		return true, err
	}
	start := sc.out.Len()
	sc.out.WriteByte('"')
	sc.out.WriteString(s[sc.i+1 : k])
	sc.out.WriteByte('"')
	sc.endString(start, k, true)
	return true, nil
}

// quotedValueAfter reports whether the colon s[k] is followed right away by
// a quote q and a string whose text is a JSON value other than a string
// ("h:"2024",w": 1): the quote may be the key's own, moved past its
// colon, and the value's quotes not its own.
func quotedValueAfter(s string, k int, q byte) bool {
	if k+1 >= len(s) || s[k+1] != q {
		return false
	}
	end := strings.IndexByte(s[k+2:], q)
	if end < 0 {
		return false
	}
	v := strings.TrimSpace(s[k+2 : k+2+end])
	return v != "" && v[0] != '"' && jsonread.Valid(v)
}

// keyCloses reports whether the ordinary reading of the key whose colon
// (missing its closing quote q) is at s[k] may succeed: the first quote q
// after the colon (an escaped one aside) could close the key (see
// closingHere). The ordinary reading refuses a key whose quote does not
// close it there (innerQuote), so no later quote matters. The search
// stops at that quote, and a search that found none up to the end of the
// text is remembered, so that the scan stays linear.
func (sc *scanner) keyCloses(q byte, k int) bool {
	s := sc.s
	qi := 0
	if q == '\'' {
		qi = 1
	}
	if k >= sc.noKeyClose[qi][0] && k < sc.noKeyClose[qi][1] {
		return false
	}
	for j := k + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return closingHere(s, j+1, false, true)
		}
	}
	sc.noKeyClose[qi] = [2]int{k, len(s)}
	return false
}

// oneCloserFix repairs a text the scanner refused at a mismatched
// closing bracket (err names it): it tries the changes of that one
// bracket (replaced by the other kind, the other kind inserted before
// it, or, a ']', deleted), the deletion of the innermost open bracket (a stray
// opener: [1, {] ) and the insertion of its opener before the value it
// follows (a dropped one: "a": 1], "b": 2), and returns the text changed when exactly one value
// comes out of them, read to the object's end with nothing but prose
// after it, with no other bracket mended. A bracket that touches what
// follows it (a value's first character) is not changed. Otherwise it
// returns err, or, where no change read and one was refused only for a
// literal or number the schema may read as a string (see spelledAs), that
// refusal, which names the fault the schema leaves.
func oneCloserFix(x string, err error, schema Schema) (string, error) {
	var e *Error
	if !errors.As(err, &e) || e.closer == 0 {
		return "", err
	}
	p := e.closer - 1
	if k := p + 1; k < len(x) && strings.IndexByte(" \t\r\n,:}]", x[k]) < 0 {
		// }42, }"x": the bracket touches what follows, and may be a
		// character of an unquoted value.
		return "", err
	}
	if k, b := skipWhite(x, p+1), prevNonSpace(x, p); k < len(x) && strings.IndexByte(",}]", x[k]) < 0 && b >= 0 && strings.IndexByte("{[,:", x[b]) < 0 {
		// {"a": {}] "b": 2}: after a value, a member follows with no
		// comma: the bracket may be the comma, mistyped.
		return "", err
	}
	if o := e.opener - 1; o > 0 && strings.TrimSpace(unescapeSpaceBetween(x[o+1:p])) == "" {
		// {"a": {\n]}: an empty container, '{' and ']': when '[]' reads
		// with nothing else to repair, '{}' and '[]' are each one change
		// away. (The white space in it is left out: it may be refused in
		// an array's slot and not in an object. The arguments themselves,
		// {], are an object.)
		if alt, aerr := scanCandidate(x[:o]+string(opening(x[p]))+x[p:], schema); aerr == nil {
			ok := !alt.truncated && !alt.normalised
			alt.release()
			if ok {
				return "", err
			}
		}
	}
	other := "}"
	if x[p] == '}' {
		other = "]"
	}
	var fixed string
	cands := []string{x[:p] + other + x[p+1:]}
	if o := e.opener - 1; other == "]" || o >= 0 && singleMember(x[o:p]) && strings.IndexByte(x[o+1:p], '{') < 0 {
		// A '}' dropped from an object of several members may have been
		// dropped after any of them: inserted here only for one, whose
		// value holds no object (whose members it may follow).
		cands = append(cands, x[:p]+other+x[p:])
	}
	if b, k := trimEscapedSpaceRight(x[:p]), skipWhite(x, p+1); x[p] == ']' && !strings.HasSuffix(b, ":") && !(strings.HasSuffix(b, ",") && (k == len(x) || x[k] == '}' || x[k] == ']')) {
		// A stray ']'. (A '}' in an array is not deleted: the '}' of a
		// swapped ']' with a closer added before the next items reads
		// the same. Nor a ']' where a member's value belongs: a '['
		// mistyped, its own ']' dropped, reads the same. Nor one between
		// a comma and a closer: {"a": 1,]} is {"a": [1,]} with a '['
		// dropped as well.)
		cands = append(cands, x[:p]+x[p+1:])
	}
	if o := e.opener - 1; o > 0 {
		cands = append(cands, x[:o]+x[o+1:])
		// The opener mistyped: {"a": [} is [] or {}.
		cands = append(cands, x[:o]+string(opening(x[p]))+x[o+1:])
	}
	if v := e.value - 1; v > 0 {
		cands = append(cands, x[:v]+string(opening(x[p]))+x[v:])
	}
	// Members after the bracket: then a second reading of two faults, a
	// closer dropped at the end besides the bracket's own fault, puts
	// them elsewhere.
	members := strings.Trim(x[p+1:], " \t\r\n}]") != ""
	if o := e.opener - 1; members && o > 0 && x[o] == '[' && x[p] == '}' && x[prevNonSpace(x, o)] == ':' && (singleMember(x[o:p]) || strings.IndexByte(x[o:p], '\'') >= 0) {
		// {"a": ["x"}, "b": 1}: a member's array of one item closed by
		// '}': its ']' dropped, or its '[' stray and the '}' closing the
		// object too early? (With a single quote in it, the items are
		// not counted: it may be one.)
		return "", err
	}
	// The closer deleted: the reading where it is stray and a closer
	// is missing at the end, to weigh, never to choose. And an earlier
	// closer of its kind deleted instead: the reading where that one was
	// written too early ([null],1],] is [null,1],] too).
	rivals := []string{x[:p] + x[p+1:]}
	for _, k := range closersBefore(x, p, maxEarlyClosers) {
		rivals = append(rivals, x[:k]+x[k+1:])
	}
	var values []string
	var spelled error // a candidate's refusal of a literal the schema may read as a string
	for n, cand := range append(cands, rivals...) {
		sc, cerr := scanCandidate(cand, schema)
		if e := (*Error)(nil); errors.As(cerr, &e) && e.spelled && spelled == nil {
			spelled = cerr
		}
		if cerr != nil {
			continue
		}
		rest := strings.TrimSpace(cand[sc.i:])
		// A reading that needed a comma or colon besides the bracket is a
		// second fault, not this one's.
		extra := sc.commaAddedInArray || sc.commaBeforeKey || slices.Contains(sc.steps, MissingColon)
		// A text closed at its end with one closer: two faults.
		rival := members && sc.truncated && len(sc.stack) == 1
		closedEarly := sc.closedBeforeMember
		whole := !sc.truncated && !strings.ContainsAny(rest, "{}[]")
		v := sc.out.String()
		sc.release()
		switch {
		case extra || !whole && !rival:
			continue
		case whole && n < len(cands) && fixed == "":
			if members && closedEarly {
				// {"a": {"b": 1}, "c": [2}, "d": 3}: a nested object
				// closed before more members: its '}' may be early, and
				// this bracket its own.
				return "", err
			}
			fixed = cand
		}
		values = append(values, v)
	}
	for _, v := range values[min(1, len(values)):] {
		if !sameValue(values[0], v) {
			return "", err
		}
	}
	switch {
	case fixed != "":
		return fixed, nil
	case spelled != nil && len(values) == 0:
		// {] 0:+0} against a schema that accepts a string there: the
		// bracket's one reading holds +0, which may be a string.
		return "", spelled
	}
	return "", err
}

// maxEarlyClosers bounds the earlier closers oneCloserFix weighs as
// written too early, so that its cost stays linear.
const maxEarlyClosers = 8

// closersBefore returns the positions of the last n closers of x[p]'s kind
// before p in x, outside its quoted strings.
func closersBefore(x string, p, n int) []int {
	var at []int
	for i := 0; i < p; i++ {
		switch x[i] {
		case '"', '\'':
			end, _ := stringEnd(x, i)
			i = end - 1
		case x[p]:
			at = append(at, i)
		}
	}
	return at[max(0, len(at)-n):]
}

// opening returns the opening bracket of the closer c.
func opening(c byte) byte {
	if c == '}' {
		return '{'
	}
	return '['
}

// scanCandidate scans a text oneCloserFix changed: no other bracket may
// be mended.
func scanCandidate(s string, schema Schema) (*scanner, error) {
	return scanWith(s, false, 0, schema, true)
}

// singleMember reports whether the object text s (from its '{') holds no
// comma at its own level, by a reading of double-quoted strings; a single
// quote anywhere makes it false.
func singleMember(s string) bool {
	if strings.IndexByte(s, '\'') >= 0 {
		return false
	}
	depth, inStr := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 1:
			return false
		}
	}
	return true
}
