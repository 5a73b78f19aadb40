package saidex

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// RepairStep names one deterministic repair applied to a call's arguments.
//
// The repair stage runs, per call to a tool with a schema, before
// validation, and only when the argument string does not parse as JSON (or
// parses to a JSON string that itself holds an object). It repairs what
// clearly means exactly one value: reasoning blocks, code fences, leaked
// template tokens, prose and extra closing braces around a single object;
// the same object sent several times back to back; layers of JSON-string
// encoding; single, typographic and unescaped inner quotes, bare keys,
// Python True/False/None, missing and trailing commas, comments, literal
// control characters in strings; and a stream cut right after a complete
// value, whose closing brackets are added.
//
// It never guesses. Empty input, prose without an object, an object that
// exists only inside unfinished reasoning, two different objects, a stream
// cut inside a string, number, escape or key or after a key, colon or comma,
// unquoted values (NaN, arithmetic, tuples) and anything nested deeper than
// [MaxNestingDepth] are refused with a [*MalformedArgumentsError], and the
// call is answered with feedback saying what was received.
//
// [CallReport.RepairSteps] lists the steps applied to a call, in the order
// of the constants below.
type RepairStep string

// The repair steps. A call's steps are reported in this order.
const (
	RepairStripThinking  RepairStep = "strip_thinking"  // removed <think>…</think> reasoning
	RepairDoubleEncoded  RepairStep = "double_encoded"  // decoded layers of JSON-string encoding
	RepairTemplateTokens RepairStep = "template_tokens" // removed leaked template tokens
	RepairCodeFence      RepairStep = "code_fence"      // removed a markdown code fence
	RepairExtractObject  RepairStep = "extract_object"  // cut prose (or extra closing braces) around the object
	RepairRepeatedObject RepairStep = "repeated_object" // dropped identical copies of the object sent back to back
	RepairJSON           RepairStep = "json_repair"     // fixed the JSON syntax
)

// MaxNestingDepth is the deepest nesting of objects and arrays the repair
// stage reads: 10,000 levels, the limit of encoding/json. Argument strings
// nested deeper are answered with feedback, never parsed recursively.
const MaxNestingDepth = 10000

// maxEncodingLayers bounds how many layers of JSON-string encoding are undone.
const maxEncodingLayers = 8

// ErrMalformedArguments is wrapped by the error recorded for a call whose
// argument string could not be turned into one JSON value without guessing.
// The error is a [*MalformedArgumentsError], except for a plain tool's
// argument string over [WithMaxArgumentBytes], which is refused before any
// repair.
var ErrMalformedArguments = errors.New("saidex: malformed tool arguments")

// MalformedArgumentsError is the error recorded for a call whose argument
// string could not be turned into one JSON value without guessing. It wraps
// [ErrMalformedArguments].
type MalformedArgumentsError struct {
	// Reason says what was received, in words meant for the model that sent
	// it, for example "the arguments are empty" or "the argument string was
	// cut off inside a string value". It never quotes argument values.
	Reason string
}

// Error returns "saidex: malformed tool arguments: " followed by the reason.
func (e *MalformedArgumentsError) Error() string {
	return ErrMalformedArguments.Error() + ": " + e.Reason
}

// Unwrap returns [ErrMalformedArguments].
func (e *MalformedArgumentsError) Unwrap() error { return ErrMalformedArguments }

func malformed(format string, args ...any) error {
	return &MalformedArgumentsError{Reason: fmt.Sprintf(format, args...)}
}

// repair is the repair stage: it sets c.value and c.args, or c.err.
func (n *ToolNode) repair(c *call) {
	res, err := repairArguments(c.raw, repairOptions{
		stripThinking: n.cfg.stripThinking,
		jsonRepair:    n.cfg.jsonRepair,
		maxBytes:      n.cfg.maxArgumentBytes,
		maxRepair:     n.cfg.maxRepairBytes,
	})
	if err != nil {
		c.err, c.status = err, statusInvalid
		return
	}
	c.value, c.args, c.steps = res.value, res.json, res.steps
	c.repaired = len(res.steps) > 0
}

type repairOptions struct {
	stripThinking bool
	jsonRepair    bool
	maxBytes      int // argument strings above this are refused unparsed
	maxRepair     int // object spans above this are not given to jsonrepair
}

type repairResult struct {
	value any    // the decoded value; JSON numbers as json.Number
	json  string // its JSON text as the tool receives it: the raw string when it parsed
	steps []RepairStep
}

// repairArguments turns a raw argument string into one JSON value.
//
// An argument string that parses is returned as it is (one decode), unless
// it is a JSON string holding an object, whose encoding is undone. Anything
// else goes through the repair steps in order: strip reasoning blocks,
// extract the single object from prose, fences, template tokens and repeated
// copies, normalise strings, keys and literals, then jsonrepair for commas
// and closing brackets. jsonrepair's output is accepted only when it is
// valid JSON holding exactly the values that were read from the input.
func repairArguments(raw string, opt repairOptions) (repairResult, error) {
	if len(raw) > opt.maxBytes {
		return repairResult{}, malformed("the arguments are %d bytes, more than the limit of %d bytes", len(raw), opt.maxBytes)
	}
	res, err := repairLayer(raw, opt, 0)
	if err == nil && len(res.steps) == 0 && res.json != raw {
		// Only noise around the object was dropped (a byte order mark,
		// Unicode white space).
		res.steps = []RepairStep{RepairExtractObject}
	}
	slices.SortStableFunc(res.steps, func(a, b RepairStep) int {
		return slices.Index(repairStepOrder, a) - slices.Index(repairStepOrder, b)
	})
	return res, err
}

// repairStepOrder is the order in which steps are reported.
var repairStepOrder = []RepairStep{
	RepairStripThinking, RepairDoubleEncoded, RepairTemplateTokens, RepairCodeFence,
	RepairExtractObject, RepairRepeatedObject, RepairJSON,
}

// repairLayer repairs one layer of encoding.
func repairLayer(raw string, opt repairOptions, layer int) (repairResult, error) {
	v, err := decodeJSON(raw)
	if err == nil {
		return unwrapString(repairResult{value: v, json: raw}, opt, layer)
	}
	if errors.Is(err, errTooDeep) {
		return repairResult{}, malformed("the arguments are nested deeper than %d levels", MaxNestingDepth)
	}
	return repairBroken(raw, opt, layer)
}

// unwrapString undoes JSON-string encoding around an object: a parsed value
// that is a string holding (possibly encoded again) an object.
func unwrapString(res repairResult, opt repairOptions, layer int) (repairResult, error) {
	s, ok := res.value.(string)
	if !ok {
		return res, nil
	}
	cur := s
	for l := layer; l < maxEncodingLayers; l++ {
		t := strings.TrimSpace(cur)
		switch {
		case strings.HasPrefix(t, "{"):
			inner, err := repairLayer(t, opt, l+1)
			if err != nil {
				return repairResult{}, err
			}
			inner.steps = slices.Concat(res.steps, []RepairStep{RepairDoubleEncoded}, dropStep(inner.steps, RepairDoubleEncoded))
			return inner, nil
		case strings.HasPrefix(t, `"`):
			v, err := decodeJSON(t)
			next, isString := v.(string)
			if err != nil || !isString {
				return res, nil
			}
			cur = next
		default:
			return res, nil
		}
	}
	return res, nil
}

func dropStep(steps []RepairStep, s RepairStep) []RepairStep {
	out := steps[:0:0]
	for _, x := range steps {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func addStep(steps []RepairStep, s RepairStep) []RepairStep {
	for _, x := range steps {
		if x == s {
			return steps
		}
	}
	return append(steps, s)
}

// repairBroken repairs an argument string that does not parse (its only
// caller, repairLayer, has tried).
func repairBroken(raw string, opt repairOptions, layer int) (repairResult, error) {
	var steps []RepairStep
	t := strings.TrimSpace(strings.TrimPrefix(raw, "\uFEFF"))
	if t == "" {
		if raw == "" {
			return repairResult{}, malformed("the arguments are empty")
		}
		return repairResult{}, malformed("the arguments are only white space")
	}

	// Reasoning blocks.
	if opt.stripThinking {
		rest, stripped, err := stripThinking(t)
		if err != nil {
			return repairResult{}, err
		}
		if stripped {
			steps = append(steps, RepairStripThinking)
			t = strings.TrimSpace(rest)
			if t == "" {
				return repairResult{}, malformed("the arguments hold only a reasoning block and no JSON object after it")
			}
			if v, err := decodeJSON(t); err == nil {
				res, err := unwrapString(repairResult{value: v, json: t, steps: steps}, opt, layer)
				return res, err
			}
		}
	} else if hasThinkTag(t) {
		return repairResult{}, malformed("the arguments hold a reasoning block, and stripping reasoning is disabled")
	}

	// An object whose quotes are all escaped: {\"a\": 1}.
	if strings.HasPrefix(t, `{\"`) && layer < maxEncodingLayers {
		var s string
		if err := json.Unmarshal([]byte(`"`+t+`"`), &s); err == nil {
			res, err := repairLayer(s, opt, layer+1)
			if err != nil {
				return repairResult{}, err
			}
			res.steps = slices.Concat(steps, []RepairStep{RepairDoubleEncoded}, dropStep(res.steps, RepairDoubleEncoded))
			return res, nil
		}
	}

	// Extraction of the single object.
	start := strings.IndexByte(t, '{')
	if start < 0 {
		if strings.TrimSpace(templateToken.ReplaceAllString(fence.ReplaceAllString(t, ""), "")) == "" {
			return repairResult{}, malformed("the arguments hold only template tokens or an empty code fence, no JSON object")
		}
		return repairResult{}, malformed("the arguments hold text but no JSON object")
	}
	// A JSON string holding the object, inside prose: Args: "{\"a\": 1}".
	if start > 0 && t[start-1] == '"' && layer < maxEncodingLayers {
		if res, ok, err := encodedInProse(t, start-1, steps, opt, layer); ok {
			return res, err
		}
	}
	limit := opt.maxRepair
	if !opt.jsonRepair {
		limit = 0
	}
	sc, err := scanObject(t[start:], limit)
	if errors.Is(err, errNeedsLargeRepair) {
		return repairResult{}, errRepairLimit(opt)
	}
	if err != nil {
		return repairResult{}, err
	}
	defer sc.release()
	span := t[start : start+sc.i]
	prefix, suffix := t[:start], t[start+sc.i:]

	// After the object: extra closing braces, identical copies.
	suffix = strings.TrimSpace(suffix)
	if !sc.truncated {
		if s := strings.TrimLeft(suffix, "}"); len(s) != len(suffix) {
			steps = addStep(steps, RepairExtractObject)
			suffix = strings.TrimSpace(s)
		}
		for strings.HasPrefix(suffix, "{") {
			same, rest := repeatedCopy(sc, span, suffix)
			if !same {
				return repairResult{}, malformed("two different JSON objects were sent; send one object per call")
			}
			steps = addStep(steps, RepairRepeatedObject)
			suffix = strings.TrimSpace(rest)
		}
	}
	around, err := classifyAround(prefix, suffix)
	if err != nil {
		return repairResult{}, err
	}
	for _, s := range around {
		steps = addStep(steps, s)
	}

	// The object itself. repairBroken runs only on text that did not
	// parse: a span that is that text but for JSON white space cannot.
	if !sc.normalised && span != strings.Trim(raw, " \t\r\n") {
		if v, err := decodeJSON(span); err == nil {
			return unwrapString(repairResult{value: v, json: span, steps: steps}, opt, layer)
		}
	}
	if !opt.jsonRepair || opt.maxRepair == 0 || len(span) > opt.maxRepair {
		return repairResult{}, errRepairLimit(opt)
	}
	// jsonrepair gets the object span; its output is kept only when it is
	// valid JSON holding exactly the scanned values (in order, closed where
	// the stream was cut). Otherwise the scanner's canonical text is used:
	// it holds the same values by construction. jsonrepair v0.4.8 fails the
	// check on its known corruptions (FACTS.md) and, for example, doubles
	// the escapes of `"no onions, \"extra\" cheese"`.
	want := sc.expected() // complete: the span is within the limit
	var v any
	fixed, ok := "", false
	if out, err := jsonrepair.Repair(span); err == nil {
		v, fixed, ok = readMatching(out, want)
	}
	if !ok {
		v, fixed, ok = readMatching(sc.out.String(), want)
	}
	if !ok {
		return repairResult{}, malformed("the arguments are not valid JSON and could not be repaired without guessing")
	}
	return repairResult{value: v, json: fixed, steps: append(steps, RepairJSON)}, nil
}

// encodedInProse repairs a JSON string starting at t[q] that holds an
// object, with prose around it. ok is false when t[q:] does not start with
// such a string.
func encodedInProse(t string, q int, steps []RepairStep, opt repairOptions, layer int) (res repairResult, ok bool, err error) {
	dec := json.NewDecoder(strings.NewReader(t[q:]))
	var inner string
	if dec.Decode(&inner) != nil || !strings.HasPrefix(strings.TrimSpace(inner), "{") {
		return repairResult{}, false, nil
	}
	around, err := classifyAround(t[:q], t[q+int(dec.InputOffset()):])
	if err != nil {
		return repairResult{}, true, err
	}
	res, err = repairLayer(strings.TrimSpace(inner), opt, layer+1)
	if err != nil {
		return repairResult{}, true, err
	}
	res.steps = slices.Concat(steps, around, []RepairStep{RepairDoubleEncoded}, dropStep(res.steps, RepairDoubleEncoded))
	return res, true, nil
}

// errRepairLimit is the refusal of an object that needs repair when repair
// is disabled or the object is larger than the repair limit.
func errRepairLimit(opt repairOptions) error {
	if !opt.jsonRepair || opt.maxRepair == 0 {
		return malformed("the arguments are not valid JSON (JSON repair is disabled)")
	}
	return malformed("the arguments are not valid JSON, and the object is too large to repair (the limit is %d bytes)", opt.maxRepair)
}

// repeatedCopy reports whether suffix starts with a copy of the scanned
// object (possibly cut off, when it is a prefix of the first copy's text),
// and returns the text after it.
func repeatedCopy(first *scanner, span, suffix string) (bool, string) {
	sc2, err := scanObject(suffix, -1)
	if err == nil {
		defer sc2.release()
	}
	if err != nil || sc2.truncated {
		// A cut-off copy: its text is a prefix of the first copy.
		return strings.HasPrefix(span, strings.TrimSpace(suffix)), ""
	}
	firstToks := first.toks
	if first.partial { // its tokens stop at the repair limit: scan it whole
		full, err := scanObject(span, -1)
		if err != nil { // not reached: span was scanned before
			return false, ""
		}
		defer full.release()
		firstToks = full.toks
	}
	return sameTokens(firstToks, sc2.toks), suffix[sc2.i:]
}

var (
	thinkOpen  = regexp.MustCompile(`(?i)<think(?:ing)?>`)
	thinkClose = regexp.MustCompile(`(?i)</think(?:ing)?>`)
	// templateToken matches leaked chat-template and tool-call tokens.
	templateToken = regexp.MustCompile(`<\|[A-Za-z0-9_.:-]{1,40}\|>|\[/?[A-Z][A-Z_]{2,30}\]|</?(?:tool_calls?|function_calls?|tool_use|function|arguments|args|parameters|invoke)>`)
	// fence matches a markdown code fence marker with its language tag.
	fence = regexp.MustCompile("```[A-Za-z0-9_+-]*")
)

func hasThinkTag(s string) bool {
	return mayHoldThinkTag(s) && (thinkOpen.MatchString(s) || thinkClose.MatchString(s))
}

// mayHoldThinkTag is the cheap test before thinkOpen and thinkClose: they
// match only where '<', possibly followed by '/', is followed by 't' or
// 'T' (the only letters (?i)t folds to).
func mayHoldThinkTag(s string) bool {
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			return false
		}
		s = strings.TrimPrefix(s[i+1:], "/")
		if len(s) > 0 && (s[0] == 't' || s[0] == 'T') {
			return true
		}
	}
}

// mayHoldTemplateToken is the cheap test before templateToken, which
// matches only where '<' or '[' is.
func mayHoldTemplateToken(s string) bool {
	return strings.ContainsAny(s, "<[")
}

// mayHoldFence is the cheap test before fence.
func mayHoldFence(s string) bool {
	return strings.Contains(s, "```")
}

// stripThinking removes reasoning: every <think>…</think> block, and
// everything before a closing tag that has no opening tag (the reasoning
// began in the prompt template). Reasoning that is never closed is refused:
// an object inside it, or next to it, is a draft, not a call.
func stripThinking(s string) (string, bool, error) {
	if !mayHoldThinkTag(s) {
		return s, false, nil
	}
	var kept strings.Builder
	stripped := false
	for {
		open, cl := thinkOpen.FindStringIndex(s), thinkClose.FindStringIndex(s)
		switch {
		case cl != nil && (open == nil || cl[0] < open[0]):
			kept.Reset()
			s = s[cl[1]:]
		case open != nil:
			kept.WriteString(s[:open[0]])
			rest := s[open[1]:]
			end := thinkClose.FindStringIndex(rest)
			if end == nil {
				return "", false, malformed("the arguments end inside unfinished reasoning: a <think> block is never closed")
			}
			s = rest[end[1]:]
		default:
			kept.WriteString(s)
			return kept.String(), stripped, nil
		}
		stripped = true
	}
}

// classifyAround names what surrounds the object (template tokens, a code
// fence, prose) and refuses an object that is part of a larger value.
func classifyAround(prefix, suffix string) ([]RepairStep, error) {
	var steps []RepairStep
	p, s := prefix, suffix
	if mayHoldTemplateToken(p) && templateToken.MatchString(p) || mayHoldTemplateToken(s) && templateToken.MatchString(s) {
		steps = append(steps, RepairTemplateTokens)
		p, s = templateToken.ReplaceAllString(p, " "), templateToken.ReplaceAllString(s, " ")
	}
	p, s = strings.TrimSpace(p), strings.TrimSpace(s)
	if strings.HasSuffix(p, "[") || strings.HasSuffix(p, ",") || strings.HasPrefix(s, ",") || strings.HasPrefix(s, "]") {
		return nil, malformed("the object is one item of a larger value; send the arguments as one JSON object")
	}
	if strings.Contains(s, "{") {
		return nil, malformed("two JSON objects were sent (one in the text after the first); send one object per call")
	}
	if mayHoldFence(p) && fence.MatchString(p) || mayHoldFence(s) && fence.MatchString(s) {
		steps = append(steps, RepairCodeFence)
		p, s = strings.TrimSpace(fence.ReplaceAllString(p, "")), strings.TrimSpace(fence.ReplaceAllString(s, ""))
	}
	if p != "" || s != "" {
		steps = append(steps, RepairExtractObject)
	}
	return steps, nil
}

// Errors of decodeJSON for a text that is not one JSON value.
var (
	errNotJSON = errors.New("not one JSON value")
	errTooDeep = errors.New("exceeded max depth") // encoding/json's words, for the same limit
)

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number.
// A text that is not one JSON value is refused by checkSyntax, in one pass
// that allocates nothing for the text, before any decoding: errTooDeep when
// it is nested deeper than MaxNestingDepth, else errNotJSON.
func decodeJSON(s string) (any, error) {
	switch checkSyntax(s) {
	case syntaxInvalid:
		return nil, errNotJSON
	case syntaxTooDeep:
		return nil, errTooDeep
	}
	v, err := readValid(s)
	if err != nil { // not reached: checkSyntax accepted s
		return nil, errNotJSON
	}
	return v, nil
}
