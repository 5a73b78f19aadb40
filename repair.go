package saidex

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/internal/schemawalk"
)

// RepairStep names one deterministic repair applied to a call's arguments.
//
// The repair stage runs, per call (a plain tool's too, see
// [ToolWithSchema]), before validation, and only when the argument string
// does not parse as JSON (or parses to a JSON string that itself holds an
// object). It repairs what
// clearly means exactly one value: reasoning blocks, code fences, leaked
// template tokens, prose (with brace placeholders such as {city}) and
// extra closing braces around a single object; the same object sent
// several times (equal in value), back to back or in the prose; the
// cumulative re-sends of a stream; layers of JSON-string encoding; single,
// typographic and unescaped inner quotes, bare keys, Python
// True/False/None, missing and trailing commas, comments, literal control
// characters in strings; the classes named by the steps after
// [RepairJSON]; and a stream cut right after a complete value, whose
// closing brackets are added (not inside an array: the items after the
// cut are unknown, so that text is refused). Where the tool's schema accepts exactly one
// placement of those brackets (at the end, or where a member ends earlier,
// as if dropped there), that placement is taken; see docs/soundness.md
// for when.
//
// Repair is linear in the size of the argument string, and runs on every
// argument string [WithMaxArgumentBytes] admits.
//
// Empty, white-space-only or null arguments for a tool whose schema
// accepts {} run the tool with {} ([RepairEmptyArguments]); where the
// schema requires members they are refused. Where the schema accepts only
// a string at a location, an unquoted token there is that string
// ([RepairQuotedBareValue]).
//
// It never guesses: a text with two readings is refused (text continuing
// JSON after the complete object, a repeated key with different values,
// escapes of a double-encoded object that read two ways, quotes or
// comments whose extent is ambiguous; see docs/soundness.md,
// checked by a fault-injection oracle). Empty input (see above), prose without an object, an object that
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
	RepairDoubleEncoded  RepairStep = "double_encoded"  // decoded layers of JSON-string encoding (or CSV-doubled quotes); escapes with two readings are refused
	RepairTemplateTokens RepairStep = "template_tokens" // removed leaked template tokens
	// RepairTemplateQuotes: read strings written between a template's
	// quote tokens (Gemma 4's {city:<|"|>Paris<|"|>}), whose text is as it
	// is, without escapes, as JSON strings. A token that pairs with none
	// (an opening token left out), a pair outside a key's or value's place
	// and a text holding a backslash that may be an escape are refused.
	RepairTemplateQuotes RepairStep = "template_quotes"
	RepairCodeFence      RepairStep = "code_fence"     // removed a markdown code fence
	RepairExtractObject  RepairStep = "extract_object" // cut prose (or extra closing braces) around the object
	// RepairPlaceholders: the prose around the object held brace
	// placeholders ({city}, {{name}}): one name in braces, which is not an
	// object, so it is neither taken for the object nor for a second one.
	RepairPlaceholders   RepairStep = "placeholders"
	RepairRepeatedObject RepairStep = "repeated_object" // dropped copies of the object (equal in value, members in any order), back to back or in the prose after it
	// RepairCumulativeStream: the arguments were the cumulative re-sends of
	// a stream (a prefix, a longer prefix, then the whole object, back to
	// back); the last, complete one is kept. A text that also reads as one
	// stream cut off is refused.
	RepairCumulativeStream RepairStep = "cumulative_stream"
	RepairJSON             RepairStep = "json_repair" // fixed the JSON syntax

	// The named syntax repairs, each reported after RepairJSON.

	// RepairJoinStrings: joined a string written as quoted pieces and '+'
	// ('abc' + 'def' is "abcdef"). A piece holding an unescaped quote, or a
	// piece joined to anything but a quoted string, is refused.
	RepairJoinStrings RepairStep = "join_strings"

	// RepairMissingColon: inserted the colon missing between a key and its
	// value ("key" "value", "key" 2, key 'value'), which white space
	// separates. A key followed by anything but a value is refused.
	RepairMissingColon RepairStep = "missing_colon"

	// RepairStrayComma: dropped a comma right after the top-level
	// object's opening brace, before any member, or right after the
	// complete top-level object, before no other value. (After a nested
	// object's brace it is refused: {"o": {, …} also reads as {"o": {},
	// …} with a brace dropped.)
	RepairStrayComma RepairStep = "stray_comma"

	// RepairMismatchedBracket: added the ']' missing right before the
	// closing braces that end the object. A ']' while only objects are
	// open is weighed as RepairWrongCloser is (a mistyped '}', a stray
	// ']', an array whose '[' was dropped). A mismatched bracket with
	// another reading (an array of one item, whose '[' may be stray:
	// {"a": [1}; a string holding a bracket before it), and a ']' among
	// the closers after the complete object, are refused.
	RepairMismatchedBracket RepairStep = "mismatched_bracket"

	// RepairDoubledBraces: read an object written with doubled braces
	// ({{ … }}, as template engines escape them). An object opened with
	// "{{" must close with "}}"; nested objects may be doubled or not.
	RepairDoubledBraces RepairStep = "doubled_braces"

	// RepairInvisibleSpace: read Unicode white space and invisible format
	// characters (zero-width space, word joiner, byte order mark) between
	// tokens as white space. Inside a string they are kept as characters.
	// A zero-width character touching a string's quote, which may be the
	// string's own with its quote moved past it, is refused, and so is one
	// touching an unquoted value.
	RepairInvisibleSpace RepairStep = "invisible_space"

	// RepairMissingQuote: added the opening quote of a key or string value
	// whose closing quote is present ({name": "Ann"}, {"a":New York"}),
	// when the text before the quote is on one line and holds no quote,
	// bracket, comma or colon. A value with neither quote is refused, and
	// so is a value whose first word follows white space, a control or
	// invisible character or a backslash ({"a": New York"}: " New York"
	// is as likely), or is a literal (true", null").
	RepairMissingQuote RepairStep = "missing_quote"

	// RepairRepeatedKey: dropped an object member whose name and value
	// repeat an earlier member's, so that the tool receives each name
	// once. A name sent twice with different values is refused, the
	// feedback naming the key. This step runs on every argument string
	// that reaches repair, valid JSON included.
	RepairRepeatedKey RepairStep = "repeated_key"

	// RepairEscapedWhitespace: read \n, \r and \t written as two
	// characters between tokens, outside any string ("rows": \n[1, 2]),
	// as the white space they escape. Inside a string they stay escapes;
	// a backslash before anything else outside a string is refused, and so
	// is an escape touching a value (42\n, \nnull) or standing alone
	// where an array item belongs ([\n]): it may belong to a string whose
	// quotes are missing.
	RepairEscapedWhitespace RepairStep = "escaped_whitespace"

	// RepairUnclosedKey: added the closing quote of a key written up to
	// its colon ({"selected: [1, 2], "n": 1}), when the key holds no white
	// space or quote, a value follows the colon, and no later quote could
	// close the key as written ({"a: b": 1} keeps its key). In double
	// quotes the key may also hold the colon, its own colon dropped
	// ("selected:"): the tool's schema must name the one key, or the
	// call is refused.
	RepairUnclosedKey RepairStep = "unclosed_key"

	// RepairStrayCloser: dropped one ']' right after the complete object,
	// the last of the text, which opens nothing ({"a": 1}]). More closers,
	// or text after it, are refused.
	RepairStrayCloser RepairStep = "stray_closer"

	// RepairWrongCloser: changed a mismatched closing bracket when exactly
	// one change of that bracket (the other kind, the other kind inserted
	// before it, deleting a ']', deleting the innermost opener, inserting
	// a dropped '[' before the value it follows) reads the object to its
	// end with no other bracket mended and no comma or colon added
	// ({"a": [1, 2}, "b": 3} is {"a": [1, 2], "b": 3}). A '}' is inserted
	// only into an object of one member that holds no object (dropped
	// after any member of a larger one, it is a guess), a bracket touching
	// the value after it, or followed by a member after a value (a comma
	// mistyped?), is left alone. With two readings of different value
	// (the opener mistyped is one: {"a": {]}), or none, the call is
	// refused; so it is when members follow the bracket and either the
	// bracket deleted, with one closer added at the end, reads otherwise
	// ({"o": {"a": 1], "b": 2}), or a nested object was closed before
	// more members, or a member's array of one item is closed by '}'
	// ({"a": [1}, "b": 2}: its '[' may be stray, the '}' early).
	RepairWrongCloser RepairStep = "wrong_closer"

	// RepairLiteralCase: read TRUE, FALSE, NULL, Null, none and NONE as
	// the JSON literals (Python's True, False and None are part of
	// RepairJSON). Inside a word (NULLABLE) or a string they are text.
	// Like Python's, they are read so only where the tool's schema does
	// not accept the word as a string at that location ("None" with its
	// quotes dropped reads the same); elsewhere the call is refused.
	RepairLiteralCase RepairStep = "literal_case"

	// RepairLooseNumber: read numbers written .5, -.5, 5. and +5 as 0.5,
	// -0.5, 5 and 5, where the tool's schema does not accept the text as
	// a string at that location ("+42" with its quotes dropped reads the
	// same; elsewhere the call is refused). A "5." at the end of the text
	// (maybe cut off), and a sign or dot right after another value, are
	// refused. A leading zero (05 as 5) is read where it has no other
	// reading (in an array, 05 may be 0 and 5 with a comma dropped), in
	// arguments of at most 2 KiB.
	RepairLooseNumber RepairStep = "loose_number"

	// RepairNumericKey: quoted a key written as an integer ({1: "a"} is
	// {"1": "a"}). A fraction, a leading zero or a digit-led word is
	// refused.
	RepairNumericKey RepairStep = "numeric_key"

	// RepairQuotedBareValue: read an unquoted token as a string where the
	// tool's schema accepts only a string ("direction": both, an id
	// 123e4567-e89b-…): a "type": "string" (with any format, pattern or
	// enum), a string const, or an enum of strings only. The token holds
	// no white space, quote, backslash, bracket, comma, '#' or comment,
	// does not end with a colon, and a comma or closing bracket ends it
	// (right after it, or after a line break or tab; never after a space).
	// Inside a double-encoded object no token is read so (its line breaks
	// may be a value's decoded escapes). Refused where the schema
	// allows other types or names none, for a plain tool (no schema), for
	// a token at the end of the text (it may be cut off), and for tokens
	// naming another value (NaN, undefined, nil). Spaces before the token
	// may be its value's own (" both" with its quotes dropped): they are
	// read as layout where the text's other values have as many after the
	// same separator, or where the schema accepts the token with none of
	// them (an enum, a pattern); else it is refused. JSON, Python and
	// other-case literals and numbers keep their reading, which the
	// schema then refuses.
	RepairQuotedBareValue RepairStep = "quoted_bare_value"

	// RepairEmptyArguments: the arguments were empty, white space only or
	// null, and the tool's schema accepts {} (it requires no member): the
	// tool is called with {}. Where the schema requires members, the call
	// is answered with feedback listing them. A plain tool (no schema)
	// receives the text as sent: nothing says {} is meant.
	RepairEmptyArguments RepairStep = "empty_arguments"

	// RepairCoerce: [CoercionLax] converted values of the arguments (see
	// [WithCoercion]). It comes after the steps of the repair stage.
	RepairCoerce RepairStep = "coerce"
)

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
// Arguments the tool's schema precheck accepts as sent need neither repair
// nor decoding: c.args is the raw text and c.rawValid is set, so that the
// validate stage accepts them at once. A plain tool's call is repaired
// without validation (repairPlain).
func (n *ToolNode) repair(c *call) {
	if c.tool.schema == nil {
		n.repairPlain(c)
		return
	}
	if n.validAsSent(c) {
		c.args, c.rawValid = c.raw, true
		return
	}
	if isEmptyArguments(c.raw) && c.tool.schema.acceptsEmpty {
		c.value, c.args, c.steps, c.repaired = map[string]any{}, "{}", []RepairStep{RepairEmptyArguments}, true
		return
	}
	opt := n.cfg.repairOptions()
	opt.schema = c.tool.schema
	res, err := repairArguments(c.raw, opt)
	if err == nil && len(res.steps) > 0 {
		err = callEnvelope(res.value, c.tool.schema.fields)
	}
	if err != nil {
		if k := mergedObjects(c.raw); k > 0 { // merged.go: calls merged by an accumulator
			err = mergedArgumentsError(k)
		}
		c.err, c.status = err, statusInvalid
		return
	}
	c.value, c.args, c.steps = res.value, res.json, res.steps
	c.repaired = len(res.steps) > 0
}

// callEnvelope refuses a repaired object that is a call envelope,
// {"name": "get_weather", "arguments": …} (or "parameters"), where the
// tool's schema names neither member: the model wrapped its call, or sent
// the envelope in place of the arguments, and the envelope is not what the
// tool takes. A text that parses as sent is never checked.
func callEnvelope(v any, fields []schemaField) error {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 {
		return nil
	}
	tool, ok := m["name"].(string)
	if !ok {
		return nil
	}
	for _, inner := range [...]string{"arguments", "parameters"} {
		if _, ok := m[inner]; !ok {
			continue
		}
		if slices.ContainsFunc(fields, func(f schemaField) bool { return f.name == "name" || f.name == inner }) {
			return nil
		}
		return malformed("the object is a call envelope naming the tool ({\"name\": %q, %q: …}), not its arguments; send only the arguments object", tool, inner)
	}
	return nil
}

// repairPlain is the repair stage of a call to a plain tool, which has no
// schema and so is never validated: arguments that repair cleanly are
// passed as the repaired JSON text; arguments that parse, and anything
// lenient refuses (free text a plain tool may expect), pass unchanged,
// except different JSON objects one after another: several calls merged
// into one (merged.go), which never run. Text without a '{' holds no
// object and is passed at once.
func (n *ToolNode) repairPlain(c *call) {
	c.args, c.status = c.raw, statusValid
	if !strings.Contains(c.raw, "{") {
		return
	}
	res, err := lenient.Repair(c.raw, lenient.Options{StripThinking: n.cfg.stripThinking, FixSyntax: n.cfg.jsonRepair})
	if err != nil {
		if k := mergedObjects(c.raw); k > 0 { // merged.go: calls merged by an accumulator never run
			c.args, c.err, c.status = "", mergedArgumentsError(k), statusInvalid
		}
		return
	}
	if len(res.Steps) == 0 {
		return
	}
	c.args, c.steps, c.repaired = res.JSON, repairSteps(res.Steps), true
}

// repairSteps converts lenient's steps, whose values are the RepairStep
// values; nil for none.
func repairSteps(steps []lenient.Step) []RepairStep {
	if len(steps) == 0 {
		return nil
	}
	out := make([]RepairStep, len(steps))
	for i, s := range steps {
		out[i] = RepairStep(s)
	}
	return out
}

// validAsSent is the fast path of the repair stage: it reports whether c's
// arguments, as sent, are certainly valid for a tool without validators
// (which need the decoded value), by the schema's precheck on their bytes.
func (n *ToolNode) validAsSent(c *call) bool {
	return n.acceptsAsSent(c.tool, c.raw) // check.go
}

// decodeAsSent is validAsSent fused with the tool's decode, for a call of
// a NewTool tool in a run that executes its calls: the precheck checks
// the arguments as sent and decodes them in the same pass
// (precheck.Checker.Decode). When it vouches for them the call is valid
// as sent, as after validAsSent, and c.decoded holds the value the tool
// then runs with instead of decoding the text again. It reports whether
// it did; when not, the call is untouched and goes through repair.
func (n *ToolNode) decodeAsSent(c *call) bool {
	t := c.tool
	if c.status != statusPending || t == nil || t.target == nil || len(t.validators) > 0 || len(c.raw) > n.cfg.maxArgumentBytes {
		return false
	}
	v, ok := t.schema.precheck.Decode(c.raw, n.cfg.coercion == CoercionLax, t.target)
	if !ok {
		return false
	}
	c.args, c.rawValid, c.decoded, c.status = c.raw, true, v, statusValid
	return true
}

type repairOptions struct {
	stripThinking bool
	jsonRepair    bool
	maxBytes      int // argument strings above this are refused unparsed
	// schema is the tool's, for RepairQuotedBareValue and for placing
	// missing closers (chooseReading); nil for none.
	schema *compiledSchema
}

// isEmptyArguments reports whether raw holds no arguments: it is empty,
// white space (a byte order mark included) or null.
func isEmptyArguments(raw string) bool {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), "\uFEFF"))
	return t == "" || t == "null"
}

// repairOptions are the repair options of a node's configuration: those of
// the model's own arguments and of the correction model's answers.
func (c *config) repairOptions() repairOptions {
	return repairOptions{stripThinking: c.stripThinking, jsonRepair: c.jsonRepair, maxBytes: c.maxArgumentBytes}
}

type repairResult struct {
	value any    // the decoded value; JSON numbers as json.Number
	json  string // its JSON text as the tool receives it: the raw string when it parsed
	steps []RepairStep
}

// repairArguments turns a raw argument string into one JSON value with
// package lenient (see [RepairStep]), and decodes that value once. An
// argument string that parses is returned as it is. A refusal is a
// *MalformedArgumentsError carrying lenient's reason.
func repairArguments(raw string, opt repairOptions) (repairResult, error) {
	if len(raw) > opt.maxBytes {
		return repairResult{}, malformed("the arguments are %d bytes, more than the limit of %d bytes", len(raw), opt.maxBytes)
	}
	lo := lenient.Options{StripThinking: opt.stripThinking, FixSyntax: opt.jsonRepair}
	if opt.schema != nil {
		lo.Schema, lo.Choose = opt.schema.stringOnly, opt.schema.chooseReading
		lo.Foreign = opt.schema.foreign
	}
	res, err := lenient.Repair(raw, lo)
	if err != nil {
		var le *lenient.Error
		if errors.As(err, &le) {
			return repairResult{}, &MalformedArgumentsError{Reason: le.Reason}
		}
		return repairResult{}, malformed("%v", err) // not reached: lenient refuses with *lenient.Error
	}
	// One pass: lenient checked the text, or produced it.
	v, err := jsonread.Read(res.JSON)
	if errors.Is(err, jsonread.ErrTooDeep) {
		return repairResult{}, malformed("the arguments are nested deeper than %d levels", MaxNestingDepth)
	}
	if err != nil { // not reached: FuzzRepair (internal/lenient)
		return repairResult{}, malformed("the arguments are not valid JSON and could not be repaired without guessing")
	}
	return repairResult{value: v, json: res.JSON, steps: repairSteps(res.Steps)}, nil
}

// chooseReading picks among the readings of a text whose closing brackets
// are missing at its end (lenient's Options.Choose): readings[0] closes
// them at the end, the others place them where a member ends earlier. It
// takes the one reading the schema accepts, if exactly one does (the
// validators are not run). It takes another reading than the first only
// where the first fails on members the schema does not allow where they
// are, and on nothing else: a cut adds no member, while a text that lacks
// required members may be a valid value cut off, whose trailing members no
// reading holds, and a wrong type may be the model's own (which coercion
// or feedback answer), so the first reading's issues are then the feedback
// it needs. Where the schema has alternatives (anyOf, oneOf, not, if),
// keywords that tie members together (unevaluated*, dependent*) or an enum
// of objects, whose issues do not tell, it takes only the first. -1 when
// it cannot tell.
func (s *compiledSchema) chooseReading(readings []string) int {
	valid := -1
	var first []Issue // of readings[0]
	for k, r := range readings {
		v, err := jsonread.Read(r)
		if err != nil {
			return -1 // not reached: lenient offers JSON values only
		}
		issues := s.validateText(r, v)
		if k == 0 {
			first = issues
		}
		if len(issues) > 0 {
			continue
		}
		if valid >= 0 {
			return -1
		}
		valid = k
	}
	if valid <= 0 {
		return valid
	}
	if !s.issuesTell {
		return -1
	}
	if !slices.ContainsFunc(first, func(is Issue) bool { return is.Kind != IssueAdditional }) {
		return valid // first failed (valid > 0), on members not allowed only
	}
	return -1
}

// foreign reports whether the JSON text reading names a member the tool
// does not have (lenient's Options.Foreign): a member its schema does not
// list under properties, in an object whose schemas list some and no
// patternProperties (hasUnknownKey, as correction routing judges), or,
// where the issues tell (issuesTell), a member the schema does not allow
// where it is (IssueAdditional). False for a text that is not one JSON
// value.
func (s *compiledSchema) foreign(reading string) bool {
	v, err := jsonread.Read(reading)
	if err != nil {
		return false
	}
	if hasUnknownKey(schemawalk.Of(s.schema), v) { // correct.go
		return true
	}
	return s.issuesTell && slices.ContainsFunc(s.validateText(reading, v), func(is Issue) bool { return is.Kind == IssueAdditional })
}

// decodeJSON decodes exactly one JSON value, keeping numbers as
// json.Number, with package jsonread (see [jsonread.Decode]): a text that
// is not one JSON value is refused by a linear syntax check before any
// decoding.
func decodeJSON(s string) (any, error) { return jsonread.Decode(s) }
