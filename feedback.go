package saidex

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonpointer"
)

// maxQuotedArguments is how much of an unparseable argument string the
// feedback quotes back to the agent.
const maxQuotedArguments = 200

// feedbackFor renders the content of the tool message that answers an
// invalid call the node does not execute: a call without a function, a
// call whose arguments could not be parsed, or a call whose arguments
// break the tool's schema. The text is deterministic: it depends only on
// the call's name, raw arguments, schema and issues.
func feedbackFor(c *call) string {
	var b strings.Builder
	switch {
	case c.noFunc:
		b.WriteString("Error: this tool call names no function, so nothing was executed. ")
		b.WriteString("Call one of the available tools by name, with its arguments as one JSON object.")
	case c.err != nil:
		b.WriteString("Error: the arguments of ")
		b.WriteString(c.name)
		b.WriteString(" could not be read as one JSON object")
		if me := (*MalformedArgumentsError)(nil); errors.As(c.err, &me) && me.Reason != "" {
			b.WriteString(" (")
			b.WriteString(me.Reason)
			b.WriteString(")")
		}
		b.WriteString(", so nothing was executed. ")
		writeReceived(&b, c.raw)
		b.WriteByte('\n')
		writeFields(&b, c)
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with its arguments as one JSON object, and nothing before or after it.")
	case len(c.issues) > 0:
		b.WriteString("Error: ")
		b.WriteString(c.name)
		b.WriteString(" was not executed because its arguments do not match the tool's schema:\n")
		writeIssues(&b, c.issues)
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with these fields corrected.")
	default: // not reached: an invalid call has an error or issues
		b.WriteString("Error: ")
		b.WriteString(c.name)
		b.WriteString(" was not executed because its arguments were not accepted.\n")
		writeFields(&b, c)
		b.WriteString("Call ")
		b.WriteString(c.name)
		b.WriteString(" again with its arguments as one JSON object.")
	}
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
// and other control characters made visible.
func writeReceived(b *strings.Builder, raw string) {
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
	if len(cut) < len(raw) {
		b.WriteString("It received (the first ")
		b.WriteString(strconv.Itoa(len(cut)))
		b.WriteString(" of ")
		b.WriteString(strconv.Itoa(len(raw)))
		b.WriteString(" bytes): ")
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
// (validation sorts them by path). When an object has exactly one unknown
// member and exactly one missing required member, the unknown one is most
// likely a misspelling of the missing one, and its line says so.
func writeIssues(b *strings.Builder, issues []Issue) {
	missingIn := map[string][]string{} // parent path -> missing member names
	unknownIn := map[string]int{}      // parent path -> number of unknown members
	for _, is := range issues {
		if is.Path == "" {
			continue
		}
		parent, name := jsonpointer.Split(is.Path)
		switch is.Kind {
		case IssueRequired:
			missingIn[parent] = append(missingIn[parent], name)
		case IssueAdditional:
			unknownIn[parent]++
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
		if is.Kind == IssueAdditional {
			if parent, _ := jsonpointer.Split(is.Path); len(missingIn[parent]) == 1 && unknownIn[parent] == 1 {
				b.WriteString("; it may be a misspelling of the missing field ")
				b.WriteString(fieldName(jsonpointer.Append(parent, missingIn[parent][0])))
			}
		}
		b.WriteByte('\n')
	}
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
