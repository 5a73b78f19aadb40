package saidex

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/tmc/langchaingo/llms"
)

// WithTextToolCalls sets whether a reply that has no structured tool call,
// but whose text holds calls of the node's tools written out as text, gets
// those calls as real tool calls. Open-weight models behind a server
// without the right tool parser answer that way, and an agent loop then
// takes the call for a final answer. Default: false.
//
// It applies where saidex produces the AI message: [WrapModel], the agent
// package, saidexeino's Guard.Model and the provider-SDK adapters (they
// call [ToolNode.TextToolCalls]). Each call found gets a fresh unique id
// ("call_" and 24 hex digits), its text leaves the reply's content, and
// then the calls go through the pipeline as any call does: repair,
// validation, one answer per id. The formats, as vLLM's and Ollama's tool
// parsers define them:
//
//   - <tool_call>{"name": …, "arguments": {…}}</tool_call>, one block a
//     call (Hermes, Qwen 2.5; "parameters" for "arguments" too; the last
//     block may be left unclosed at the end of the text);
//   - <function=NAME>{…}</function> (Llama 3.1) and
//     <function=NAME><parameter=K>V</parameter>…</function> (Qwen3-Coder),
//     on their own or inside <tool_call> blocks; a parameter's text is a
//     string where the schema accepts only a string, else its JSON value
//     when it is JSON;
//   - [TOOL_CALLS][{"name": …, "arguments": {…}}, …] and
//     [TOOL_CALLS]NAME[ARGS]{…} (Mistral);
//   - a reply that is, whole, one {"name": …, "arguments"|"parameters": …}
//     object, bare or in one code fence.
//
// Soundness first: the text is left alone unless every call written in it
// parses and names one of the node's tools. Prose that mentions a tool, a
// format inside a code fence or a reasoning block (<think>…</think>), a
// call of an unknown tool, and a JSON object with other members stay text.
func WithTextToolCalls(on bool) Option {
	return optionFunc(func(c *config) { c.textToolCalls = on })
}

// TextToolCalls finds the tool calls written in text, in the formats
// [WithTextToolCalls] lists, for a caller that produces the AI message
// itself (an integration, an agent loop): it returns them, each with a
// fresh id and Type "function", and the text without them, trimmed. It
// returns nil calls and text unchanged when the node was built without
// WithTextToolCalls(true), and whenever the text holds no call of the
// node's tools that it is sure of.
func (n *ToolNode) TextToolCalls(text string) (calls []llms.ToolCall, rest string) {
	if !n.cfg.textToolCalls {
		return nil, text
	}
	found, rest, ok := n.textCalls(text)
	if !ok || len(found) == 0 {
		return nil, text
	}
	calls = make([]llms.ToolCall, len(found))
	for i, f := range found {
		calls[i] = llms.ToolCall{ID: newCallID(), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: f.name, Arguments: f.args}}
	}
	return calls, rest
}

// newCallID returns a fresh tool-call id: "call_" and 24 random hex digits,
// within every provider's id pattern.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "call_" + hex.EncodeToString(b[:])
}

// textCall is a call found in text: its tool name and argument text.
type textCall struct{ name, args string }

// The markers of the formats WithTextToolCalls reads.
const (
	tagToolCall      = "<tool_call>"
	tagToolCallEnd   = "</tool_call>"
	tagFunction      = "<function="
	tagFunctionEnd   = "</function>"
	tagParameter     = "<parameter="
	tagParameterEnd  = "</parameter>"
	tagMistral       = "[TOOL_CALLS]"
	tagMistralArgs   = "[ARGS]"
	thinkClose       = "</think>"
	maxTextCallBytes = 1 << 20
)

// textCalls finds the calls written in text. ok is false when text holds
// a format's marker that does not read as calls of the node's tools: the
// text is then left alone.
func (n *ToolNode) textCalls(text string) (calls []textCall, rest string, ok bool) {
	if len(text) > maxTextCallBytes {
		return nil, text, false
	}
	head, body := "", text
	if i := strings.LastIndex(text, thinkClose); i >= 0 { // reasoning first: its text is not a call
		head, body = text[:i+len(thinkClose)], text[i+len(thinkClose):]
	}
	marked := func(s string) bool {
		return strings.Contains(s, tagToolCall) || strings.Contains(s, tagFunction) || strings.Contains(s, tagMistral)
	}
	if marked(head) || inFence(body) {
		return nil, text, false // a marker in reasoning or in a fence: unsure
	}
	switch {
	case strings.Contains(body, tagToolCall):
		calls, rest, ok = n.taggedCalls(body, tagToolCall, tagToolCallEnd, true)
	case strings.Contains(body, tagFunction):
		calls, rest, ok = n.taggedCalls(body, tagFunction, tagFunctionEnd, false)
	case strings.Contains(body, tagMistral):
		calls, rest, ok = n.mistralCalls(body)
	default:
		var c textCall
		if c, ok = n.wholeEnvelope(body); ok {
			calls, rest = []textCall{c}, ""
		}
		if !ok {
			return nil, text, true // no format at all: nothing to do, nothing unsure
		}
	}
	if !ok {
		return nil, text, false
	}
	return calls, strings.TrimSpace(head + rest), true
}

// inFence reports whether a marker of a format stands inside a ``` code
// fence of text.
func inFence(text string) bool {
	in := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if in && (strings.Contains(line, tagToolCall) || strings.Contains(line, tagFunction) || strings.Contains(line, tagMistral)) {
			return true
		}
	}
	return false
}

// taggedCalls reads every open…end block of text as one call: for
// <tool_call> blocks (toolCall) an envelope or a <function=…> block, for
// <function= blocks the function format itself. The last block may lack
// its end tag at the end of text. ok is false when a block does not read
// as a call of the node's tools.
func (n *ToolNode) taggedCalls(text, open, end string, toolCall bool) (calls []textCall, rest string, ok bool) {
	var kept strings.Builder
	for {
		i := strings.Index(text, open)
		if i < 0 {
			kept.WriteString(text)
			break
		}
		kept.WriteString(text[:i])
		text = text[i:]
		j := strings.Index(text, end)
		var block string
		if j < 0 {
			block, text = text, "" // unclosed: it runs to the end
		} else {
			block, text = text[:j+len(end)], text[j+len(end):]
		}
		var c textCall
		if toolCall {
			inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(block, open), end))
			if strings.HasPrefix(inner, tagFunction) {
				c, ok = n.functionCall(inner)
			} else {
				c, ok = n.envelope(inner, true)
			}
		} else {
			c, ok = n.functionCall(block)
		}
		if !ok {
			return nil, "", false
		}
		calls = append(calls, c)
	}
	return calls, kept.String(), len(calls) > 0
}

// functionCall reads <function=NAME>BODY</function> (the end tag may be
// missing at the end), BODY a JSON object or <parameter=K>V</parameter>
// pairs.
func (n *ToolNode) functionCall(block string) (textCall, bool) {
	block = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(block), tagFunctionEnd))
	rest, ok := strings.CutPrefix(block, tagFunction)
	if !ok {
		return textCall{}, false
	}
	gt := strings.IndexByte(rest, '>')
	if gt < 0 {
		return textCall{}, false
	}
	name, body := strings.TrimSpace(rest[:gt]), strings.TrimSpace(rest[gt+1:])
	t := n.tools[name]
	if t == nil || strings.Contains(body, tagFunction) {
		return textCall{}, false
	}
	if strings.HasPrefix(body, "{") || body == "" {
		if body == "" {
			body = "{}"
		}
		if _, err := jsonread.Decode(body); err != nil {
			return textCall{}, false
		}
		return textCall{name: name, args: body}, true
	}
	args := map[string]any{}
	for body != "" {
		p, ok := strings.CutPrefix(body, tagParameter)
		if !ok {
			return textCall{}, false
		}
		gt := strings.IndexByte(p, '>')
		end := strings.Index(p, tagParameterEnd)
		if gt < 0 || end < gt {
			return textCall{}, false
		}
		key, val := strings.TrimSpace(p[:gt]), p[gt+1:end]
		val = strings.TrimPrefix(strings.TrimSuffix(val, "\n"), "\n")
		if _, dup := args[key]; dup || key == "" {
			return textCall{}, false
		}
		args[key] = parameterValue(t, key, val)
		body = strings.TrimSpace(p[end+len(tagParameterEnd):])
	}
	s, err := jsonvalue.Encode(args)
	if err != nil {
		return textCall{}, false
	}
	return textCall{name: name, args: s}, true
}

// parameterValue is the value of a <parameter=key> whose text is val: the
// text where t's schema accepts only a string there, else its JSON value
// when it is one, else the text.
func parameterValue(t *boundTool, key, val string) any {
	if t.schema != nil && t.schema.stringOnly.OnlyString([]lenient.Segment{{Name: key, Index: -1}}) {
		return val
	}
	if v, err := jsonread.Decode(strings.TrimSpace(val)); err == nil {
		return v
	}
	return val
}

// mistralCalls reads [TOOL_CALLS] followed by a JSON array of envelopes,
// or by NAME[ARGS]{…}, once or more.
func (n *ToolNode) mistralCalls(text string) (calls []textCall, rest string, ok bool) {
	i := strings.Index(text, tagMistral)
	before, after := text[:i], strings.TrimSpace(text[i+len(tagMistral):])
	if strings.HasPrefix(after, "[") {
		d := jsonread.NewStringDecoder(after, true)
		v, err := d.Value()
		end := int(d.InputOffset())
		d.Release()
		items, isArray := v.([]any)
		if err != nil || !isArray || len(items) == 0 {
			return nil, "", false
		}
		for _, it := range items {
			c, ok := n.envelopeValue(it)
			if !ok {
				return nil, "", false
			}
			calls = append(calls, c)
		}
		return calls, before + after[end:], true
	}
	for _, part := range strings.Split(after, tagMistral) {
		name, args, found := strings.Cut(strings.TrimSpace(part), tagMistralArgs)
		name, args = strings.TrimSpace(name), strings.TrimSpace(args)
		if !found || n.tools[name] == nil {
			return nil, "", false
		}
		if _, err := jsonread.Decode(args); err != nil {
			return nil, "", false
		}
		calls = append(calls, textCall{name: name, args: args})
	}
	return calls, before, true
}

// wholeEnvelope reads a reply that is, whole, one envelope object, bare or
// in one code fence.
func (n *ToolNode) wholeEnvelope(text string) (textCall, bool) {
	t := strings.TrimSpace(text)
	if fenced, ok := strings.CutPrefix(t, "```"); ok {
		nl := strings.IndexByte(fenced, '\n')
		if nl < 0 || !strings.HasSuffix(fenced, "```") {
			return textCall{}, false
		}
		if lang := strings.TrimSpace(fenced[:nl]); lang != "" && lang != "json" {
			return textCall{}, false
		}
		t = strings.TrimSpace(strings.TrimSuffix(fenced[nl+1:], "```"))
	}
	if !strings.HasPrefix(t, "{") {
		return textCall{}, false
	}
	return n.envelope(t, false)
}

// envelope reads text as one {"name": …, "arguments"|"parameters": …}
// object: strictly, or, with repair (text inside a call tag, where the
// tag says a call is meant), through the repair stage's sound repair.
func (n *ToolNode) envelope(text string, repair bool) (textCall, bool) {
	v, err := jsonread.Decode(text)
	if err != nil && repair {
		res, rerr := repairArguments(text, n.cfg.repairOptions()) // repair.go
		v, err = res.value, rerr
	}
	if err != nil {
		return textCall{}, false
	}
	return n.envelopeValue(v)
}

// envelopeValue reads a decoded envelope: an object of "name" (a tool of
// the node) and at most one of "arguments" and "parameters" (an object, or
// a string holding the argument text), and nothing else.
func (n *ToolNode) envelopeValue(v any) (textCall, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return textCall{}, false
	}
	name, _ := m["name"].(string)
	if n.tools[name] == nil {
		return textCall{}, false
	}
	var args any = map[string]any{}
	switch len(m) {
	case 1:
	case 2:
		a, hasArgs := m["arguments"]
		if p, hasParams := m["parameters"]; hasParams {
			a, hasArgs = p, true
		}
		if !hasArgs {
			return textCall{}, false
		}
		args = a
	default:
		return textCall{}, false
	}
	switch a := args.(type) {
	case string:
		return textCall{name: name, args: a}, true
	case map[string]any:
		s, err := jsonvalue.Encode(a)
		if err != nil {
			return textCall{}, false
		}
		return textCall{name: name, args: s}, true
	}
	return textCall{}, false
}

// promoteTextCalls returns resp with the calls written in its text turned
// into tool calls (see WithTextToolCalls), when no choice has a tool call
// and a choice's text holds calls of the node's tools; resp itself
// otherwise. resp is not modified.
func (n *ToolNode) promoteTextCalls(resp *llms.ContentResponse) *llms.ContentResponse {
	if !n.cfg.textToolCalls {
		return resp
	}
	for _, ch := range resp.Choices {
		if ch != nil && (len(ch.ToolCalls) > 0 || ch.FuncCall != nil) {
			return resp
		}
	}
	for i, ch := range resp.Choices {
		if ch == nil || ch.Content == "" {
			continue
		}
		calls, rest := n.TextToolCalls(ch.Content)
		if calls == nil {
			continue
		}
		out := &llms.ContentResponse{Choices: append([]*llms.ContentChoice(nil), resp.Choices...)}
		cp := *ch
		cp.Content, cp.ToolCalls = rest, calls
		out.Choices[i] = &cp
		return out
	}
	return resp
}
