package saidex

import (
	"errors"
	"fmt"
	"strings"

	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
)

// ErrMergedCalls matches the error of a call that holds several tool
// calls merged into one, as a streaming accumulator that ignores the
// calls' indexes makes them (langchaingo's does): arguments that are two
// or more different JSON objects one after another ({"a":1}{"b":2}), or a
// name that is the names of several tools glued together
// ("get_weatherget_time"). Such a call never runs, not even as one of the
// calls it holds: its feedback says that calls were merged and asks for
// each as a separate call. Copies of one object ({"a":1}{"a":1}) are read
// as that object sent again, not as merged calls (see
// [RepairRepeatedObject]).
var ErrMergedCalls = errors.New("saidex: several tool calls were merged into one")

// maxMergedName bounds the length of a name the node tries to split into
// tool names: four of the longest names a node accepts.
const maxMergedName = 4 * maxToolNameLength

// mergedName reports the tools whose names, glued together, make name,
// when there are at least two; nil otherwise. Each piece must be the name
// of one of the node's tools; the split with the fewest pieces is
// returned. Its cost is quadratic in len(name), which maxMergedName
// bounds.
func (n *ToolNode) mergedName(name string) []string {
	if len(name) < 2 || len(name) > maxMergedName || len(n.tools) == 0 {
		return nil
	}
	// best[i]: the fewest tool names that make name[:i], 0 when none do;
	// from[i]: where the last of them starts.
	best := make([]int, len(name)+1)
	from := make([]int, len(name)+1)
	for i := 1; i <= len(name); i++ {
		for j := max(0, i-maxToolNameLength); j < i; j++ {
			if (j == 0 || best[j] > 0) && n.tools[name[j:i]] != nil {
				if k := best[j] + 1; best[i] == 0 || k < best[i] {
					best[i], from[i] = k, j
				}
			}
		}
	}
	if best[len(name)] < 2 {
		return nil
	}
	parts := make([]string, best[len(name)])
	for i, k := len(name), len(parts)-1; i > 0; i, k = from[i], k-1 {
		parts[k] = name[from[i]:i]
	}
	return parts
}

// mergedObjects returns how many JSON objects raw holds one after another,
// separated by nothing but JSON white space, when there are at least two
// and not all are equal; 0 otherwise. It reads raw only when it starts
// with an object and holds another opening brace after that object: the
// repair stage calls it on arguments it could not read as one object.
func mergedObjects(raw string) int {
	t := strings.TrimLeft(raw, " \t\r\n")
	if !strings.HasPrefix(t, "{") || strings.Count(t, "{") < 2 {
		return 0
	}
	d := jsonread.NewStringDecoder(t, true)
	defer d.Release()
	var first any
	count, differ := 0, false
	for !d.AtEnd() {
		v, err := d.Value()
		if _, isObject := v.(map[string]any); err != nil || !isObject {
			return 0
		}
		if count == 0 {
			first = v
		} else if !differ && !jsonvalue.Equal(first, v) {
			differ = true
		}
		count++
	}
	if count < 2 || !differ {
		return 0
	}
	return count
}

// mergedArgumentsError is the error of a call whose arguments are k
// different objects one after another.
func mergedArgumentsError(k int) error {
	return fmt.Errorf("%w: %w", ErrMergedCalls, &MalformedArgumentsError{
		Reason: fmt.Sprintf("they are %d different JSON objects one after another: several tool calls were merged into this one", k)})
}

// mergedFeedback answers a call whose name glues the names of several
// tools together.
func mergedNameFeedback(c *call, parts []string) string {
	var b strings.Builder
	b.WriteString(feedbackHead)
	b.WriteString(c.name)
	b.WriteString(notExecuted) // the marker of the node's feedback (limit.go)
	b.WriteString(" its name is the names of several tools glued together (")
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString("): several tool calls were merged into one. ")
	b.WriteString("Send each call as a separate tool call, with its own name and its arguments as one JSON object.")
	return b.String()
}
