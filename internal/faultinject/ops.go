package faultinject

import (
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// Mutation is a broken text made from a valid one.
type Mutation struct {
	Op   string // the operator, or "a+b" for a pair
	Text string
	// Cut: the text was cut at a byte, so the first exception (a text cut
	// right after a complete value, closed) may apply.
	Cut bool
	// DroppedCloser: a closing bracket was dropped, so the second
	// exception (closers missing at the end added at the end) may apply.
	DroppedCloser bool
}

// edit replaces t.S[start:end] with repl.
type edit struct {
	start, end int
	repl       string
	dropCloser bool
}

// quoteInserted reports whether e inserts a lone quote.
func (e edit) quoteInserted() bool { return e.start == e.end && e.repl == `"` }

// Op is a fault operator: a row of the fault model (package faultmodel:
// its name, cost, reason, step and inverse) and its forward form, which
// breaks a valid text. A local operator proposes edits at every position
// where its fault makes sense; a global one transforms the whole text.
type Op struct {
	faultmodel.Operator
	edits  func(t Text) []edit
	global func(s string, r *rand.Rand, all bool) []string // all: every variant (else one, for pairs)
	cut    bool
}

// Local reports whether o edits the text at positions (else it
// transforms the whole text).
func (o Op) Local() bool { return o.edits != nil }

// forwards are the forward forms of the fault model's operators, by the
// name of their row in faultmodel.Table.
var forwards = map[string]Op{
	"quote_style":         {edits: quoteStyle},
	"unquoted":            {edits: unquoted},
	"comma":               {edits: commas},
	"colon":               {edits: colons},
	"quote":               {edits: quotes},
	"escape":              {edits: escapes},
	"stray_brace":         {edits: strayBraces},
	"premature_closer":    {edits: prematureClosers},
	"dropped_closer":      {edits: droppedClosers},
	"swapped_closer":      {edits: swappedClosers},
	"comment":             {edits: comments},
	"escaped_space":       {edits: escapedSpace},
	"py_js_literal":       {edits: literals},
	"repeated_key":        {edits: repeatedKeys},
	"literal_case":        {edits: literalCase},
	"loose_number":        {edits: looseNumber},
	"numeric_key":         {edits: numericKey},
	"unclosed_key":        {edits: unclosedKey},
	"stray_closer":        {edits: strayCloser},
	"stray_bracket":       {edits: strayBracket},
	"bare_value":          {edits: bareValue},
	"template_quotes":     {edits: templateQuotes},
	"punctuation":         {edits: punctuation},
	"split_number":        {edits: splitNumbers},
	"quote_moved":         {edits: quotesMoved},
	"around":              {global: around},
	"double_encoded":      {global: doubleEncoded},
	"repeated_object":     {global: repeatedObject},
	"concatenated":        {global: concatenated},
	"csv_quotes":          {global: csvQuotes},
	"doubled_braces":      {global: doubledBraces},
	"commented":           {global: commented},
	"cut":                 {global: cutText, cut: true},
	"literal_backslashes": {global: literalBackslashes},
	"single_quotes":       {global: singleQuotes},
	"bare_apostrophe":     {global: bareApostrophes},
	"joined_strings":      {global: joinedStrings},
	"backquotes":          {edits: backquotes},
	"entity_quotes":       {edits: entityQuotes},
	"invisible":           {edits: invisibles},
	"template_escapes":    {edits: templateEscapes},
}

// Ops are the fault operators: the rows of faultmodel.Table, in its
// order, each with its forward form.
var Ops = opsOfTable()

func opsOfTable() []Op {
	out := make([]Op, 0, len(faultmodel.Table))
	for _, row := range faultmodel.Table {
		op := forwards[row.Name] // a row without one breaks nothing (a test checks there is none)
		op.Operator = row
		out = append(out, op)
	}
	return out
}

// OpByName returns the operator named name.
func OpByName(name string) (Op, bool) {
	for _, o := range Ops {
		if o.Name == name {
			return o, true
		}
	}
	return Op{}, false
}

func apply(s string, es ...edit) string {
	var b strings.Builder
	pos := 0
	for _, e := range es {
		b.WriteString(s[pos:e.start])
		b.WriteString(e.repl)
		pos = e.end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// Singles returns every single mutation of t by o.
func (o Op) Singles(t Text, r *rand.Rand) []Mutation {
	var out []Mutation
	if o.global == nil && o.edits == nil {
		return nil
	}
	if o.Local() {
		for _, e := range o.edits(t) {
			out = append(out, Mutation{Op: o.Name, Text: apply(t.S, e), DroppedCloser: e.dropCloser})
		}
		return out
	}
	for _, s := range o.global(t.S, r, true) {
		out = append(out, Mutation{Op: o.Name, Text: s, Cut: o.cut, DroppedCloser: o.cut})
	}
	return out
}

// Pair returns a mutation of t by a and then b (b's edit elsewhere in the
// text when both are local; b applied to the whole text when b is
// global), chosen with r, and false when a and b have no such pair here.
func Pair(t Text, a, b Op, r *rand.Rand) (Mutation, bool) {
	m := Mutation{Op: a.Name + "+" + b.Name}
	if a.edits == nil && a.global == nil || b.edits == nil && b.global == nil {
		return Mutation{}, false
	}
	if !a.Local() && b.Local() {
		a, b = b, a // the edit first, then the whole text
	}
	s := t.S
	if a.Local() {
		ea := a.edits(t)
		if len(ea) == 0 {
			return Mutation{}, false
		}
		e1 := ea[r.IntN(len(ea))]
		m.DroppedCloser = e1.dropCloser
		if b.Local() {
			var ok []edit // b's edits apart from e1
			for _, e := range b.edits(t) {
				// Two inserted quotes quote the text between them: the
				// same text as another value (a string holding it, line
				// breaks written literally), not a fault of this one.
				if (e.end <= e1.start || e.start >= e1.end) && e.start != e1.start && !(e.quoteInserted() && e1.quoteInserted()) {
					ok = append(ok, e)
				}
			}
			if len(ok) == 0 {
				return Mutation{}, false
			}
			e2 := ok[r.IntN(len(ok))]
			if e2.start < e1.start {
				e1, e2 = e2, e1
			}
			m.Text = apply(s, e1, e2)
			m.DroppedCloser = e1.dropCloser || e2.dropCloser
			return m, true
		}
		s = apply(s, e1)
	} else {
		outs := a.global(s, r, false)
		if len(outs) == 0 {
			return Mutation{}, false
		}
		s = outs[0]
		m.Cut = a.cut
	}
	outs := b.global(s, r, false)
	if len(outs) == 0 {
		return Mutation{}, false
	}
	m.Text = outs[0]
	m.Cut = m.Cut || b.cut
	m.DroppedCloser = m.DroppedCloser || m.Cut
	return m, true
}

// gaps returns the positions between tokens (after each token but the
// last, and before each but the first), each once.
func gaps(t Text) []int {
	var out []int
	seen := map[int]bool{}
	for i, k := range t.Toks {
		if i > 0 && !seen[k.Start] {
			seen[k.Start] = true
			out = append(out, k.Start)
		}
		if i < len(t.Toks)-1 && !seen[k.End] {
			seen[k.End] = true
			out = append(out, k.End)
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+'
}

func isStr(k Tok) bool { return k.Kind == TokKey || k.Kind == TokString }

// strToks yields each string token of t (a key or a value) with its
// content as written, quotes left out.
func strToks(t Text) iter.Seq2[Tok, string] {
	return func(yield func(Tok, string) bool) {
		for _, k := range t.Toks {
			if isStr(k) && !yield(k, t.S[k.Start+1:k.End-1]) {
				return
			}
		}
	}
}

// walkContent calls f for each character of the JSON string content c
// (its escapes as written), with the escape (or the character) as written.
func walkContent(c string, f func(i int, piece string)) {
	for i := 0; i < len(c); {
		_, n := utf8.DecodeRuneInString(c[i:]) // a character, never a part of one
		if c[i] == '\\' {
			n = 2
			if i+1 < len(c) && c[i+1] == 'u' {
				n = 6
			}
		}
		n = min(n, len(c)-i)
		f(i, c[i:i+n])
		i += n
	}
}

// quoteStyle: a string (key or value) in single quotes, with its
// apostrophes escaped or, where each stands inside a word (Joe's), not,
// or in typographic quotes, where it holds no closing mark.
func quoteStyle(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		esc, held := singleQuoted(c, true)
		out = append(out, edit{k.Start, k.End, esc, false})
		if raw, _ := singleQuoted(c, false); held && apostrophesInWords(raw) {
			out = append(out, edit{k.Start, k.End, raw, false})
		}
		if !strings.Contains(c, "”") {
			out = append(out, edit{k.Start, k.End, "“" + c + "”", false})
		}
	}
	return out
}

// singleQuoted writes the string whose JSON content is c in single
// quotes: \" as ", each apostrophe escaped (\') or, not escape, left bare;
// held reports an apostrophe in c.
func singleQuoted(c string, escape bool) (w string, held bool) {
	var e strings.Builder
	e.WriteByte('\'')
	walkContent(c, func(_ int, p string) {
		switch {
		case p == `\"`:
			e.WriteString(`"`)
		case p == "'" && escape:
			held = true
			e.WriteString(`\'`)
		default:
			held = held || p == "'"
			e.WriteString(p)
		}
	})
	e.WriteByte('\'')
	return e.String(), held
}

// apostrophesInWords reports whether every apostrophe of the string w,
// written in single quotes, but its own quotes, stands inside a word.
func apostrophesInWords(w string) bool {
	for j := 1; j < len(w)-1; j++ {
		if w[j] == '\'' && !faultmodel.InWord(w, j) {
			return false
		}
	}
	return true
}

// unquoted: a key or a string value without its quotes, when its content
// holds no quote or JSON punctuation, is not only white space (or escaped
// white space), and is not
// a number or a JSON or Python literal (else the fault is another value
// written validly or quoted otherwise, a trailing comma, or brackets).
func unquoted(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		if t := strings.TrimFunc(c, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }); t == "True" || t == "False" || t == "None" {
			continue
		}
		if t := faultmodel.TrimEscapedSpace(c); t != c {
			if _, err := DecodeOrdered(t); err == nil || t == "True" || t == "False" || t == "None" {
				continue // null  \t: a literal and escaped white space
			}
		}
		if strings.ContainsAny(c, `"'“”‘’{}[],:`) || strings.TrimFunc(c, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) == "" {
			continue // an empty value unquoted is no value: a trailing comma
		}
		if faultmodel.TrimEscapedSpace(c) == "" {
			continue // \n unquoted is layout (the unquoted row)
		}
		if strings.TrimSpace(c) != c {
			continue // the white space around a bare token is layout (the fault model's unquoted row)
		}
		if strings.Contains(c, "#") || faultmodel.HoldsLineComment(c) || strings.Contains(c, "/*") {
			continue // unquoted, it is a comment
		}
		if faultmodel.LeadingValue(c) {
			continue // a number or a literal and more is no bare string (the unquoted row)
		}
		if strings.Contains(c, "`") || strings.Contains(c, faultmodel.EntityQuote) || invisible(c) {
			continue // a bare token holds no quote mark and no invisible character (the unquoted row)
		}
		if v, err := DecodeOrdered(strings.TrimFunc(c, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })); err == nil && k.Kind == TokString {
			if _, isStr := v.(String); !isStr {
				continue
			}
		}
		if tr := faultmodel.TrimEscapedSpace(c); k.Kind == TokString && (numberLike.MatchString(tr) || otherValue.MatchString(tr)) {
			continue // a value that reads as a number or a literal unquoted (+42, NaN) is no bare string (the unquoted row)
		}
		out = append(out, edit{k.Start, k.End, c, false})
	}
	return out
}

// commas: a comma dropped or doubled, or one inserted after an opening
// bracket, before a closing one (also as ", " where the layout writes
// commas so), or after a colon.
func commas(t Text) []edit {
	var out []edit
	spaced := false // the layout writes ", " between items
	for _, k := range t.Toks {
		if k.Kind == TokComma && k.End < len(t.S) && t.S[k.End] == ' ' {
			spaced = true
			break
		}
	}
	for _, k := range t.Toks {
		switch k.Kind {
		case TokComma:
			// Dropped: unless it glues two numbers or literals into one
			// ([1,2] as [12]: another valid value, not a fault).
			if !(k.Start > 0 && isWordByte(t.S[k.Start-1]) && k.End < len(t.S) && isWordByte(t.S[k.End])) {
				out = append(out, edit{k.Start, k.End, "", false})
			}
			out = append(out, edit{k.Start, k.End, ",,", false})
		case TokOpenObject, TokOpenArray, TokColon:
			out = append(out, edit{k.End, k.End, ",", false})
		case TokCloseObject, TokCloseArray:
			out = append(out, edit{k.Start, k.Start, ",", false})
			if p := k.Start - 1; spaced && p >= 0 && strings.IndexByte(" \t\r\n[{", t.S[p]) < 0 {
				// A trailing comma written as the layout writes commas:
				// ["x", ].
				out = append(out, edit{k.Start, k.Start, ", ", false})
			}
		}
	}
	return out
}

// colons: a colon dropped or doubled, or one inserted after a value in an
// object.
func colons(t Text) []edit {
	var out []edit
	for i, k := range t.Toks {
		switch {
		case k.Kind == TokColon:
			out = append(out, edit{k.Start, k.End, "", false}, edit{k.Start, k.End, "::", false})
		case i+1 < len(t.Toks) && t.Toks[i+1].Kind == TokComma && k.Parent >= 0 && t.Toks[k.Parent].Kind == TokOpenObject:
			out = append(out, edit{k.End, k.End, ":", false})
		}
	}
	return out
}

// quotes: a string's opening or closing quote dropped or doubled, a quote
// inserted between tokens, an escaped inner quote written bare.
func quotes(t Text) []edit {
	var out []edit
	for k := range strToks(t) {
		out = append(out, edit{k.Start, k.Start + 1, "", false}, edit{k.End - 1, k.End, "", false},
			edit{k.Start, k.Start, `"`, false}, edit{k.End, k.End, `"`, false})
		c := t.S[k.Start+1 : k.End-1]
		walkContent(c, func(i int, p string) {
			if p == `\"` {
				at := k.Start + 1 + i
				out = append(out, edit{at, at + 2, `"`, false})
			}
		})
	}
	for _, g := range gaps(t) {
		out = append(out, edit{g, g, `"`, false})
	}
	return out
}

// quotesMoved: a string's quote moved past the character next to it:
// the closing quote one character in ("ab"c) or out ("abc,"), the opening
// quote one character in (a"bc") or out ("[abc").
func quotesMoved(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		// (Only where the row moves a quote, faultmodel.QuoteMovesOver:
		// not over white space, escaped or invisible too; nor a closing
		// quote in over a final '}' or ']', QuoteMovesOverNext: "x"}}
		// reads as an extra closing brace, which real models send; nor
		// over a final ',', MovedQuoteOpens: "x",} is a trailing comma.)
		if at, p, ok := lastPiece(c); ok && faultmodel.QuoteMovesOverNext(p) && !faultmodel.MovedQuoteOpens(p) { // "ab"c
			out = append(out, edit{k.Start + 1 + at, k.End, `"` + p, false})
		}
		if k.End < len(t.S) { // "abc,"
			_, n := utf8.DecodeRuneInString(t.S[k.End:])
			if next := t.S[k.End : k.End+n]; faultmodel.QuoteMovesOver(next) {
				out = append(out, edit{k.End - 1, k.End + n, next + `"`, false})
			}
		}
		if n, ok := firstBoundary(c); (ok || n == len(c) && n > 0) && faultmodel.QuoteMovesOver(c[:n]) { // a"bc"
			out = append(out, edit{k.Start, k.Start + 1 + n, c[:n] + `"`, false})
		}
		if k.Start > 0 { // :"abc" from : "abc"… over a non-space only
			_, n := utf8.DecodeLastRuneInString(t.S[:k.Start])
			if prev := t.S[k.Start-n : k.Start]; faultmodel.QuoteMovesOverNext(prev) {
				out = append(out, edit{k.Start - n, k.Start + 1, `"` + prev, false})
			}
		}
	}
	return out
}

// escapes: an escape in a string written as the character it stands for
// (a literal line break or tab, a lone backslash before a character no
// escape starts with, a bare slash), or an apostrophe escaped (\').
func escapes(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		walkContent(c, func(i int, p string) {
			at := k.Start + 1 + i
			switch p {
			case `\n`:
				out = append(out, edit{at, at + 2, "\n", false})
			case `\t`:
				out = append(out, edit{at, at + 2, "\t", false})
			case `\r`:
				out = append(out, edit{at, at + 2, "\r", false})
			case `\\`:
				// A lone backslash, where it cannot start an escape (else
				// the fault is a valid text holding another value).
				if next := c[i+2:]; next == "" || !strings.ContainsRune(`"\/bfnrtu`, rune(next[0])) {
					out = append(out, edit{at, at + 2, `\`, false})
				}
			case `\/`:
				out = append(out, edit{at, at + 2, `/`, false})
			case `\"`:
				// The quote escaped twice: \\" for \".
				out = append(out, edit{at, at + 2, `\\"`, false})
			case "'":
				// An apostrophe escaped as JavaScript escapes it.
				out = append(out, edit{at, at + 1, `\'`, false})
			}
			if len(p) == 6 { // \uXXXX with its u lost
				out = append(out, edit{at, at + 6, `\` + p[2:], false})
			}
		})
		if _, p, ok := lastPiece(c); ok && (p == `\n` || p == `\t` || p == `\r`) {
			// The closing quote moved before a final escape: "s"\n.
			out = append(out, edit{k.End - 3, k.End, `"` + p, false})
		}
		if i, ok := firstBoundary(c); ok {
			// A line continuation: a backslash and a line break.
			out = append(out, edit{k.Start + 1 + i, k.Start + 1 + i, "\\\n", false})
		}
	}
	return out
}

// lastPiece returns the index and text of the last character of the JSON
// string content c (an escape as written), and false when c is empty.
func lastPiece(c string) (int, string, bool) {
	at, last := -1, ""
	walkContent(c, func(i int, p string) { at, last = i, p })
	return at, last, at >= 0
}

// firstBoundary returns the index in the JSON string content c after its
// first character (an escape as written), when another follows.
func firstBoundary(c string) (int, bool) {
	n := -1
	walkContent(c, func(i int, p string) {
		if n < 0 {
			n = i + len(p)
		}
	})
	return n, n > 0 && n < len(c)
}

// splitNumbers: a number's digits grouped by thousands with a space, one
// group boundary at a time (1 000, 12 345 678), or a space after its
// point (99. 99).
func splitNumbers(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind != TokNumber {
			continue
		}
		start := k.Start
		if t.S[start] == '-' {
			start++
		}
		end := start
		for end < k.End && isDigit(t.S[end]) {
			end++
		}
		for b := end - 3; b > start; b -= 3 {
			out = append(out, edit{b, b, " ", false})
		}
		if d := strings.IndexByte(t.S[k.Start:k.End], '.'); d > 0 && k.Start+d+1 < k.End && isDigit(t.S[k.Start+d+1]) {
			out = append(out, edit{k.Start + d + 1, k.Start + d + 1, " ", false}) // 99. 99
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// commented: the text commented out, or written as a name's value.
func commented(s string, r *rand.Rand, all bool) []string {
	out := []string{"# " + s, "// " + s, "/* " + s + " */", "args=" + s}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// strayBraces: a '{' or '}' between tokens.
func strayBraces(t Text) []edit {
	var out []edit
	for _, g := range gaps(t) {
		out = append(out, edit{g, g, "{", false}, edit{g, g, "}", false})
	}
	return out
}

// prematureClosers: a container's closer written before its last members
// (or items), which follow it.
func prematureClosers(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind != TokComma {
			continue
		}
		cl := "}"
		if t.Toks[k.Parent].Kind == TokOpenArray {
			cl = "]"
		}
		out = append(out, edit{k.Start, k.Start, cl, false})
	}
	return out
}

// droppedClosers: a closing bracket left out.
func droppedClosers(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		if k.Kind == TokCloseObject || k.Kind == TokCloseArray {
			out = append(out, edit{k.Start, k.End, "", true})
		}
	}
	return out
}

// swappedClosers: '}' written for ']' or ']' for '}'. The closer meant
// is dropped, so the second exception may apply.
func swappedClosers(t Text) []edit {
	var out []edit
	for _, k := range t.Toks {
		switch k.Kind {
		case TokCloseObject:
			out = append(out, edit{k.Start, k.End, "]", true})
		case TokCloseArray:
			out = append(out, edit{k.Start, k.End, "}", true})
		}
	}
	return out
}

// commentForms are the comments inserted between tokens; the last has no
// line break, so in a one-line text it runs to the end.
var commentForms = []string{"/* note */", " /* it's {x} */ ", "// note\n", " # note\n", "// it's \"x\"\n", " // note"}

// comments: a comment of each kind between tokens.
func comments(t Text) []edit {
	var out []edit
	for _, g := range gaps(t) {
		for _, c := range commentForms {
			out = append(out, edit{g, g, c, false})
		}
	}
	return out
}

// escapedSpace: an escaped line break or tab (backslash and letter)
// between tokens, as a double-encoding stack writes white space.
func escapedSpace(t Text) []edit {
	var out []edit
	for _, g := range gaps(t) {
		out = append(out, edit{g, g, `\n`, false}, edit{g, g, `\n  `, false}, edit{g, g, `\t`, false})
	}
	return out
}

// literals: JSON literals as Python writes them, null as JavaScript's
// undefined.
func literals(t Text) []edit {
	var out []edit
	py := map[string]string{"true": "True", "false": "False", "null": "None"}
	for _, k := range t.Toks {
		if k.Kind != TokLiteral {
			continue
		}
		lit := t.S[k.Start:k.End]
		out = append(out, edit{k.Start, k.End, py[lit], false})
		if lit == "null" {
			out = append(out, edit{k.Start, k.End, "undefined", false})
		}
	}
	return out
}

// memberEnd returns the end of the value of the member whose key is
// t.Toks[i].
func memberEnd(t Text, i int) int {
	v := t.Toks[i+2] // key, colon, value
	if v.Kind == TokOpenObject || v.Kind == TokOpenArray {
		return t.Toks[v.Match].End
	}
	return v.End
}

// repeatedKeys: a member sent twice, with the same value or another one.
func repeatedKeys(t Text) []edit {
	var out []edit
	for i, k := range t.Toks {
		if k.Kind != TokKey {
			continue
		}
		end := memberEnd(t, i)
		member := t.S[k.Start:end]
		val := t.S[t.Toks[i+2].Start:end]
		other := `"other"`
		if val == other {
			other = "0"
		}
		out = append(out, edit{end, end, "," + member, false}, edit{end, end, "," + t.S[k.Start:k.End] + ":" + other, false})
	}
	return out
}

// Global operators.

var prose = [][2]string{
	{"Sure! Here are the arguments:\n", ""},
	{"", "\nLet me know if you need anything else."},
	{"Calling the tool for {city} now: ", " (done)"},
	{"```json\n", "\n```"},
	{"```\n", "```"},
	{"<think>The user wants this; I could send {\"x\": 1}.</think>\n", ""},
	{"</think>", ""},
	{"<|python_tag|>", "<|eom_id|>"},
	{"<tool_call>", "</tool_call>"},
	{"[TOOL_CALLS]", ""},
	{"Here you go: ```json\n", "\n``` Hope it helps."},
}

// around: prose, a fence, reasoning and template tokens around the text.
func around(s string, r *rand.Rand, all bool) []string {
	if !all {
		p := prose[r.IntN(len(prose))]
		return []string{p[0] + s + p[1]}
	}
	out := make([]string, len(prose))
	for i, p := range prose {
		out[i] = p[0] + s + p[1]
	}
	return out
}

// doubleEncoded: the text as a JSON string, once or twice, with its
// escapes consistent or not, or with only its quotes escaped.
func doubleEncoded(s string, r *rand.Rand, all bool) []string {
	l := Layout{}
	once := Quote(s, l)
	out := []string{
		once,
		Quote(once, l),
		`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`, // inner escapes not doubled
		once[1 : len(once)-1],                        // {\"a\": 1}
		strings.ReplaceAll(s, `"`, `\"`),             // the same, inner escapes not doubled
	}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// repeatedObject: the object sent twice, or re-sent cumulatively.
func repeatedObject(s string, r *rand.Rand, all bool) []string {
	a, b := 1+r.IntN(max(1, len(s)-1)), 1+r.IntN(max(1, len(s)-1))
	if a > b {
		a, b = b, a
	}
	out := []string{s + s, s + "\n" + s, s + s[:a], s[:a] + s[:b] + s}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// concatenated: a second, different object after the object, or before
// it (two calls sent as one).
func concatenated(s string, r *rand.Rand, all bool) []string {
	other := "{}"
	if v, err := DecodeOrdered(s); err == nil && Equal(v, Object{}) {
		other = `{"other":1}`
	}
	out := []string{s + other, s + "\n" + other, other + "\n" + s}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// csvQuotes: every quote doubled, as CSV escapes them, with or without
// quotes around the whole.
func csvQuotes(s string, r *rand.Rand, all bool) []string {
	d := strings.ReplaceAll(s, `"`, `""`)
	out := []string{d, `"` + d + `"`}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// doubledBraces: every brace outside the text's strings doubled, as a
// template escapes them; the object wrapped in one more pair of braces;
// and in two more. Only a text that is an object at its edges (a '{'
// first and a '}' last, white space aside) is written so: the layer is
// the object's, not prose's or another fault's around it.
func doubledBraces(s string, r *rand.Rand, all bool) []string {
	if t := strings.TrimSpace(s); !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil
	}
	var b strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			b.WriteByte(c)
			i++
			c = s[i]
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '}'):
			b.WriteByte(c)
		}
		b.WriteByte(c)
	}
	out := []string{b.String(), "{" + s + "}", "{{" + s + "}}"}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// cutText: the text cut at every byte (at one, for pairs).
func cutText(s string, r *rand.Rand, all bool) []string {
	if len(s) < 2 {
		return nil
	}
	if !all {
		return []string{s[:1+r.IntN(len(s)-1)]}
	}
	out := make([]string, 0, len(s)-1)
	for p := 1; p < len(s); p++ {
		out = append(out, s[:p])
	}
	return out
}

// punctChars are the characters the punctuation operator writes: JSON's
// structural characters and both quote marks.
var punctChars = []string{"{", "}", "[", "]", `"`, ",", ":", "'"}

// punctuation: the generic structural fault, not modelled on any one
// failure: one of punctChars inserted at a token's edge (before or after
// any token: between tokens, or just outside a string's quotes), or a
// structural character (a bracket, comma or colon, or a string's opening
// or closing quote) deleted or replaced by another of them. The named
// operators model the faults models make; this one explores the
// neighbourhood they leave out. String content is never edited: a
// character changed there is another value, and a quote written there is
// the quotes operator's inner quote.
func punctuation(t Text) []edit {
	var out []edit
	seen := map[int]bool{}
	for _, k := range t.Toks {
		for _, p := range []int{k.Start, k.End} {
			if seen[p] {
				continue
			}
			seen[p] = true
			for _, c := range punctChars {
				out = append(out, edit{p, p, c, false})
			}
		}
	}
	for _, k := range t.Toks {
		var spans [][2]int
		switch {
		case isStr(k):
			spans = [][2]int{{k.Start, k.Start + 1}, {k.End - 1, k.End}}
		case k.Kind != TokLiteral && k.Kind != TokNumber:
			spans = [][2]int{{k.Start, k.End}}
		}
		for _, sp := range spans {
			c := t.S[sp[0]:sp[1]]
			closer := c == "}" || c == "]"
			out = append(out, edit{sp[0], sp[1], "", closer})
			for _, d := range punctChars {
				if d != c {
					out = append(out, edit{sp[0], sp[1], d, closer})
				}
			}
		}
	}
	return out
}

// literalBackslashes: every backslash of the text's strings written as
// itself (\\ as \), the habit of a writer who does not escape them, when
// the text holds no other escape but \" (a writer who escapes nothing else
// but quotes), no backslash right before a closing quote (which the habit
// would escape), and the habit shows: a backslash then starts no JSON
// escape (else the habit writes a valid text of another value).
func literalBackslashes(s string, _ *rand.Rand, _ bool) []string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '"':
			b.WriteString(`\"`)
		case i+1 < len(s) && s[i+1] == '\\' && (i+2 == len(s) || s[i+2] != '"'):
			b.WriteByte('\\')
		default:
			return nil
		}
		i++
	}
	if t := b.String(); faultmodel.StrayBackslash(t) {
		return []string{t}
	}
	return nil
}

// singleQuotes: every string of the text (keys and values) in single
// quotes, apostrophes escaped, or in typographic quotes: the habit of one
// writer (apostrophes left bare are quote_style's, one string at a time:
// see faultmodel's single_quotes row). The text's strings are read as the
// habit's inverse reads them (habitStrings), so the habit applies to a
// broken text too, and to a text already in the habit as no change.
func singleQuotes(s string, r *rand.Rand, all bool) []string {
	var out []string
	esc, ok := habitStrings(s, false, func(c string) (string, bool) {
		w, _ := singleQuoted(c, true)
		return w, !strings.ContainsAny(c, "\n\r")
	})
	if ok && esc != s {
		out = append(out, esc)
	}
	typo, ok := habitStrings(s, false, func(c string) (string, bool) { return "“" + c + "”", true })
	if ok && typo != s {
		out = append(out, typo)
	}
	if len(out) == 0 {
		return nil // a string left open, or no string: no habit to write
	}
	if !all {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// bareApostrophes: every string of the text (keys and values) in single
// quotes with its apostrophes left bare, as a writer imitating Python's
// repr by hand writes them (the bare_apostrophe habit), where a string
// holds an apostrophe (else the text is single_quotes'), and each stands
// inside a word (Joe's: faultmodel.InWord; one beside no word would end
// its string). The text's strings are read as the habit's inverse reads
// them (habitStrings), so the habit applies to a broken text too. The
// generated objects hold apostrophes in a few strings (it's, 5' 11", k'),
// and those are the texts this form breaks.
func bareApostrophes(s string, _ *rand.Rand, _ bool) []string {
	held, inWords := false, true
	t, ok := habitStrings(s, true, func(c string) (string, bool) {
		w, h := singleQuoted(c, false)
		held, inWords = held || h, inWords && apostrophesInWords(w)
		return w, !strings.ContainsAny(c, "\n\r")
	})
	if !ok || !held || !inWords {
		return nil // a string left open, no apostrophe in a string, or one the habit reads as a string's end
	}
	return []string{t}
}

// habitStrings returns s with each of its double-quoted strings written
// as f writes its content, reading the text as the single-quote habits'
// inverse reads it (faultmodel's invSingleQuotes, or with bare its
// invBareApostrophes): left to right, a double-quoted string as a JSON
// string, a single-quoted one up to faultmodel.SingleEnd, a typographic
// one up to its closing quote, one in backquotes up to
// faultmodel.BackquoteEnd, those three kept as they are (a text already
// in the habit is in it once). It returns false where the
// inverse could not read what f writes: a string left open, or f's
// false (a raw line break in a string the habit writes in single
// quotes, which the inverse reads as a string left open; with bare, a
// closing quote written inside a word, which it reads as the string's
// own apostrophe).
func habitStrings(s string, bare bool, f func(content string) (string, bool)) (string, bool) {
	const open, close = "“", "”"
	var b strings.Builder
	for i := 0; i < len(s); {
		var j int // the index just past the string starting at i
		switch {
		case s[i] == '"':
			e := faultmodel.StringEnd(s, i)
			if e >= len(s) {
				return "", false
			}
			w, ok := f(s[i+1 : e])
			if !ok || bare && strings.HasSuffix(w, "'") && faultmodel.InWord(w+s[e+1:], len(w)-1) {
				// (with bare, a closing quote written inside a word,
				// the text broken before, is read as the string's own)
				return "", false
			}
			b.WriteString(w)
			i = e + 1
			continue
		case s[i] == '\'':
			e, _ := faultmodel.SingleEnd(s, i+1, bare)
			if e < 0 {
				return "", false
			}
			j = e + 1
		case strings.HasPrefix(s[i:], open):
			e := strings.Index(s[i+len(open):], close)
			if e < 0 {
				return "", false
			}
			j = i + len(open) + e + len(close)
		case s[i] == '`':
			if j = faultmodel.BackquoteEnd(s, i+1) + 1; j == 0 {
				j = i + 1 // a backquote that closes nothing on its line (a fence's)
			}
		default:
			j = i + 1
		}
		b.WriteString(s[i:j])
		i = j
	}
	return b.String(), true
}

// eachString returns s with each of its double-quoted strings (read as
// JSON strings, left to right) written as f writes its content, reading
// the text as the joined_strings habit's inverse reads it (faultmodel's
// invJoinedStrings): a single-quoted string, up to its next quote that no
// backslash escapes, is a string too, kept as it is. It returns false
// when a string is left open.
func eachString(s string, f func(content string) string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '"', '\'':
			j := faultmodel.QuoteEnd(s, i, s[i])
			if j >= len(s) {
				return "", false
			}
			if s[i] == '"' {
				b.WriteString(f(s[i+1 : j]))
			} else {
				b.WriteString(s[i : j+1])
			}
			i = j + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), true
}

// invisible reports whether c holds an invisible (format) character.
func invisible(c string) bool {
	return strings.ContainsFunc(c, func(r rune) bool { return unicode.Is(unicode.Cf, r) })
}

// backquotes: a string (a key or a value) written in backquotes, when
// it holds none.
func backquotes(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		if !strings.Contains(c, "`") {
			out = append(out, edit{k.Start, k.End, "`" + c + "`", false})
		}
	}
	return out
}

// joinedStrings: strings of two characters or more written as two quoted
// pieces joined with '+', as JavaScript concatenates them: every such
// string, with spaces around the '+' or after it alone, or the first
// alone (a '+' glued to both quotes is not the habit's, see faultmodel). Strings
// are read as the habit's inverse reads them (eachString), so the habit
// applies to a broken text too.
func joinedStrings(s string, r *rand.Rand, all bool) []string {
	var out []string
	for _, v := range []struct {
		plus  string
		first bool
	}{{`" + "`, false}, {`"+ "`, false}, {`" + "`, true}} {
		n := 0
		t, ok := eachString(s, func(c string) string {
			var cuts []int
			walkContent(c, func(k int, _ string) {
				if k > 0 {
					cuts = append(cuts, k)
				}
			})
			if len(cuts) == 0 || (v.first && n > 0) {
				return `"` + c + `"`
			}
			n++
			k := cuts[len(cuts)/2]
			return `"` + c[:k] + v.plus + c[k:] + `"`
		})
		if !ok {
			return nil // a string left open: no habit to write
		}
		if n > 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if !all && len(out) > 0 {
		return out[r.IntN(len(out)):][:1]
	}
	return out
}

// entityQuotes: a string (a key or a value) with its quotes written as
// the HTML entity &quot;, when it holds none.
func entityQuotes(t Text) []edit {
	var out []edit
	for k, c := range strToks(t) {
		if !strings.Contains(c, faultmodel.EntityQuote) {
			q := faultmodel.EntityQuote
			out = append(out, edit{k.Start, k.End, q + c + q, false})
		}
	}
	return out
}

// invisibleForms are the invisible characters the invisible operator
// writes: a zero-width space, a no-break space and a byte-order mark.
var invisibleForms = []string{"\u200b", "\u00a0", "\ufeff"}

// invisibles: one invisible character where white space may stand:
// before the text, between tokens, after the text.
func invisibles(t Text) []edit {
	var out []edit
	for _, g := range append(append([]int{0}, gaps(t)...), len(t.S)) {
		for _, c := range invisibleForms {
			out = append(out, edit{g, g, c, false})
		}
	}
	return out
}
