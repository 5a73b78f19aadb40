package lenient

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/faultmodel"
	"github.com/saidex/saidex-go/internal/jsonread"
)

// This file holds the scanner. It reads one JSON-like object the way a
// model writes it (single, typographic or unescaped inner quotes, bare
// keys, Python literals, comments, missing or trailing commas, a stream cut
// after a complete value), in one linear pass, and produces:
//
//   - where the object ends in the text (so prose, fences and a repeated
//     copy after it can be told apart),
//   - the object's canonical JSON text, compact: every string a proper
//     JSON string, bare keys quoted, Python literals as JSON literals,
//     comments and white space gone, trailing commas dropped, missing
//     commas inserted, and the closing brackets of a stream cut after a
//     complete value added. Strings, numbers and literals that needed no
//     change are copied as written.
//
// The scanner refuses, with a reason meant for the model, everything that
// needs a guess: a stream cut inside a string, number or escape or after a
// key, colon or comma; unquoted values; unknown characters.

// Scanner states within the innermost container.
const (
	stValue      = iota // a value is expected (top level, after ':', after '[' or ',' in an array)
	stKey               // a key is expected (after '{' or ',' in an object)
	stColon             // a ':' is expected after a key
	stAfterValue        // ',' or a closing bracket is expected
)

type scanner struct {
	s      string
	i      int
	out    strings.Builder // the canonical text
	stack  []byte          // open brackets
	openAt []int           // where each open bracket is in s
	// commaIn[d]: a comma was read in the container openAt[d] opens.
	commaIn []bool
	// closerInString: a string value ended with '}' or ']' right before
	// its closing quote (which may have moved past it).
	closerInString bool
	// quoteAfterKeyColon is where a key read up to its colon starts when
	// a quote and white space or a backslash follow that colon, or -1.
	quoteAfterKeyColon int
	// keyCloser: a key holds a closing bracket that nothing in it opens.
	keyCloser bool
	// quoteGluedAfterKeyColon: a key read up to its colon has a quote
	// right after that colon ({"k:"…).
	quoteGluedAfterKeyColon bool
	// emptyThenTrailingComma: a trailing comma followed an empty string
	// (refused once the text is read: a rival reading of a closer fix
	// may hold it, and is a reading all the same).
	emptyThenTrailingComma bool
	// cutInArray: the text was cut off (truncated) while an array was
	// open (refused once the text is read, as emptyThenTrailingComma).
	cutInArray bool
	// escQuoteEnd: a string ended with an escaped quote right before
	// its closing quote (\"").
	escQuoteEnd bool
	// commaAfterComma: a string value ended with a comma before its
	// closing quote, and a comma follows it.
	commaAfterComma bool
	// bracketAtEdge: a string (a key or value) started with an opening bracket, or
	// ended with a closing one, that the brackets it holds leave
	// unmatched: its quote may have moved past that bracket.
	bracketAtEdge bool
	// blankRunEnd, noiseEnd: precedesBlankItem and slotAfterNoise have
	// looked past the run of white space (and comments) ending here.
	blankRunEnd, noiseEnd int
	// firstLF is the index of the text's first line break (-1: none),
	// once laidOut has worked it out (firstLFSet).
	firstLF    int
	firstLFSet bool
	// openEscape is the escaped white space the text opens with ({\n),
	// or "", once openEscapeSet.
	openEscape    string
	openEscapeSet bool
	// commaEscape: a comma in the text is followed by openEscape (after
	// a space or not), once commaEscapeSet.
	commaEscape, commaEscapeSet bool
	// lastValueAt is where the last value read (or being read) starts.
	lastValueAt int
	state       int
	// what the state was entered by, for error messages and truncation
	afterComma, afterOpen, lastNumber bool
	started, done                     bool
	truncated                         bool // the text ended with open brackets after a complete value
	normalised                        bool // the text needed more than white space removed
	strict                            bool // stop at the first normalisation (syntax repair is off)
	pendingComma                      bool
	commaAddedInArray                 bool // a missing comma was inserted between items
	// colonAcrossLine: a colon missing before a line break was inserted;
	// commaBeforeKey: a comma missing before a key was inserted. Both in
	// one text are refused (errColonOrComma).
	colonAcrossLine, commaBeforeKey bool
	// closedBeforeMember: a nested object closed with more members or
	// items after it, so an extra closing brace after the object has
	// another reading (that container closed too early).
	closedBeforeMember bool
	// singleClosedBeforeMember: the same, for an object opened with a
	// single brace; lastCloseSingle: the last object closed was one.
	singleClosedBeforeMember, lastCloseSingle bool
	// endsWithBrace: the text was cut off (truncated) right after a
	// nested object's closing brace (or a ']' read as one).
	endsWithBrace bool
	// closers is how many closers a truncated text got at its end.
	closers int
	// lastStr is where the canonical text of the last string read starts,
	// or -1 when the last value read is not a string.
	lastStr int
	// lastQuoteSingle: the last string read was quoted otherwise than
	// with '"' (an apostrophe in it may have closed it).
	lastQuoteSingle bool
	// steps lists the named syntax repairs made (each once).
	steps []Step
	// noQuoteBefore is where the last search of missingOpenQuote that
	// found nothing stopped: a search from before it stops there too, so
	// it is not repeated (a line of bare words stays linear).
	noQuoteBefore int
	// schema, when not nil, guides the repairs that need the tool's
	// schema (see schema.go); levels tracks the location for it.
	schema Schema
	levels []level
	// layout: the spaces before values, for QuotedBareValue (schema.go).
	layout layout
	// oneBracket: the scan of a text oneCloserFix changed, in which no
	// other bracket is mended (mismatched refuses).
	oneBracket bool
	// noKeyClose[q] is a range of the text that holds no quote q that
	// could close a key (see keyCloses), for the quotes " and '.
	noKeyClose [2][2]int
}

// errNeedsRepair stops a strict scan at the first normalisation.
var errNeedsRepair = &Error{Reason: "the arguments are not valid JSON (JSON repair is disabled)"}

// scanObject scans the object starting at s[0] == '{'. It returns the
// scanner, whose i is the end of the object in s (len(s) when the object
// was cut off), or a refusal. A strict scan refuses, with errNeedsRepair,
// an object that needs more than white space removed. sizeHint is the
// room to reserve for the canonical text: len(s) when the object is
// likely most of s, 0 when s may hold much more (a scan must cost what
// the object costs, not what s does).
//
// The scanner comes from a pool: the caller releases it when done with it
// and its canonical text.
func scanObject(s string, strict bool, sizeHint int) (*scanner, error) {
	return scanObjectWith(s, strict, sizeHint, nil)
}

// scanObjectWith is scanObject guided by schema (nil: none).
func scanObjectWith(s string, strict bool, sizeHint int, schema Schema) (*scanner, error) {
	return scanWith(s, strict, sizeHint, schema, false)
}

func scanWith(s string, strict bool, sizeHint int, schema Schema, oneBracket bool) (*scanner, error) {
	sc := scannerPool.Get().(*scanner)
	*sc = scanner{s: s, state: stValue, strict: strict, stack: sc.stack[:0], openAt: sc.openAt[:0], commaIn: sc.commaIn[:0], lastStr: -1, quoteAfterKeyColon: -1, schema: schema, levels: sc.levels[:0], oneBracket: oneBracket, layout: layout{bare: sc.layout.bare[:0]}}
	sc.out.Grow(sizeHint + 8)
	err := sc.run()
	if err == nil && len(sc.layout.bare) > 0 {
		err = sc.bareLayout()
	}
	if err == nil {
		err = sc.shiftedQuote()
	}
	if err != nil {
		sc.release()
		return nil, err
	}
	return sc, nil
}

// scannerPool keeps scanners, with their bracket stacks, between scans: the
// repair of one argument string scans one to three objects.
var scannerPool = sync.Pool{New: func() any { return new(scanner) }}

// maxPooled bounds the bracket stack a pooled scanner keeps.
const maxPooled = 64 << 10

// release returns sc to the pool. sc may not be used after; its canonical
// text is not reused, so a string taken from it stays valid.
func (sc *scanner) release() {
	if cap(sc.stack) > maxPooled || cap(sc.layout.bare) > maxPooled {
		return
	}
	clear(sc.layout.bare) // their tokens and paths hold the text
	*sc = scanner{stack: sc.stack[:0], openAt: sc.openAt[:0], commaIn: sc.commaIn[:0], levels: sc.levels[:0], layout: layout{bare: sc.layout.bare[:0]}}
	scannerPool.Put(sc)
}

// normalise records that the text needed a change beyond white space.
func (sc *scanner) normalise() error {
	sc.normalised = true
	if sc.strict {
		return errNeedsRepair
	}
	return nil
}

// note records the named syntax repair st (a normalisation).
func (sc *scanner) note(st Step) error {
	if err := sc.normalise(); err != nil {
		return err
	}
	if !slices.Contains(sc.steps, st) {
		sc.steps = append(sc.steps, st)
	}
	return nil
}

func (sc *scanner) run() error {
	for !sc.done {
		if sc.i >= len(sc.s) || mayBeSpace[sc.s[sc.i]] {
			if err := sc.skipSpace(); err != nil {
				return err
			}
		}
		if sc.i >= len(sc.s) {
			return sc.atEOF()
		}
		c := sc.s[sc.i]
		if sc.state == stColon && c != ':' {
			if err := sc.missingColon(); err != nil {
				return err
			}
		}
		switch {
		case c == '{' || c == '[':
			if err := sc.valueStart(); err != nil {
				return err
			}
			if len(sc.stack) >= jsonread.MaxDepth {
				return malformed("the arguments are nested deeper than %d levels", jsonread.MaxDepth)
			}
			if c == '{' && sc.i+1 < len(sc.s) && sc.s[sc.i+1] == '{' {
				if len(sc.stack) > 0 && sc.stack[0] != doubledBrace {
					// {"a": {{"b": 1}}, "c": 2}: a template doubles every
					// brace, the object's own too; doubled inside an
					// object opened with one, one brace is stray as
					// likely, the other's closer early.
					return malformed("an object inside the object opens with '{{' at byte %d; whether the braces are doubled or one is stray is ambiguous", sc.i)
				}
				// {{ … }}: braces doubled, as template engines escape
				// them ('{' never starts a key, so "{{" has no other
				// reading). The object must close with "}}".
				if err := sc.note(DoubledBraces); err != nil {
					return err
				}
				sc.stack = append(sc.stack, doubledBrace)
				sc.openAt = append(sc.openAt, sc.i)
				sc.commaIn = append(sc.commaIn, false)
				sc.i++
			} else {
				sc.stack = append(sc.stack, c)
				sc.openAt = append(sc.openAt, sc.i)
				sc.commaIn = append(sc.commaIn, false)
			}
			sc.pushLevel()
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
			if sc.state == stKey && sc.afterOpen {
				// {, "a": 1}: a stray comma before the first member. In a
				// nested object it may follow an empty object whose brace
				// was dropped ({"a": {, "b": 1}: {"a": {}, "b": 1}?).
				if len(sc.stack) > 1 {
					return malformed("a comma at byte %d right after a nested object's opening brace may follow an empty object whose closing brace is missing; which is meant is ambiguous", sc.i)
				}
				if err := sc.note(StrayComma); err != nil {
					return err
				}
				sc.i++
				continue
			}
			if sc.state != stAfterValue {
				return sc.unexpected()
			}
			if n := len(sc.commaIn); n > 0 {
				sc.commaIn[n-1] = true
			}
			if o := sc.out.String(); len(sc.stack) > 0 && len(o) > 0 && o[len(o)-1] == '}' {
				sc.closedBeforeMember = true
				sc.singleClosedBeforeMember = sc.singleClosedBeforeMember || sc.lastCloseSingle
			}
			sc.pendingComma = true // written before the next member, dropped before a closing bracket
			sc.i++
			sc.afterComma, sc.afterOpen = true, false
			if sc.top() == '{' {
				sc.state = stKey
			} else {
				sc.state = stValue
			}
		case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
			if done, err := sc.numericKey(); done || err != nil {
				if err != nil {
					return err
				}
				continue
			}
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
				if done, err := sc.bareValue(false, sc.state == stValue); done || err != nil {
					if err != nil {
						return err
					}
					continue
				}
				return sc.unexpected()
			}
		}
	}
	return nil
}

// missingColon inserts the colon missing between a key and its value:
// "key" "value", "key" 2, key 'value'. The key and the value must be
// apart, by white space or a comment; anything but a value after a key is
// refused.
func (sc *scanner) missingColon() error {
	if sc.i == 0 || !valueAhead(sc.s[sc.i:]) {
		return malformed("a key before byte %d of the object is not followed by a colon and a value", sc.i)
	}
	if c := sc.s[sc.i-1]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '/' && c < utf8.RuneSelf {
		return malformed("a key before byte %d of the object is not followed by a colon and a value", sc.i)
	}
	if k := len(strings.TrimRight(sc.s[:sc.i], " \t\r\n")); strings.ContainsRune(sc.s[k:sc.i], '\n') {
		if sc.commaBeforeKey {
			return errColonOrComma(sc.i)
		}
		if c := sc.s[sc.i]; c == '[' || c == '{' {
			// "x"\n [ … : a key missing its colon, or an item and the next
			// one with their comma missing (a bracket before them closed
			// too early).
			return malformed("a string before byte %d is followed on the next line by a bracket, with no colon: a key missing its colon, or an item followed by another, is ambiguous", sc.i)
		}
		sc.colonAcrossLine = true
	}
	if err := sc.note(MissingColon); err != nil {
		return err
	}
	sc.out.WriteByte(':')
	sc.state = stValue
	sc.afterOpen, sc.afterComma = false, false
	return nil
}

// doubledBrace is the bracket stack's entry for an object opened with "{{".
const doubledBrace = 'D'

// top returns the innermost open bracket, '{' for a doubled brace, or 0.
func (sc *scanner) top() byte {
	if len(sc.stack) == 0 {
		return 0
	}
	if t := sc.stack[len(sc.stack)-1]; t != doubledBrace {
		return t
	}
	return '{'
}

// keyAfterCloser refuses a key that follows a nested object's closing
// brace with no comma ({"a": {"b": 1} "c": 2}): the brace may be a stray
// one, the key a member of the object it seems to close. (After a ']' a
// key has no other reading: an array holds no keys.)
func (sc *scanner) keyAfterCloser() error {
	o := sc.out.String()
	if len(o) > 0 && o[len(o)-1] == '}' {
		return malformed("a key at byte %d follows a closing brace with no comma; whether the brace is stray is ambiguous", sc.i)
	}
	if closedAfterTrailingComma(sc.s, sc.i) {
		// {"a": [1, 2,] "b": 3}: the ']' may be stray, the comma the
		// members' (the array's own ']' dropped or written earlier).
		return malformed("a key at byte %d follows an array closed after a trailing comma, with no comma; whether the bracket is stray is ambiguous", sc.i)
	}
	if v := lastString(sc); sc.lastStr >= 0 && (v == "{" || v == "[") {
		// {"a": "{"\n "b": 1 …: a string holding only an opening
		// bracket, then a key with no comma: the quotes may be stray
		// around the object or array the key belongs to.
		return malformed("a key at byte %d follows a string holding only an opening bracket, with no comma; whether its quotes are stray is ambiguous", sc.i)
	}
	if sc.lastStr >= 0 && stringEndsInComma(o) {
		// {"a": "x," "b": 1}, {"a": "x, ""b": 1}: the comma inside the
		// string may be the members' comma, its quote misplaced.
		return malformed("a key at byte %d follows a string ending in a comma, with no comma between; whether the comma is the string's is ambiguous", sc.i)
	}
	if p := sc.i - 1; p >= 0 && !mayBeSpace[sc.s[p]] && !isQuoteAt(sc.s, p) {
		// {"a": [1,]"b": 2}, {"a": 0.5"b": 1}: a key glued to the value
		// before it: a comma missing, or a bracket stray, or the comma
		// mistyped as one? (After a string, "x""b": is how a missing
		// comma reads in compact JSON.)
		return malformed("a key at byte %d touches the value before it with no comma or white space; whether a comma is missing is ambiguous", sc.i)
	}
	if p := sc.i - 1; p >= 0 && quoteEndsAt(sc.s, p) && quoteKind(lastRuneOf(sc.s[:sc.i])) != quoteKind(firstRune(sc.s[sc.i:])) {
		// {"a":'42'"b": 1}: a key glued to a string quoted with another
		// mark: one of the two marks may be the comma, mistyped (and the
		// value not a string).
		return malformed("a key at byte %d touches the string before it, their quote marks of different kinds; whether one of them is a mistyped comma is ambiguous", sc.i)
	}
	if sc.colonAcrossLine {
		return errColonOrComma(sc.i)
	}
	sc.commaBeforeKey = true
	return nil
}

// stringEndsInComma reports whether the canonical text o ends with a string
// whose last character, spaces aside, is a comma.
func stringEndsInComma(o string) bool {
	return strings.HasSuffix(strings.TrimRight(strings.TrimSuffix(o, `"`), " "), ",")
}

// closedAfterTrailingComma reports whether s[:i] ends, white space and
// line breaks aside, with a ']' right after a comma ([42,]): then what
// follows with no comma may be the array's, its ']' stray.
func closedAfterTrailingComma(s string, i int) bool {
	b, ok := strings.CutSuffix(strings.TrimRight(s[:i], " \t\r\n"), "]")
	return ok && strings.HasSuffix(strings.TrimRight(b, " \t\r\n"), ",")
}

// errColonOrComma refuses a text where a colon was missing across a line
// break and a comma was missing before a key: {"a"\n "b"\n "c": 1} reads
// as "a": "b" with a comma missing, or as two members with their colon
// and comma swapped in the reading.
func errColonOrComma(i int) error {
	return malformed("near byte %d a key is followed by a line break instead of a colon, and a comma is missing before a key too; which separators are missing is ambiguous", i)
}

// valueStart checks that a value may start here. A value right after
// another value in an array is a missing comma, which is inserted.
func (sc *scanner) valueStart() error {
	sc.lastValueAt = sc.i
	if sc.state == stValue {
		sc.gapBefore()
	}
	switch {
	case sc.done:
		return sc.unexpected()
	case sc.state == stValue:
		sc.comma()
		sc.itemStarted()
		return nil
	case sc.state == stAfterValue && sc.top() == '[':
		if o := sc.out.String(); sc.i > 0 && !mayBeSpace[sc.s[sc.i-1]] && !((o[len(o)-1] == '}' || o[len(o)-1] == ']') && (sc.s[sc.i] == '{' || sc.s[sc.i] == '[')) {
			// [2024"x", …], [100{…, [[]"x"]: values glued with no white
			// space (but a container after a closed one) are a split
			// value or a stray quote or bracket as likely as a missing
			// comma.
			return malformed("two values at byte %d of the object touch with no comma or white space; whether a comma is missing is ambiguous", sc.i)
		}
		if sc.lastNumber && splitNumberAt(sc.s, sc.i) {
			// [1 000], [9. 5]: a number, one space, then digits in
			// groups of three (a thousands separator) or, after a
			// point, a digit: one
			// number split (faultmodel's split_number), or two items?
			return malformed("an item at byte %d follows a number after one space, as the digits of a number split by a thousands separator would; whether one value was split is ambiguous", sc.i)
		}
		if o := sc.out.String(); strings.HasSuffix(o, `[""`) || strings.HasSuffix(o, `,""`) {
			// ["" ""], ["" "x"]: an empty string, then a value with no
			// comma: CSV-doubled quotes ("" x "" for " x ") as likely.
			return malformed("an item at byte %d follows an empty string with no comma; whether the quotes are doubled is ambiguous", sc.i)
		}
		if o := sc.out.String(); strings.HasSuffix(o, `"`) && sc.i+1 < len(sc.s) && isQuoteAt(sc.s, sc.i) && sc.s[sc.i+1] == sc.s[sc.i] {
			// ["\\" ""]: a string, then an empty one with no comma: its
			// quotes the first string's, unescaped, as likely.
			return malformed("an empty string at byte %d follows a string with no comma; whether its quotes are the string's own is ambiguous", sc.i)
		}
		if o := sc.out.String(); strings.HasSuffix(o, "[]") || strings.HasSuffix(o, "{}") && isQuoteAt(sc.s, sc.i) || closedAfterTrailingComma(sc.s, sc.i) {
			// [[] "x"], [{} "k": …], [[42,] true]: after an empty
			// container, or one closed after a trailing comma, the closer
			// may be stray and the item the container's. (In an empty
			// object, only a string can be: [{} {}] has one reading.)
			return malformed("an item at byte %d follows an empty container or one closed after a trailing comma, with no comma; whether the closer is stray is ambiguous", sc.i)
		}
		if o := sc.out.String(); strings.HasSuffix(o, `"`) && stringEndsInComma(o) {
			// ["a\"," "b"]: an item ending in a comma, then another with
			// no comma: the comma inside the string may be the items',
			// its quote misplaced.
			return malformed("an item at byte %d follows a string ending in a comma, with no comma between; whether the comma is the string's is ambiguous", sc.i)
		}
		if p := len(strings.TrimRightFunc(sc.s[:sc.i], isInvisible)) - 1; p >= 2 && sc.s[p] == '"' && sc.s[p-1] == '\\' && endsWithEscape(sc.s, p) {
			// ["\\" "y"]: an item ending with an escaped backslash, then
			// another with no comma: the quote may be the string's own,
			// escaped once too often (\\" for \"), the next quotes inside
			// it.
			return malformed("an item at byte %d follows a string ending with an escaped backslash, with no comma; whether its quote was escaped twice is ambiguous", sc.i)
		}
		if o := sc.out.String(); o[len(o)-1] == '}' && sc.closedBeforeMember {
			// [{"a": {"b": 1}, "c": 2} {"d": 3}]: a comma missing between
			// objects, or a nested object closed too early and a stray
			// brace?
			return malformed("an item at byte %d follows an object with no comma, after a nested object was closed before more members; whether a brace is stray is ambiguous", sc.i)
		}
		if err := sc.normalise(); err != nil {
			return err
		}
		sc.commaAddedInArray = true
		sc.comma()
		sc.itemStarted()
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
	open := opening(c)
	if top := sc.top(); top != open && top != 0 {
		if err := sc.mismatched(c); err != nil {
			return err
		}
		if c == '}' { // the array was closed: now close the object
			return sc.closeBracket(c)
		}
		c, open = '}', '{' // a ']' read as '}'
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
		if sc.afterComma { // a trailing comma
			if o := sc.out.String(); len(o) >= 3 && strings.HasSuffix(o, `""`) && strings.IndexByte(":,[", o[len(o)-3]) >= 0 {
				sc.emptyThenTrailingComma = true
			}
			if err := sc.normalise(); err != nil {
				return err
			}
		}
	default: // a key without a value
		return sc.unexpected()
	}
	if sc.stack[len(sc.stack)-1] == doubledBrace {
		if !strings.HasPrefix(sc.s[sc.i:], "}}") {
			return malformed("an object opened with doubled braces '{{' is closed with a single '}' at byte %d", sc.i)
		}
		sc.i++
	}
	sc.pendingComma = false // a trailing comma
	sc.lastCloseSingle = sc.stack[len(sc.stack)-1] == '{'
	sc.stack = sc.stack[:len(sc.stack)-1]
	sc.lastValueAt = sc.openAt[len(sc.stack)]
	sc.openAt = sc.openAt[:len(sc.stack)]
	sc.commaIn = sc.commaIn[:len(sc.stack)]
	sc.popLevel()
	sc.out.WriteByte(c)
	sc.i++
	sc.valueDone()
	sc.lastStr = -1
	return nil
}

// mismatched repairs a closing bracket c that does not match the open
// container, where one reading only exists:
//
//   - a ']' while an object is open and no array is: it can close nothing
//     but the object, so it is read as '}';
//   - a '}' while an array is open, right after an item (or a trailing
//     comma), when only the objects around the array are open and only
//     their closing braces follow: the array's ']' is missing. (Were more
//     members to follow, the '}' could as well be a mistyped ']'.)
//
// It inserts the missing ']' (for a '}'); the caller then closes the
// object. Everything else is refused.
func (sc *scanner) mismatched(c byte) error {
	depth := len(sc.stack)
	if sc.oneBracket {
		return malformed("a closing bracket at byte %d of the object does not match the open one", sc.i)
	}
	if slices.Contains(sc.stack, doubledBrace) {
		return sc.wrong("a closing bracket at byte %d of the object does not match the open one")
	}
	if c == ']' {
		if sc.lastStr >= 0 && sc.state == stAfterValue && strings.ContainsAny(sc.out.String()[sc.lastStr:], "}]") {
			// [{"a": "x}"]: the string's closing quote may be misplaced,
			// the object's '}' inside it.
			return malformed("a ']' at byte %d of the object closes an object after a string holding a closing bracket; whether the string ends there is ambiguous", sc.i)
		}
		if slices.Contains(sc.stack, '[') {
			return sc.wrong("a ']' at byte %d of the object closes an object, and which bracket is missing is ambiguous")
		}
		// No array is open: a '}' mistyped, a stray ']', or an array's
		// dropped '['; oneCloserFix weighs the readings.
		return sc.wrong("a ']' at byte %d of the object closes an object while no array is open, and whether it is a mistyped '}', a stray ']' or closes an array whose '[' is missing is ambiguous")
	}
	if sc.lastStr >= 0 && strings.ContainsAny(sc.out.String()[sc.lastStr:], "}]") {
		// {"a": ["x]"}: the string's closing quote may be misplaced, the
		// array's ']' inside it.
		return malformed("a '}' at byte %d of the object closes an array after a string holding a closing bracket; whether the string ends there is ambiguous", sc.i)
	}
	if o := sc.out.String(); o[len(o)-1] == ']' || o[len(o)-1] == '}' || sc.commaAddedInArray {
		// {"a": [[1, 2}: the nested container's closer may be the
		// array's, the nested one's dropped earlier; {"a": ["x", "k"
		// "v"}: with a comma added in an array, items may be a key and
		// its value after a dropped ']'.
		return malformed("a '}' at byte %d of the object closes an array, and which bracket is missing is ambiguous", sc.i)
	}
	if slices.Contains(sc.stack[:depth-1], '[') || !(sc.state == stAfterValue || sc.afterComma) {
		return sc.wrong("a '}' at byte %d of the object closes an array, and which bracket is missing is ambiguous")
	}
	// Only the closing braces of the open objects follow.
	j := sc.i
	for n := 0; n < depth-1; n++ {
		j = skipWhite(sc.s, j)
		if j >= len(sc.s) || sc.s[j] != '}' {
			return sc.wrong("a '}' at byte %d of the object closes an array, and which bracket is missing is ambiguous")
		}
		j++
	}
	if k := skipWhite(sc.s, j); k < len(sc.s) && (sc.s[k] == ',' || sc.s[k] == ']') {
		return sc.wrong("a '}' at byte %d of the object closes an array, and which bracket is missing is ambiguous")
	}
	if o := sc.openAt[depth-1]; o > 0 {
		// {"a": [1}: the array's ']' dropped, or its '[' stray? When the
		// text without that '[' reads too, both are one fault away.
		if alt, err := scanCandidate(sc.s[:o]+sc.s[o+1:], sc.schema); err == nil {
			ok := !alt.truncated
			alt.release()
			if ok {
				return malformed("a '}' at byte %d of the object closes an array: its ']' is missing, or its '[' is stray; which is meant is ambiguous", sc.i)
			}
		}
	}
	if err := sc.note(MismatchedBracket); err != nil {
		return err
	}
	sc.pendingComma = false
	sc.stack = sc.stack[:depth-1]
	sc.openAt = sc.openAt[:depth-1]
	sc.commaIn = sc.commaIn[:depth-1]
	sc.popLevel()
	sc.out.WriteByte(']')
	sc.valueDone()
	sc.lastStr = -1
	return nil
}

// wrong refuses a mismatched closing bracket at sc.i, which oneCloserFix
// may then repair: the reason is format with sc.i.
func (sc *scanner) wrong(format string) error {
	e := &Error{Reason: fmt.Sprintf(format, sc.i), closer: sc.i + 1}
	if n := len(sc.openAt); n > 0 {
		e.opener = sc.openAt[n-1] + 1
	}
	if sc.state == stAfterValue {
		e.value = sc.lastValueAt + 1
	}
	return e
}

// lastString returns the value of the last string read, or "" when the
// last value read is not a string.
func lastString(sc *scanner) string {
	if sc.lastStr < 0 {
		return ""
	}
	return jsonread.Unquote(sc.out.String()[sc.lastStr:])
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
		if trimEscapedSpaceRight(sc.s) != strings.TrimRight(sc.s, " \t\r\n") {
			// {"a": null  \t: escaped white space at the cut may be a
			// string value's own, its quotes missing ("null  \t").
			return malformed("the argument string was cut off after escaped white space, which may belong to a string value whose quotes are missing")
		}
		if sc.lastStr >= 0 && sc.lastQuoteSingle {
			// {"a": 'x'+'y': the closing quote of a single-quoted string
			// may be an apostrophe inside it, and the value cut there.
			return malformed("the argument string was cut off right after a string in single quotes, whose closing quote may be an apostrophe inside the value")
		}
		if sc.commaAddedInArray {
			// {"a": [1, 2]\n{"a": [1, 2]: a cut object sent twice reads
			// as one with the copy an item, its comma missing.
			return malformed("the argument string was cut off and a comma missing between items was inserted; whether it is one object or copies of a cut one is ambiguous")
		}
		if slices.Contains(sc.stack, doubledBrace) {
			// {{"a": 1, "b": {"c": 2: braces doubled, or a stray '{' and
			// a cut text? The missing "}}" is what tells them apart.
			return malformed("an object opened with '{{' was cut off before its '}}'; whether the braces are doubled or one is stray is ambiguous")
		}
		if t := strings.TrimRight(sc.s, " \t\r\n"); t != "" && t[len(t)-1] >= utf8.RuneSelf {
			// {"q": ""<zero-width space>: invisible characters at the cut
			// may be a string value's own, its quotes misplaced.
			return malformed("the argument string was cut off after invisible characters, which may belong to a string value")
		}
		if err := sc.normalise(); err != nil {
			return err
		}
		if o := sc.out.String(); o[len(o)-1] == '}' {
			sc.endsWithBrace = true
		}
		sc.truncated, sc.closers = true, len(sc.stack)
		sc.cutInArray = slices.Contains(sc.stack, '[')
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

// mayBeSpace marks the bytes that can start white space or a comment:
// where skipSpace has something to do.
var mayBeSpace = func() (t [256]bool) {
	for _, c := range " \t\r\n/#\\" {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// skipSpace skips white space, escaped white space (\n, \r, \t written
// as two characters) and comments (//, /* */ and #).
func (sc *scanner) skipSpace() error {
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			sc.i++
		case c == '\\':
			if stop, err := sc.skipEscapedSpace(); stop || err != nil {
				return err
			}
		case c == '/' && strings.HasPrefix(sc.s[sc.i:], "//"), c == '#' && hashComment(sc.s[sc.i+1:]):
			if err := sc.skipLineComment(); err != nil {
				return err
			}
		case c == '/' && strings.HasPrefix(sc.s[sc.i:], "/*"):
			if err := sc.skipBlockComment(); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			if stop, err := sc.skipInvisible(); stop || err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// skipEscapedSpace skips the escaped white space at sc.i (a backslash),
// or refuses it where it may be a string's own; stop: there is none.
func (sc *scanner) skipEscapedSpace() (stop bool, err error) {
	n := escapedSpaceAt(sc.s, sc.i)
	if n == 0 {
		return true, nil
	}
	if sc.followsBlankString(sc.i) {
		// {"a": " "\t, …}: a value of white space, then escaped white
		// space: the value's own last escape, its closing quote
		// moved before it (the escape row's "s"\n), as likely.
		return false, malformed("escaped white space at byte %d follows a string of white space, which may end with it", sc.i)
	}
	if sc.precedesBlankItem(sc.i) {
		// ["x", \n""]: escaped white space before an item of white
		// space: an item written bare ("\n"), its comma dropped, as
		// likely.
		return false, malformed("escaped white space at byte %d stands before an array item of white space; it may be an item written bare", sc.i)
	}
	// afterQuote: the escape follows a string's closing quote at p
	// (past spaces and tabs).
	p := prevNonSpace(sc.s, sc.i)
	afterQuote := sc.state == stAfterValue && sc.lastStr >= 0 && p >= 0 && quoteEndsAt(sc.s, p)
	if afterQuote && sc.s[sc.i+1] == 't' && commaAfter(sc.s, sc.i) {
		// {\t"a": "//"\t, …: an escaped tab between a string's
		// closing quote and a comma, where no layout puts one (a
		// comma-first layout breaks the line): the string's own
		// escape, its quote moved.
		return false, malformed("an escaped tab at byte %d stands between a string's closing quote and a comma; whether it is the string's own is ambiguous", sc.i)
	}
	if afterQuote && sc.opensWith(sc.s[sc.i:sc.i+n]) && endsWithEscape(sc.s, p) {
		// {\n"a": "x\r"\n}, "x\\"\n}: a string ending with an
		// escape, then the layout's escaped white space: the
		// string's own next escape, its quote moved, as likely.
		return false, malformed("escaped white space at byte %d follows a string that ends with an escape; whether it is the string's own is ambiguous", sc.i)
	}
	if e := sc.s[sc.i : sc.i+n]; afterQuote && sc.opensWith(e) && len(sc.commaIn) > 0 && sc.commaIn[0] && !sc.commasLaidOut() {
		// {\n  "a": [1],"c": "x"\n}: a text that opens with
		// escaped white space, but writes its members on one line:
		// the opening is no proof of a layout, and the escape after
		// the string may be the string's own, its quote moved.
		return false, malformed("escaped white space at byte %d follows a string's closing quote in a text that opens with it but writes its members on one line; whether it is the string's own is ambiguous", sc.i)
	}
	if afterQuote && !sc.opensWith(sc.s[sc.i:sc.i+n]) {
		// {"z":"s"\n}, {"z":"s" \n}: escaped white space after a
		// string's closing quote, in a text that does not open
		// with it ({\n …, laid out with escaped line breaks): the
		// string's own escape, its quote moved, as likely.
		return false, malformed("escaped white space at byte %d follows a string's closing quote in a text that does not open with it; whether it is the string's own is ambiguous", sc.i)
	}
	if sc.top() == '[' && (sc.state == stValue || sc.state == stAfterValue) && sc.i+n < len(sc.s) && isQuoteAt(sc.s, sc.i+n) && !sc.opensWith(sc.s[sc.i:sc.i+n]) {
		// ["x", \n"y"]: escaped white space touching an array item's
		// opening quote, in a text that does not open with it: an item
		// written bare ("\n"), its comma dropped, as likely.
		return false, malformed("escaped white space at byte %d touches an array item's opening quote in a text that does not open with it; it may be an item written bare", sc.i)
	}
	if touchesToken(sc.s, sc.i, n) {
		// 42\n, \r\nnull, \nworld": the escape may be part of a
		// value whose quotes are missing.
		return false, malformed("escaped white space at byte %d touches a value, and may be part of a string whose quotes are missing", sc.i)
	}
	if sc.top() == '[' && sc.state == stValue && sc.i > 0 && sc.s[sc.i-1] == ' ' && sc.i+n+1 < len(sc.s) && sc.s[sc.i+n] == ' ' && sc.s[sc.i+n+1] != ' ' && sc.s[sc.i+n+1] != '\t' {
		// ["x", \t "y"]: where an item belongs, escaped white space
		// standing alone between single spaces (no layout writes it
		// so; a line break's indentation is wider): the string "\t"
		// unquoted, its comma missing, as likely.
		return false, malformed("escaped white space at byte %d stands alone between spaces where an array item belongs, and may be an unquoted string", sc.i)
	}
	if sc.top() == '[' && sc.i >= sc.noiseEnd && sc.slotAfterNoise() {
		// [\n], [1,\n], [1 \n, 2]: an empty slot, or the string
		// "\n" unquoted (its comma missing, after a value)? (White
		// space before a comma is no layout's.)
		return false, malformed("escaped white space at byte %d stands where an array item belongs, and may be an unquoted string", sc.i)
	}
	if err := sc.note(EscapedWhitespace); err != nil {
		return false, err
	}
	sc.i += n
	return false, nil
}

// skipLineComment skips the line comment (// or #) at sc.i, or refuses
// it where its end is ambiguous.
func (sc *scanner) skipLineComment() error {
	if err := sc.normalise(); err != nil {
		return err
	}
	if sc.state == stAfterValue && sc.lastStr >= 0 && quoteEndsAt(sc.s, sc.i-1) && (strings.TrimSpace(lastString(sc)) == "" || emptyComment(sc.s[sc.i:])) {
		// "_id": ""#, "x"#<line break>, "x"# // c: a line comment
		// glued to the closing quote of a string of white space,
		// or an empty one (or a '#' before another comment), may
		// be the string's text, its quote moved.
		return malformed("a line comment at byte %d touches the closing quote of a string of white space, or is empty or another comment's; whether it is the string's text is ambiguous", sc.i)
	}
	var end int
	if j := strings.IndexByte(sc.s[sc.i:], '\n'); j >= 0 {
		end = sc.i + j
	} else {
		// A comment that runs to the end of the text ends before
		// the closing brackets there ({"a": 1 // note}): the one
		// reading, when what it ran over holds no other JSON.
		if p := prevNonSpace(sc.s, sc.i); p >= 0 && sc.s[p] == ',' {
			// ["x", // note v]}: after a comma, where an item or
			// member belongs, its text may hold one, unquoted.
			return malformed("a line comment at byte %d runs to the closing brackets at the end of the text after a comma; whether it holds an item or member is ambiguous", sc.i)
		}
		end = sc.i + len(strings.TrimRight(sc.s[sc.i:], "}] \t\r"))
	}
	if swallowsJSON(sc.s[sc.i:end]) {
		// {"a": "x" // note "b": 2}: a line comment with no line
		// break after it runs over members or closers.
		return malformed("a line comment at byte %d runs over what looks like JSON (a key, a value or a closing bracket); where it ends is ambiguous", sc.i)
	}
	sc.i = end
	return nil
}

// skipBlockComment skips the block comment at sc.i, or refuses it where
// it may be a string's text.
func (sc *scanner) skipBlockComment() error {
	if err := sc.normalise(); err != nil {
		return err
	}
	j := strings.Index(sc.s[sc.i+2:], "*/")
	if j < 0 {
		return malformed("the argument string was cut off inside a comment")
	}
	if strings.IndexByte(sc.s[sc.i+2:sc.i+2+j], '"') >= 0 {
		// "a": /*", "b": /* note */"x": a block comment holding a
		// double quote may be a string's text ("/*") whose
		// quote was lost, run over members.
		return malformed("a block comment at byte %d holds a double quote; whether it is a string's text whose quote was lost is ambiguous", sc.i)
	}
	sc.i += 2 + j + 2
	return nil
}

// skipInvisible skips the invisible character at sc.i, or refuses it
// where it may be a string's own; stop: the character at sc.i is none.
func (sc *scanner) skipInvisible() (stop bool, err error) {
	r, n := utf8.DecodeRuneInString(sc.s[sc.i:])
	if !isInvisible(r) {
		return true, nil
	}
	if touchesBareToken(sc.s, sc.i, sc.i+n) {
		// {"q":<U+2028>true}: the character touches a literal, a
		// number or a bare word, which with it may be a string
		// whose quotes are missing ("\u2028true").
		return false, malformed("an invisible character at byte %d touches an unquoted value, and may be part of a string whose quotes are missing", sc.i)
	}
	if err := sc.note(InvisibleSpace); err != nil {
		return false, err
	}
	sc.i += n
	return false, nil
}

// slotAfterNoise reports whether the white space and comments at sc.i,
// in an array, end where an item belongs: at a comma, or at the ']' of
// an array whose item is missing. It looks past them once (noiseEnd).
func (sc *scanner) slotAfterNoise() bool {
	k := skipNoise(sc.s, sc.i)
	sc.noiseEnd = k
	// (A '}' there closes the array mistyped: [1,\n} is [1,\n] too.)
	return k < len(sc.s) && (sc.s[k] == ',' || sc.state == stValue && (sc.s[k] == ']' || sc.s[k] == '}'))
}

// skipNoise is skipInvisible past comments too (//, # and /* */).
func skipNoise(s string, j int) int {
	for {
		j = skipInvisible(s, j)
		switch {
		case strings.HasPrefix(s[j:], "//") || strings.HasPrefix(s[j:], "#") && hashComment(s[j+1:]):
			k := strings.IndexByte(s[j:], '\n')
			if k < 0 {
				return len(s)
			}
			j += k
		case strings.HasPrefix(s[j:], "/*"):
			k := strings.Index(s[j+2:], "*/")
			if k < 0 {
				return len(s)
			}
			j += 2 + k + 2
		default:
			return j
		}
	}
}

// followsBlankString reports whether the escaped white space at s[i]
// follows a string value that is empty or white space, just closed
// before it (spaces between).
func (sc *scanner) followsBlankString(i int) bool {
	if sc.state != stAfterValue {
		return false
	}
	p := prevNonSpace(sc.s, i)
	return sc.lastStr >= 0 && p >= 0 && quoteEndsAt(sc.s, p) && strings.TrimSpace(lastString(sc)) == ""
}

// precedesBlankItem reports whether the escaped white space at s[i]
// stands before an array item that is a string of white space or empty
// (white space and escaped white space between).
func (sc *scanner) precedesBlankItem(i int) bool {
	if sc.state != stValue || sc.top() != '[' || i < sc.blankRunEnd {
		return false // (the run was looked past once: linear)
	}
	k := skipInvisible(sc.s, i)
	sc.blankRunEnd = k
	if k >= len(sc.s) || sc.s[k] != '"' && sc.s[k] != '\'' {
		return false
	}
	for j := k + 1; j < len(sc.s); {
		r, n := utf8.DecodeRuneInString(sc.s[j:])
		switch {
		case r == rune(sc.s[k]):
			return true
		case !unicode.IsSpace(r):
			return false
		}
		j += n
	}
	return false
}

// quoteKind tells quote marks (see isQuote) apart by kind: '"', '\”,
// typographic double quotes and single ones, each kind one number.
func quoteKind(r rune) int {
	switch r {
	case '"':
		return 0
	case '\'':
		return 1
	case '‘', '’':
		return 3
	}
	return 2
}

func lastRuneOf(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// opensWith reports whether the text opens with the escaped white space
// e ({\n …, laid out with escaped line breaks).
func (sc *scanner) opensWith(e string) bool {
	o := sc.layoutEscape()
	return o != "" && o == e
}

// layoutEscape returns the escaped white space the text opens with (see
// openingEscape), worked out once a scan.
func (sc *scanner) layoutEscape() string {
	if !sc.openEscapeSet {
		sc.openEscape, sc.openEscapeSet = openingEscape(sc.s), true
	}
	return sc.openEscape
}

// commasLaidOut reports whether a comma in the text is followed by the
// escaped white space it opens with (",\n" or ", \n"), worked out once a
// scan.
func (sc *scanner) commasLaidOut() bool {
	if !sc.commaEscapeSet {
		e := sc.layoutEscape()
		sc.commaEscape = e != "" && (strings.Contains(sc.s, ","+e) || strings.Contains(sc.s, ", "+e))
		sc.commaEscapeSet = true
	}
	return sc.commaEscape
}

// openingEscape returns the escaped white space (see escapedSpaceAt) the
// object text s opens with, after its '{' and spaces ({\n …), or "".
func openingEscape(s string) string {
	open, ok := strings.CutPrefix(strings.TrimLeft(s, " \t"), "{")
	if open = strings.TrimLeft(open, " \t"); !ok || escapedSpaceAt(open, 0) != 2 {
		return ""
	}
	return open[:2]
}

// quoteEndsAt reports whether the byte s[p] ends a quote mark (of one or
// more bytes: a typographic quote's last byte too).
func quoteEndsAt(s string, p int) bool {
	return isQuote(lastRuneOf(s[:p+1]))
}

// touchesBareToken reports whether the text s[start:end] is glued to an
// unquoted token: a letter, digit or '_' right before it, or one of those,
// a sign or a dot right after it.
func touchesBareToken(s string, start, end int) bool {
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	return start > 0 && word(s[start-1]) || end < len(s) && (word(s[end]) || s[end] == '-' || s[end] == '+' || s[end] == '.')
}

// hashComment reports whether a '#' followed by s starts a comment: white
// space, another '#' or the end follows it (#] is not one: a bare '#'
// value).
func hashComment(s string) bool {
	return s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '#'
}

// swallowsJSON reports whether the line comment c (its text up to the
// line break) holds what may be JSON it ran over: a bracket, a comma, a
// double quote, a digit, a literal (true, false, null), or a key followed
// by a colon.
func swallowsJSON(c string) bool {
	for lit := range literals {
		if strings.Contains(c, lit) {
			return true // a value the comment may have run over
		}
	}
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '{', '}', '[', ']', ',', '"', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return true
		case '\'':
			if isKeyAhead(c[i+1:], rune(c[i])) {
				return true
			}
		case ':':
			if valueAhead(c[skipInvisible(c, i+1):]) {
				return true
			}
		}
	}
	return false
}

// number reads a number: in JSON grammar, or written .5, 5. or +5
// (LooseNumber). Where the schema accepts only a string, a token that
// runs on past the number (2024-01-05, 5px) is read as a string
// (bareValue).
func (sc *scanner) number() error {
	wasValue := sc.state == stValue
	if err := sc.valueStart(); err != nil {
		return err
	}
	s, start := sc.s, sc.i
	end, loose, ok := numberEnd(s, start)
	if sc.schema != nil {
		tok, isToken := bareToken(s, start)
		if isToken && !ok && leadingZero(s[start:tok]) {
			// 05: a number written with a leading zero (the loose_number
			// row, which the fault model reads), or a string whose quotes
			// are missing where the schema accepts one.
			if err := sc.spelledAs(s[start:tok], "number"); err != nil {
				return err
			}
		}
		if isToken && (!ok || tok != end) {
			if done, err := sc.bareValue(true, wasValue); done || err != nil {
				return err
			}
		}
	}
	if loose && !wasValue {
		// 1 +2, 1.5.5: after another value, a sign or a dot is no
		// missing comma's number.
		ok = false
	}
	if !ok {
		if end >= len(s) {
			return malformed("the argument string was cut off inside a number")
		}
		return malformed("a number at byte %d is not a valid JSON number", start)
	}
	if loose {
		if k := skipWhite(s, end); s[end-1] == '.' && k < len(s) && k > end && s[k] >= '0' && s[k] <= '9' {
			// [5, 99. 99]: a number ending with its point, then digits
			// after a space: one number split (99.99), or two?
			return malformed("a number at byte %d ends with a point and digits follow it after white space; whether one number was split is ambiguous", start)
		}
		if err := sc.spelledAs(s[start:end], "number"); err != nil {
			return err
		}
		if err := sc.note(LooseNumber); err != nil {
			return err
		}
	}
	sc.writeNumber(s[start:end], loose)
	sc.i = end
	sc.valueDone()
	sc.lastNumber = true
	sc.lastStr = -1
	sc.started = true
	return nil
}

// leadingZero reports whether tok is an integer written with a leading
// zero (05, -007): a sign at most, a 0, then digits alone.
func leadingZero(tok string) bool {
	t := strings.TrimPrefix(strings.TrimPrefix(tok, "-"), "+")
	return len(t) >= 2 && faultmodel.LeadingZero(t, 0) && strings.Trim(t, "0123456789") == ""
}

// word reads a bare identifier: a key when a ':' follows, else one of the
// JSON or Python literals.
func (sc *scanner) word() error {
	s := sc.s
	j := sc.i
	wasValue := sc.state == stValue
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	// A word followed by a quote or more words may be a string missing
	// its opening quote (one followed by a comma, colon or bracket, as a
	// literal is, is not).
	if j < len(s) && strings.IndexByte(",:{}[]\n", s[j]) < 0 {
		if done, err := sc.missingOpenQuote(); done || err != nil {
			return err
		}
	}
	w := s[sc.i:j]
	// A key: in key position (or after a value in an object: a missing
	// comma) and followed by a colon.
	keyPos := sc.state == stKey || (sc.state == stAfterValue && sc.top() == '{')
	if keyPos && (nextIsColon(s[j:]) || sc.state == stKey && skipWhite(s, j) > j && valueAhead(s[skipWhite(s, j):])) {
		if sc.state == stAfterValue {
			if err := sc.keyAfterCloser(); err != nil {
				return err
			}
		}
		if err := sc.normalise(); err != nil {
			return err
		}
		sc.lastNumber = false
		sc.comma()
		// An identifier (letters, digits, '_', '$') needs no escape.
		start := sc.out.Len()
		sc.out.WriteByte('"')
		sc.out.WriteString(w)
		sc.out.WriteByte('"')
		sc.keyRead(start)
		sc.i = j
		sc.state = stColon
		sc.afterOpen, sc.afterComma = false, false
		return nil
	}
	if err := sc.valueStart(); err != nil {
		if err == errNeedsRepair {
			return err
		}
		if keyPos && j >= len(s) {
			return malformed("the argument string was cut off inside a key")
		}
		return malformed("unexpected text at byte %d of the object: a bare word where a key or value belongs", sc.i)
	}
	lit, isLit := literals[w]
	if sc.schema != nil {
		// A token that is more than the word (a-b, x.txt), or a word that
		// is no literal, where the schema accepts only a string.
		if tok, isToken := bareToken(s, sc.i); isToken && (!isLit || tok != j) {
			if done, err := sc.bareValue(true, wasValue); done || err != nil {
				return err
			}
		}
	}
	if !isLit {
		if j >= len(s) {
			for lit := range literals {
				if strings.HasPrefix(lit, w) {
					return malformed("the argument string was cut off inside a value")
				}
			}
		}
		return malformed("a value at byte %d is not quoted and is not true, false or null", sc.i)
	}
	if st, named := literalStep(w); named {
		if err := sc.spelledAs(w, "literal"); err != nil {
			return err
		}
		if err := sc.normalise(); err != nil {
			return err
		}
		if st != FixSyntax {
			if err := sc.note(st); err != nil {
				return err
			}
		}
	}
	sc.out.WriteString(lit)
	sc.i = j
	sc.valueDone()
	sc.lastNumber = false
	sc.lastStr = -1
	return nil
}

// missingOpenQuote reads a key or a string value whose opening quote is
// missing and whose closing quote is present: {name": "Ann"}, {"a": hello
// world"}. The text up to the quote, on one line, holds no quote,
// backslash, control character or bracket, comma or colon; the quote is
// followed by a colon (a key) or closes the value (a comma, a closing
// bracket, the end of the text). done is false, with no error, when the
// text is not such a string.
func (sc *scanner) missingOpenQuote() (done bool, err error) {
	if sc.state != stKey && sc.state != stValue || sc.i < sc.noQuoteBefore {
		return false, nil
	}
	s := sc.s
	k := sc.i
	spaced := k > 0 && (s[k-1] == ' ' || s[k-1] == '\n' || s[k-1] == '\r')
	if spaced && sc.state == stValue {
		// {"a": x y"}: white space before the word may be the value's
		// own first characters (" x y") as well as layout: the value's
		// start is unknown.
		return false, nil
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:k]); r >= utf8.RuneSelf && isInvisible(r) {
		// After an invisible character, which may be the value's own.
		return false, nil
	}
	if k > 0 && sc.state == stValue && s[k-1] == '[' {
		// {"a": [x"}: an array's first item missing its opening quote, or
		// the quote itself mistyped as a '['?
		return false, nil
	}
	if k > 0 && (s[k-1] < 0x20 && s[k-1] != '\n' && s[k-1] != '\r' || s[k-1] == '\\') {
		// Next to a tab or other control character, or a backslash: an
		// escape decoded once too often, not white space before a word.
		return false, nil
	}
	defer func() {
		if !done {
			sc.noQuoteBefore = k
		}
	}()
	for k < len(s) {
		c := s[k]
		if c == '"' || c == '\'' || c < 0x20 || c == '\\' || strings.IndexByte(",:{}[]", c) >= 0 {
			break
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[k:])
			if isQuote(r) || r == utf8.RuneError {
				break
			}
			k += n
			continue
		}
		k++
	}
	if k >= len(s) || s[k] != '"' || endsInSpace(s[sc.i:k]) || skipWhite(s, k+1) == len(s) {
		// (At the end of the text, the quote may be the value's opening
		// quote moved past its first characters, the rest cut off.)
		// An apostrophe after a word is as often part of it (k': 1).
		return false, nil
	}
	if spaced && strings.ContainsAny(s[sc.i:k], " \t") {
		// { sp x": 1}: so for a key holding white space, whose own may
		// be the spaces before it as well.
		return false, nil
	}
	key := sc.state == stKey
	if key && !nextIsColon(s[k+1:]) || !key && !closingValue(s, k+1) {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(s[sc.i:k])) {
	case "true", "false", "null", "none", "undefined", "nan", "infinity", "nil":
		// {"a": false", …}: a literal and a stray quote, or a string
		// missing its opening quote?
		return true, malformed("a literal at byte %d is followed by a quote, and whether it is a string missing its opening quote is ambiguous", sc.i)
	}
	if err := sc.note(MissingQuote); err != nil {
		return true, err
	}
	if key {
		sc.comma()
	} else if err := sc.valueStart(); err != nil {
		return true, err
	}
	start := sc.out.Len()
	sc.out.WriteByte('"')
	sc.out.WriteString(s[sc.i:k])
	sc.out.WriteByte('"')
	sc.endString(start, k+1, key)
	return true, nil
}

// closingValue reports whether a quote that ends at s[j] closes a value:
// white space, then the end of the text, a comma or a closing bracket.
func closingValue(s string, j int) bool {
	k := skipInvisible(s, j)
	return k >= len(s) || s[k] == ',' || s[k] == '}' || s[k] == ']'
}

func nextIsColon(s string) bool {
	return strings.HasPrefix(s[skipInvisible(s, 0):], ":")
}

// isInvisible reports whether r is white space between tokens: Unicode
// white space, or a format character (zero-width space, word joiner, byte
// order mark), which shows as nothing.
func isInvisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// skipInvisible returns the index of the first rune at or after j in s
// that is not JSON white space, escaped white space (see escapedSpaceAt)
// or invisible (see isInvisible).
func skipInvisible(s string, j int) int {
	for j < len(s) {
		switch c := s[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			j++
		case c == '\\':
			n := escapedSpaceAt(s, j)
			if n == 0 {
				return j
			}
			j += n
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isInvisible(r) {
				return j
			}
			j += n
		default:
			return j
		}
	}
	return j
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
// colon, a closing bracket, another string (a missing comma), a comment
// after white space, or, after a key, white space and a value (a missing
// colon). Otherwise it is a quote inside the value.
func closingHere(s string, j int, inArray, key bool) bool {
	k := skipInvisible(s, j)
	if k >= len(s) {
		return true
	}
	if key && k > j && valueAhead(s[k:]) {
		return true // "key" "value": a missing colon
	}
	if strings.ContainsRune(s[j:k], '\n') && isBareKeyAhead(s[k:]) {
		return true // a missing comma before a bare key on the next line
	}
	switch s[k] {
	case ',', ':', '}', ']':
		return true
	case '/', '#':
		if s[k] == '/' && !strings.HasPrefix(s[k:], "//") && !strings.HasPrefix(s[k:], "/*") {
			return false
		}
		return k > j || touchingComment(s, k)
	}
	r, n := utf8.DecodeRuneInString(s[k:])
	if !isQuote(r) || k == j && inArray {
		// Not a string, or, in an array, a quote right after this one
		// (["5' 11"", …]): a doubled quote, not a missing comma.
		return false
	}
	// Another string follows: a missing comma. In an array any string
	// does; in an object only a key (a string followed by a colon), since
	// "a "b"" is a value ending in a quoted word.
	if k == j && !isBareKeyAhead(strings.TrimSuffix(keyText(s[k+n:], r), string(r))+":") {
		// "x""b": glued to the next key only when that key is a plain
		// name ("x"",b": … is a doubled quote).
		return false
	}
	return inArray || isKeyAhead(s[k+n:], r)
}

// noMemberAfterComma reports whether s, the text after a quote inside an
// object's string value, is a comma followed, on the same line, by a
// double-quoted word and then a parenthesis, a semicolon or a dot, as in
// code: neither a key, nor a key missing its colon, nor a value, and no
// fault of a JSON text's own tokens leaves one there (a letter may be a
// literal whose colon was dropped, "b"true).
func noMemberAfterComma(s string) bool {
	rest, ok := strings.CutPrefix(s, ",")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	text, ok := strings.CutPrefix(rest, `"`)
	if !ok {
		return false
	}
	end := strings.IndexAny(text, "\"\\\n")
	if end < 0 || text[end] != '"' {
		return false
	}
	after := text[end+1:]
	if after == "" {
		return false
	}
	return strings.IndexByte("();.", after[0]) >= 0
}

// keyText returns s, which follows an opening quote q, up to and with the
// quote that closes it on the same line, or "".
func keyText(s string, q rune) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\n':
			return ""
		case closes(q, r):
			return s[:i+n]
		}
		i += n
	}
	return ""
}

// touchingComment reports whether the comment at s[k], which touches the
// quote before it ("x"// note), ends a string: it holds no quote (else the
// quote and the slashes may be the value's characters), and after it come,
// on a later line or after a block comment's end, a comma, a closing
// bracket or a key.
func touchingComment(s string, k int) bool {
	var body string
	var end int
	if strings.HasPrefix(s[k:], "/*") {
		e := strings.Index(s[k+2:], "*/")
		if e < 0 {
			return false
		}
		body, end = s[k+2:k+2+e], k+2+e+2
	} else {
		e := strings.IndexByte(s[k:], '\n')
		if e < 0 {
			return false
		}
		body, end = s[k:k+e], k+e
	}
	if strings.ContainsFunc(body, isQuote) {
		return false
	}
	end = skipInvisible(s, end)
	if end >= len(s) {
		// The text ends after the comment: a stream cut inside the
		// string is as likely.
		return false
	}
	switch s[end] {
	case ',', '}', ']':
		return true
	}
	r, n := utf8.DecodeRuneInString(s[end:])
	return isBareKeyAhead(s[end:]) || isQuote(r) && isKeyAhead(s[end+n:], r)
}

// valueAhead reports whether s starts with a value: a quote, a number, an
// opening bracket, or a JSON or Python literal.
func valueAhead(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	if isQuote(r) {
		return true
	}
	j := 0
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	_, isLit := literals[s[:j]]
	return isLit && !isIdentByte(s, j)
}

// isIdentByte reports whether s[i] continues an identifier.
func isIdentByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isKeyAhead reports whether s, which follows an opening quote q, holds the
// rest of a string followed by a colon, on the same line.
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

// lineIndent returns the spaces and tabs the line holding s[i] starts
// with.
func lineIndent(s string, i int) string {
	line := s[strings.LastIndexByte(s[:i], '\n')+1:]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// laidOut reports whether the text, whose string starting at byte open
// holds a raw line break at byte lf, is laid out over lines: a line break
// before that string or after lf. Then a line break in the string may be
// the layout's, its quote misplaced.
func (sc *scanner) laidOut(open, lf int) bool {
	if !sc.firstLFSet {
		sc.firstLF, sc.firstLFSet = strings.IndexByte(sc.s, '\n'), true // once a scan
	}
	return sc.firstLF >= 0 && sc.firstLF < open || strings.IndexByte(sc.s[lf+1:], '\n') >= 0
}

// str reads a string opened by quote q and writes it as a JSON string.
func (sc *scanner) str(q rune) error {
	keyPos, done, err := sc.strStart(q)
	if done || err != nil {
		return err
	}
	s := sc.s
	i := sc.i + utf8.RuneLen(q)
	b := &sc.out
	start := b.Len()
	b.WriteByte('"')
	if i < len(s) && s[i] == '\n' && !keyPos {
		// "\n   [1, 2]…": a quote at the end of a line, then the
		// layout: a stray quote as likely as a string's start.
		return malformed("a string at byte %d starts with a line break, and whether its quote is stray is ambiguous", sc.i)
	}
	inner := 0         // unescaped quotes inside the value
	marks := 0         // quotes read as inch or second marks
	var bs backslashes // what the string's backslashes were read as
	// indent returns the indentation of the string's line, worked out
	// once a string.
	var lineInd string
	lineIndSet := false
	indent := func() string {
		if !lineIndSet {
			lineInd, lineIndSet = lineIndent(s, sc.i), true
		}
		return lineInd
	}
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
		case c == '\\':
			j, err := sc.strBackslash(s, i, q, &bs, cut)
			if err != nil {
				return err
			}
			i = j
		case c < 0x20:
			if err := sc.strControl(s, i, inner, keyPos, indent); err != nil {
				return err
			}
			writeControl(b, c)
			i++
		case c == '"' && q != '"':
			if keyPos {
				// {“a"b”: 1}: a key holding a double quote inside other
				// quotes is CSV-style or broken quoting as likely.
				return malformed("a key at byte %d is not followed by a colon and a value (or holds an unescaped quote)", sc.i)
			}
			if isKeyAhead(s[i+1:], '"') {
				// 'ab{"c": 1, …': a string holding a quoted key and a
				// colon may have run over members.
				return malformed("a string at byte %d holds a quoted key and a colon; whether it ran over members is ambiguous", sc.i)
			}
			b.WriteString(`\"`)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if closes(q, r) {
				if next, plus := plusAhead(s, i+n); plus {
					// 'ab' + 'c': a string written as quoted pieces.
					q2, n2, err := sc.joinedPiece(s, i, n, next, inner+marks, cut)
					if err != nil {
						return err
					}
					q, i, inner, marks = q2, next+n2, 0, 0
					continue
				}
				pairsInner := inner%2 == 1 && strings.HasPrefix(s[i+n:], string(r)) && closingHere(s, i+2*n, !keyPos && sc.top() == '[', keyPos)
				// "get("K", "d")": an unpaired inner quote before a comma
				// after which no member can start; it does not close.
				innerComma := inner%2 == 1 && r == '"' && !keyPos && sc.top() == '{' && noMemberAfterComma(s[i+n:])
				if !pairsInner && !innerComma && closingHere(s, i+n, !keyPos && sc.top() == '[', keyPos) {
					if err := sc.strEnds(s, start, i, n, inner, q, keyPos, cut); err != nil {
						return err
					}
					b.WriteByte('"')
					sc.endString(start, i+n, keyPos)
					sc.lastQuoteSingle = q != '"'
					return nil
				}
				if err := sc.innerQuote(s, i, n, r, q, keyPos, pairsInner, bs.quoteEscaped); err != nil {
					return err
				}
				// An unescaped quote inside the value: it closes an inner
				// quote when the string's closing quote follows right
				// after it ("say "hi""), else it opens one, unless it is
				// an inch or second mark (a 27" monitor: after a digit,
				// with no inner quote open), which pairs with nothing.
				if err := sc.normalise(); err != nil {
					return err
				}
				if pairsInner || inner%2 == 1 || !isMark(s, i) {
					inner++
				} else {
					marks++
				}
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

// strStart begins a string opened by quote q at sc.i: a key (keyPos)
// or a value where one may stand, a missing comma before a key noted;
// done: a key written up to its colon was read whole (unclosedKey).
func (sc *scanner) strStart(q rune) (keyPos, done bool, err error) {
	keyPos = sc.state == stKey || (sc.state == stAfterValue && sc.top() == '{')
	if !keyPos {
		if err := sc.valueStart(); err != nil {
			return keyPos, false, err
		}
	} else {
		if sc.state == stAfterValue { // a missing comma before a key
			if err := sc.keyAfterCloser(); err != nil {
				return keyPos, false, err
			}
			if err := sc.normalise(); err != nil {
				return keyPos, false, err
			}
		}
		sc.comma()
	}
	if q != '"' {
		if err := sc.normalise(); err != nil {
			return keyPos, false, err
		}
	}
	if keyPos && sc.state == stKey && (q == '"' || q == '\'') {
		done, err := sc.unclosedKey(byte(q))
		return keyPos, done, err
	}
	return keyPos, false, nil
}

// backslashes is what the backslashes of a string read so far were read
// as. escaped, lone: the string holds a JSON escape, a backslash that
// starts none. Both in one string are refused: a writer that left one
// backslash unescaped may have left them all ("C:\new\app": a line
// break, or a path?). Only \b and \f, which write control characters no
// argument holds, are read as a backslash and a letter beside a lone
// backslash ("C:\bin\app.exe"): raw, found once a string.
type backslashes struct {
	escaped, lone bool
	raw, rawSet   bool
	quoteEscaped  bool // the string escapes a double quote (\")
}

func (sc *scanner) mixedBackslashes() error {
	return malformed("a string at byte %d holds a backslash that starts no JSON escape and an escape too; whether its backslashes are characters is ambiguous", sc.i)
}

// strBackslash reads the backslash at s[i] in a string opened by q,
// writing it to sc.out as JSON, and returns where reading goes on.
func (sc *scanner) strBackslash(s string, i int, q rune, bs *backslashes, cut func() error) (int, error) {
	b := &sc.out
	if i+1 >= len(s) {
		return i, cut()
	}
	e := s[i+1]
	if (e == 'b' || e == 'f') && !bs.escaped {
		if !bs.rawSet {
			bs.raw, bs.rawSet = bs.lone || loneBeforeEscape(s[i+2:]), true
		}
		if bs.raw {
			if err := sc.normalise(); err != nil {
				return i, err
			}
			b.WriteString(`\\`)
			b.WriteByte(e)
			i += 2
			return i, nil
		}
	}
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		if bs.escaped = true; bs.lone || bs.raw {
			return i, sc.mixedBackslashes()
		}
		bs.quoteEscaped = bs.quoteEscaped || e == '"'
		b.WriteByte('\\')
		b.WriteByte(e)
		i += 2
	case 'u':
		if bs.escaped = true; bs.lone || bs.raw {
			return i, sc.mixedBackslashes()
		}
		if i+6 > len(s) {
			return i, cut()
		}
		for k := i + 2; k < i+6; k++ {
			if !isHex(s[k]) {
				return i, malformed("a string at byte %d has an invalid \\u escape", i)
			}
		}
		b.WriteString(s[i : i+6])
		i += 6
	case '\'':
		if err := sc.normalise(); err != nil {
			return i, err
		}
		if q == '"' {
			// "it\'s" in double quotes: an escaped apostrophe, or a
			// backslash before one (\\' with its escape lost)?
			return i, malformed("a string at byte %d holds \\' (not a JSON escape), and whether the backslash is a character is ambiguous", sc.i)
		}
		b.WriteByte('\'')
		i += 2
	case '\n', '\r':
		// "t\<line break>a": a line continuation (ta), or a
		// backslash and a line break?
		return i, malformed("a string at byte %d holds a backslash at the end of a line; whether it continues the line or is a character is ambiguous", sc.i)
	default:
		if i+6 <= len(s) && isHex(s[i+1]) && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) {
			// "see \00e9": a \u escape with its u lost, or a
			// backslash before hex digits?
			return i, malformed("a string at byte %d holds a backslash before four hex digits; whether it is a \\u escape with its u lost is ambiguous", sc.i)
		}
		// Not a JSON escape: keep the backslash as written.
		if bs.lone = true; bs.escaped {
			return i, sc.mixedBackslashes()
		}
		if err := sc.normalise(); err != nil {
			return i, err
		}
		b.WriteString(`\\`)
		i++
	}
	return i, nil
}

// strEnds refuses the quote at s[i:i+n], which closes the string that
// starts at start in sc.out (held inner unescaped quotes, opened by q, a
// key when keyPos), where its closing there is one guess among others.
func (sc *scanner) strEnds(s string, start, i, n, inner int, q rune, keyPos bool, cut func() error) error {
	b := &sc.out
	if inner > 0 && strings.TrimLeftFunc(s[i+n:], unicode.IsSpace) == "" { // stops at the first non-space
		// The text ends right after a quote, in a value
		// that already held quotes: whether this one
		// closes it or the stream was cut is a guess.
		return cut()
	}
	if inner > 0 && commaThenComment.MatchString(b.String()[start:]) {
		// "x">,// it's "y": a value that held an unescaped
		// quote runs over a comma and a comment: the quote
		// may have ended it there.
		return malformed("a string value at byte %d holds an unescaped quote and runs over a comma and a comment; whether the quote ended it is ambiguous", sc.i)
	}
	if inner > 0 && lineEndsAt(s, i+n) {
		if k := strings.Index(b.String()[start:], `\"`); k >= 0 && (strings.Contains(b.String()[start+k:], "//") || strings.Contains(b.String()[start+k:], "#")) {
			// "<|im_end|">// it's "x"<line break>: a value
			// that held an unescaped quote runs over a line
			// comment's opener to the end of its line: the
			// quote may have ended it, the rest a comment.
			return malformed("a string value at byte %d holds an unescaped quote and runs over a line comment's opener to the end of its line; whether the quote ended it is ambiguous", sc.i)
		}
	}
	if inner%2 == 1 && q != '\'' && q != '‘' && q != '’' {
		// "say "hi", then": an unpaired quote inside a
		// double-quoted value, and this one is followed
		// by a comma or bracket. Where the value ends is
		// a guess. (An apostrophe in a single-quoted
		// value is ordinary.)
		return malformed("a string value at byte %d holds an unescaped quote, and where the value ends is ambiguous", sc.i)
	}
	// Each of the key's checks below needs one of these bytes in it (a
	// colon written as an escape included).
	keyMarks := keyPos && strings.ContainsAny(b.String()[start+1:], ",:{}[]\\")
	if keyMarks && strings.HasPrefix(strings.TrimLeft(b.String()[start+1:], " \t"), ",") {
		// {"a": 1", b": 2}: a key starting with a comma: the
		// quote before it belongs to the value before.
		return malformed("a key at byte %d starts with a comma, and whether a quote before it is misplaced is ambiguous", sc.i)
	}
	if k := b.String()[start+1:]; keyMarks && (strings.Contains(k, ":{") || strings.Contains(k, ":[") || strings.Contains(k, ": {") || strings.Contains(k, ": [")) {
		// {"path:{"id": 1}}: a key holding a colon and an
		// opener: its closing quote may be missing there.
		return malformed("a key at byte %d holds a colon and an opening bracket, and whether its closing quote is missing before them is ambiguous", sc.i)
	}
	if k := b.String()[start+1:]; keyMarks && strings.ContainsAny(k, "{}[]") {
		braces, brackets := strings.Count(k, "{")-strings.Count(k, "}"), strings.Count(k, "[")-strings.Count(k, "]")
		if braces > 0 && !strings.HasSuffix(k, "{") || brackets > 0 && !strings.HasSuffix(k, "[") {
			// {items": 1, "$r{items": 1}: a key holding an
			// opening bracket that nothing in it closes, text
			// after it: an object or array may start inside
			// it (a stream sent again, a quote lost). (A key
			// ending with the bracket, "k{", holds nothing
			// after it.)
			return malformed("a key at byte %d holds an opening bracket that it does not close, and whether a value starts inside it is ambiguous", sc.i)
		}
		sc.keyCloser = sc.keyCloser || braces < 0 || brackets < 0
	}
	if strings.Contains(s[sc.i:i], `\\\"`) && sc.layoutEscape() != "" {
		// {\n  “k\\\"q”: …}: in a text laid out with escaped
		// line breaks, a string holding an escaped backslash
		// before an escaped quote: the text may be encoded
		// once more than its quotes show (k"q), or not.
		return malformed("a string at byte %d holds an escaped backslash before an escaped quote in a text laid out with escaped white space; whether it is encoded once more is ambiguous", sc.i)
	}
	if e := s[max(i-2, 0):i]; !keyPos && escapedSpaceAt(e, 0) == 2 && endsWithEscape(s, i) && sc.opensWith(e) {
		// {\n  "a": "x\n"}: in a text laid out with escaped
		// line breaks, a string ending with one: the layout's,
		// its quote moved past it, as likely.
		return malformed("a string value at byte %d ends with the escaped white space the text is laid out with; whether its quote moved past it is ambiguous", sc.i)
	}
	if q == '\'' && (s[sc.i+1] == '"' || s[i-1] == '"' && s[i-2] != '\\') && rawQuotes(s[sc.i+1:i])%2 == 1 {
		// '{\"a\": 1}"' "b": a string in single quotes
		// that starts or ends with a double quote it does
		// not pair: the double quote may be the string's
		// own, the single quote stray. ('say "hi"' pairs
		// it.)
		return malformed("a string at byte %d in single quotes starts or ends with a double quote it does not pair; which quote encloses it is ambiguous", sc.i)
	}
	if p := prevNonSpace(s, sc.i); !keyPos && i == sc.i+1 && p >= 0 && s[p] == ':' && sc.i-p > 2 {
		// "k":    "": an empty string after more white
		// space than a layout puts after a colon: the white
		// space may be the value's, its opening quote moved.
		return malformed("an empty string at byte %d follows a run of white space; whether the white space is its value is ambiguous", sc.i)
	}
	if keyMarks && strings.HasSuffix(strings.TrimRightFunc(jsonread.Unquote(b.String()[start:]+`"`), isInvisible), ":") {
		// {"query: ": …}, {"y:<NBSP>": …}: a key ending in a
		// colon (white space or invisible characters after
		// it) may be a key whose closing quote is missing
		// before it.
		return malformed("a key at byte %d ends with a colon, and whether its closing quote is missing before the colon is ambiguous", sc.i)
	}
	return nil
}

// strControl refuses the control character at s[i], inside the string
// being read (inner unescaped quotes so far, a key when keyPos, indent the
// indentation of its line), where it may be the layout's or a sign of a
// closing quote lost; otherwise it notes the repair.
func (sc *scanner) strControl(s string, i, inner int, keyPos bool, indent func() string) error {
	c := s[i]
	if keyPos && (c == '\n' || c == '\r') {
		// No key holds a line break: its closing quote is
		// missing, and where it ends is a guess.
		return malformed("a key at byte %d runs over a line break, and where it ends is ambiguous", sc.i)
	}
	if err := sc.normalise(); err != nil {
		return err
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:i]); keyPos && !(i > sc.i+1 && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) && isIdentByte(s, i+1)) {
		// A control character at a key's edge or next to white
		// space: its quotes may be misplaced. (Inside a word,
		// {"key<TAB>_": 1}, it is the key's character, read as
		// its escape would be.)
		return malformed("a key at byte %d is not followed by a colon and a value (or holds an unescaped quote)", sc.i)
	}
	if c == '\n' {
		if next := strings.TrimLeft(s[i+1:], " \t"); inner > 0 && (strings.HasPrefix(next, "//") || strings.HasPrefix(next, "#")) && sc.laidOut(sc.i, i) && sc.firstLF < sc.i {
			// {\n "q": " <think">\n// it's "x"\n}: in a text laid
			// out over lines, a string that held an unescaped
			// quote runs over a line break onto a comment line:
			// the quote may have ended it, the comment the
			// layout's.
			return malformed("a string at byte %d holds an unescaped quote and runs over a line break onto a comment line; whether the quote ended it is ambiguous", sc.i)
		}
		if inner > 0 && strings.HasSuffix(strings.TrimRight(s[:i], " \t\r"), ",") {
			// ["e" x,\n""]: a string that held an unescaped quote
			// runs over a comma at the end of a line: the quote
			// may have closed it, the comma the items'.
			return malformed("a string at byte %d holds an unescaped quote and runs over a comma at the end of a line; whether the quote ended it is ambiguous", sc.i)
		}
		if k := skipWhite(s, i); k > i+1 && k < len(s) && isQuoteAt(s, k) {
			// "x\n    " then a quote: the layout's line break and
			// indent, the string's end a line before as likely.
			return malformed("a string at byte %d holds a line break and indentation before a quote; whether the string ends there is ambiguous", sc.i)
		} else if ind := s[i+1 : k]; ind != "" && sc.laidOut(sc.i, i) && strings.HasPrefix(indent(), ind) {
			// [\n\t\t"x:,\n\t\t]: …: in a text laid out over lines,
			// a line break then the indentation of the string's
			// own line (or less) is the layout's as likely: the
			// string may have run over it, its quote lost.
			return malformed("a string at byte %d holds a line break and the indentation of its own line; whether it ran over the layout is ambiguous", sc.i)
		}
	}
	return nil
}

// innerQuote refuses a quote r at s[i:i+n], which could close the string
// opened by q but does not end it here, when reading it as a character of
// the string is one guess among others:
//
//   - in a key: a key's quote not followed by a colon, or a key holding
//     an unescaped quote;
//   - a comment touches it ("x"// note): the comment may end the string;
//   - a backslash follows it ("x"\n): white space escaped once too often
//     between tokens, or an escape inside the string;
//   - the string escapes other quotes before it ("say \"hi"…);
//   - the same quote follows it ("5' 11"", "x""), unless it closes an
//     inner quote right before the string's end ("say "hi""): a doubled
//     quote is a typo, CSV-style quoting or an unescaped quote at the end
//     of the value.
func (sc *scanner) innerQuote(s string, i, n int, r, q rune, keyPos, pairsInner, quoteEscaped bool) error {
	j := i + n
	_, open := utf8.DecodeRuneInString(s[sc.i:])
	switch {
	case keyPos:
		return malformed("a key at byte %d is not followed by a colon and a value (or holds an unescaped quote)", sc.i)
	case strings.TrimSpace(s[sc.i+open:i]) == "":
		// ":" "é"…: a quote right after the opening quote and white
		// space; the opening quote may be stray, this one the value's.
		return malformed("a quote inside the string at byte %d follows only white space after its opening quote; whether the opening quote is stray is ambiguous", sc.i)
	case skipWhite(s, j) > j && skipWhite(s, j) < len(s) && isQuoteAt(s, skipWhite(s, j)):
		// "Theme Park" "location" …: two strings side by side (a comma or
		// colon missing), or quotes inside the value; "2" ", "b": a stray
		// quote after the string, or one inside it.
		return malformed("a quote inside the string at byte %d is followed by another quoted string, and whether the string ends there is ambiguous", sc.i)
	case prevToken(s, sc.i, i) >= 0 && strings.IndexByte("{[:", s[prevToken(s, sc.i, i)]) >= 0:
		// "Th{"event" …, "a, 'k"q': "x": a quote after a bracket or a
		// colon starts a string or key of its own as likely as it is a
		// character. (After a comma it is ordinary: "no onions, "extra"".)
		return malformed("a quote inside the string at byte %d follows a bracket or colon, and whether it starts a string of its own is ambiguous", sc.i)
	case sc.top() == '[' && numberOrLiteralAhead(s[skipWhite(s, j):]):
		// ["x"-2.5, …], ["x" null, …]: a comma missing before an item.
		return malformed("a quote inside the string at byte %d is followed by a number or a literal, and whether a comma is missing is ambiguous", sc.i)
	case j < len(s) && (s[j] == '#' || strings.HasPrefix(s[j:], "//") || strings.HasPrefix(s[j:], "/*")):
		return malformed("a comment touches a quote inside the string at byte %d, and whether the quote ends the string is ambiguous", sc.i)
	case j < len(s) && s[j] == '\\':
		return malformed("a quote inside the string at byte %d is followed by a backslash, and whether the quote ends the string is ambiguous", sc.i)
	case closesAfterWord(s[j:], closerOf(sc.top())):
		// {"id": "make clea"n}, …: a word, then the closer of the open
		// container and a comma or closer: the quote may have moved
		// left, the container closing there.
		return malformed("a quote inside the string at byte %d is followed by a word and the closing bracket of its container; whether the quote moved is ambiguous", sc.i)
	case backslashesBefore(s, i) >= 2:
		// "see \\"hi\\" here": a quote after an escaped backslash: the
		// quote escaped once too often (\\" for \"), or a backslash
		// and an unescaped quote?
		return malformed("a quote inside the string at byte %d follows an escaped backslash; whether the quote was escaped twice is ambiguous", sc.i)
	case skipWhite(s, j) < len(s) && s[skipWhite(s, j)] < 0x20:
		// "e" <NUL>, …: a control character after the quote belongs to
		// no JSON between tokens: the quote may end the string, the
		// character stray.
		return malformed("a quote inside the string at byte %d is followed by a control character, and whether the quote ends the string is ambiguous", sc.i)
	case r == '"' && quoteEscaped:
		// "say \"hi"there": the string escapes its quotes, so a quote
		// left unescaped is one typo among others (a doubled closing
		// quote, a dropped backslash).
		return malformed("a string at byte %d escapes some quotes and not others, and which quote ends it is ambiguous", sc.i)
	case sc.top() == '[' && prevToken(s, sc.i, i) >= 0 && s[prevToken(s, sc.i, i)] == ',':
		// ["a"b,"c"]: in an array, a quote after a comma may start the
		// next item, the one before it missing its closing quote.
		return malformed("a quote inside the string at byte %d follows a comma in an array, and whether it starts the next item is ambiguous", sc.i)
	case sc.top() == '[' && closerBeforeQuote(s[j:], r, ']'):
		// ["C:/"*,] "say"]: in an array, the text after an inner quote
		// holds a ']' before any other quote: the quote may end the
		// item, the ']' the array. (In an object, a '}' there is as
		// often code's: "f() { say "hi" }".)
		return malformed("a quote inside the string at byte %d in an array is followed by a ']' before any other quote; whether the quote ends the string is ambiguous", sc.i)
	case r == '"' && wordAround(s, i, j):
		// ["volume"p"rice", …], "Attendanc"e, "x": a double quote between
		// two letters or digits belongs to no word, and quotes no word:
		// it may have moved from the string's edge. (An apostrophe there
		// is a word's own: 'McDonald's'.)
		return malformed("a quote inside the string at byte %d stands between two letters or digits; whether it moved from the string's edge is ambiguous", sc.i)
	case j < len(s) && isQuoteAt(s, j) && !strings.HasPrefix(s[j:], string(r)):
		// ["x"' "y"]: the string closed and a stray quote mark of another
		// kind, or a quote inside the value.
		return malformed("a quote inside the string at byte %d is followed by another kind of quote mark, and whether the quote ends the string is ambiguous", sc.i)
	case i == sc.i+utf8.RuneLen(q) || !pairsInner && strings.HasPrefix(s[j:], string(r)):
		return malformed("a string at byte %d holds a doubled quote, and whether it ends the string is ambiguous", sc.i)
	case strings.ContainsRune(s[j:skipWhite(s, j)], '\n') || strings.HasPrefix(s[skipWhite(s, j):], "{") || strings.HasPrefix(s[skipWhite(s, j):], "[") || isBareKeyAhead(s[skipWhite(s, j):]):
		// "x"\n  {"a": …, "x"b: 1: a comma missing, or a quote inside the
		// value.
		return malformed("a quote inside the string at byte %d is followed by a line break, an opening bracket or a key, and whether the quote ends the string is ambiguous", sc.i)
	}
	return nil
}

// rawQuotes counts the double quotes in s that no backslash escapes.
func rawQuotes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			n++
		}
	}
	return n
}

// closerBeforeQuote reports whether s holds the closer c before its first
// quote q (or its end).
func closerBeforeQuote(s string, q rune, c byte) bool {
	if k := strings.IndexRune(s, q); k >= 0 {
		s = s[:k]
	}
	return strings.IndexByte(s, c) >= 0
}

// wordAround reports whether the quote s[i:j] stands inside a word: a
// letter, digit or non-ASCII symbol before it (or an apostrophe after one: it'"s)
// and after it (or an apostrophe before one).
func wordAround(s string, i, j int) bool {
	isWord := func(r rune) bool { // (an emoji's parts too: 👍"🏽)
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r >= utf8.RuneSelf && (unicode.IsSymbol(r) || unicode.IsMark(r))
	}
	b, n := utf8.DecodeLastRuneInString(s[:i])
	if b == '\'' {
		b, _ = utf8.DecodeLastRuneInString(s[:i-n])
	}
	a, n := utf8.DecodeRuneInString(s[j:])
	if a == '\'' {
		a, _ = utf8.DecodeRuneInString(s[j+n:])
	}
	return isWord(b) && (isWord(a) || a == '_' || a == '$')
}

// emptyComment reports whether the line comment s starts with ('#' or
// "//") holds nothing before its line break or the end of the text, or, a
// '#' one, only white space and another comment ("x"# // note: the '#'
// may be the string's, its quote moved, and the comment after it alone).
func emptyComment(s string) bool {
	hash := strings.HasPrefix(s, "#")
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "#"), "//"), " \t")
	return s == "" || s[0] == '\n' || s[0] == '\r' ||
		hash && (s[0] == '#' || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*"))
}

// commaThenComment matches a comma, then a line comment's opener.
var commaThenComment = regexp.MustCompile(`,\s*(?://|#)`)

// closesAfterWord reports whether s starts with letters or digits, then
// the closer c, then (white space aside) a comma, a closing bracket or
// the end of the text.
func closesAfterWord(s string, c byte) bool {
	k := 0
	for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9') {
		k++
	}
	if k == len(s) || s[k] != c {
		return false
	}
	k = skipWhite(s, k+1)
	return k == len(s) || strings.IndexByte(",}]", s[k]) >= 0
}

// prevNonSpace returns the index of the last byte before i in s that is
// not a space or tab, or -1.
func prevNonSpace(s string, i int) int {
	k := i - 1
	for k >= 0 && (s[k] == ' ' || s[k] == '\t') {
		k--
	}
	return k
}

// prevToken is prevNonSpace past block comments too: the index of the
// last byte before i in s that is not a space, a tab or in a /* */
// comment, or -1. Only comments opened at or after lo (the string being
// read), at most maxCommentBack bytes back, and 8 in a row, are looked
// for, so that the scan stays linear.
func prevToken(s string, lo, i int) int {
	k := prevNonSpace(s, i)
	for n := 0; n < 8 && k >= lo+1 && s[k] == '/' && s[k-1] == '*'; n++ {
		from := max(lo, k-1-maxCommentBack)
		o := strings.LastIndex(s[from:k-1], "/*")
		if o < 0 {
			break
		}
		k = prevNonSpace(s, from+o)
	}
	return k
}

// maxCommentBack bounds how far back prevToken looks for a comment's
// opener.
const maxCommentBack = 256

// numberOrLiteralAhead reports whether s starts with a number or a JSON or
// Python literal (see valueAhead).
func numberOrLiteralAhead(s string) bool {
	return s != "" && strings.IndexByte("{[", s[0]) < 0 && !isQuoteAt(s, 0) && valueAhead(s)
}

func isQuoteAt(s string, k int) bool {
	r, _ := utf8.DecodeRuneInString(s[k:])
	return isQuote(r)
}

// isMark reports whether the quote at s[i] follows a digit: an inch or
// second mark (27" monitor, 5' 11"). The last digit of a \u escape is not
// one.
func isMark(s string, i int) bool {
	if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
		return false
	}
	return !(i >= 6 && s[i-6] == '\\' && s[i-5] == 'u' && isHex(s[i-4]) && isHex(s[i-3]) && isHex(s[i-2]))
}

// plusAhead reports whether s[j:], the text after a closing quote, starts
// with a '+' after optional white space, and returns the index past the
// '+' and the white space after it.
func plusAhead(s string, j int) (int, bool) {
	k := skipWhite(s, j)
	if k >= len(s) || s[k] != '+' {
		return j, false
	}
	return skipWhite(s, k+1), true
}

// joinedPiece checks the join of a string's quoted piece, whose closing
// quote is s[i:i+n], with the piece that opens at s[next], after a '+'.
// It returns the next piece's opening quote and its length. A join is a
// repair only when it is the one reading: the piece held no unescaped
// quote (else the quote and '+' may be characters of the value), a quoted
// piece follows, and, when no white space surrounds the '+', the quotes
// do not face white space ("Use "+" here" is a value holding a quoted
// plus sign, not two pieces).
func (sc *scanner) joinedPiece(s string, i, n, next, inner int, cut func() error) (rune, int, error) {
	if inner > 0 {
		return 0, 0, malformed("a string at byte %d holds an unescaped quote next to a '+', and where it ends is ambiguous", sc.i)
	}
	if next >= len(s) {
		return 0, 0, cut()
	}
	q2, n2 := utf8.DecodeRuneInString(s[next:])
	if !isQuote(q2) {
		return 0, 0, malformed("a string at byte %d is joined with '+' to something that is not a quoted string; send the value as one string", sc.i)
	}
	if sc.top() == '[' && (s[i+n] == '+' || s[next-1] == '+') {
		// ["a"+"b"], ["a"+\n "b"]: in an array, a '+' glued to a quote
		// may be an item's first or last character, its quote moved
		// past it, the comma between the items dropped.
		return 0, 0, malformed("a string at byte %d in an array is joined with a '+' glued to a quote; whether the '+' is an item's character is ambiguous", sc.i)
	}
	if next == i+n+1 { // "a"+"b": no white space around the '+'
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[next+n2:])
		// Apostrophes are characters of values as often as quotes
		// ('it'+'s'), and an empty piece joins nothing.
		if unicode.IsSpace(before) || unicode.IsSpace(after) || s[i] != '"' || q2 != '"' || closes(q2, after) {
			return 0, 0, malformed("a string at byte %d holds a quoted '+', and whether it joins two pieces is ambiguous", sc.i)
		}
	}
	if before, bn := utf8.DecodeLastRuneInString(s[:i]); before == firstRune(s[i:]) && !strings.HasSuffix(s[:i-bn], `\`) || closes(q2, firstRune(s[next+n2:])) {
		// "" + "": an empty piece joins nothing; the quotes may be
		// CSV-doubled around a '+' ("+ " written ""+ "").
		return 0, 0, malformed("a string at byte %d is joined with '+' to or from an empty piece, and whether the quotes are doubled is ambiguous", sc.i)
	}
	if err := sc.note(JoinStrings); err != nil {
		return 0, 0, err
	}
	return q2, n2, nil
}

// firstRune returns the first rune of s, or utf8.RuneError for "".
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// skipWhite returns the index of the first byte at or after j in s that is
// not JSON white space.
func skipWhite(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// endString moves past a string whose canonical text starts at out[start].
func (sc *scanner) endString(start, end int, keyPos bool) {
	sc.i = end
	sc.started = true
	sc.lastNumber = false
	if end >= 3 && sc.s[end-2] == '"' && endsWithEscape(sc.s, end-1) {
		sc.escQuoteEnd = true
	}
	if v := sc.out.String()[start:]; len(v) >= 3 {
		v = v[1 : len(v)-1]
		first, last := v[0], v[len(v)-1]
		if first == '{' || first == '[' || last == '}' || last == ']' {
			b := bracketBalance(v)
			sc.bracketAtEdge = sc.bracketAtEdge || (first == '{' || first == '[') && b > 0 || (last == '}' || last == ']') && b < 0
		}
	}
	if keyPos {
		sc.state = stColon
		sc.afterOpen, sc.afterComma = false, false
		sc.lastStr = -1
		sc.keyRead(start)
		return
	}
	sc.stringRead(sc.out.String()[start:])
	if o := sc.out.String(); len(o) >= start+3 && o[len(o)-2] == ',' {
		if k := skipInvisible(sc.s, end); k < len(sc.s) && sc.s[k] == ',' {
			sc.commaAfterComma = true
		}
	}
	if o := sc.out.String(); len(o) >= 2 && (o[len(o)-2] == '}' || o[len(o)-2] == ']') {
		sc.closerInString = true
	}
	sc.valueDone()
	sc.lastStr = start
}

// commaAfter reports whether a comma follows s[i:] past white space,
// escaped or not. (Called only for the first escape after a string's
// quote, so that a run of them is looked past once.)
func commaAfter(s string, i int) bool {
	k := skipInvisible(s, i)
	return k < len(s) && s[k] == ','
}

// endsWithEscape reports whether the string whose closing quote is s[p]
// ends with an escape (\r, \\, …) right before it.
func endsWithEscape(s string, p int) bool {
	switch {
	case p >= 2 && s[p-1] == '\\':
		return backslashesBefore(s, p)%2 == 0 // an escaped backslash; an odd run escapes the quote
	case p >= 2:
		return backslashesBefore(s, p-1)%2 == 1
	}
	return false
}

// backslashesBefore returns how many backslashes run right before s[p].
func backslashesBefore(s string, p int) int {
	return p - len(strings.TrimRight(s[:p], `\`))
}

// bracketBalance returns how many more opening brackets than closing ones
// s holds.
func bracketBalance(s string) int {
	return strings.Count(s, "{") + strings.Count(s, "[") - strings.Count(s, "}") - strings.Count(s, "]")
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

// writeControl writes the JSON escape of the control character c.
func writeControl(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	default:
		fmt.Fprintf(b, `\u%04x`, c)
	}
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
	// (A URL's scheme, https://, is no key: after a key's colon, // would
	// open a comment where its value belongs.)
	return j > 0 && nextIsColon(s[j:]) && !strings.HasPrefix(s[j:], "://")
}

func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && unicode.IsSpace(r)
}

// loneBeforeEscape reports whether s, the rest of a string after a \b or
// \f, holds a backslash that starts no JSON escape before any other escape
// and before a quote, a line break or a byte past ASCII (where the string
// may end). A \u with its four hex digits lost, or \', are not lone.
func loneBeforeEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'' || c == '\n' || c == '\r' || c >= utf8.RuneSelf:
			return false
		case c == '\\':
			if i+1 >= len(s) || strings.IndexByte("\"\\/nrtu'\n\r", s[i+1]) >= 0 {
				return false
			}
			if s[i+1] != 'b' && s[i+1] != 'f' {
				return !(i+5 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]))
			}
			i++
		}
	}
	return false
}

// lineEndsAt reports whether only spaces and tabs stand between s[j] and
// a line break.
func lineEndsAt(s string, j int) bool {
	j += len(s[j:]) - len(strings.TrimLeft(s[j:], " \t"))
	return j < len(s) && (s[j] == '\n' || s[j] == '\r')
}

// splitNumberAt reports whether a value at s[i], after a number, may be
// the rest of that number split by one space (faultmodel's split_number):
// one space before it, and a digit before that followed here by a run of
// digits whose length is a multiple of three (faultmodel.SplitsThousands),
// or a point followed here by a digit.
func splitNumberAt(s string, i int) bool {
	if i < 2 || s[i-1] != ' ' {
		return false
	}
	p := s[i-2]
	return p >= '0' && p <= '9' && faultmodel.SplitsThousands(s[i:]) || p == '.' && s[i] >= '0' && s[i] <= '9'
}
