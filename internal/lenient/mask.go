package lenient

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonread"
)

// This file holds the masking reader: it shows an argument string that may
// not parse, with the values at secret locations masked and everything it
// cannot place hidden. It is a whitelist: text is shown only when it is
// read as part of an object whose every token so far has one reading.

// Secrets says where a value being read sits: whether it is secret, and
// where its members and items sit. A nil Secrets marks nothing below it.
type Secrets interface {
	// Secret reports whether a value here is secret.
	Secret() bool
	// Member returns where member name of an object here sits.
	Member(name string) Secrets
	// Item returns where item i of an array here sits.
	Item(i int) Secrets
}

// SecretValue is one value Mask masked: where it sits (an RFC 6901
// pointer) and its text as written, which may be JSON or JSON as a model
// writes it (single quotes, Python literals).
type SecretValue struct {
	Pointer string
	Text    string
}

// Masked is what Mask shows of a text.
type Masked struct {
	// Text is the text with every value at a secret location replaced by
	// the mask and every stretch Mask could not read hidden by a marker
	// ("[12 bytes not shown]").
	Text string
	// Values are the secret values masked, in order; a value cut off by
	// the end of the text or by text Mask could not read is left out.
	Values []SecretValue
	// Masked counts the values masked, those left out of Values included;
	// Hidden the bytes hidden.
	Masked, Hidden int
}

// HiddenMarker renders n hidden bytes.
func HiddenMarker(n int) string {
	return "[" + strconv.Itoa(n) + " bytes not shown]"
}

// Mask returns s as it may be shown when root marks secret values.
//
// Mask reads s as a sequence of JSON-like objects, each from root: keys
// and strings in double or single quotes (backslash escapes), bare keys,
// numbers, words (true, None), white space, commas (trailing ones too),
// and objects and arrays nested as written. A value at a secret location
// is replaced by mask, whatever it holds. Text before, between and after
// the objects (prose with its brace placeholders, fences, reasoning, a
// second layer of encoding) is hidden, unless it is white space only. From
// the
// first token that does not fit, the rest of s is hidden: what follows an
// unescaped inner quote, a comment, a missing comma, a typographic quote
// or an unquoted value could belong to a secret, so nothing after it is
// placed, and so is what follows nesting deeper than [jsonread.MaxDepth].
// A text cut off inside a value shows the value's start, or the mask when
// the value is secret. Mask is linear in the length of s.
func Mask(s string, root Secrets, mask string) Masked {
	m := masker{s: s, mask: mask}
	m.out.Grow(len(s))
	pos, prose := 0, 0 // prose: where the text not yet shown or hidden starts
	for pos < len(s) {
		start := strings.IndexByte(s[pos:], '{')
		if start < 0 {
			break
		}
		start += pos
		if n := placeholderLen(s[start:]); n > 0 { // prose: the name could be anything
			pos = start + n
			continue
		}
		m.hide(prose, start-prose)
		m.i = start
		if !m.value(root, "") {
			break
		}
		pos, prose = m.i, m.i
	}
	if m.i < prose {
		m.i = prose
	}
	m.hide(m.i, len(s)-m.i)
	return Masked{Text: m.out.String(), Values: m.values, Masked: m.masked, Hidden: m.hidden}
}

type masker struct {
	s      string
	i      int
	mask   string
	out    strings.Builder
	values []SecretValue
	masked int
	hidden int
	depth  int // of the object or array being read
}

// hide hides the stretch s[from:from+n]; a stretch of white space only is shown.
func (m *masker) hide(from, n int) {
	if n <= 0 {
		return
	}
	if strings.Trim(m.s[from:from+n], " \t\r\n") == "" {
		m.out.WriteString(m.s[from : from+n])
		return
	}
	m.out.WriteString(HiddenMarker(n))
	m.hidden += n
}

// space copies white space at m.i.
func (m *masker) space() {
	j := m.i
	for j < len(m.s) && (m.s[j] == ' ' || m.s[j] == '\t' || m.s[j] == '\r' || m.s[j] == '\n') {
		j++
	}
	m.out.WriteString(m.s[m.i:j])
	m.i = j
}

// value reads one value at m.i, which sits at loc and ptr. It returns
// false when the text does not fit, with m.i where the unread text starts
// (everything before it is written or masked); it returns true, with m.i
// after the value, when the value was read or the text ended inside it.
func (m *masker) value(loc Secrets, ptr string) bool {
	if loc != nil && loc.Secret() {
		start := m.i
		m.out.WriteString(m.mask)
		m.masked++
		end, complete := m.skip()
		if complete {
			m.values = append(m.values, SecretValue{Pointer: ptr, Text: m.s[start:end]})
		}
		if end < 0 {
			m.hide(start, len(m.s)-start)
			m.i = len(m.s)
			return true // nothing after the secret's start is shown
		}
		m.i = end
		return true
	}
	switch c := m.s[m.i]; {
	case c == '{':
		return m.object(loc, ptr)
	case c == '[':
		return m.array(loc, ptr)
	case c == '"' || c == '\'':
		end, _ := stringEnd(m.s, m.i)
		m.out.WriteString(m.s[m.i:end])
		m.i = end
		return true
	default:
		end := tokenEnd(m.s, m.i)
		if end == m.i {
			return false
		}
		m.out.WriteString(m.s[m.i:end])
		m.i = end
		return true
	}
}

// object reads an object at m.i.
func (m *masker) object(loc Secrets, ptr string) bool {
	if m.depth++; m.depth > jsonread.MaxDepth {
		return false
	}
	defer func() { m.depth-- }()
	m.out.WriteByte('{')
	m.i++
	for {
		m.space()
		if m.i >= len(m.s) {
			return true
		}
		if m.s[m.i] == '}' {
			m.out.WriteByte('}')
			m.i++
			return true
		}
		// A key.
		var key string
		switch c := m.s[m.i]; {
		case c == '"' || c == '\'':
			end, closed := stringEnd(m.s, m.i)
			if !closed {
				m.out.WriteString(m.s[m.i:end])
				m.i = end
				return true
			}
			k, ok := keyToken(m.s[m.i:end])
			if !ok {
				return false
			}
			key = k
			m.out.WriteString(m.s[m.i:end])
			m.i = end
		default:
			end := wordEnd(m.s, m.i)
			if end == m.i {
				return false
			}
			key = m.s[m.i:end]
			m.out.WriteString(key)
			m.i = end
		}
		m.space()
		if m.i >= len(m.s) {
			return true
		}
		if m.s[m.i] != ':' {
			return false
		}
		m.out.WriteByte(':')
		m.i++
		m.space()
		if m.i >= len(m.s) {
			return true
		}
		var sub Secrets
		if loc != nil {
			sub = loc.Member(key)
		}
		if !m.value(sub, jsonpointer.Append(ptr, key)) {
			return false
		}
		if done, ok := m.separator('}'); done || !ok {
			return ok
		}
	}
}

// separator reads what follows a member or an item at m.i, after white
// space: a comma (more to come), the container's closer, or the end of the
// text (a cut, shown as far as it goes). done reports that the container
// ended; ok false, a text the masker cannot follow.
func (m *masker) separator(closer byte) (done, ok bool) {
	m.space()
	if m.i >= len(m.s) {
		return true, true
	}
	switch m.s[m.i] {
	case ',':
		m.out.WriteByte(',')
		m.i++
		return false, true
	case closer:
		m.out.WriteByte(closer)
		m.i++
		return true, true
	}
	return false, false
}

// array reads an array at m.i.
func (m *masker) array(loc Secrets, ptr string) bool {
	if m.depth++; m.depth > jsonread.MaxDepth {
		return false
	}
	defer func() { m.depth-- }()
	m.out.WriteByte('[')
	m.i++
	for n := 0; ; n++ {
		m.space()
		if m.i >= len(m.s) {
			return true
		}
		if m.s[m.i] == ']' {
			m.out.WriteByte(']')
			m.i++
			return true
		}
		var sub Secrets
		if loc != nil {
			sub = loc.Item(n)
		}
		if !m.value(sub, jsonpointer.Append(ptr, strconv.Itoa(n))) {
			return false
		}
		if done, ok := m.separator(']'); done || !ok {
			return ok
		}
	}
}

// skip finds the end of the value at m.i without showing it: a string, a
// token, or an object or array with its nested values. It returns the end
// and whether the value is complete; -1 when the value does not read, and
// len(s) with false when the text ends inside it.
func (m *masker) skip() (end int, complete bool) {
	s, i := m.s, m.i
	switch c := s[i]; {
	case c == '"' || c == '\'':
		return stringEnd(s, i)
	case c != '{' && c != '[':
		end := tokenEnd(s, i)
		if end == i {
			return -1, false
		}
		return end, end < len(s)
	}
	depth := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			depth--
			i++
			if depth == 0 {
				return i, true
			}
		case c == '"' || c == '\'':
			end, closed := stringEnd(s, i)
			if !closed {
				return len(s), false
			}
			i = end
		case c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		default:
			end := tokenEnd(s, i)
			if end == i {
				return -1, false
			}
			i = end
		}
	}
	return len(s), false
}

// stringEnd returns the end of the string whose quote is s[i], just after
// its closing quote, and true; len(s) and false when the text ends first.
// A backslash escapes the byte after it.
func stringEnd(s string, i int) (int, bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		}
	}
	return len(s), false
}

// keyToken returns the name a quoted key holds: a double-quoted key read as
// a JSON string, a single-quoted one without backslashes as written.
func keyToken(q string) (string, bool) {
	if q[0] == '"' {
		v, err := jsonread.Decode(q)
		k, ok := v.(string)
		return k, err == nil && ok
	}
	if strings.IndexByte(q, '\\') >= 0 {
		return "", false
	}
	return q[1 : len(q)-1], true
}

// wordEnd returns the end of the bare key at s[i]: letters, digits, '_',
// '$' and '-'.
func wordEnd(s string, i int) int {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '_' && r != '$' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	return j
}

// tokenEnd returns the end of the number or word at s[i]: letters,
// digits, and '_', '$', '-', '+', '.'.
func tokenEnd(s string, i int) int {
	j := i
	for j < len(s) {
		c := s[j]
		if c == '-' || c == '+' || c == '.' {
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	return j
}
