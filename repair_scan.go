package saidex

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds the lenient scanner of the repair stage. It reads one
// JSON-like object the way a model writes it (single, typographic or
// unescaped inner quotes, bare keys, Python literals, comments, missing or
// trailing commas, a stream cut after a complete value) and produces:
//
//   - where the object ends in the text (so prose, fences and a repeated
//     copy after it can be told apart),
//   - the canonical JSON text of the object: every string a proper JSON
//     string, bare keys quoted, Python literals as JSON literals, comments
//     gone, trailing commas dropped, missing commas inserted, and the
//     closing brackets of a stream cut after a complete value added,
//   - the sequence of tokens the object holds, against which jsonrepair's
//     output is checked: a repair may add or drop commas and add closing
//     brackets, never change a value.
//
// The scanner refuses, with a reason meant for the model, everything that
// needs a guess: a stream cut inside a string, number or escape or after a
// key, colon or comma; unquoted values; unknown characters.

// scanTok is one significant token of a JSON value. Commas and colons are not
// recorded: a repair may add or remove commas, and colons follow from the
// structure.
type scanTok struct {
	kind byte   // '{', '}', '[', ']', 's' string, 'n' number, 'l' literal
	text string // decoded string, number text, or "true"/"false"/"null"
}

// Scanner states within the innermost container.
const (
	stValue      = iota // a value is expected (top level, after ':', after '[' or ',' in an array)
	stKey               // a key is expected (after '{' or ',' in an object)
	stColon             // a ':' is expected after a key
	stAfterValue        // ',' or a closing bracket is expected
)

type scanner struct {
	s     string
	i     int
	out   strings.Builder
	toks  []scanTok
	stack []byte // open brackets
	state int
	// what the state was entered by, for error messages and truncation
	afterComma, afterOpen, lastNumber bool
	started, done                     bool
	truncated                         bool // the text ended with open brackets after a complete value
	normalised                        bool // the text needed more than commas and closers
	limit                             int
	pendingComma                      bool
	last                              scanTok // the last token read
	// partial: toks stops where the scan passed limit (limit >= 0). Such
	// an object is refused if it needs repair; otherwise its tokens matter
	// only to compare it with a copy after it (repeatedCopy scans it again).
	partial bool
}

// addTok records t, unless the scan has passed its limit.
func (sc *scanner) addTok(t scanTok) {
	sc.last = t
	if sc.limit >= 0 && sc.i > sc.limit {
		sc.partial = true
		return
	}
	sc.toks = append(sc.toks, t)
}

var errNeedsLargeRepair = errors.New("the object needs repair and is larger than the repair limit")

// scanObject scans the object starting at s[0] == '{'. It returns the
// scanner, whose i is the end of the object in s (len(s) when the object
// was cut off), or a refusal.
//
// A scan that has needed normalisation past byte limit stops with
// errNeedsLargeRepair (limit < 0: no limit): such an object would be refused
// as too large to repair anyway.
//
// The scanner comes from a pool: the caller releases it when done with it
// and its tokens.
func scanObject(s string, limit int) (*scanner, error) {
	sc := scannerPool.Get().(*scanner)
	*sc = scanner{s: s, state: stValue, limit: limit, toks: sc.toks[:0], stack: sc.stack[:0]}
	sc.out.Grow(len(s) + 8)
	if cap(sc.toks) == 0 {
		// About one token per 6 bytes in model-written arguments; more
		// grow the slice as usual.
		sc.toks = make([]scanTok, 0, min(len(s)/6+4, 1024, max(limit, 0)/6+4))
	}
	if err := sc.run(); err != nil {
		sc.release()
		return nil, err
	}
	return sc, nil
}

// scannerPool keeps scanners, with their token and bracket slices, between
// scans: the repair of one argument string scans one to three objects.
var scannerPool = sync.Pool{New: func() any { return new(scanner) }}

// maxPooledTokens bounds the token slice a pooled scanner keeps.
const maxPooledTokens = 4096

// release returns sc to the pool. Neither sc nor its tokens may be used
// after; the canonical text (sc.out) is not reused, so a string taken from
// it stays valid.
func (sc *scanner) release() {
	if cap(sc.toks) > maxPooledTokens || cap(sc.stack) > maxPooledTokens {
		return
	}
	clear(sc.toks) // no references to texts that are gone
	*sc = scanner{toks: sc.toks[:0], stack: sc.stack[:0]}
	scannerPool.Put(sc)
}

func (sc *scanner) run() error {
	for !sc.done {
		if sc.normalised && sc.limit >= 0 && sc.i > sc.limit {
			return errNeedsLargeRepair
		}
		if err := sc.skipSpace(); err != nil {
			return err
		}
		if sc.i >= len(sc.s) {
			return sc.atEOF()
		}
		c := sc.s[sc.i]
		switch {
		case c == '{' || c == '[':
			if err := sc.valueStart(); err != nil {
				return err
			}
			if len(sc.stack) >= MaxNestingDepth {
				return malformed("the arguments are nested deeper than %d levels", MaxNestingDepth)
			}
			sc.stack = append(sc.stack, c)
			sc.addTok(scanTok{kind: c})
			sc.out.WriteByte(c)
			sc.i++
			sc.started = true
			sc.afterOpen, sc.afterComma = true, false
			if c == '{' {
				sc.state = stKey
			} else {
				sc.state = stValue
			}
		case c == '}' || c == ']':
			if err := sc.closeBracket(c); err != nil {
				return err
			}
		case c == ':':
			if sc.state != stColon {
				return sc.unexpected()
			}
			sc.out.WriteByte(':')
			sc.i++
			sc.state = stValue
			sc.afterOpen, sc.afterComma = false, false
		case c == ',':
			if sc.state != stAfterValue {
				return sc.unexpected()
			}
			sc.pendingComma = true // written before the next member, dropped before a closing bracket
			sc.i++
			sc.afterComma, sc.afterOpen = true, false
			if sc.top() == '{' {
				sc.state = stKey
			} else {
				sc.state = stValue
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if err := sc.number(); err != nil {
				return err
			}
		default:
			r, _ := utf8.DecodeRuneInString(sc.s[sc.i:])
			switch {
			case isQuote(r):
				if err := sc.str(r); err != nil {
					return err
				}
			case r == '_' || r == '$' || unicode.IsLetter(r):
				if err := sc.word(); err != nil {
					return err
				}
			default:
				return sc.unexpected()
			}
		}
	}
	return nil
}

func (sc *scanner) top() byte {
	if len(sc.stack) == 0 {
		return 0
	}
	return sc.stack[len(sc.stack)-1]
}

// valueStart checks that a value may start here. A value right after
// another value in an array is a missing comma, which is inserted.
func (sc *scanner) valueStart() error {
	switch {
	case sc.done:
		return sc.unexpected()
	case sc.state == stValue:
		sc.comma()
		return nil
	case sc.state == stAfterValue && sc.top() == '[':
		sc.normalised = true
		sc.comma()
		return nil
	}
	return sc.unexpected()
}

// comma writes the comma before a member or item: the one the text had, or
// a missing one.
func (sc *scanner) comma() {
	if sc.pendingComma || sc.state == stAfterValue {
		sc.out.WriteByte(',')
	}
	sc.pendingComma = false
}

// valueDone moves past a complete value.
func (sc *scanner) valueDone() {
	sc.state = stAfterValue
	sc.afterOpen, sc.afterComma, sc.lastNumber = false, false, false
	if len(sc.stack) == 0 {
		sc.done = true
	}
}

func (sc *scanner) closeBracket(c byte) error {
	open := byte('{')
	if c == ']' {
		open = '['
	}
	if sc.top() != open {
		return sc.unexpected()
	}
	switch sc.state {
	case stAfterValue:
	case stKey, stValue:
		if !sc.afterOpen && !sc.afterComma {
			return sc.unexpected()
		}
		if sc.afterComma {
			sc.normalised = true // a trailing comma
		}
	default: // a key without a value
		return sc.unexpected()
	}
	sc.pendingComma = false // a trailing comma
	sc.stack = sc.stack[:len(sc.stack)-1]
	sc.addTok(scanTok{kind: c})
	sc.out.WriteByte(c)
	sc.i++
	sc.valueDone()
	return nil
}

// atEOF decides what a text that ends here means.
func (sc *scanner) atEOF() error {
	if !sc.started {
		return malformed("the arguments hold no JSON object")
	}
	if len(sc.stack) == 0 {
		return nil
	}
	switch {
	case sc.state == stAfterValue && !sc.lastNumber:
		if last := sc.last; last.kind == 's' && endsInSpace(last.text) {
			// "New York " is far more likely the start of `"New York "City""`
			// cut at its inner quote than a value that ends in a space.
			return malformed("the argument string was cut off inside a string value")
		}
		sc.truncated, sc.normalised = true, true
		for k := len(sc.stack) - 1; k >= 0; k-- {
			if sc.stack[k] == '[' {
				sc.out.WriteByte(']')
			} else {
				sc.out.WriteByte('}')
			}
		}
		return nil
	case sc.state == stAfterValue:
		return malformed("the argument string was cut off right after a number, which may itself be incomplete")
	case sc.state == stColon:
		return malformed("the argument string was cut off after a key, before its value")
	case sc.afterOpen:
		return malformed("the argument string was cut off right after an opening bracket")
	case sc.afterComma:
		return malformed("the argument string was cut off after a comma")
	default:
		return malformed("the argument string was cut off after a colon, before the value")
	}
}

func (sc *scanner) unexpected() error {
	r, _ := utf8.DecodeRuneInString(sc.s[sc.i:])
	return malformed("unexpected character %q at byte %d of the object", r, sc.i)
}

// skipSpace skips white space and comments (//, /* */ and #). A comment is
// not copied to the normalised text.
func (sc *scanner) skipSpace() error {
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			sc.out.WriteByte(c)
			sc.i++
		case c == '/' && strings.HasPrefix(sc.s[sc.i:], "//"), c == '#':
			sc.normalised = true
			if j := strings.IndexByte(sc.s[sc.i:], '\n'); j >= 0 {
				sc.i += j
			} else {
				sc.i = len(sc.s)
			}
			sc.out.WriteByte(' ')
		case c == '/' && strings.HasPrefix(sc.s[sc.i:], "/*"):
			sc.normalised = true
			j := strings.Index(sc.s[sc.i+2:], "*/")
			if j < 0 {
				return malformed("the argument string was cut off inside a comment")
			}
			sc.i += 2 + j + 2
			sc.out.WriteByte(' ')
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(sc.s[sc.i:])
			if !unicode.IsSpace(r) && r != '\uFEFF' {
				return nil
			}
			sc.normalised = true
			sc.out.WriteByte(' ')
			sc.i += n
		default:
			return nil
		}
	}
	return nil
}

// number reads a number in strict JSON grammar.
func (sc *scanner) number() error {
	if err := sc.valueStart(); err != nil {
		return err
	}
	s, i := sc.s, sc.i
	start := i
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	bad := func() error {
		if i >= len(s) {
			return malformed("the argument string was cut off inside a number")
		}
		return malformed("a number at byte %d is not a valid JSON number", start)
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return bad()
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(s) {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '_', c == '$', c < utf8.RuneSelf && unicode.IsLetter(rune(c)):
			return malformed("a number at byte %d is not a valid JSON number", start)
		}
	}
	sc.addTok(scanTok{kind: 'n', text: s[start:i]})
	sc.out.WriteString(s[start:i])
	sc.i = i
	sc.valueDone()
	sc.lastNumber = true
	sc.started = true
	return nil
}

// word reads a bare identifier: a key when a ':' follows, else one of the
// JSON or Python literals.
func (sc *scanner) word() error {
	s := sc.s
	j := sc.i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	w := s[sc.i:j]
	// A key: in key position (or after a value in an object: a missing
	// comma) and followed by a colon.
	keyPos := sc.state == stKey || (sc.state == stAfterValue && sc.top() == '{')
	if keyPos && nextIsColon(s[j:]) {
		if sc.state == stAfterValue && sc.lastNumber {
			sc.lastNumber = false
		}
		sc.comma()
		sc.addTok(scanTok{kind: 's', text: w})
		b, _ := json.Marshal(w)
		sc.out.Write(b)
		sc.normalised = true
		sc.i = j
		sc.state = stColon
		sc.afterOpen, sc.afterComma = false, false
		return nil
	}
	if err := sc.valueStart(); err != nil {
		if keyPos && j >= len(s) {
			return malformed("the argument string was cut off inside a key")
		}
		return malformed("unexpected text at byte %d of the object: a bare word where a key or value belongs", sc.i)
	}
	var lit string
	switch w {
	case "true", "false", "null":
		lit = w
	case "True", "False", "None":
		lit = map[string]string{"True": "true", "False": "false", "None": "null"}[w]
		sc.normalised = true
	default:
		if j >= len(s) && (strings.HasPrefix("true", w) || strings.HasPrefix("false", w) || strings.HasPrefix("null", w) ||
			strings.HasPrefix("True", w) || strings.HasPrefix("False", w) || strings.HasPrefix("None", w)) {
			return malformed("the argument string was cut off inside a value")
		}
		return malformed("a value at byte %d is not quoted and is not true, false or null", sc.i)
	}
	sc.addTok(scanTok{kind: 'l', text: lit})
	sc.out.WriteString(lit)
	sc.i = j
	sc.valueDone()
	sc.lastNumber = false
	return nil
}

func nextIsColon(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(s, ":")
}

// isQuote reports whether r opens a string: ", ', or a typographic quote.
func isQuote(r rune) bool {
	switch r {
	case '"', '\'', '“', '”', '‘', '’':
		return true
	}
	return false
}

// closes reports whether r can close a string opened with open.
func closes(open, r rune) bool {
	switch open {
	case '"':
		return r == '"'
	case '\'':
		return r == '\''
	case '“', '”':
		return r == '”' || r == '“'
	default: // ‘ ’
		return r == '’' || r == '‘'
	}
}

// closingHere reports whether a closing quote that ends at s[j] really ends
// the string: it does when what follows is the end of the text, a comma, a
// colon, a closing bracket, another string (a missing comma), or a comment
// after white space. Otherwise it is a quote inside the value.
func closingHere(s string, j int, inArray bool) bool {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n') {
		k++
	}
	if k >= len(s) {
		return true
	}
	if strings.ContainsRune(s[j:k], '\n') && isBareKeyAhead(s[k:]) {
		return true // a missing comma before a bare key on the next line
	}
	switch s[k] {
	case ',', ':', '}', ']':
		return true
	case '/':
		return k > j && (strings.HasPrefix(s[k:], "//") || strings.HasPrefix(s[k:], "/*"))
	case '#':
		return k > j
	}
	r, n := utf8.DecodeRuneInString(s[k:])
	if !isQuote(r) {
		return false
	}
	// Another string follows: a missing comma. In an array any string
	// does; in an object only a key (a string followed by a colon), since
	// "a "b"" is a value ending in a quoted word.
	return inArray || isKeyAhead(s[k+n:], r)
}

// isKeyAhead reports whether s, which follows an opening quote q, holds the
// rest of a string followed by a colon.
func isKeyAhead(s string, q rune) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\':
			i += n + 1
			continue
		case r == '\n':
			return false
		case closes(q, r):
			return nextIsColon(s[i+n:])
		}
		i += n
	}
	return false
}

// str reads a string opened by quote q and writes it as a JSON string.
func (sc *scanner) str(q rune) error {
	keyPos := sc.state == stKey || (sc.state == stAfterValue && sc.top() == '{')
	if !keyPos {
		if err := sc.valueStart(); err != nil {
			return err
		}
	} else {
		if sc.state == stAfterValue {
			sc.normalised = true // a missing comma before a key
		}
		sc.comma()
	}
	if q != '"' {
		sc.normalised = true
	}
	s := sc.s
	i := sc.i + utf8.RuneLen(q)
	b := &sc.out // the string is written in place; endString reads it back
	start := b.Len()
	b.WriteByte('"')
	inner := 0 // unescaped quotes inside the value
	cut := func() error {
		if keyPos {
			return malformed("the argument string was cut off inside a key")
		}
		return malformed("the argument string was cut off inside a string value")
	}
	for {
		if i >= len(s) {
			return cut()
		}
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return cut()
			}
			e := s[i+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				b.WriteByte('\\')
				b.WriteByte(e)
				i += 2
			case 'u':
				if i+6 > len(s) {
					return cut()
				}
				for _, h := range []byte(s[i+2 : i+6]) {
					if !isHex(h) {
						return malformed("a string at byte %d has an invalid \\u escape", i)
					}
				}
				b.WriteString(s[i : i+6])
				i += 6
			case '\'':
				b.WriteByte('\'')
				i += 2
				sc.normalised = true
			default:
				// Not a JSON escape: keep the backslash as written.
				b.WriteString(`\\`)
				i++
				sc.normalised = true
			}
		case c < 0x20:
			b.WriteString(controlEscape(c))
			i++
			sc.normalised = true
		case c == '"' && q != '"':
			b.WriteString(`\"`)
			i++
		case plainScanByte[c]:
			// A run of bytes copied as they are.
			j := i + 1
			for j+4 <= len(s) && plainScanByte[s[j]] && plainScanByte[s[j+1]] && plainScanByte[s[j+2]] && plainScanByte[s[j+3]] {
				j += 4
			}
			for j < len(s) && plainScanByte[s[j]] {
				j++
			}
			b.WriteString(s[i:j])
			i = j
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if closes(q, r) {
				if closingHere(s, i+n, !keyPos && sc.top() == '[') {
					if inner > 0 && strings.TrimSpace(s[i+n:]) == "" {
						// The text ends right after a quote, in a value
						// that already held quotes: whether this one
						// closes it or the stream was cut is a guess.
						return cut()
					}
					if inner%2 == 1 && q != '\'' && q != '‘' && q != '’' {
						// "say "hi", then": an unpaired quote inside a
						// double-quoted value, and this one is followed
						// by a comma or bracket. Where the value ends is
						// a guess. (An apostrophe in a single-quoted
						// value is ordinary.)
						return malformed("a string value at byte %d holds an unescaped quote, and where the value ends is ambiguous", sc.i)
					}
					i += n
					b.WriteByte('"')
					return sc.endString(b.String()[start:], i, keyPos)
				}
				sc.normalised = true // an unescaped quote inside the value
				inner++
				if r == '"' {
					b.WriteString(`\"`)
					i += n
					continue
				}
			}
			if r == utf8.RuneError && n == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
}

func (sc *scanner) endString(lit string, end int, keyPos bool) error {
	v := unquoteJSON(lit) // lit is a JSON string: the scanner wrote it
	sc.addTok(scanTok{kind: 's', text: v})
	sc.i = end
	sc.started = true
	if keyPos {
		sc.state = stColon
		sc.afterOpen, sc.afterComma = false, false
		sc.lastNumber = false
		return nil
	}
	sc.valueDone()
	sc.lastNumber = false
	return nil
}

// plainScanByte marks the bytes a scanned string holds as they are:
// ASCII, not a control character, a backslash or a quote.
var plainScanByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '\\' && c != '\'' && c != '"'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func controlEscape(c byte) string {
	switch c {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	return fmt.Sprintf(`\u%04x`, c)
}

// expected is the token sequence a sound repair of the scanned object must
// produce: the scanned tokens, closed when the stream was cut after a
// complete value.
func (sc *scanner) expected() []scanTok {
	toks := sc.toks
	if sc.truncated {
		toks = append([]scanTok(nil), toks...)
		for k := len(sc.stack) - 1; k >= 0; k-- {
			c := byte('}')
			if sc.stack[k] == '[' {
				c = ']'
			}
			toks = append(toks, scanTok{kind: c})
		}
	}
	return toks
}

func sameTokens(a, b []scanTok) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// isBareKeyAhead reports whether s starts with an identifier followed by a
// colon.
func isBareKeyAhead(s string) bool {
	j := 0
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && (j == 0 || !unicode.IsDigit(r)) {
			break
		}
		j += n
	}
	return j > 0 && nextIsColon(s[j:])
}

func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && unicode.IsSpace(r)
}

// Results of checkSyntax.
const (
	syntaxOK      = iota // one JSON value, with only white space around it
	syntaxInvalid        // anything else
	syntaxTooDeep        // nested deeper than MaxNestingDepth (before any other error)
)

// lenientJSON makes jsontext read what encoding/json reads: repeated names
// (the last value wins in a decoded map) and invalid UTF-8 in strings (read
// as U+FFFD). Its nesting limit is encoding/json's and ours,
// MaxNestingDepth.
var lenientJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// jsonReader reads one JSON text, already in memory, with a jsontext
// Decoder. The decoder reads the text in place: a bytes.Buffer over the
// string's bytes, which jsontext reads without copying and never writes to
// (it mutates no buffer that a bytes.Buffer provided). So checking or
// decoding a 10 MB argument allocates nothing for the text itself, and the
// strings and numbers decoded from it are substrings of it where they hold
// no escape.
type jsonReader struct {
	s   string
	in  bytes.Buffer
	dec jsontext.Decoder
	// For readMatching: the tokens the text must hold, and its compact form.
	check   bool
	want    []scanTok
	k       int // the next token of want
	compact bool
	out     strings.Builder
	// members is a stack of the members of the objects being read, so
	// that each map is made at its final size.
	members []member
}

type member struct {
	name  string
	value any
}

// maxPooledMembers bounds the member stack a pooled reader keeps.
const maxPooledMembers = 1024

var jsonReaderPool = sync.Pool{New: func() any { return new(jsonReader) }}

// readOnlyBytes returns the bytes of s without copying them, for a
// jsontext.Decoder reading from a bytes.Buffer over them. The bytes must
// never be written: jsontext reads a bytes.Buffer in place and, by design,
// never mutates its contents (it skips even the invalidation byte it writes
// into buffers of its own, jsontext/decode.go, invalidatePreviousRead).
// TestJSONReaderNeverWritesItsInput and FuzzCheckSyntax check that the text
// is unchanged after every read. Copying instead would allocate the size
// of every argument string, twice for a huge broken one.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// newJSONReader returns a pooled reader positioned before the start of s.
// The caller releases it.
func newJSONReader(s string) *jsonReader {
	r := jsonReaderPool.Get().(*jsonReader)
	r.s = s
	r.in = *bytes.NewBuffer(readOnlyBytes(s))
	r.dec.Reset(&r.in, lenientJSON...)
	return r
}

// release returns r to the pool, holding no reference to the text.
func (r *jsonReader) release() {
	r.s, r.want, r.check, r.k, r.compact = "", nil, false, 0, false
	r.out = strings.Builder{} // its text may have been returned
	clear(r.members[:cap(r.members)])
	r.members = r.members[:0]
	if cap(r.members) > maxPooledMembers {
		r.members = nil
	}
	r.in = bytes.Buffer{}
	r.dec.Reset(&r.in, lenientJSON...)
	jsonReaderPool.Put(r)
}

// jsontextTooDeep is the error jsontext wraps in a SyntacticError for a
// text nested deeper than its limit, MaxNestingDepth (it exports no
// sentinel for it).
var jsontextTooDeep = sync.OnceValue(func() error {
	err := jsontext.NewDecoder(strings.NewReader(strings.Repeat("[", MaxNestingDepth+1))).SkipValue()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
})

// checkSyntax reports whether s is exactly one JSON value with only JSON
// white space around it, by the grammar encoding/json reads: the same
// texts json.Valid accepts (invalid UTF-8 included), and syntaxTooDeep where
// encoding/json would first fail with "exceeded max depth". It is linear
// and allocates nothing for an accepted text (a refused one costs only
// jsontext's error value): it is the cheap check before a decode, so that
// a text that does not parse is never decoded.
func checkSyntax(s string) int {
	r := newJSONReader(s)
	defer r.release()
	switch err := r.dec.SkipValue(); {
	case err == nil:
		if r.atEnd() {
			return syntaxOK
		}
	case r.dec.StackDepth() == MaxNestingDepth && errors.Is(err, jsontextTooDeep()):
		return syntaxTooDeep
	}
	return syntaxInvalid
}

// readValid decodes s, which checkSyntax accepted, into the value
// encoding/json decodes it to with UseNumber: objects as map[string]any
// where a repeated name keeps its last value, arrays as non-nil []any,
// numbers as json.Number, strings as unquoteJSON reads them.
func readValid(s string) (any, error) {
	r := newJSONReader(s)
	defer r.release()
	return r.value()
}

// readMatching decodes s and returns it compacted (as json.Compact writes
// it), when s is one JSON value (as checkSyntax says, but in the same pass)
// holding exactly the tokens want. It stops at the first token that
// differs.
func readMatching(s string, want []scanTok) (any, string, bool) {
	r := newJSONReader(s)
	defer r.release()
	r.check, r.want, r.compact = true, want, true
	r.out.Grow(len(s))
	v, err := r.value()
	if err != nil || r.k != len(want) || !r.atEnd() {
		return nil, "", false
	}
	return v, r.out.String(), true
}

// atEnd reports whether only white space follows the value read.
func (r *jsonReader) atEnd() bool {
	return strings.TrimLeft(r.s[r.dec.InputOffset():], " \t\r\n") == ""
}

// errOtherTokens stops readMatching at a token that differs from the one
// expected.
var errOtherTokens = errors.New("the text holds other tokens")

// tok compares the token just read with the next expected one.
func (r *jsonReader) tok(kind byte, text string) error {
	if !r.check {
		return nil
	}
	if r.k >= len(r.want) || r.want[r.k].kind != kind || r.want[r.k].text != text {
		return errOtherTokens
	}
	r.k++
	return nil
}

func (r *jsonReader) emit(s string) {
	if r.compact {
		r.out.WriteString(s)
	}
}

// delim reads the bracket that PeekKind announced.
func (r *jsonReader) delim(c byte) error {
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	if err := r.tok(c, ""); err != nil {
		return err
	}
	if r.compact {
		r.out.WriteByte(c)
	}
	return nil
}

// scalar reads the next string, number or literal, and returns its text
// as a substring of r.s.
func (r *jsonReader) scalar() (string, error) {
	raw, err := r.dec.ReadValue()
	if err != nil {
		return "", err
	}
	end := int(r.dec.InputOffset())
	lit := r.s[end-len(raw) : end]
	r.emit(lit)
	return lit, nil
}

// str reads the next string (a value or an object member's name).
func (r *jsonReader) str() (string, error) {
	lit, err := r.scalar()
	if err != nil {
		return "", err
	}
	v := unquoteJSON(lit)
	return v, r.tok('s', v)
}

func (r *jsonReader) value() (any, error) {
	switch k := r.dec.PeekKind(); k {
	case '{':
		if err := r.delim('{'); err != nil {
			return nil, err
		}
		base := len(r.members)
		for n := 0; r.dec.PeekKind() == '"'; n++ {
			if n > 0 {
				r.emit(",")
			}
			name, err := r.str()
			if err != nil {
				return nil, err
			}
			r.emit(":")
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			r.members = append(r.members, member{name, v})
		}
		m := make(map[string]any, len(r.members)-base)
		for _, mb := range r.members[base:] {
			m[mb.name] = mb.value // a repeated name: the last one wins, as in encoding/json
		}
		clear(r.members[base:])
		r.members = r.members[:base]
		return m, r.delim('}')
	case '[':
		if err := r.delim('['); err != nil {
			return nil, err
		}
		a := make([]any, 0)
		for n := 0; r.dec.PeekKind() != ']'; n++ {
			if n > 0 {
				r.emit(",")
			}
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, r.delim(']')
	case '"':
		return r.str()
	case '0':
		lit, err := r.scalar()
		if err == nil {
			err = r.tok('n', lit)
		}
		return json.Number(lit), err
	case 't', 'f', 'n':
		lit, err := r.scalar()
		if err == nil {
			err = r.tok('l', lit)
		}
		switch k {
		case 't':
			return true, err
		case 'f':
			return false, err
		}
		return nil, err
	}
	_, err := r.dec.ReadToken() // not valid JSON
	return nil, cmp.Or(err, errNotJSON)
}

// unquoteJSON returns the value of the JSON string literal lit (quotes
// included), which checkSyntax or the scanner produced, exactly as
// encoding/json unquotes it: invalid UTF-8 and unpaired surrogate escapes
// become U+FFFD. jsontext.AppendUnquote does the same, reporting them with
// an error that is of no use here.
func unquoteJSON(lit string) string {
	s := lit[1 : len(lit)-1]
	if strings.IndexByte(s, '\\') < 0 && utf8.ValidString(s) {
		return s // a literal holds no quote or control character
	}
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(s)+2*utf8.UTFMax), lit)
	return string(b)
}
