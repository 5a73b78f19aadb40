package saidex

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on what a node accepts (docs/limits.md). All are fixed but
// DefaultMaxArgumentBytes, the default of [WithMaxArgumentBytes].
const (
	// DefaultMaxArgumentBytes is the default of [WithMaxArgumentBytes]:
	// 1 MiB. A call whose argument string is longer is not parsed and is
	// answered with feedback.
	DefaultMaxArgumentBytes = 1 << 20

	// MaxNestingDepth is the deepest nesting of objects and arrays the
	// repair stage reads: 10,000 levels, the limit of encoding/json.
	// Argument strings nested deeper are answered with feedback, never
	// parsed recursively.
	MaxNestingDepth = 10000

	// MaxSchemaBytes (4 MiB), MaxSchemaDepth (64 levels) and
	// MaxSchemaObjects (2,000) bound a tool schema, as JSON text:
	// [NewToolNode] refuses a schema of more bytes,
	// whose objects and arrays nest deeper, or that holds more JSON objects
	// (each a possible subschema), with an error wrapping [ErrInvalidConfig]
	// that names the tool, after one pass over its text. The compiler the
	// node uses (santhosh-tekuri/jsonschema) checks a schema against its
	// meta-schema at a cost that grows with the square of the depth for every
	// value in it (it rebuilds each value's location from the root), and
	// finds each subschema it compiles by a linear search of those compiled
	// before; a schema at the bounds compiles in well under a second. A schema
	// of 800 nested objects (1,600 levels of JSON) would take seconds and
	// gigabytes; it is refused at once, at a cost linear in its size. Real
	// schemas nest a few levels and hold tens of subschemas; $ref and $defs
	// express recursion without depth; a large enum is one array, not many
	// objects.
	MaxSchemaBytes   = 4 << 20
	MaxSchemaDepth   = 64
	MaxSchemaObjects = 2000

	// MinScrubbedSecretLen is the shortest secret value, in bytes, that the
	// node scrubs from free text (tool output, errors, validator messages,
	// feedback) wherever it appears. A shorter secret ("1234") would mask
	// common words and numbers: it is masked by its location in the
	// arguments only (the field that holds it, under a secret name or the
	// schema's secret path), not searched for in other texts.
	MinScrubbedSecretLen = 6
)

// The bounds on what the node writes, whatever the size of the schema,
// the tool set or the arguments (docs/limits.md).
const (
	// maxToolMessageBytes is the longest tool message the node writes
	// itself (feedback, unknown-tool answers, the default text of a tool
	// error): 8 KiB. Longer text is cut by boundMessage.
	maxToolMessageBytes = 8 << 10
	// maxIssues is how many issues a call keeps (Issues, the feedback, the
	// correction prompt): the first ones in path order; the feedback says
	// how many more there were.
	maxIssues = 50
	// maxListedTools is how many tools an unknown-tool answer lists: all of
	// them up to this many, else the closest to the name called.
	maxListedTools = 20
	// nearTools is how many tools the answer names when there are more
	// than maxListedTools.
	nearTools = 5
)

// capIssues keeps the first maxIssues issues, and returns how many it left
// out.
func capIssues(issues []Issue) ([]Issue, int) {
	if len(issues) <= maxIssues {
		return issues, 0
	}
	return issues[:maxIssues:maxIssues], len(issues) - maxIssues
}

// boundMessage returns s when it fits in maxToolMessageBytes, else its
// start, cut at the last line break of the second half of what fits (at a
// rune boundary when there is none), followed by a line saying how much
// was cut, and then s's last line when it is at most maxKeptLastLine
// bytes (the instruction that ends feedback: "Call … again"); the whole is
// at most maxToolMessageBytes long.
func boundMessage(s string) string {
	if len(s) <= maxToolMessageBytes {
		return s
	}
	last := ""
	if nl := strings.LastIndexByte(s, '\n'); nl >= 0 && nl < len(s)-1 && len(s)-nl <= maxKeptLastLine {
		last = s[nl:]
	}
	marker := "\n[… message cut: " + strconv.Itoa(len(s)) + " bytes, the first "
	room := maxToolMessageBytes - len(marker) - len(" shown]") - 10 - len(last) // 10: the digits of the cut length
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= room/2 {
		cut = nl
	}
	return s[:cut] + marker + strconv.Itoa(cut) + " shown]" + last
}

// maxKeptLastLine bounds the last line boundMessage keeps after a cut.
const maxKeptLastLine = 512

// unknownToolMessage answers a call of a tool the node does not have: it
// lists every tool, or, for more than maxListedTools, the nearTools whose
// names are closest to the name called (among those that share the
// longest prefix or suffix with it: see nearest.Index) and how many tools
// there are.
func (n *ToolNode) unknownToolMessage(name string) string {
	if len(n.order) <= maxListedTools {
		return boundMessage("Error: " + quotedName(name) + " is not a valid tool, try one of [" + strings.Join(n.order, ", ") + "].")
	}
	near := n.names.near.Closest(name, nearTools) // built once (secret.go)
	names := make([]string, len(near))
	for i, k := range near {
		names[i] = n.order[k]
	}
	return boundMessage("Error: " + quotedName(name) + " is not a valid tool; did you mean one of [" + strings.Join(names, ", ") +
		"]? (" + strconv.Itoa(len(n.order)) + " tools are available; these are the closest by name.)")
}
