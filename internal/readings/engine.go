package readings

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/faultmodel"
)

// The search: configurations (position in the broken text, parser state,
// cost, edits made) advance left to right. At each position a
// configuration reads the next byte (cost 0) and tries every inverse edit
// of the table that starts there, each feeding its replacement to the
// parser at the row's cost. Configurations are queued by (position,
// cost), in a ring of lists for the positions just ahead; at one position, a configuration whose parser state
// equals one already seen there with a subset of its edits is dropped: it
// reads on exactly as that one does, so each of its readings holds an
// edit that is not needed, or costs two more (outside the window).

// maxEdits bounds the edits of one configuration (each costs at least 1).
const maxEdits = 4

// Edit kinds.
const (
	kIns      uint8 = iota // arg inserted
	kDel                   // the byte deleted
	kRep                   // the byte written as arg
	kQuoteEsc              // a quote escaped
	kSQ                    // a single-quoted string read
	kTypo                  // a typographic pair read
	kTmpl                  // a template quote-token pair read
	kBare                  // a bare token quoted (end: its end)
	kLine                  // a line comment dropped
	kBlock                 // a block comment dropped
	kEsc                   // an escape undone (arg: which)
	kEscSpace              // an escaped white space dropped
	kWord                  // a literal's spelling (arg: which word)
	kLoose                 // a loose number (arg: which)
	kNumKey                // a numeric key quoted
	kSplit                 // a space in a number dropped
	kMoved                 // a quote moved (arg: which)
	kWrap                  // the wrapper dropped
	kHead                  // a re-sent head dropped
	kTail                  // a re-sent tail dropped
	kCut                   // closers added at the end
	kRepKey                // a repeated member dropped
	kWhole                 // a whole-text reading (arg: which)
	kBack                  // a string in backquotes read
	kEnt                   // a string between &quot; entities read
	kInvis                 // an invisible character read as white space
	kConcat                // one of two concatenated objects dropped (arg 1: the second)
)

// edit is one inverse edit a configuration made.
type edit struct {
	start, end int32
	off        uint8 // bytes of written text still pending where it starts
	kind, arg  uint8
	row        uint8  // the row of faultmodel.Table it undoes
	th         uint32 // a bare token's text, hashed (edits inside it change it)
}

func (a edit) same(b edit) bool {
	return a.start == b.start && a.end == b.end && a.off == b.off && a.kind == b.kind && a.arg == b.arg && a.th == b.th
}

// Special modes: an edit that spans text still being read.
const (
	smNone uint8 = iota
	smSQ
	smTypo
	smTmpl
	smLine
	smBlock
	smBare
	smBack
	smEnt
)

// cfg is one configuration. It reads the view: pend (the text its last
// edit wrote, still to be read) and then the broken text from pos on, so
// a later edit applies to what an earlier one wrote, as the table's
// inverses apply to the text a first edit made.
type cfg struct {
	st    pstate
	pos   int32
	cost  uint8
	sm    uint8
	n     uint8
	own   bool // out's last segment is this configuration's alone
	prev  byte // the last byte of the view read (0 at the start)
	bsOdd bool // an odd run of backslashes was read last
	// cutIns: a character inserted at the text's end wrote what the cut
	// row's completion writes there, leaving the value unknown
	// (charEdits).
	cutIns bool
	smAt   int32 // where the special mode's edit started
	smEd   uint8 // the index of the special mode's edit
	osm    uint8 // the special mode a comment inside it suspended
	osmAt  int32
	osmEd  uint8
	root   int32 // where the object's text starts
	out    int32 // the last segment of the compact text written
	// first: the last segment of the first of two concatenated objects'
	// compact text, when this configuration reads the second (-1: none).
	first int32
	h     uint64
	pend  string
	fresh uint8 // len(pend) when the last edit wrote it (none read yet)
	// lastDel: the last edit wrote nothing, and nothing was read since:
	// an insertion here is named at that edit's start, as the referee
	// moves it.
	lastDel bool
	// mustDelim: a bare token ended here, before no delimiter: an edit
	// must write one.
	mustDelim bool
	tok       string // a bare token read so far
	ed        [maxEdits]edit
}

// seg is a piece of a compact text: buf[off:off+n] after its parent.
type seg struct {
	parent, off, n int32
}

// seen is a configuration already expanded at the current position: its
// slot in e.cfgs (held until the position changes), and the next seen
// configuration of the same slot of the table.
type seen struct {
	i, next int32
}

// done is a configuration that read a whole object.
type done struct {
	text    string
	cost    int
	ed      []edit
	unknown bool
}

type engine struct {
	s       string
	budget  int
	prune   bool
	maxLive int

	stk  []snode
	segs []seg
	buf  []byte
	cfgs []cfg
	free []int32
	held []int32 // the configurations seen at e.cur (freed when it changes)
	heap []hent
	ring *[ringSize][ringCosts][]int32
	rpos int32 // the ring's first position
	live int   // the configurations queued

	steps, maxSteps int // the moves made, and the work budget's bound
	seen            []seen
	cur             int32
	done            []done
	over            bool // the live set passed maxLive
	dups            bool // a reading held a repeated name

	wrapEnd int // where the wrapper may end the object (-1: nowhere)
	// endOpen: a cut at the end leaves the value unknown whatever the
	// parser's state there, as what the text read, or the text the
	// whole-text readings made it, ends with may have gone on
	// (faultmodel.CutMayGoOn).
	endOpen bool
	tails   map[int64]bool // resentTail's answers
	heads   int            // the roots after a re-sent head pushed

	table     []tslot // the seen configurations by state, at e.cur
	usedSlots []int32
}

// Row indices of faultmodel.Table.
var (
	rQuoteStyle, rUnquoted, rComma, rColon, rQuote, rEscape, rStrayBrace, rPremature,
	rDropped, rSwapped, rComment, rEscSpace, rPyJS, rRepKey, rLitCase, rLoose, rNumKey, rUnclosedKey,
	rStrayBracket, rBareValue, rTemplate, rPunct, rSplit, rMoved, rAround, rDouble, rResend,
	rConcat, rCSV, rCut, rBackslashes, rSingles, rBareApos, rJoined, rBackquotes, rEntity, rInvisible, rTemplEsc, rBraces uint8
)

func rowOf(name string) uint8 {
	for i, o := range faultmodel.Table {
		if o.Name == name {
			return uint8(i)
		}
	}
	panic("readings: no row " + name) // the table is static: caught by every test
}

func init() {
	for p, name := range map[*uint8]string{&rQuoteStyle: "quote_style", &rUnquoted: "unquoted", &rComma: "comma", &rColon: "colon",
		&rQuote: "quote", &rEscape: "escape", &rStrayBrace: "stray_brace", &rPremature: "premature_closer", &rDropped: "dropped_closer",
		&rSwapped: "swapped_closer", &rComment: "comment", &rEscSpace: "escaped_space", &rPyJS: "py_js_literal", &rRepKey: "repeated_key",
		&rLitCase: "literal_case", &rLoose: "loose_number", &rNumKey: "numeric_key", &rUnclosedKey: "unclosed_key",
		&rStrayBracket: "stray_bracket", &rBareValue: "bare_value", &rTemplate: "template_quotes", &rPunct: "punctuation",
		&rSplit: "split_number", &rMoved: "quote_moved", &rAround: "around", &rDouble: "double_encoded", &rResend: "repeated_object",
		&rConcat: "concatenated", &rCSV: "csv_quotes", &rCut: "cut", &rBackslashes: "literal_backslashes", &rSingles: "single_quotes", &rBareApos: "bare_apostrophe",
		&rJoined: "joined_strings", &rBackquotes: "backquotes", &rEntity: "entity_quotes", &rInvisible: "invisible", &rTemplEsc: "template_escapes", &rBraces: "doubled_braces"} {
		*p = rowOf(name)
	}
	// The cheapest row making each character edit, the first of equals.
	for i := range insRow {
		insRow[i], delRow[i] = -1, -1
		for j := range repRow[i] {
			repRow[i][j] = -1
		}
	}
	for _, c := range []byte(faultmodel.Structural + "'") {
		insRow[c] = cheapest(c, func(r uint8) bool { return charRows[r].ins != "" && strings.IndexByte(charRows[r].ins, c) >= 0 })
		delRow[c] = cheapest(c, func(r uint8) bool { return charRows[r].del != "" && strings.IndexByte(charRows[r].del, c) >= 0 })
		for _, d := range []byte(faultmodel.Structural) {
			if d != c {
				repRow[c][d] = cheapest(c, func(r uint8) bool {
					return charRows[r].rep != "" && strings.IndexByte(charRows[r].rep, c) >= 0 && strings.IndexByte(charRows[r].rep, d) >= 0
				})
			}
		}
	}
}

// charRows are the character edits each row's inverse makes everywhere:
// the characters it inserts, deletes, and writes for one another.
var charRows = map[uint8]struct{ ins, del, rep string }{}

var insRow, delRow [256]int16
var repRow [256][256]int16

func cheapest(c byte, has func(r uint8) bool) int16 {
	if len(charRows) == 0 {
		charRows[rComma] = struct{ ins, del, rep string }{",", ",", ""}
		charRows[rColon] = struct{ ins, del, rep string }{":", ":", ""}
		charRows[rQuote] = struct{ ins, del, rep string }{`"`, `"`, ""}
		charRows[rStrayBrace] = struct{ ins, del, rep string }{"", "{}", ""}
		charRows[rPremature] = struct{ ins, del, rep string }{"", "}]", ""}
		charRows[rDropped] = struct{ ins, del, rep string }{"}]", "", ""}
		charRows[rSwapped] = struct{ ins, del, rep string }{"", "", "}]"}
		charRows[rStrayBracket] = struct{ ins, del, rep string }{"", "]", ""}
		charRows[rPunct] = struct{ ins, del, rep string }{faultmodel.Structural, faultmodel.Structural + "'", faultmodel.Structural + "'"}
	}
	best := int16(-1)
	for r := range faultmodel.Table {
		if _, ok := charRows[uint8(r)]; !ok || !has(uint8(r)) {
			continue
		}
		if c == '\'' && uint8(r) != rPunct {
			continue
		}
		if best < 0 || faultmodel.Table[r].Cost < faultmodel.Table[best].Cost {
			best = int16(r)
		}
	}
	return best
}

func rowCost(r uint8) int { return faultmodel.Table[r].Cost }

// newEngine returns an engine for s.
// Its buffers are those of an engine released before, when one is free.
func newEngine(s string, budget int, prune bool) *engine {
	e := enginePool.Get().(*engine)
	*e = engine{s: s, budget: budget, prune: prune, maxLive: defaultMaxLive,
		stk: e.stk[:0], segs: e.segs[:0], buf: e.buf[:0], cfgs: e.cfgs[:0], free: e.free[:0], held: e.held[:0], heap: e.heap[:0],
		seen: e.seen[:0], table: e.table, usedSlots: e.usedSlots[:0], ring: e.ring}
	if e.ring == nil {
		e.ring = new([ringSize][ringCosts][]int32)
	}
	for p := range e.ring {
		for c := range e.ring[p] {
			e.ring[p][c] = e.ring[p][c][:0]
		}
	}
	return e
}

// enginePool holds released engines, for their buffers.
var enginePool = sync.Pool{New: func() any { return new(engine) }}

// maxPooledBytes bounds the byte buffer of an engine kept for reuse: an
// engine that read a long text is left to the collector.
const maxPooledBytes = 1 << 20

// release returns e's buffers for reuse; e (and its done readings'
// edits, which are its own) must not be used after it.
func (e *engine) release() {
	if cap(e.buf) > maxPooledBytes || cap(e.cfgs) > MaxLive*4 {
		return
	}
	e.resetSeen()
	e.done = nil
	enginePool.Put(e)
}

const defaultMaxLive = MaxLive

// The work budget: at most stepsPerByte configurations expanded per byte
// of the text (and minSteps for any text), and maxRoots places the
// object may start at (a wrapper skipped before it, or re-sent heads);
// past either the engine refuses, so its time is linear in the text.
const (
	stepsPerByte = 64
	minSteps     = 1 << 16
	maxRoots     = 64
)

// alloc returns a free configuration slot.
func (e *engine) alloc() int32 {
	if n := len(e.free); n > 0 {
		i := e.free[n-1]
		e.free = e.free[:n-1]
		return i
	}
	e.cfgs = append(e.cfgs, cfg{})
	return int32(len(e.cfgs) - 1)
}

// The queue of live configurations, ordered by (position, cost): a ring
// of ringSize positions from the one being read, each with a list per
// cost, and a binary heap for configurations further on (a root after a
// wrapper or a re-sent head) and costs past the ring's. Each read moves a
// configuration one byte on, so nearly every push and pop is O(1).
const (
	ringSize  = 64
	ringCosts = 8
)

// hent is one entry of the heap: a configuration and its order key
// (position, then cost), kept beside it so that ordering never reads the
// configuration itself.
type hent struct {
	key uint64
	i   int32
}

func heapKey(c *cfg) uint64 { return uint64(uint32(c.pos))<<8 | uint64(c.cost) }

// pushCfg adds c to the live configurations.
func (e *engine) pushCfg(c cfg) {
	i := e.alloc()
	e.cfgs[i] = c
	if e.live++; e.live > e.maxLive {
		e.over = true
	}
	if c.pos-e.rpos < ringSize && c.cost < ringCosts {
		l := &e.ring[c.pos%ringSize][c.cost]
		*l = append(*l, i)
		return
	}
	e.heap = append(e.heap, hent{heapKey(&c), i})
	h := e.heap
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if h[k].key >= h[p].key {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
}

// popCfg removes and returns a live configuration of the lowest
// (position, cost); false when none is left.
func (e *engine) popCfg() (int32, bool) {
	for e.live > 0 {
		slot := &e.ring[e.rpos%ringSize]
		for c := range slot {
			if l := &slot[c]; len(*l) > 0 {
				return e.popRing(l), true
			}
		}
		// (The heap holds a configuration at this position only at a
		// cost past the ring's.)
		if len(e.heap) > 0 && int32(e.heap[0].key>>8) == e.rpos {
			e.live--
			return e.popHeap(), true
		}
		// Nothing left at this position: the next one, or the heap's
		// first where the ring holds nothing.
		e.rpos++
		if e.ringLen() == 0 && len(e.heap) > 0 {
			e.rpos = int32(e.heap[0].key >> 8)
		}
		// Configurations the ring now reaches move into it.
		for len(e.heap) > 0 {
			k := e.heap[0].key
			if int32(k>>8)-e.rpos >= ringSize || k&0xff >= ringCosts {
				break
			}
			i := e.popHeap()
			l := &e.ring[int32(k>>8)%ringSize][k&0xff]
			*l = append(*l, i)
		}
	}
	return -1, false
}

// ringLen returns the number of configurations in the ring.
func (e *engine) ringLen() int { return e.live - len(e.heap) }

func (e *engine) popRing(l *[]int32) int32 {
	n := len(*l) - 1
	i := (*l)[n]
	*l = (*l)[:n]
	e.live--
	return i
}

func (e *engine) popHeap() int32 {
	top := e.heap[0].i
	last := len(e.heap) - 1
	e.heap[0] = e.heap[last]
	e.heap = e.heap[:last]
	h := e.heap
	for k := 0; ; {
		l, r, m := 2*k+1, 2*k+2, k
		if l < last && h[l].key < h[m].key {
			m = l
		}
		if r < last && h[r].key < h[m].key {
			m = r
		}
		if m == k {
			break
		}
		h[k], h[m] = h[m], h[k]
		k = m
	}
	return top
}

// emit writes b to c's compact text.
func (e *engine) emit(c *cfg, b byte) {
	c.h = (c.h ^ uint64(b)) * 1099511628211
	if c.own && c.out >= 0 {
		sg := &e.segs[c.out]
		if int(sg.off+sg.n) == len(e.buf) {
			e.buf = append(e.buf, b)
			sg.n++
			return
		}
	}
	e.segs = append(e.segs, seg{c.out, int32(len(e.buf)), 1})
	e.buf = append(e.buf, b)
	c.out = int32(len(e.segs) - 1)
	c.own = true
}

// feedStr feeds r to c; false when the parser refuses it.
func (e *engine) feedStr(c *cfg, r string) bool {
	for i := 0; i < len(r); i++ {
		ok, em := e.feed(&c.st, r[i])
		if !ok {
			return false
		}
		if em {
			e.emit(c, r[i])
		}
	}
	return true
}

// text returns c's compact text.
func (e *engine) text(c *cfg) string { return e.textOf(c.out) }

// textOf returns the compact text whose last segment is out.
func (e *engine) textOf(out int32) string {
	n := 0
	for i := out; i >= 0; i = e.segs[i].parent {
		n += int(e.segs[i].n)
	}
	b := make([]byte, n)
	for i := out; i >= 0; i = e.segs[i].parent {
		sg := e.segs[i]
		n -= int(sg.n)
		copy(b[n:], e.buf[sg.off:sg.off+sg.n])
	}
	return string(b)
}

// run reads e.s from the roots at cost base, with the edits pre made
// first, and appends what reads a whole object or list to e.done.
func (e *engine) run(base int, pre []edit) {
	s := e.s
	starts, ends := faultmodel.WrapperBounds(s)
	e.wrapEnd = -1
	if len(ends) > 1 {
		e.wrapEnd = ends[1]
	}
	e.steps, e.maxSteps = 0, stepsPerByte*len(s)+minSteps
	root := cfg{pos: 0, st: pstate{stack: -1}, out: -1, first: -1, cost: uint8(base), root: 0}
	copy(root.ed[:], pre)
	root.n = uint8(len(pre))
	e.pushCfg(root)
	if base+rowCost(rAround) <= e.budget {
		if len(starts) > maxRoots {
			e.over = true
			return
		}
		for _, i := range starts[1:] {
			r := root
			r.pos, r.root = int32(i), int32(i)
			r.cost += uint8(rowCost(rAround))
			r.ed[r.n] = edit{start: 0, end: int32(i), kind: kWrap, row: rAround}
			r.n++
			e.pushCfg(r)
		}
		e.madeRoots(root)
	}
	// A re-sent stream's heads, dropped before the object, and after a
	// wrapper the catch-all dropped first (# {"a{"a": 1}).
	e.heads = 0
	for k, from := range starts {
		r := root
		if k > 0 {
			r.cost += uint8(rowCost(rAround))
			r.ed[r.n] = edit{start: 0, end: int32(from), kind: kWrap, row: rAround}
			r.n++
		}
		if int(r.cost)+rowCost(rResend) > e.budget {
			break
		}
		if e.resendHeads(r, from); e.over {
			return
		}
	}
	e.cur = -1
	for !e.over {
		if !e.step() {
			return
		}
		i, ok := e.popCfg()
		if !ok {
			break
		}
		c := e.cfgs[i]
		if c.pos != e.cur {
			e.cur = c.pos
			e.resetSeen()
		}
		if e.dominated(&c, i) {
			e.free = append(e.free, i)
			continue
		}
		e.held = append(e.held, i)
		if c.sm != smNone {
			e.special(&c)
			continue
		}
		e.expand(&c)
	}
}

// step counts one move of the search; false (and over) past the work
// budget.
func (e *engine) step() bool {
	if e.steps++; e.steps > e.maxSteps {
		e.over = true
		return false
	}
	return true
}

// madeRoots pushes, where the budget allows a wrapper and a character
// edit after it, the roots whose object opens with a '{' an edit makes
// right after a wrapper (faultmodel.WrapperMadeStarts): inserted before
// the byte there, or written for it where it is structure. The wrapper
// row reads any text up to a '{', and the edit that makes the '{' may be
// made first.
func (e *engine) madeRoots(root cfg) {
	ins := insRow['{']
	if ins < 0 || int(root.cost)+rowCost(rAround)+rowCost(uint8(ins)) > e.budget {
		return
	}
	for _, i := range faultmodel.WrapperMadeStarts(e.s) {
		r := root
		r.pos, r.root = int32(i), int32(i)
		r.cost += uint8(rowCost(rAround))
		r.ed[r.n] = edit{start: 0, end: int32(i), kind: kWrap, row: rAround}
		r.n++
		e.try(&r, 0, kIns, '{', uint8(ins), "{", smNone)
		if b := e.s[i]; b != '{' && repRow[b]['{'] >= 0 {
			e.try(&r, 1, kRep, '{', uint8(repRow[b]['{']), "{", smNone)
		}
	}
}

// resendHeads pushes the roots r gives where a re-sent stream's heads,
// from its place from on, are dropped (faultmodel.ResendHead); past
// maxRoots of them in the text, the engine is over.
func (e *engine) resendHeads(r cfg, from int) {
	s, cost := e.s, int(r.cost)+rowCost(rResend)
	if cost > e.budget || int(r.n) >= maxEdits {
		return
	}
	for i := from + 1; i < len(s); i++ {
		if s[i] != '{' || !faultmodel.ResendHead(s[from:], i-from) {
			continue
		}
		if e.heads++; e.heads > maxRoots {
			e.over = true
			return
		}
		d := r
		d.pos, d.root, d.cost = int32(i), int32(i), uint8(cost)
		d.ed[d.n] = edit{start: int32(from), end: int32(i), kind: kHead, row: rResend}
		d.n++
		e.pushCfg(d)
	}
}

// dominated reports whether a configuration seen at c's position has
// c's parser state and a subset of its edits (with prune; without, the
// same edits and text), and records c as seen when not. The seen
// configurations are chained by a hash of their state in a small
// open-addressing table, cleared at each position.
func (e *engine) dominated(c *cfg, i int32) bool {
	if (len(e.usedSlots)+2)*2 >= len(e.table) {
		e.grow() // (so that slot never moves the table)
	}
	g := groupHash(c, e.stackHash(c.st.stack))
	// The same state, text and edits: a duplicate. (The same state
	// holds the same stack: its index in the arena.)
	same := func(d *cfg) bool {
		return d.st == c.st && d.sm == c.sm && d.smAt == c.smAt && d.pend == c.pend && d.tok == c.tok
	}
	full := (g ^ c.h*0xC2B2AE3D27D4EB4F ^ editsHash(c.ed[:c.n])) | 1
	fs := e.slot(full)
	for k := e.table[fs].head; k >= 0; k = e.seen[k].next {
		d := &e.cfgs[e.seen[k].i]
		if same(d) && d.h == c.h && sameEdits(d.ed[:d.n], c.ed[:c.n]) {
			return true
		}
	}
	gs := e.slot(g &^ 1)
	if e.prune && !c.lastDel && c.n > 0 {
		for k := e.table[gs].head; k >= 0; k = e.seen[k].next {
			d := &e.cfgs[e.seen[k].i]
			if d.n < c.n && same(d) && subset(d.ed[:d.n], c.ed[:c.n]) {
				return true
			}
		}
	}
	// Recorded under its full key, and, with fewer than two edits (the
	// ones that can dominate), under its state.
	e.seen = append(e.seen, seen{i, e.table[fs].head})
	e.table[fs].head = int32(len(e.seen) - 1)
	if c.n < 2 {
		e.seen = append(e.seen, seen{i, e.table[gs].head})
		e.table[gs].head = int32(len(e.seen) - 1)
	}
	return false
}

// editsHash hashes a set of edits (in any order).
func editsHash(ed []edit) uint64 {
	var h uint64
	for _, x := range ed {
		v := uint64(uint32(x.start))<<32 ^ uint64(uint32(x.end))*31 ^ uint64(x.off)<<16 ^ uint64(x.kind)<<8 ^ uint64(x.arg) ^ uint64(x.th)<<24
		h += v * 0x9E3779B97F4A7C15
	}
	return h
}

// groupHash hashes the parts of c's state a dominating configuration
// shares.
func groupHash(c *cfg, sh uint64) uint64 {
	h := sh ^ uint64(c.st.mode)<<56 ^ uint64(c.st.sub)<<48 ^ uint64(c.sm)<<40 ^ uint64(uint32(c.smAt))
	for i := 0; i < len(c.pend); i++ {
		h = (h ^ uint64(c.pend[i])) * 1099511628211
	}
	h = (h ^ 0xff) * 1099511628211
	for i := 0; i < len(c.tok); i++ {
		h = (h ^ uint64(c.tok[i])) * 1099511628211
	}
	return h * 0x9E3779B97F4A7C15
}

// tslot is one slot of the seen table.
type tslot struct {
	key  uint64
	head int32
	used bool
}

// slot returns the slot of the seen table for key g, claiming a free one.
func (e *engine) slot(g uint64) int {
	mask := len(e.table) - 1
	for i := int(g>>32) & mask; ; i = (i + 1) & mask {
		t := &e.table[i]
		if !t.used {
			*t = tslot{key: g, head: -1, used: true}
			e.usedSlots = append(e.usedSlots, int32(i))
			return i
		}
		if t.key == g {
			return i
		}
	}
}

// grow doubles the seen table, keeping its chains.
func (e *engine) grow() {
	old := e.table
	e.table = make([]tslot, max(64, 2*len(old)))
	e.usedSlots = e.usedSlots[:0]
	mask := len(e.table) - 1
	for _, t := range old {
		if !t.used {
			continue
		}
		for i := int(t.key>>32) & mask; ; i = (i + 1) & mask {
			if !e.table[i].used {
				e.table[i] = t
				e.usedSlots = append(e.usedSlots, int32(i))
				break
			}
		}
	}
}

// resetSeen empties the seen table for a new position.
func (e *engine) resetSeen() {
	for _, i := range e.usedSlots {
		e.table[i] = tslot{}
	}
	e.usedSlots = e.usedSlots[:0]
	e.seen = e.seen[:0]
	e.free = append(e.free, e.held...)
	e.held = e.held[:0]
}

func sameEdits(a, b []edit) bool {
	return len(a) == len(b) && subset(a, b)
}

// subset reports whether every edit of a is one of b.
func subset(a, b []edit) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x.same(y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// finish records c, at the end of its object's text, as a reading.
func (e *engine) finish(c *cfg, extra []edit, cost int, unknown bool) {
	if cost > e.budget || int(c.n)+len(extra) > maxEdits {
		return
	}
	ed := append(append([]edit(nil), c.ed[:c.n]...), extra...)
	e.addDone(c, e.text(c), cost, ed, unknown)
}

// addDone records a reading of c: its text, and when c reads the second
// of two concatenated objects, the first too, at the same cost (each is
// read with the edits both need); what a cut leaves unknown is the
// second's.
func (e *engine) addDone(c *cfg, text string, cost int, ed []edit, unknown bool) {
	e.done = append(e.done, done{text: text, cost: cost, ed: ed, unknown: unknown})
	if c.first < 0 {
		return
	}
	// The first's reading drops the second (from its start to the end),
	// not the first: its edit is another.
	ed = slices.Clone(ed)
	for i, x := range ed {
		if x.kind == kConcat {
			ed[i] = edit{start: x.end, end: int32(len(e.s)), kind: kConcat, arg: 1, row: rConcat}
		}
	}
	e.done = append(e.done, done{text: e.textOf(c.first), cost: cost, ed: ed})
}

// complete records the readings c gives at its position.
func (e *engine) complete(c *cfg) {
	s, p := e.s, int(c.pos)
	if c.pend != "" {
		return
	}
	if c.st.mode == mDone {
		switch {
		case p == len(s):
			e.finish(c, nil, int(c.cost), c.cutIns)
			return
		case p == e.wrapEnd:
			if c.n > 0 && c.ed[0].kind == kWrap || c.n > 1 && c.ed[1].kind == kWrap {
				e.finish(c, nil, int(c.cost), false)
			} else {
				e.finish(c, []edit{{start: int32(p), end: int32(len(s)), kind: kWrap, row: rAround}}, int(c.cost)+rowCost(rAround), false)
			}
		}
		if isWS(s[p]) {
			return
		}
		// The copy re-sends the object's text, or the whole text's, the
		// wrapper before the object included ([TOOL_CALLS]{…}[TOOL_CALLS]{…}).
		resend := faultmodel.ResendTail(s[c.root:], p-int(c.root)) || c.root > 0 && faultmodel.ResendTail(s, p)
		if resend {
			e.finish(c, []edit{{start: int32(p), end: int32(len(s)), kind: kTail, row: rResend}}, int(c.cost)+rowCost(rResend), false)
		}
		if s[p] == '{' && c.first < 0 && strings.HasPrefix(e.text(c), "{") {
			// A second object after the first (faultmodel.Concatenated),
			// read from a root of its own: either object is a reading,
			// once the second reads as one too (finish). A third object
			// is no reading of the row.
			if int(c.cost)+rowCost(rConcat) <= e.budget && int(c.n) < maxEdits {
				c.own = false
				r := cfg{pos: int32(p), st: pstate{stack: -1}, out: -1, first: c.out, cost: c.cost + uint8(rowCost(rConcat)),
					root: int32(p), n: c.n, ed: c.ed, h: c.h}
				r.ed[r.n] = edit{start: c.root, end: int32(p), kind: kConcat, row: rConcat}
				r.n++
				e.pushCfg(r)
				e.resendHeads(r, p) // and the second re-sent
			}
		}
		return
	}
	switch {
	case c.st.mode == mStart:
	case p == len(s):
		e.cut(c, nil, e.endOpen)
	case s[p] == '{' && p > int(c.root) && e.resentTail(int(c.root), p):
		// A stream cut at p and sent again from its start: the copy
		// dropped (the re-send row, as after a complete object), the
		// object cut at p.
		drop := edit{start: int32(p), end: int32(len(s)), kind: kTail, row: rResend}
		e.cut(c, &drop, faultmodel.CutMayGoOn(s[:p]))
	}
}

// resentTail reports faultmodel.ResendTail for the object's text from
// root, at p, computed once per place.
func (e *engine) resentTail(root, p int) bool {
	k := int64(root)<<32 | int64(p)
	v, ok := e.tails[k]
	if !ok {
		if e.tails == nil {
			e.tails = map[int64]bool{}
		}
		v = faultmodel.ResendTail(e.s[root:], p-root)
		e.tails[k] = v
	}
	return v
}

// cut records the reading c gives where the text is cut at c's place
// (its end, or where resent, a re-sent copy dropped, starts); open: what
// the text ends with there may have gone on (faultmodel.CutMayGoOn).
func (e *engine) cut(c *cfg, resent *edit, open bool) {
	d := *c
	d.own, c.own = false, false
	written, unknown, drop, ok := e.completion(&d, open)
	if !ok {
		return
	}
	cost, n := int(c.cost)+rowCost(rCut), int(c.n)+1
	if resent != nil {
		cost, n = cost+rowCost(rResend), n+1
	}
	if cost > e.budget || n > maxEdits {
		return
	}
	text := e.text(&d)
	if drop {
		n := len(e.text(c))
		if n == 0 || text[n-1] != ',' {
			return
		}
		text = text[:n-1] + text[n:]
	}
	// The edit is named with the text it writes (and whether it drops a
	// comma), as the referee's edits are: two cuts that complete the
	// text differently are two edits.
	cut := e.at(c, 0, kCut, 0, rCut)
	cut.th = hashString(written)
	if drop {
		cut.arg = 1
	}
	ed := append(append([]edit(nil), c.ed[:c.n]...), cut)
	if resent != nil {
		ed = append(ed, *resent)
	}
	e.addDone(c, text, cost, ed, unknown)
}

// completion feeds d, a configuration where the text is cut, the cut
// row's completion (faultmodel.Cut): a string, a key, a number, a bare
// word or a string in single quotes ended (unknown: open), a value never
// written given as null (unknown), a comma dropped (unknown, drop), a
// literal completed, and the closers of what is open; a cut right after
// an opener, or with an array open, leaves the value unknown too. It
// returns what the completion writes (not the comma dropped); false when
// d cannot be completed.
func (e *engine) completion(d *cfg, open bool) (written string, unknown, drop, ok bool) {
	var tail string
	switch m := d.st.mode; {
	case m == mStr:
		tail, unknown = `"`, true
	case m == mStrEsc:
		tail, unknown = `\"`, true
	case m == mStrU:
		tail, unknown = strings.Repeat("0", 4-int(d.st.sub>>1))+`"`, true
	case m == mColon:
		tail, unknown = ":null", true
	case m == mValue && e.stk[d.st.stack].kind == '{':
		tail, unknown = "null", true
	case m == mValue, m == mObjKey:
		drop, unknown = true, true
		d.st.mode = mAfter // as before the comma
	case m == mObjFirst, m == mArrFirst:
		unknown = true
	case m == mNumNeg, m == mNumDot, m == mNumE, m == mNumESign:
		tail, unknown = "0", true
	case d.st.inNumber():
		unknown = true
	case m == mLit:
		tail = literals[d.st.sub>>4][d.st.sub&15:]
	}
	if d.st.inString() && d.st.sub&1 == 1 {
		tail += ":null" // inside a key
	}
	for i := d.st.stack; i >= 0 && !unknown; i = e.stk[i].parent {
		unknown = e.stk[i].kind == '[' // an array open: its items are unknown
	}
	unknown = unknown || open
	if !e.feedStr(d, tail) {
		return "", false, false, false
	}
	written = tail
	for d.st.mode != mDone {
		if d.st.stack < 0 {
			return "", false, false, false
		}
		closer := "}"
		if e.stk[d.st.stack].kind == '[' {
			closer = "]"
		}
		if !e.feedStr(d, closer) {
			return "", false, false, false
		}
		written += closer
	}
	return written, unknown, drop, true
}

// vb returns byte k of c's view, or -1 past its end.
func (e *engine) vb(c *cfg, k int) int {
	if k < len(c.pend) {
		return int(c.pend[k])
	}
	k += int(c.pos) - len(c.pend)
	if k < len(e.s) {
		return int(e.s[k])
	}
	return -1
}

// vhas reports whether c's view opens with w.
func (e *engine) vhas(c *cfg, w string) bool {
	for k := 0; k < len(w); k++ {
		if e.vb(c, k) != int(w[k]) {
			return false
		}
	}
	return true
}

// vstr returns the first k bytes of c's view (fewer at its end).
func (e *engine) vstr(c *cfg, k int) string {
	if k <= len(c.pend) {
		return c.pend[:k]
	}
	end := min(int(c.pos)+k-len(c.pend), len(e.s))
	return c.pend + e.s[c.pos:end]
}

// consume moves c past k bytes of its view.
func (e *engine) consume(c *cfg, k int) {
	for ; k > 0; k-- {
		var b byte
		if c.pend != "" {
			b = c.pend[0]
			c.pend = c.pend[1:]
		} else {
			b = e.s[c.pos]
			c.pos++
		}
		c.bsOdd = b == '\\' && !c.bsOdd
		c.prev = b
		c.lastDel = false
	}
}

// at returns the edit of kind and arg at c's place, over k bytes of its
// view, undoing a fault of row.
//
// An edit made on text an earlier edit wrote is named as the table's
// referee names it: an insertion before all of that text is the same
// insertion at the earlier edit's start; any other edit there rewrites
// the earlier edit's text (off rewrite).
func (e *engine) at(c *cfg, k int, kind, arg, row uint8) edit {
	ed := edit{start: c.pos, kind: kind, arg: arg, row: row}
	ed.end = int32(int(c.pos) + max(0, k-len(c.pend)))
	switch {
	case c.pend == "" && (kind == kIns || kind == kCut) && c.lastDel && c.n > 0:
		ed.start, ed.end = c.ed[c.n-1].start, c.ed[c.n-1].start
	case c.pend == "":
	case kind == kIns && len(c.pend) == int(c.fresh) && c.n > 0:
		ed.start, ed.end = c.ed[c.n-1].start, c.ed[c.n-1].start
	default:
		ed.off = rewrite
	}
	if (kind == kIns || kind == kCut) && ed.start == ed.end && ed.off == 0 {
		// An insertion right after a deletion is the same insertion at
		// the deletion's start, whichever edit it was named after.
		for i := int(c.n) - 1; i >= 0; i-- {
			if x := c.ed[i]; x.kind == kDel && x.end == ed.start {
				ed.start, ed.end = x.start, x.start
			}
		}
	}
	return ed
}

// try spawns from c the edit of kind and arg over k bytes of its view,
// undoing a fault of row, writing repl, in special mode sm: spawn with
// the edit at, named only when the budget allows it.
func (e *engine) try(c *cfg, k int, kind, arg, row uint8, repl string, sm uint8) {
	if e.affords(c, row, k, repl, sm) {
		e.spawn(c, e.at(c, k, kind, arg, row), k, repl, sm)
	}
}

// affords reports whether c may make an edit of row over k bytes of its
// view, writing repl, in special mode sm: within the budget and the
// edits' bound, and, where no edit can follow, one after which the
// parser reads the next byte.
func (e *engine) affords(c *cfg, row uint8, k int, repl string, sm uint8) bool {
	cost := int(c.cost) + rowCost(row)
	if cost > e.budget || int(c.n) >= maxEdits {
		return false
	}
	if cost == e.budget && sm == smNone && c.sm == smNone {
		first := e.vb(c, k)
		if repl != "" {
			first = int(repl[0])
		}
		if first >= 0 && !e.accepts(c.st, byte(first)) {
			return false
		}
	}
	return true
}

// rewrite marks an edit made on text an earlier edit wrote.
const rewrite = 255

// spawn makes from c the configuration that makes ed over k bytes of
// the view at the row's cost, writing repl (read next), in special mode
// sm, where c affords it (try checks).
func (e *engine) spawn(c *cfg, ed edit, k int, repl string, sm uint8) {
	d := *c
	d.own = false
	c.own = false
	e.consume(&d, k)
	switch sm {
	case smSQ, smTypo, smTmpl, smBack, smEnt: // the string's opening quote
		if !e.feedStr(&d, `"`) {
			return
		}
	default:
		if repl != "" {
			d.pend = repl + d.pend
		}
	}
	d.fresh = uint8(min(len(d.pend), 254))
	d.lastDel = repl == "" && sm == smNone && k > 0
	d.cost += uint8(rowCost(ed.row))
	d.ed[d.n] = ed
	d.n++
	if sm != smNone {
		if d.sm != smNone {
			d.osm, d.osmAt, d.osmEd = d.sm, d.smAt, d.smEd
		}
		d.sm, d.smAt, d.smEd = sm, ed.start, d.n-1
	}
	e.pushCfg(d)
}

// read reads the view's next byte in c's parser; false when it refuses.
func (e *engine) read(c *cfg) bool {
	b := e.vb(c, 0)
	if b < 0 {
		return false
	}
	ok, em := e.feed(&c.st, byte(b))
	if !ok {
		return false
	}
	if em {
		e.emit(c, byte(b))
	}
	e.consume(c, 1)
	return true
}

// expand makes c's moves at its place: the readings it completes, the
// inverse edits that start there, and the next byte read as it is.
func (e *engine) expand(c *cfg) {
	if c.mustDelim {
		if c.pend == "" {
			c.mustDelim = false
			if int(c.cost) < e.budget {
				e.charEdits(c, e.vb(c, 0), c.st.inString(), false)
			}
			return
		}
		c.mustDelim = false // (the token's own text is pending)
		if e.read(c) {
			c.mustDelim = true
			if c.pend == "" {
				e.pushCfg(*c)
				return
			}
			e.pushCfg(*c)
		}
		return
	}
	if c.pend == "" {
		e.complete(c)
	}
	if int(c.cost) < e.budget {
		e.edits(c, false)
	}
	if e.read(c) {
		e.readRun(c)
		e.pushCfg(*c)
	}
}

// readRun reads on c, where it can make no edit (its cost is the budget)
// and no text an edit wrote is pending, over a run of bytes in one move
// where its state stays as it is, and reports whether it read any: a
// string's plain content (up to a quote, a backslash, a control character
// or a '{', where a re-sent copy may start: complete), white space between
// tokens inside the object, a bare token up to its next delimiter or mark,
// the plain bytes of a string in single quotes, backquotes, typographic
// quotes, template quote tokens or entities (which each of those modes
// writes as they are). A configuration that dominates c at a byte of the
// run holds c's state there, as it does where the run starts.
func (e *engine) readRun(c *cfg) bool {
	if int(c.cost) < e.budget || c.pend != "" {
		return false
	}
	s, k := e.s, int(c.pos)
	plain := func(stop string) {
		for k < len(s) && s[k] >= 0x20 && strings.IndexByte(stop, s[k]) < 0 {
			e.emit(c, s[k])
			k++
		}
	}
	switch c.sm {
	case smBare:
		for k < len(s) && strings.IndexByte(tokenEnds+tokenStops, s[k]) < 0 && len(c.tok)+k-int(c.pos) < maxToken {
			k++
		}
		c.tok += s[c.pos:k]
	case smSQ, smTypo, smTmpl, smBack, smEnt:
		if c.st.mode == mStr {
			plain("\"\\'`<&\xe2") // where these modes end the string or write a byte otherwise
		}
	case smNone:
		switch c.st.mode {
		case mStr:
			plain("\"\\{")
		case mObjFirst, mObjKey, mColon, mValue, mArrFirst, mAfter:
			for k < len(s) && isWS(s[k]) {
				k++
			}
		}
	}
	if k == int(c.pos) {
		return false
	}
	e.consume(c, k-int(c.pos))
	return true
}

// The spellings the literal rows read.
var words = []struct {
	from, to string
	row      *uint8
}{
	{"True", "true", &rPyJS}, {"False", "false", &rPyJS}, {"None", "null", &rPyJS}, {"undefined", "null", &rPyJS},
	{"TRUE", "true", &rLitCase}, {"FALSE", "false", &rLitCase}, {"NULL", "null", &rLitCase}, {"Null", "null", &rLitCase},
	{"none", "null", &rLitCase}, {"NONE", "null", &rLitCase},
}

const quoteToken = `<|"|>`

// edits spawns every inverse edit of the table that starts at c's place.
// inner: c is inside a string it is writing (a quote style, a bare
// token), where only the edits of the string's content apply.
func (e *engine) edits(c *cfg, inner bool) {
	b := e.vb(c, 0)
	inStr := inner || c.st.inString()
	pendOnly := len(c.pend) > 0 // the next byte is written by an edit
	if !inner {
		e.charEdits(c, b, inStr, pendOnly)
	}
	if b < 0 {
		return
	}
	if !inStr && b >= utf8.RuneSelf {
		// An invisible character read as white space (where a space
		// reads on: not inside a string's content).
		if r, n := utf8.DecodeRuneInString(e.vstr(c, utf8.UTFMax)); faultmodel.Invisible(r) {
			e.try(c, n, kInvis, 0, rInvisible, " ", smNone)
		}
	}
	// A comment stands where white space may: outside a string's
	// content, or at a bare token's end (one inside it is dropped:
	// insideBare).
	e.contentEdits(c, byte(b), inStr)
	if inner {
		return
	}
	switch byte(b) {
	case '"':
		e.try(c, 1, kQuoteEsc, 0, rQuote, `\"`, smNone)
		if e.vb(c, 1) >= 0 {
			n := pieceAt(e.vstr(c, 7)[1:])
			if p := e.vstr(c, 1+n)[1:]; faultmodel.QuoteMovesOverNext(p) && !(inStr && faultmodel.MovedQuoteOpens(p)) {
				e.try(c, 1+n, kMoved, 0, rMoved, p+`"`, smNone)
			}
		}
	case '\'':
		e.try(c, 1, kSQ, 0, rQuoteStyle, "", smSQ)
	case '`':
		e.try(c, 1, kBack, 0, rBackquotes, "", smBack)
	case '&':
		if e.vhas(c, faultmodel.EntityQuote) {
			e.try(c, len(faultmodel.EntityQuote), kEnt, 0, rEntity, "", smEnt)
		}
	}
	// A quote moved back over the piece before it.
	for k := 1; k <= 6; k++ { // a character of 1 to 4 bytes, an escape, \uXXXX
		if e.vb(c, k) == '"' {
			v := e.vstr(c, k+1)
			for _, n := range faultmodel.PiecesBefore(v, k) {
				if n == k && faultmodel.QuoteMovesOver(v[:k]) {
					e.try(c, k+1, kMoved, uint8(k), rMoved, `"`+v[:k], smNone)
				}
			}
		}
	}
	if e.vhas(c, "“") {
		e.try(c, len("“"), kTypo, 0, rQuoteStyle, `"`, smTypo)
	}
	if e.vhas(c, quoteToken) {
		e.try(c, len(quoteToken), kTmpl, 0, rTemplate, `"`, smTmpl)
	}
	// A run of digits quoted (the runs the table's regexp finds) where a
	// colon follows it, white space aside (faultmodel's numeric_key row),
	// or in a key's place, where an edit after it may write the colon.
	if isDigit(byte(b)) && !isDigit(c.prev) && c.prev != '-' || b == '-' && e.vb(c, 1) >= 0 && isDigit(byte(e.vb(c, 1))) {
		if k := e.digitsAt(c, 1); e.keyPlace(c, k) {
			e.try(c, k, kNumKey, 0, rNumKey, `"`+e.vstr(c, k)+`"`, smNone)
		}
	}
	// A bare token quoted: read as a token from here.
	switch c.st.mode {
	case mValue, mArrFirst, mObjFirst, mObjKey:
		e.try(c, 0, kBare, 0, rUnquoted, "", smBare)
	}
}

// pieceAt returns the length of the character or escape v opens with.
func pieceAt(v string) int {
	if v == "" {
		return 0
	}
	return faultmodel.PieceAfter(v, 0)
}

// charEdits spawns the structural character edits at c's place: made
// only where their character is structure (outside a string's content,
// or a string's closing quote), and not on a character an edit wrote.
func (e *engine) charEdits(c *cfg, b int, inStr, pendOnly bool) {
	if c.st.mode == mStrEsc || c.st.mode == mStrU {
		return // a quote here is content, not the string's closing one
	}
	inKey := c.st.mode == mStr && c.st.sub&1 == 1
	// At the text's end, a character inserted that writes what the cut
	// row's completion writes there is that cut, and leaves the value
	// unknown where the cut does ({"a": 1}{ read as {} with its closer
	// dropped: its members unknown), as the referee reads it.
	var cutWrites string
	if b < 0 && c.pend == "" {
		d := *c
		if w, unknown, drop, ok := e.completion(&d, e.endOpen); ok && unknown && !drop && len(w) == 1 {
			cutWrites = w
		}
	}
	wasCut := c.cutIns
	for _, ch := range []byte(faultmodel.Structural) {
		if (!inStr || ch == '"') && insRow[ch] >= 0 && !(ch == '"' && b == ':' && inKey) {
			c.cutIns = wasCut || cutWrites == string(ch)
			e.try(c, 0, kIns, ch, uint8(insRow[ch]), string(ch), smNone)
		}
	}
	c.cutIns = wasCut
	if b == ':' && inKey {
		// A key's closing quote, where a key is open: the quote
		// closes it (unclosed_key); elsewhere a quote inserted before
		// a colon is the quote row's.
		e.try(c, 0, kIns, '"', rUnclosedKey, `"`, smNone)
	}
	if inKey && int(c.cost)+rowCost(rColon)+rowCost(rUnclosedKey) <= e.budget {
		// A colon inserted where a key's closing quote is then
		// inserted before it: the colon is structure in the reading.
		d := *c
		d.own, c.own = false, false
		d.pend = ":" + d.pend
		d.cost += uint8(rowCost(rColon))
		d.ed[d.n] = e.at(c, 0, kIns, ':', rColon)
		d.n++
		d.fresh = uint8(min(len(d.pend), 254))
		e.try(&d, 0, kIns, '"', rUnclosedKey, `"`, smNone)
	}
	if b < 0 || pendOnly {
		return
	}
	if r := delRow[b]; r >= 0 && !inStr {
		e.try(c, 1, kDel, 0, uint8(r), "", smNone)
	}
	for _, ch := range []byte(faultmodel.Structural) {
		if r := repRow[b][ch]; r >= 0 && ch != byte(b) && (!inStr || ch == '"') {
			e.try(c, 1, kRep, ch, uint8(r), string(ch), smNone)
		}
	}
}

// contentEdits spawns the edits that apply inside a string's content as
// well as outside: escapes, escaped white space, literal spellings, loose
// and split numbers; and comments, where comments may stand (outside a
// string's content, or at a bare token's end). inStr: c is inside a
// string's content.
func (e *engine) contentEdits(c *cfg, b byte, inStr bool) {
	comments := !inStr || c.sm == smBare
	switch b {
	case '"':
		if v := e.vstr(c, 3); len(v) == 3 && v[1] == '\\' && strings.IndexByte("ntr", v[2]) >= 0 {
			e.try(c, 3, kEsc, 5, rEscape, v[1:3]+`"`, smNone)
		}
	case '\n', '\t', '\r':
		// A control character written raw inside a string's content;
		// outside one it is white space, and the white space around a
		// bare token is the layout's (the unquoted row).
		if !c.bsOdd && inStr && (c.sm != smBare || e.bareGoesOn(c)) {
			e.try(c, 1, kEsc, 0, rEscape, faultmodel.ControlEscape(b), smNone)
		}
	case '\\':
		n1 := e.vb(c, 1)
		if !c.bsOdd && (n1 < 0 || strings.IndexByte(`"\/bfnrtu`, byte(n1)) < 0) {
			e.try(c, 1, kEsc, 1, rEscape, `\\`, smNone)
		}
		if e.vhas(c, `\\"`) {
			e.try(c, 3, kEsc, 2, rEscape, `\"`, smNone)
		}
		if v := e.vstr(c, 5); len(v) == 5 && isHex4(v[1:]) {
			e.try(c, 1, kEsc, 3, rEscape, `\u`, smNone)
		}
		if n1 == '\n' {
			e.try(c, 2, kEsc, 4, rEscape, "", smNone)
		}
		if n1 == '\'' && !c.bsOdd {
			e.try(c, 2, kEsc, 6, rEscape, "'", smNone)
		}
		if n1 >= 0 && strings.IndexByte("ntr", byte(n1)) >= 0 {
			e.try(c, 2, kEscSpace, 0, rEscSpace, "", smNone)
		}
	case '/':
		if !comments {
			break
		}
		if e.vhas(c, "/*") {
			e.try(c, 2, kBlock, 0, rComment, "", smBlock)
		} else if e.vhas(c, "//") {
			e.try(c, 2, kLine, 0, rComment, "", smLine)
		}
	case '#':
		if comments {
			e.try(c, 1, kLine, 0, rComment, "", smLine)
		}
	case '.':
		if !isDigit(c.prev) {
			e.try(c, 0, kLoose, 0, rLoose, "0", smNone)
		}
		if n1 := e.vb(c, 1); n1 < 0 || !isDigit(byte(n1)) {
			e.try(c, 1, kLoose, 1, rLoose, "", smNone)
		}
	case '+':
		if n1 := e.vb(c, 1); n1 == '.' || n1 == '-' || n1 >= 0 && isDigit(byte(n1)) {
			e.try(c, 1, kLoose, 2, rLoose, "", smNone)
		}
	case '0':
		// A leading 0 dropped (faultmodel.LeadingZero), in a value's
		// place.
		if n1 := e.vb(c, 1); n1 >= 0 && isDigit(byte(n1)) && (c.prev == 0 || faultmodel.NumberMayStartAfter(c.prev)) && !e.keyPlace(c, e.digitsAt(c, 0)) {
			e.try(c, 1, kLoose, 3, rLoose, "", smNone)
		}
	case ' ':
		// A thousands separator (faultmodel.SplitsThousands), or a
		// space after a number's point.
		if n := e.digitsAt(c, 1) - 1; isDigit(c.prev) && n > 0 && n%3 == 0 || c.prev == '.' && n > 0 {
			e.try(c, 1, kSplit, 0, rSplit, "", smNone)
		}
	}
	for i, w := range words {
		if b == w.from[0] && e.vhas(c, w.from) {
			e.try(c, len(w.from), kWord, uint8(i), *w.row, w.to, smNone)
		}
	}
}

// digitsAt returns where the run of digits of c's view from byte k on
// ends.
func (e *engine) digitsAt(c *cfg, k int) int {
	for e.vb(c, k) >= 0 && isDigit(byte(e.vb(c, k))) {
		k++
	}
	return k
}

// keyPlace reports whether what c's view holds up to byte k stands in a
// key's place: a colon follows it, white space aside, or the parser
// expects a key (an edit after it may write the colon). A number never
// stands there, and a run of digits is quoted only there (numeric_key).
func (e *engine) keyPlace(c *cfg, k int) bool {
	if c.st.mode == mObjFirst || c.st.mode == mObjKey {
		return true
	}
	for e.vb(c, k) >= 0 && isWS(byte(e.vb(c, k))) {
		k++
	}
	return e.vb(c, k) == ':'
}

func isHex4(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// A bare token ends without an edit before one of tokenEnds (a delimiter
// of the text, or a backslash: escaped white space after it), and reads
// no byte of tokenStops (where another token or a string starts).
const (
	tokenEnds  = "{}[],\":\\"
	tokenStops = "{}[],\"'#"
)

// maxToken bounds a bare token's length; a longer one puts the text
// over the budget.
const maxToken = 512

// special moves c, inside an edit that spans text, one step.
func (e *engine) special(c *cfg) {
	b := e.vb(c, 0)
	exit := func(d cfg, repl string, k int) {
		d.own = false
		c.own = false
		e.consume(&d, k)
		if repl != "" {
			d.pend = repl + d.pend
		}
		d.ed[d.smEd].end = d.pos
		d.lastDel = d.sm == smLine || d.sm == smBlock
		if d.lastDel {
			// A comment stands where white space may: it reads as a
			// space (inside a bare token, one of its bytes).
			if d.osm == smBare {
				d.tok += " "
			} else if !e.feedStr(&d, " ") {
				return
			}
		}
		if d.osm != smNone {
			d.sm, d.smAt, d.smEd, d.osm, d.osmAt, d.osmEd = d.osm, d.osmAt, d.osmEd, smNone, 0, 0
		} else {
			d.sm, d.smAt, d.smEd, d.tok = smNone, 0, 0, ""
		}
		e.pushCfg(d)
	}
	switch c.sm {
	case smLine:
		if b < 0 || c.pend == "" && utf8.RuneStart(byte(b)) || c.pend != "" {
			exit(*c, "", 0)
		}
		if b < 0 || b == '\n' || b == '\r' {
			return
		}
		e.consume(c, 1)
	case smBlock:
		if c.prev == '/' && int(c.pos) >= int(c.smAt)+4 && e.s[c.pos-2] == '*' {
			exit(*c, "", 0)
		}
		if b < 0 {
			return
		}
		e.consume(c, 1)
	case smSQ, smTypo, smTmpl, smBack, smEnt:
		if int(c.cost) < e.budget {
			e.edits(c, true)
		} else if e.readRun(c) {
			e.pushCfg(*c)
			return
		}
		if !e.quoted(c, b, exit) {
			return
		}
	case smBare:
		if int(c.cost) < e.budget {
			e.edits(c, true)
		} else if e.readRun(c) {
			e.pushCfg(*c)
			return
		}
		// A token ends at a delimiter of the text (never inside what an
		// edit wrote), where an edit writes one, or before a backslash
		// (escaped white space after it, dropped). Where no edit can
		// follow, it ends only at a delimiter.
		delim := b < 0 || strings.IndexByte(tokenEnds, byte(b)) >= 0
		if c.pend == "" && (delim || int(c.cost) < e.budget) {
			if tok, ok := e.bareEnd(c); ok {
				d := *c
				d.ed[d.smEd].th = hashString(tok)
				d.mustDelim = !delim
				// The white space after the token is read after it, as
				// the table's edit leaves it in the text.
				exit(d, tok+c.tok[len(strings.TrimRight(c.tok, " \t\r\n")):], 0)
			}
		}
		if b < 0 || strings.IndexByte(tokenStops, byte(b)) >= 0 || len(c.tok) >= maxToken {
			if len(c.tok) >= maxToken {
				e.over = true
			}
			return
		}
		c.tok += string([]byte{byte(b)})
		e.consume(c, 1)
	}
	e.pushCfg(*c)
}

// bareGoesOn reports whether the white space at c's place lies inside
// the bare token c reads: the token has begun, and a byte that goes on
// with it follows the white space.
func (e *engine) bareGoesOn(c *cfg) bool {
	if strings.TrimSpace(c.tok) == "" {
		return false
	}
	k := 1
	for b := e.vb(c, k); b == ' ' || b == '\t' || b == '\n' || b == '\r'; b = e.vb(c, k) {
		k++
	}
	b := e.vb(c, k)
	return b >= 0 && strings.IndexByte(tokenStops+":", byte(b)) < 0
}

// quoted moves c one step inside a string written in single quotes, in
// typographic ones or between template quote tokens; false when it ends
// there.
func (e *engine) quoted(c *cfg, b int, exit func(cfg, string, int)) bool {
	if b < 0 {
		return false
	}
	var repl string
	k := 1
	switch c.sm {
	case smSQ, smBack:
		q := byte('\'')
		if c.sm == smBack {
			q = '`'
		}
		switch {
		case b == int(q):
			exit(*c, `"`, 1)
			if q == '\'' && !(c.pend == "" && faultmodel.InWord(e.s, int(c.pos))) {
				return false // an apostrophe inside no word ends the string (faultmodel's apostrophePairs)
			}
			repl = string([]byte{q})
		case b == '\\' && e.vb(c, 1) == int(q):
			exit(*c, `\"`, 2) // the pair closed at this quote
			repl, k = string([]byte{q}), 2
		case b == '\\' && e.vb(c, 1) >= 0:
			repl, k = e.vstr(c, 2), 2
		case b == '"':
			repl = `\"`
		default:
			repl = string([]byte{byte(b)})
		}
	case smTypo:
		if e.vhas(c, "”") {
			exit(*c, `"`, len("”"))
			return false // a typographic string ends at its closing mark
		}
		repl = string([]byte{byte(b)})
	case smTmpl:
		if e.vhas(c, quoteToken) {
			exit(*c, `"`, len(quoteToken))
			repl, k = `<|\"|>`, len(quoteToken)
		} else {
			repl = jsonByte(byte(b))
		}
	case smEnt:
		if e.vhas(c, faultmodel.EntityQuote) {
			exit(*c, `"`, len(faultmodel.EntityQuote))
		}
		repl = string([]byte{byte(b)})
	}
	e.consume(c, k)
	for i := 0; i < len(repl); i++ {
		ok, em := e.feed(&c.st, repl[i])
		if !ok {
			return false
		}
		if em {
			e.emit(c, repl[i])
		}
	}
	return true
}

// bareEnd returns the string c's bare token makes when it ends here, as
// the table's bare rows read it, and false when it is none.
func (e *engine) bareEnd(c *cfg) (string, bool) {
	if strings.TrimSpace(c.tok) == "" {
		return "", false
	}
	next := byte(0)
	for k := 0; ; k++ {
		b := e.vb(c, k)
		if b < 0 {
			break
		}
		if !isWS(byte(b)) {
			next = byte(b)
			break
		}
	}
	probe := c.tok
	if next != 0 {
		probe += string([]byte{next})
	}
	ed, ok := faultmodel.BareToken(probe, 0, len(c.tok))
	return ed.Repl, ok
}

// jsonByte returns b as JSON string content.
func jsonByte(b byte) string {
	switch {
	case b == '"':
		return `\"`
	case b == '\\':
		return `\\`
	case b < 0x20:
		const hex = "0123456789abcdef"
		return `\u00` + string(hex[b>>4]) + string(hex[b&15])
	}
	return string([]byte{b})
}

// accepts reports whether the parser in st reads b (without pushing a
// bracket: a bracket opener is read wherever a value may start).
func (e *engine) accepts(st pstate, b byte) bool {
	if b == '{' || b == '[' {
		switch st.mode {
		case mStart, mValue, mArrFirst:
			return true
		case mNumZero, mNumInt, mNumFrac, mNumExp, mStr:
			return st.mode == mStr
		}
		return false
	}
	ok, _ := e.feed(&st, b)
	return ok
}

func hashString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}
