package saidex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
)

// This file is the one exit of the node's texts: every text that leaves
// the node (tool messages, reports, errors, the correction traffic, the
// sanitized history) goes through a scrubber, which replaces each
// occurrence of a secret value the run's calls sent by SecretMask, in one
// pass over the text. The values are collected from every reading of the
// arguments (secret.go), so the scrub does not depend on the arguments
// matching the schema.

// maxSecretEncodings bounds how many layers of JSON string encoding
// (a JSON document sent as a string inside a string...) the collection of
// secret values reads and the scrub searches for.
const maxSecretEncodings = 4

// scrubber replaces the occurrences of a fixed set of byte patterns in a
// text by SecretMask. It is an Aho-Corasick automaton: a text is scanned
// once, whatever the number of patterns, and covered spans that overlap or
// touch are masked as one. The root's transitions are a table, so bytes
// that start no pattern are skipped at the cost of a load each; the other
// nodes keep their few edges in a flat array. A nil scrubber changes
// nothing. It is safe for concurrent use once built.
type scrubber struct {
	root  [256]int32 // the root's transitions; 0: none
	edges []acEdge   // every other node's edges, grouped by node
	first []int32    // node i's edges are edges[first[i]:first[i+1]]
	fail  []int32
	out   []int32 // the length of the longest pattern ending at each node, 0 for none
}

type acEdge struct {
	b  byte
	to int32
}

// newScrubber returns a scrubber of the patterns of at least
// MinScrubbedSecretLen bytes, nil when there are none.
func newScrubber(patterns map[string]bool) *scrubber {
	size := 1 // the trie's nodes, at most: the root and a node per byte
	for p := range patterns {
		if len(p) >= MinScrubbedSecretLen {
			size += len(p)
		}
	}
	if size == 1 {
		return nil
	}
	// A trie first, in flat arrays: each node's children are a list
	// (child, then sib), the root's a table.
	type tnode struct {
		child, sib int32 // first child, next sibling; 0: none
		out        int32
		b          byte // the byte of the edge that enters it
	}
	trie := make([]tnode, 1, size)
	var rootNext [256]int32
	for p := range patterns {
		if len(p) < MinScrubbedSecretLen {
			continue
		}
		cur := int32(0)
		for i := 0; i < len(p); i++ {
			b := p[i]
			var nx int32
			if cur == 0 {
				nx = rootNext[b]
			} else {
				for e := trie[cur].child; e != 0; e = trie[e].sib {
					if trie[e].b == b {
						nx = e
						break
					}
				}
			}
			if nx == 0 {
				nx = int32(len(trie))
				trie = append(trie, tnode{b: b})
				if cur == 0 {
					rootNext[b] = nx
				} else {
					trie[nx].sib, trie[cur].child = trie[cur].child, nx
				}
			}
			cur = nx
		}
		trie[cur].out = int32(len(p))
	}
	// Then the automaton, its nodes numbered breadth first, so that each
	// node's edges are laid out together, in node order, and a node's
	// failure link points to a node numbered before it.
	n := len(trie)
	ints := make([]int32, 4*n+1) // one backing array for first, fail, out and the order
	s := &scrubber{first: ints[: n+1 : n+1], fail: ints[n+1 : 2*n+1 : 2*n+1], out: ints[2*n+1 : 3*n+1 : 3*n+1],
		edges: make([]acEdge, 0, n-1)}
	order := ints[3*n+1 : 3*n+1 : 4*n+1] // trie nodes, by their number here
	order = append(order, 0)
	for u := 0; u < len(order); u++ {
		s.first[u] = int32(len(s.edges))
		add := func(c int32) {
			to := int32(len(order))
			order = append(order, c)
			s.edges = append(s.edges, acEdge{trie[c].b, to})
			s.out[to] = trie[c].out
		}
		if u == 0 {
			for b, c := range rootNext {
				if c != 0 {
					s.root[b] = int32(len(order))
					add(c)
				}
			}
			continue
		}
		for c := trie[order[u]].child; c != 0; c = trie[c].sib {
			add(c)
		}
	}
	s.first[n] = int32(len(s.edges))
	// Failure links, breadth first: in node order. The root's children
	// fail to the root.
	for u := int32(1); u < int32(n); u++ {
		for _, e := range s.edges[s.first[u]:s.first[u+1]] {
			s.fail[e.to] = s.step(s.fail[u], e.b)
			if s.fail[e.to] == e.to {
				s.fail[e.to] = 0
			}
			s.out[e.to] = max(s.out[e.to], s.out[s.fail[e.to]])
		}
	}
	return s
}

// step returns the state after reading b in state cur.
func (s *scrubber) step(cur int32, b byte) int32 {
	for cur != 0 {
		for _, e := range s.edges[s.first[cur]:s.first[cur+1]] {
			if e.b == b {
				return e.to
			}
		}
		cur = s.fail[cur]
	}
	return s.root[b]
}

// text returns t with every span a pattern covers replaced by SecretMask,
// t itself (no allocation) when no pattern occurs.
func (s *scrubber) text(t string) string {
	if s == nil || t == "" {
		return t
	}
	var spans [][2]int // [start, end) of each longest match, in end order
	cur := int32(0)
	for i := 0; i < len(t); i++ {
		if cur == 0 {
			for i < len(t) && s.root[t[i]] == 0 {
				i++ // a byte that starts no pattern
			}
			if i == len(t) {
				break
			}
			cur = s.root[t[i]]
		} else {
			cur = s.step(cur, t[i])
		}
		if l := int(s.out[cur]); l > 0 {
			spans = append(spans, [2]int{i + 1 - l, i + 1})
		}
	}
	if spans == nil {
		return t
	}
	// Spans end in increasing order but a later one may start earlier:
	// sort them by start (they are few, and nearly sorted), then copy the
	// text between the merged spans.
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.Grow(len(t))
	done := 0 // t[:done] is written
	for k := 0; k < len(spans); {
		start, end := spans[k][0], spans[k][1]
		for k++; k < len(spans) && spans[k][0] <= end; k++ {
			end = max(end, spans[k][1])
		}
		b.WriteString(t[done:start])
		b.WriteString(SecretMask)
		done = end
	}
	b.WriteString(t[done:])
	return b.String()
}

// json returns the JSON text t scrubbed, still JSON: the scrub of the
// text when it stays valid, else the scrub of every key and string of its
// decoding, encoded again. A t that is not JSON is scrubbed as text.
func (s *scrubber) json(t string) string {
	return s.jsonOf(t, s.text(t))
}

// jsonOf is json of t, whose scrub as text (s.text(t)) is out.
func (s *scrubber) jsonOf(t, out string) string {
	if out == t || !jsonread.Valid(t) || jsonread.Valid(out) {
		return out
	}
	v, err := decodeJSON(t)
	if err != nil {
		return out
	}
	enc, err := jsonvalue.Encode(s.value(v))
	if err != nil {
		return "{}"
	}
	return enc
}

// value scrubs every key and string of the decoded JSON value v, in
// place where it can, and returns the result.
func (s *scrubber) value(v any) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.text(x)
	case map[string]any:
		for k, e := range x {
			e = s.value(e)
			if sk := s.text(k); sk != k {
				delete(x, k)
				k = sk
			}
			x[k] = e
		}
	case []any:
		for i, e := range x {
			x[i] = s.value(e)
		}
	}
	return v
}

// issues returns is scrubbed: the same slice when nothing changed, else a
// copy.
func (s *scrubber) issues(is []Issue) []Issue {
	if s == nil {
		return is
	}
	var out []Issue
	for i, x := range is {
		y := x
		y.Path, y.Message, y.Expected = s.text(x.Path), s.text(x.Message), s.text(x.Expected)
		if y.Path == x.Path && y.Message == x.Message && y.Expected == x.Expected {
			if out != nil {
				out[i] = y
			}
			continue
		}
		if out == nil {
			out = append([]Issue(nil), is...)
		}
		out[i] = y
	}
	if out == nil {
		return is
	}
	return out
}

// err returns err as it may leave the node: unchanged when its text holds
// no secret; else the node's own error types rebuilt with scrubbed
// fields ([*PanicError]'s Value becomes its scrubbed text,
// [*ExtractionError], [*ToolError] and [*ToolCallValidationError] scrub
// what they hold), and any other error wrapped in a *scrubbedError whose
// Error is the scrubbed text and which unwraps to it, so that errors.Is
// still matches.
func (s *scrubber) err(err error) error {
	if s == nil || err == nil {
		return err
	}
	t := err.Error()
	if s.text(t) == t {
		return err
	}
	switch e := err.(type) {
	case *PanicError:
		return &PanicError{Value: s.text(fmt.Sprint(e.Value)), Stack: e.Stack}
	case *ExtractionError:
		return &ExtractionError{Attempts: e.Attempts, Issues: s.issues(e.Issues), Err: s.err(e.Err)}
	case *ToolError:
		cp := *e
		cp.Err = s.err(e.Err)
		return &cp
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		return &scrubbedError{text: s.text(t), err: s.err(pe)}
	}
	return &scrubbedError{text: s.text(t), err: err}
}

// scrubbedError is an error whose text held a secret value: Error returns
// the text with the value masked, and it unwraps to the error it
// replaces (for errors.Is against sentinels) or, when that error wraps a
// [*PanicError], to that panic scrubbed.
type scrubbedError struct {
	text string
	err  error
}

func (e *scrubbedError) Error() string { return e.text }
func (e *scrubbedError) Unwrap() error { return e.err }

// scrubbedModel is the correction model as the node calls it: every text
// part of the messages it is sent is scrubbed first, so that no secret
// value the run's calls sent reaches it, whatever prompt or retry quotes.
type scrubbedModel struct {
	llms.Model
	s *scrubber
}

func (m scrubbedModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	out := make([]llms.MessageContent, len(messages))
	for i, msg := range messages {
		out[i] = llms.MessageContent{Role: msg.Role, Parts: make([]llms.ContentPart, len(msg.Parts))}
		for j, p := range msg.Parts {
			switch x := p.(type) {
			case llms.TextContent:
				p = llms.TextContent{Text: m.s.text(x.Text)}
			case llms.ToolCallResponse:
				x.Content = m.s.text(x.Content)
				p = x
			case llms.ToolCall:
				if x.FunctionCall != nil {
					fc := *x.FunctionCall
					fc.Arguments = m.s.json(fc.Arguments)
					x.FunctionCall = &fc
				}
				p = x
			}
			out[i].Parts[j] = p
		}
	}
	return m.Model.GenerateContent(ctx, out, options...)
}

func (m scrubbedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// gather collects the secret values of the run's calls (see
// secretSchema.collectAt) into the run's scrubber: their argument strings,
// and the arguments they ended with (repaired, corrected, salvaged). A
// node none of whose tools has secrets collects nothing. It runs once
// after validation and again when the calls' texts leave the node, when
// only the arguments that changed since are read.
func (n *ToolNode) gather(r *run, calls []*call) {
	if !n.names.any {
		return
	}
	if r.secretVals == nil {
		r.secretVals, r.secretRead = map[string]bool{}, map[string]bool{}
	}
	before := len(r.secretVals)
	for _, c := range calls {
		sec := c.secrets()
		if sec == nil {
			continue
		}
		for _, text := range [2]string{c.raw, c.args} {
			if !r.secretRead[text] {
				if text != "" {
					sec.collectRead(c.read(sec, text), r.secretVals, 0)
				}
				r.secretRead[text] = true
			}
		}
	}
	if len(r.secretVals) != before || (r.scrub == nil && len(r.secretVals) > 0) {
		r.scrub = newScrubber(r.secretVals)
	}
}

// seal is the one exit of the calls' texts: after it, every text a call
// carries out of the node (its tool message, its issues, its errors, the
// arguments its report shows) has the run's secret values scrubbed. It
// gathers the secret values first (see gather). Every path that hands a
// call's texts to the caller (a Result, a stopped run's Partial, Check's
// and WrapModel's reports, CheckCall, the raise policy's error) seals the
// calls first.
func (n *ToolNode) seal(r *run, calls []*call) {
	n.gather(r, calls)
	for _, c := range calls {
		c.scrub = r.scrub
		if r.scrub == nil {
			continue
		}
		c.output = r.scrub.text(c.output)
		c.issues = r.scrub.issues(c.issues)
		c.flagged = r.scrub.issues(c.flagged)
		c.err = r.scrub.err(c.err)
		c.correctionErr = r.scrub.err(c.correctionErr)
	}
}

// sealErr is seal for an error a run returns.
func (n *ToolNode) sealErr(r *run, calls []*call, err error) error {
	n.gather(r, calls)
	return r.scrub.err(err)
}
