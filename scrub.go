package saidex

import (
	"context"
	"errors"
	"fmt"
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

// MinScrubbedSecretLen is the shortest secret value, in bytes, that the
// node scrubs from free text (tool output, errors, validator messages,
// feedback) wherever it appears. A shorter secret ("1234") would mask
// common words and numbers: it is masked by its location in the
// arguments only (the field that holds it, under a secret name or the
// schema's secret path), not searched for in other texts.
const MinScrubbedSecretLen = 6

// maxSecretEncodings bounds how many layers of JSON string encoding
// (a JSON document sent as a string inside a string...) the collection of
// secret values reads and the scrub searches for.
const maxSecretEncodings = 4

// scrubber replaces the occurrences of a fixed set of byte patterns in a
// text by SecretMask. It is an Aho-Corasick automaton: a text is scanned
// once, whatever the number of patterns, and covered spans that overlap or
// touch are masked as one. A nil scrubber changes nothing. It is safe for
// concurrent use once built.
type scrubber struct {
	nodes []acNode
}

type acNode struct {
	next map[byte]int32
	fail int32
	out  int32 // the length of the longest pattern ending here, 0 for none
}

// newScrubber returns a scrubber of the patterns of at least
// MinScrubbedSecretLen bytes, nil when there are none.
func newScrubber(patterns map[string]bool) *scrubber {
	s := &scrubber{nodes: []acNode{{}}}
	for p := range patterns {
		if len(p) < MinScrubbedSecretLen {
			continue
		}
		cur := int32(0)
		for i := 0; i < len(p); i++ {
			nx, ok := s.nodes[cur].next[p[i]]
			if !ok {
				if s.nodes[cur].next == nil {
					s.nodes[cur].next = map[byte]int32{}
				}
				nx = int32(len(s.nodes))
				s.nodes[cur].next[p[i]] = nx
				s.nodes = append(s.nodes, acNode{})
			}
			cur = nx
		}
		s.nodes[cur].out = int32(len(p))
	}
	if len(s.nodes) == 1 {
		return nil
	}
	// Failure links, breadth first.
	queue := make([]int32, 0, len(s.nodes))
	for _, nx := range s.nodes[0].next {
		queue = append(queue, nx)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for b, v := range s.nodes[u].next {
			f := s.nodes[u].fail
			for {
				if w, ok := s.nodes[f].next[b]; ok && w != v {
					s.nodes[v].fail = w
					break
				}
				if f == 0 {
					s.nodes[v].fail = 0
					break
				}
				f = s.nodes[f].fail
			}
			s.nodes[v].out = max(s.nodes[v].out, s.nodes[s.nodes[v].fail].out)
			queue = append(queue, v)
		}
	}
	return s
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
		b := t[i]
		for {
			if nx, ok := s.nodes[cur].next[b]; ok {
				cur = nx
				break
			}
			if cur == 0 {
				break
			}
			cur = s.nodes[cur].fail
		}
		if l := int(s.nodes[cur].out); l > 0 {
			spans = append(spans, [2]int{i + 1 - l, i + 1})
		}
	}
	if spans == nil {
		return t
	}
	// Spans end in increasing order but a later one may start earlier:
	// mark coverage with a difference array, then emit in one pass.
	depth := make([]int32, len(t)+1)
	for _, sp := range spans {
		depth[sp[0]]++
		depth[sp[1]]--
	}
	var b strings.Builder
	b.Grow(len(t))
	open := int32(0)
	for i := 0; i < len(t); i++ {
		was := open
		open += depth[i]
		switch {
		case open > 0 && was == 0:
			b.WriteString(SecretMask)
		case open == 0:
			b.WriteByte(t[i])
		}
	}
	return b.String()
}

// json returns the JSON text t scrubbed, still JSON: the scrub of the
// text when it stays valid, else the scrub of every key and string of its
// decoding, encoded again. A t that is not JSON is scrubbed as text.
func (s *scrubber) json(t string) string {
	out := s.text(t)
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
// secretSchema.collect) into the run's scrubber: their argument strings,
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
				sec.collect(text, r.secretVals)
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
