package saidex

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/saidex/saidex-go/internal/schemawalk"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxQuotedArguments is how much of an unparseable argument string the
// feedback quotes back to the agent.
const maxQuotedArguments = 200

// feedbackFor renders the content of the tool message that answers an
// invalid call the node does not execute: a call without a function, a
// call whose arguments could not be parsed, or a call whose arguments
// break the tool's schema. The text is deterministic: it depends only on
// the call's name, raw arguments, schema and issues, and is at most
// maxToolMessageBytes long (boundMessage).
func feedbackFor(c *call) string {
	return boundMessage(feedbackText(c))
}

// feedbackText is feedbackFor before its bound.
func feedbackText(c *call) string {
	var b strings.Builder
	switch {
	case c.merged != nil: // merged.go
		return mergedNameFeedback(c, c.merged)
	case c.noFunc:
		b.WriteString("Error: this tool call names no function, so nothing was executed. ")
		b.WriteString("Call one of the available tools by name, with its arguments as one JSON object.")
	case c.err != nil:
		b.WriteString(feedbackHead + unreadableHead) // the markers: limit.go
		b.WriteString(c.name)
		b.WriteString(unreadableTail)
		if me := (*MalformedArgumentsError)(nil); errors.As(c.err, &me) && me.Reason != "" {
			b.WriteString(" (")
			b.WriteString(me.Reason)
			b.WriteString(")")
		}
		b.WriteString(", so nothing was executed. ")
		writeReceived(&b, c.raw, c.secrets())
		b.WriteByte('\n')
		writeFields(&b, c)
		if errors.Is(c.err, ErrMergedCalls) { // merged.go
			b.WriteString("Send each of the merged calls as a separate tool call, each with its arguments as one JSON object.")
			break
		}
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with its arguments as one JSON object, and nothing before or after it.")
	case len(c.issues) > 0:
		b.WriteString(feedbackHead)
		b.WriteString(c.name)
		b.WriteString(notExecuted + " its arguments do not match the tool's schema:\n")
		writeIssues(&b, c.issues, c.moreIssues)
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with these fields corrected.")
	default: // not reached: an invalid call has an error or issues
		b.WriteString(feedbackHead)
		b.WriteString(c.name)
		b.WriteString(notExecuted + " its arguments were not accepted.\n")
		writeFields(&b, c)
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with its arguments as one JSON object.")
	}
	return b.String()
}

// repeatedFeedback answers a call identical to one already answered with
// feedback (see [CallReport].Repeated): it says so and repeats the issues,
// which are those of the identical arguments.
func repeatedFeedback(c *call) string {
	var b strings.Builder
	b.WriteString(feedbackHead)
	b.WriteString(c.name)
	b.WriteString(notExecuted + " this call is identical to an earlier ")
	b.WriteString(c.name)
	b.WriteString(" call that was already rejected, and it has the same problems:\n")
	if c.err != nil || len(c.issues) == 0 {
		b.WriteString("- the arguments could not be read as one JSON object")
		if me := (*MalformedArgumentsError)(nil); errors.As(c.err, &me) && me.Reason != "" {
			b.WriteString(" (")
			b.WriteString(me.Reason)
			b.WriteString(")")
		}
		b.WriteByte('\n')
		writeFields(&b, c)
	} else {
		writeIssues(&b, c.issues, c.moreIssues)
	}
	b.WriteString("Do not send the same call again: change what is listed above, or answer without ")
	b.WriteString(c.name)
	b.WriteString(".")
	return b.String()
}

// limitFeedback is the final message of a call over the feedback limit
// (see [WithFeedbackLimit]), rejected in the turns before: it names no
// issue, so that the agent stops instead of trying once more.
func limitFeedback(c *call, turns int) string {
	var b strings.Builder
	b.WriteString(feedbackHead)
	b.WriteString(c.name)
	b.WriteString(notExecuted)
	if turns == 1 {
		b.WriteString(" its calls were rejected in the previous turn")
	} else {
		fmt.Fprintf(&b, " its calls were rejected in each of the previous %d turns", turns)
	}
	b.WriteString(" and this call is still invalid. ")
	b.WriteString("Stop calling ")
	b.WriteString(c.name)
	b.WriteString(" this way: answer the user without ")
	b.WriteString(c.name)
	b.WriteString(", or ask the user for the information the call needs.")
	return b.String()
}

// writeFields lists the fields the tool's schema expects, required first,
// each with its type and allowed values.
func writeFields(b *strings.Builder, c *call) {
	b.WriteString("The arguments must be one JSON object matching the tool's schema")
	var fields []schemaField
	if c.tool != nil && c.tool.schema != nil {
		fields = c.tool.schema.fields
	}
	if len(fields) == 0 {
		b.WriteString(".\n")
		return
	}
	b.WriteString(", with these fields:\n")
	for _, f := range fields {
		b.WriteString("- ")
		b.WriteString(fieldName(jsonpointer.Append("", f.name)))
		b.WriteString(": ")
		if f.expected != "" {
			b.WriteString(f.expected)
			b.WriteString(", ")
		}
		if len(f.allowed) > 0 {
			b.WriteString(oneOf(f.allowed))
			b.WriteString(", ")
		}
		if f.required {
			b.WriteString("required\n")
		} else {
			b.WriteString("optional\n")
		}
	}
}

// writeReceived quotes the start of an argument string, with line breaks
// and other control characters made visible. When the tool's schema has
// secrets (secrets is not nil), the quote is masked: values at secret
// locations show as the mask and text that cannot be placed is hidden (see
// maskText), so no secret value is quoted, whether the arguments parse or
// not.
func writeReceived(b *strings.Builder, raw string, secrets *secretSchema) {
	if strings.TrimSpace(raw) == "" {
		b.WriteString("It received no arguments (an empty string).")
		return
	}
	cut := raw
	if len(cut) > maxQuotedArguments {
		// Cut at a rune start, so no character is split.
		end := maxQuotedArguments
		for i := end; i > end-utf8.UTFMax; i-- {
			if utf8.RuneStart(raw[i]) {
				end = i
				break
			}
		}
		cut = raw[:end]
	}
	var notes []string
	if len(cut) < len(raw) {
		notes = append(notes, "the first "+strconv.Itoa(len(cut))+" of "+strconv.Itoa(len(raw))+" bytes")
	}
	if secrets != nil {
		// Masked after the cut: a value cut off is masked from its start.
		m := secrets.maskText(cut)
		cut = m.Text
		if m.Masked > 0 {
			notes = append(notes, "secret values masked")
		}
		if m.Hidden > 0 {
			notes = append(notes, "text that could not be read as JSON around secret fields not shown")
		}
	}
	if len(notes) > 0 {
		b.WriteString("It received (")
		b.WriteString(strings.Join(notes, "; "))
		b.WriteString("): ")
	} else {
		b.WriteString("It received: ")
	}
	for _, r := range cut {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
}

// writeIssues renders field issues, one line each, in the order given
// (validation sorts them by path), then a line saying how many more there
// were when more > 0. A missing required member for which the arguments
// hold a member the tool does not define in its place (see
// [Issue].Instead) names that member, and that member's own line, when
// the schema forbids it, says which field it may be a misspelling of.
func writeIssues(b *strings.Builder, issues []Issue, more int) {
	standsFor := map[string]string{} // path of a member sent instead -> path of the missing one
	for _, is := range issues {
		if is.Kind == IssueRequired && is.Instead != "" {
			parent, _ := jsonpointer.Split(is.Path)
			standsFor[jsonpointer.Append(parent, is.Instead)] = is.Path
		}
	}
	for _, is := range issues {
		b.WriteString("- ")
		b.WriteString(fieldName(is.Path))
		b.WriteString(": ")
		msg := is.Message
		if msg == "" {
			msg = "invalid value (" + string(is.Kind) + ")"
		}
		b.WriteString(msg)
		if is.Kind == IssueRequired && is.Instead != "" {
			b.WriteString(" (the arguments have ")
			b.WriteString(quotedMember(is.Instead))
			b.WriteString(" instead, which the tool does not define)")
		}
		if missing, ok := standsFor[is.Path]; ok && is.Kind == IssueAdditional {
			b.WriteString("; it may be a misspelling of the missing field ")
			b.WriteString(fieldName(missing))
		}
		b.WriteByte('\n')
	}
	if more > 0 {
		b.WriteString("- and ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more ")
		b.WriteString(plural(more, "issue", "issues"))
		b.WriteString(", not listed: correct these first\n")
	}
}

// quotedMember quotes a member name the model sent, cut to 64 bytes.
func quotedMember(name string) string {
	if len(name) > 64 {
		cut := 64
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return strconv.Quote(name[:cut]) + "…"
	}
	return strconv.Quote(name)
}

// fieldName renders a JSON pointer the way a model reads field names:
// "address.postal_code", "items[1].sku", `meta["a.b"]`; the root is
// "the arguments object".
func fieldName(p string) string {
	if p == "" {
		return "the arguments object"
	}
	var b strings.Builder
	for rest := p; rest != ""; {
		var tok string
		tok, rest = jsonpointer.Next(rest)
		switch {
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		case isPlainName(tok):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		default:
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == '.' || r == '/' || r == '[' || r == ']' || r == '"' || r == ' ' || r < 0x20 {
			return false
		}
	}
	return true
}

// compactJSON renders a schema value in a message; a value no JSON can
// hold (not from a decoded schema) is printed with fmt.
func compactJSON(v any) string {
	s, err := jsonvalue.Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}

// describe returns the type a set of schemas wants ("string", "integer or
// null") and its allowed values when it is an enum or const: those of the
// first schema of the set that names a type (an enum's or a const's values
// name theirs). When no schema of the set does, it looks into the anyOf
// and oneOf alternatives. An enum's allowed values are the schema's own
// slice, not a copy: copy them before handing them out (issuesOf does).
func describe(set schemawalk.Set) (expected string, allowed []any) {
	var types []string
	add := func(t string) {
		if t != "" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	var walk func(set schemawalk.Set, depth int)
	walk = func(set schemawalk.Set, depth int) {
		if depth > 8 {
			return
		}
		typed := false
		for _, s := range set {
			if allowed == nil {
				if s.Enum != nil {
					allowed = s.Enum.Values
				} else if s.Const != nil {
					allowed = []any{*s.Const}
				}
			}
			if typed {
				continue
			}
			switch {
			case s.Types != nil && !s.Types.IsEmpty():
				for _, t := range s.Types.ToStrings() {
					add(t)
				}
			case s.Enum != nil:
				for _, v := range s.Enum.Values {
					add(jsonTypeOf(v))
				}
			case s.Const != nil:
				add(jsonTypeOf(*s.Const))
			default:
				continue
			}
			typed = true
		}
		if typed {
			return
		}
		for _, group := range set.Alternatives() {
			for _, alt := range group {
				walk(alt, depth+1)
			}
		}
	}
	walk(set, 0)
	return strings.Join(types, " or "), allowed
}

// gotTypeOf names the JSON type of a value that failed a type check the
// way santhosh-tekuri does: every number is a "number".
func gotTypeOf(v any) string {
	if t := jsonTypeOf(v); t != "integer" {
		return t
	}
	return "number"
}

// jsonTypeOf names the JSON type of a decoded value; a json.Number that is
// an integer is an "integer".
func jsonTypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case float64, float32, int, int64, int32:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

func typeIssue(path string, want []string, got string) Issue {
	exp := strings.Join(want, " or ")
	msg := "expected " + article(exp)
	if got != "" {
		msg += ", got " + article(got)
	}
	return Issue{Path: path, Kind: IssueType, Expected: exp, Message: msg}
}

// article prefixes a type description with "a"/"an" where it reads
// better: "an integer", "a string or null"; null is left bare.
func article(t string) string {
	switch {
	case t == "" || t == "null":
		return t
	case strings.HasPrefix(t, "integer"), strings.HasPrefix(t, "object"), strings.HasPrefix(t, "array"):
		return "an " + t
	}
	return "a " + t
}

// maxListedValues is how many allowed values a message lists: an enum of
// more is shown by its maxListedValues values closest to the value sent
// (see oneOfNear), then how many more there are.
const maxListedValues = 10

// oneOf renders allowed values: `"a"` or `one of "a", "b"`; of more than
// maxListedValues values, the first ones and how many more there are.
func oneOf(vals []any) string { return oneOfNear(vals, nil, false, nil) }

// oneOfNear is oneOf for a value sent (when hasSent): of more than
// maxListedValues values it lists the closest to sent first (by
// [nearest.Closest] on their JSON text, a string's own text for strings),
// so that the likely intended value is named however long the enum. index,
// when not nil, is the index of vals' texts built when the schema was
// compiled: the closest are then found among the values that share the
// longest prefix or suffix with sent (see nearest.Index), at a cost that
// does not grow with the enum.
func oneOfNear(vals []any, sent any, hasSent bool, index *nearest.Index) string {
	if len(vals) == 1 {
		return compactJSON(vals[0])
	}
	if len(vals) <= maxListedValues {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = compactJSON(v)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	idx := make([]int, maxListedValues)
	for i := range idx {
		idx[i] = i
	}
	switch {
	case hasSent && index != nil && index.Len() == len(vals):
		idx = index.Closest(nearText(sent), maxListedValues)
	case hasSent:
		texts := make([]string, len(vals))
		for i, v := range vals {
			texts[i] = nearText(v)
		}
		idx = nearest.Closest(nearText(sent), texts, maxListedValues)
	}
	parts := make([]string, len(idx))
	for i, k := range idx {
		parts[i] = compactJSON(vals[k])
	}
	return "one of " + strings.Join(parts, ", ") + ", and " + strconv.Itoa(len(vals)-len(idx)) + " more"
}

// nearText is the text of a value that nearest compares: a string's own
// text, else its JSON.
func nearText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ratString renders a schema bound: 3, 0.5, 1e+21.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// formatMessage says what a string of a format looks like.
func formatMessage(format string) string {
	switch format {
	case "date":
		return "must be a date in the form YYYY-MM-DD"
	case "date-time":
		return "must be an RFC 3339 date-time such as 2024-01-31T09:30:00Z"
	case "time":
		return "must be an RFC 3339 time such as 09:30:00Z"
	case "email":
		return "must be an email address"
	case "uri":
		return "must be an absolute URI such as https://example.com/page"
	case "uuid":
		return "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"
	}
	return "must be a valid " + format
}

// otherMessage renders the keywords without an IssueKind of their own.
func otherMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d %s", k.Want, plural(k.Want, "item", "items"))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d %s long", k.Want, plural(k.Want, "character", "characters"))
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d %s long", k.Want, plural(k.Want, "character", "characters"))
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %d %s", k.Want, plural(k.Want, "member", "members"))
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %d %s", k.Want, plural(k.Want, "member", "members"))
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("items must be unique, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		return fmt.Sprintf("has %d more %s than the schema allows", k.Count, plural(k.Count, "item", "items"))
	case *kind.PropertyNames:
		return fmt.Sprintf("member name %q is not allowed", k.Property)
	case *kind.Contains, *kind.MinContains:
		return "must contain an item matching the schema"
	case *kind.MaxContains:
		return "contains too many items matching the schema"
	case *kind.Not:
		return "matches a schema it must not match"
	case *kind.ContentEncoding:
		return "must be " + k.Want + " encoded"
	case *kind.ContentMediaType:
		return "must be of media type " + k.Want
	case *kind.RefCycle:
		return "the schema has a reference cycle"
	case *kind.InvalidJsonValue:
		return "is not a JSON value"
	}
	return "does not match the schema"
}
