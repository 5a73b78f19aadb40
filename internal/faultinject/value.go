// Package faultinject is the soundness oracle of the repair stage: it
// generates valid argument objects, breaks their text the way models and
// serving stacks do (the fault operators of [Ops]), and classifies what a
// repairer made of each broken text (see [Classify]). The property it
// checks is that every broken text either reaches the tool as a value
// equal to the original, or is refused; the two documented exceptions (a
// text cut right after a complete value, closed; closers missing at the
// end added at the end) are counted on their own.
//
// The operators are the rows of package faultmodel's table (the fault
// model: each fault's cost, reason, step and inverse), each with its
// forward form here. [Read], the brute-force reader, computes what a small
// broken text means under that table (its window of readings), and
// [JudgeWindow] judges the engine against it (soundsweep -window).
//
// The generator and the operators are deterministic for a seed. The
// package imports nothing of saidex; the fuzz target (the root's
// FuzzRepairIsSound) and the sweep (internal/cmd/soundsweep) run each text
// through a real node.
package faultinject

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Value is a JSON value with its object members in order: an Object, an
// Array, a String, a Number (its JSON text) or a Literal (true, false,
// null).
type Value any

// Member is one member of an Object.
type Member struct {
	Key string
	Val Value
}

// Object is a JSON object, its members in order, its keys distinct.
type Object []Member

// Array is a JSON array.
type Array []Value

// String is a JSON string's content.
type String string

// Number is a JSON number, as written.
type Number string

// Literal is true, false or null.
type Literal string

// Gen generates valid argument objects.
type Gen struct {
	r       *rand.Rand
	schemas []map[string]any
	used    map[string]any // the schema of the last object, or nil
}

// NewGen returns a generator for seed. With schemas (tool parameter
// schemas, such as the corpus's), about half the objects are values of
// one of them; the others are random objects.
func NewGen(seed uint64, schemas []map[string]any) *Gen {
	return &Gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), schemas: schemas}
}

// Rand returns the generator's source, for the choices made with it.
func (g *Gen) Rand() *rand.Rand { return g.r }

// Object returns an argument object.
func (g *Gen) Object() Object {
	g.used = nil
	if len(g.schemas) > 0 && g.r.IntN(2) == 0 {
		s := g.schemas[g.r.IntN(len(g.schemas))]
		if o, ok := g.fromSchema(s, 0).(Object); ok {
			g.used = s
			return o
		}
	}
	return g.object(0, 1+g.r.IntN(5))
}

// Schema returns the schema the last object [Gen.Object] returned is a
// value of, or nil for a random object.
func (g *Gen) Schema() map[string]any { return g.used }

// stringParts are the pieces strings are made of: what repair must keep
// as characters.
var stringParts = []string{
	"hello", "world", "New York", "notes.txt", "make clean", "a", "x", "42", "3.14", "true", "null",
	" ", "  ", ", ", ": ", "\"", "'", "it's", "5' 11\"", "27\" monitor", `say "hi"`, "\\", `C:\temp`, `\n`,
	"\n", "\t", "\r\n", "{", "}", "[", "]", "{city}", `{"a": 1}`, `{'b': 2}`, "//", "// note", "#", "# tag", "/*", "*/",
	"<think>", "</think>", "<think>plan</think>", "```json", "```", "<|im_end|>", "[TOOL_CALLS]", "<tool_call>",
	"é", "日本語", "😀", "👍🏽", "\u2028", "\u00a0", "\u200b", "+", "'+'", `""`, "''", "http://example.com/a?b=c&d=e",
	`get("K", "d");`,
}

func (g *Gen) str() string {
	if g.r.IntN(8) == 0 {
		return ""
	}
	var b strings.Builder
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		b.WriteString(stringParts[g.r.IntN(len(stringParts))])
	}
	return b.String()
}

var keyWords = []string{"path", "content", "mode", "command", "dry_run", "city", "amount", "name", "id", "query",
	"tags", "items", "options", "limit", "x", "user name", "a-b", "$ref", "_id", "é", "key\"q", "1st", "", "k'", "{x}"}

func (g *Gen) key() string {
	if g.r.IntN(5) == 0 {
		return keyWords[g.r.IntN(len(keyWords))] + strconv.Itoa(g.r.IntN(100))
	}
	return keyWords[g.r.IntN(len(keyWords))]
}

// numbers are numbers of every JSON form.
var numbers = []string{"0", "-0", "1", "7", "-3", "42", "100", "65535", "12345678901234567890", "0.5", "-0.25",
	"3.14159", "1e3", "1E3", "1e+3", "1e-3", "-2.5E-10", "0.0", "1.0", "10.50", "9007199254740993"}

func (g *Gen) scalar() Value {
	switch g.r.IntN(6) {
	case 0, 1:
		return String(g.str())
	case 2, 3:
		return Number(numbers[g.r.IntN(len(numbers))])
	case 4:
		return Literal([]string{"true", "false"}[g.r.IntN(2)])
	default:
		return Literal("null")
	}
}

func (g *Gen) value(depth int) Value {
	if depth < 3 {
		switch g.r.IntN(7) {
		case 0:
			return g.object(depth+1, g.r.IntN(4))
		case 1:
			return g.array(depth + 1)
		}
	}
	return g.scalar()
}

func (g *Gen) array(depth int) Array {
	a := Array{}
	n := g.r.IntN(4)
	same := g.r.IntN(2) == 0 // arrays of strings, as models send them
	for i := 0; i < n; i++ {
		if same {
			a = append(a, String(g.str()))
		} else {
			a = append(a, g.value(depth))
		}
	}
	return a
}

func (g *Gen) object(depth, n int) Object {
	o := Object{}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		o = append(o, Member{k, g.value(depth)})
	}
	return o
}

// fromSchema returns a value of schema s (an approximation: types,
// properties, required, items, enum and const).
func (g *Gen) fromSchema(s map[string]any, depth int) Value {
	if c, ok := s["const"]; ok {
		return fromGo(c)
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return fromGo(e[g.r.IntN(len(e))])
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[g.r.IntN(len(ts))].(string)
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		req := map[string]bool{}
		if rs, ok := s["required"].([]any); ok {
			for _, r := range rs {
				if k, ok := r.(string); ok {
					req[k] = true
				}
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		o := Object{}
		for _, k := range keys {
			ps, _ := props[k].(map[string]any)
			if ps == nil || (!req[k] && g.r.IntN(2) == 0) || depth > 4 {
				continue
			}
			o = append(o, Member{k, g.fromSchema(ps, depth+1)})
		}
		if len(props) == 0 && depth < 3 {
			return g.object(depth+1, g.r.IntN(3))
		}
		return o
	case "array":
		items, _ := s["items"].(map[string]any)
		a := Array{}
		for n := g.r.IntN(4); n > 0 && depth < 5; n-- {
			if items == nil {
				a = append(a, g.scalar())
			} else {
				a = append(a, g.fromSchema(items, depth+1))
			}
		}
		return a
	case "string":
		return String(g.str())
	case "integer":
		return Number([]string{"0", "1", "7", "-3", "42", "100", "5432", "2024"}[g.r.IntN(8)])
	case "number":
		return Number(numbers[g.r.IntN(len(numbers))])
	case "boolean":
		return Literal([]string{"true", "false"}[g.r.IntN(2)])
	case "null":
		return Literal("null")
	}
	return g.scalar()
}

// fromGo converts a value decoded by encoding/json.
func fromGo(v any) Value {
	switch x := v.(type) {
	case string:
		return String(x)
	case float64:
		return Number(strconv.FormatFloat(x, 'g', -1, 64))
	case fmt.Stringer: // json.Number
		return Number(x.String())
	case bool:
		return Literal(strconv.FormatBool(x))
	case nil:
		return Literal("null")
	case []any:
		a := Array{}
		for _, e := range x {
			a = append(a, fromGo(e))
		}
		return a
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := Object{}
		for _, k := range keys {
			o = append(o, Member{k, fromGo(x[k])})
		}
		return o
	}
	return Literal("null")
}

// Layout is how a value's text is written.
type Layout struct {
	Indent        string // "" for compact
	SpaceAfter    bool   // a space after ':' and ',' in compact text
	EscapeUnicode bool   // non-ASCII as \u escapes
	EscapeSlash   bool   // '/' as \/
}

// RandomLayout returns a layout: pretty or compact, with escapes or not.
func (g *Gen) RandomLayout() Layout {
	l := Layout{SpaceAfter: g.r.IntN(2) == 0, EscapeUnicode: g.r.IntN(6) == 0, EscapeSlash: g.r.IntN(8) == 0}
	if g.r.IntN(3) == 0 {
		l.Indent = []string{"  ", "    ", "\t"}[g.r.IntN(3)]
	}
	return l
}

// Token kinds of a Text.
const (
	TokOpenObject = iota
	TokCloseObject
	TokOpenArray
	TokCloseArray
	TokColon
	TokComma
	TokKey
	TokString
	TokNumber
	TokLiteral
)

// Tok is one token of a Text: its kind, its span in the text, and the
// token that opens the container it is in (-1 at the top level). Match
// is, for a bracket, the index of its partner.
type Tok struct {
	Kind       int
	Start, End int
	Parent     int
	Match      int
}

// Text is a value's JSON text and its tokens.
type Text struct {
	S    string
	Toks []Tok
}

// Encode writes v in layout l.
func Encode(v Value, l Layout) Text {
	e := &encoder{l: l}
	e.value(v, -1, 0)
	return Text{S: e.b.String(), Toks: e.toks}
}

type encoder struct {
	b    strings.Builder
	toks []Tok
	l    Layout
}

func (e *encoder) tok(kind int, s string, parent int) int {
	start := e.b.Len()
	e.b.WriteString(s)
	e.toks = append(e.toks, Tok{Kind: kind, Start: start, End: e.b.Len(), Parent: parent, Match: -1})
	return len(e.toks) - 1
}

func (e *encoder) newline(depth int) {
	if e.l.Indent != "" {
		e.b.WriteByte('\n')
		e.b.WriteString(strings.Repeat(e.l.Indent, depth))
	}
}

func (e *encoder) value(v Value, parent, depth int) {
	switch x := v.(type) {
	case Object:
		open := e.tok(TokOpenObject, "{", parent)
		for i, m := range x {
			if i > 0 {
				e.tok(TokComma, ",", open)
				if e.l.Indent == "" && e.l.SpaceAfter {
					e.b.WriteByte(' ')
				}
			}
			e.newline(depth + 1)
			e.tok(TokKey, Quote(m.Key, e.l), open)
			e.tok(TokColon, ":", open)
			if e.l.Indent != "" || e.l.SpaceAfter {
				e.b.WriteByte(' ')
			}
			e.value(m.Val, open, depth+1)
		}
		if len(x) > 0 {
			e.newline(depth)
		}
		cl := e.tok(TokCloseObject, "}", parent)
		e.toks[open].Match, e.toks[cl].Match = cl, open
	case Array:
		open := e.tok(TokOpenArray, "[", parent)
		for i, item := range x {
			if i > 0 {
				e.tok(TokComma, ",", open)
				if e.l.Indent == "" && e.l.SpaceAfter {
					e.b.WriteByte(' ')
				}
			}
			e.newline(depth + 1)
			e.value(item, open, depth+1)
		}
		if len(x) > 0 {
			e.newline(depth)
		}
		cl := e.tok(TokCloseArray, "]", parent)
		e.toks[open].Match, e.toks[cl].Match = cl, open
	case String:
		e.tok(TokString, Quote(string(x), e.l), parent)
	case Number:
		e.tok(TokNumber, string(x), parent)
	case Literal:
		e.tok(TokLiteral, string(x), parent)
	}
}

// Quote returns s as a JSON string in layout l.
func Quote(s string, l Layout) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '/' && l.EscapeSlash:
			b.WriteString(`\/`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= utf8.RuneSelf && l.EscapeUnicode:
			if r > 0xffff {
				r1, r2 := surrogates(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// Tokenize returns the tokens of s, a JSON text in any layout, as Encode
// would have recorded them; ok is false when s is not one JSON value.
func Tokenize(s string) (t Text, ok bool) {
	if !json.Valid([]byte(s)) {
		return Text{}, false
	}
	t.S = s
	var open []int // the open brackets' token indexes
	parent := func() int {
		if len(open) == 0 {
			return -1
		}
		return open[len(open)-1]
	}
	add := func(kind, start, end int) {
		t.Toks = append(t.Toks, Tok{Kind: kind, Start: start, End: end, Parent: parent(), Match: -1})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '{' || c == '[':
			kind := TokOpenObject
			if c == '[' {
				kind = TokOpenArray
			}
			add(kind, i, i+1)
			open = append(open, len(t.Toks)-1)
			i++
		case c == '}' || c == ']':
			o := open[len(open)-1]
			open = open[:len(open)-1]
			kind := TokCloseObject
			if c == ']' {
				kind = TokCloseArray
			}
			add(kind, i, i+1)
			t.Toks[o].Match, t.Toks[len(t.Toks)-1].Match = len(t.Toks)-1, o
			i++
		case c == ':':
			add(TokColon, i, i+1)
			i++
		case c == ',':
			add(TokComma, i, i+1)
			i++
		case c == '"':
			j := i + 1
			for s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			kind := TokString
			if p := parent(); p >= 0 && t.Toks[p].Kind == TokOpenObject && t.Toks[len(t.Toks)-1].Kind != TokColon {
				kind = TokKey
			}
			add(kind, i, j+1)
			i = j + 1
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\r\n,:]}", s[j]) < 0 {
				j++
			}
			kind := TokNumber
			if c == 't' || c == 'f' || c == 'n' {
				kind = TokLiteral
			}
			add(kind, i, j)
			i = j
		}
	}
	return t, true
}
