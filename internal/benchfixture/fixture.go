// Package benchfixture holds the workload shared by saidex's benchmarks and
// the peer comparison in internal/peerbench: a realistic 5-property tool and
// AI messages of valid, repairable and invalid calls.
package benchfixture

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Location is a nested argument object.
type Location struct {
	Lat float64 `json:"lat" jsonschema:"minimum=-90,maximum=90"`
	Lon float64 `json:"lon" jsonschema:"minimum=-180,maximum=180"`
}

// ForecastArgs is the argument object of the benchmark tool: a string, an
// integer with a range, an enum, a boolean and a nested object.
type ForecastArgs struct {
	City     string    `json:"city" jsonschema:"description=City name"`
	Days     int       `json:"days" jsonschema:"minimum=1,maximum=14"`
	Unit     string    `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
	Hourly   bool      `json:"hourly,omitempty"`
	Location *Location `json:"location,omitempty"`
}

// ToolName is the benchmark tool's name.
const ToolName = "get_forecast"

// Body is the benchmark tool's own work, the same for every executor.
func Body(a ForecastArgs) string {
	return a.City + ":" + strconv.Itoa(a.Days) + a.Unit
}

// Kind selects the arguments of generated calls.
type Kind string

// The kinds of generated calls.
const (
	Valid    Kind = "valid"    // parse and validate
	Repaired Kind = "repaired" // broken JSON that repair fixes (single quotes, trailing comma)
	Invalid  Kind = "invalid"  // parse, but break the schema (wrong type, enum)
)

// Arguments returns the argument string of call i of kind k (about 120 bytes).
func Arguments(k Kind, i int) string {
	switch k {
	case Repaired:
		return fmt.Sprintf(`{'city': 'City %d', 'days': %d, 'unit': 'celsius', 'hourly': True, 'location': {'lat': 48.85, 'lon': 2.35},}`, i, 1+i%14)
	case Invalid:
		return fmt.Sprintf(`{"city": "City %d", "days": "%d", "unit": "kelvin", "hourly": true, "location": {"lat": 48.85, "lon": 2.35}}`, i, 1+i%14)
	default:
		return fmt.Sprintf(`{"city": "City %d", "days": %d, "unit": "celsius", "hourly": true, "location": {"lat": 48.85, "lon": 2.35}}`, i, 1+i%14)
	}
}

// ToolCalls returns n tool calls of kind k.
func ToolCalls(k Kind, n int) []llms.ToolCall {
	calls := make([]llms.ToolCall, n)
	for i := range calls {
		calls[i] = llms.ToolCall{
			ID:           "call_" + strconv.Itoa(i),
			Type:         "function",
			FunctionCall: &llms.FunctionCall{Name: ToolName, Arguments: Arguments(k, i)},
		}
	}
	return calls
}

// Conversation returns a human turn and an AI message with n calls of kind k.
func Conversation(k Kind, n int) []llms.MessageContent {
	parts := make([]llms.ContentPart, 0, n)
	for _, c := range ToolCalls(k, n) {
		parts = append(parts, c)
	}
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Forecasts, please."),
		{Role: llms.ChatMessageTypeAI, Parts: parts},
	}
}

// Shape selects the broken argument strings of [BrokenArguments].
type Shape string

// The shapes of broken argument strings, each needing repair throughout.
const (
	// LongString is a write_file call, {"path": …, "content": …}, whose
	// content is one long string with literal line breaks and unescaped
	// inner quotes.
	LongString Shape = "long_string"
	// ManyMembers is an object of many members, single-quoted, with
	// trailing commas.
	ManyMembers Shape = "many_members"
	// DeepCut is an object holding deeply nested arrays, then deeply
	// nested objects cut off at the end right after a complete value (a
	// cut inside an array is refused: its items after the cut are unknown).
	DeepCut Shape = "deep_cut"
)

// Shapes lists the shapes of [BrokenArguments].
var Shapes = []Shape{LongString, ManyMembers, DeepCut}

// BrokenArguments returns a broken argument string of shape s, of at most
// size bytes and at least size-64 (size at least 256). Every shape is
// repaired without a guess.
func BrokenArguments(s Shape, size int) string {
	b := make([]byte, 0, size)
	var unit, end string
	switch s {
	case LongString:
		b = append(b, `{"path": "notes/today.md", "content": "# Notes`...)
		unit = "\nline of the file where a \"quoted\" word sits"
		end = "\nthe end\"}"
	case ManyMembers:
		b = append(b, `{`...)
		unit = `'key': 'a value', 'xs': [1, 2,], `
		end = `'last': True,}`
	default: // DeepCut
		b = append(b, `{"tree": [`...)
		unit = strings.Repeat("[", 16) + `"leaf", true, null` + strings.Repeat("]", 16) + ", "
		end = `[]], "last": ` + strings.Repeat(`{"n": `, 16) + `"cut"`
	}
	for i := 0; len(b)+len(unit)+len(end)+8 <= size; i++ {
		if s != ManyMembers {
			b = append(b, unit...)
			continue
		}
		// Distinct keys: 'k<i>': 'a value', 'x<i>': [1, 2,],
		k := strconv.AppendInt(nil, int64(i), 36)
		b = append(append(append(b, "'k"...), k...), "': 'a value', 'x"...)
		b = append(append(b, k...), "': [1, 2,], "...)
	}
	return string(append(b, end...))
}
