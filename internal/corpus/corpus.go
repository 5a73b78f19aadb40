// Package corpus scores saidex on the malformed tool-call corpus
// (shared/corpus; read by package corpusfile) through the public API, as
// the corpus README says.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/corpusfile"
	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Verdict is how one case scored.
type Verdict string

// The verdicts.
const (
	Pass       Verdict = "pass"
	Silent     Verdict = "silent_corruption" // schema-valid arguments that differ from the intended ones
	OverStrict Verdict = "over_strict"       // an error where a repair (or an issue set) was expected
	WrongIssue Verdict = "wrong_issue_set"   // the issue set differs from want_issues
	Invented   Verdict = "invented_invalid"  // an unrepairable case repaired into schema-invalid arguments
	Broken     Verdict = "harness_error"     // the case could not be run
)

// Outcome is the scored result of one case.
type Outcome struct {
	Case    *corpusfile.Case
	Verdict Verdict
	Detail  string
	// Issue counts for precision and recall on invalid cases.
	Want, Got, Hit int
	// Outcome is what the node did with the call ("" when it did not run),
	// and Coercions the conversions WithCoercion(CoercionLax) applied.
	Outcome   saidex.Outcome
	Coercions []saidex.Coercion
}

type recordingTool struct {
	name string
	mu   sync.Mutex
	got  []string
}

func (t *recordingTool) Name() string        { return t.name }
func (t *recordingTool) Description() string { return "records its input" }
func (t *recordingTool) Call(_ context.Context, input string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.got = append(t.got, input)
	return "ok", nil
}

// Score runs one case through a ToolNode with default options (plus opts)
// and no correction model, and scores it.
func Score(ctx context.Context, c *corpusfile.Case, opts ...saidex.Option) Outcome {
	o := Outcome{Case: c}
	rec := &recordingTool{name: c.Tool.Name}
	var params any = c.Tool.Parameters
	if len(c.Tool.Parameters) == 0 {
		params = map[string]any{"type": "object"}
	}
	node, err := saidex.NewToolNode([]tools.Tool{saidex.ToolWithSchema(rec, params)}, opts...)
	if err != nil {
		o.Verdict, o.Detail = Broken, err.Error()
		return o
	}
	msgs := []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "run the tool"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: c.Tool.Name, Arguments: c.RawArguments},
		}}},
	}
	res, err := node.Run(ctx, msgs)
	if err != nil {
		o.Verdict, o.Detail = Broken, err.Error()
		return o
	}
	if len(res.Calls) != 1 {
		o.Verdict, o.Detail = Broken, fmt.Sprintf("%d call reports", len(res.Calls))
		return o
	}
	cr := res.Calls[0]
	o.Outcome, o.Coercions = cr.Outcome, cr.Coercions
	executed := cr.Outcome.Ready()
	if executed && (len(rec.got) != 1 || rec.got[0] != string(cr.Arguments)) {
		o.Verdict, o.Detail = Broken, fmt.Sprintf("the tool received %q, the report says %s", rec.got, cr.Arguments)
		return o
	}
	switch c.Expect {
	case "valid", "repaired":
		switch {
		case executed && Equal(cr.Arguments, c.WantArguments):
			o.Verdict = Pass
		case executed:
			o.Verdict, o.Detail = Silent, "got "+string(cr.Arguments)
		default:
			o.Verdict, o.Detail = OverStrict, describe(cr)
		}
	case "invalid":
		o.Want = len(c.WantIssues)
		switch {
		case executed:
			o.Verdict, o.Detail = Silent, "executed with "+string(cr.Arguments)
		case cr.Err != nil && len(cr.Issues) == 0:
			o.Verdict, o.Detail = OverStrict, describe(cr)
		default:
			got := map[corpusfile.IssueKey]bool{}
			for _, is := range cr.Issues {
				got[corpusfile.IssueKey{Path: is.Path, Kind: string(is.Kind)}] = true
			}
			want := map[corpusfile.IssueKey]bool{}
			for _, k := range c.WantIssues {
				want[k] = true
			}
			o.Want, o.Got = len(want), len(got)
			for k := range got {
				if want[k] {
					o.Hit++
				}
			}
			if o.Hit == len(want) && o.Hit == len(got) {
				o.Verdict = Pass
			} else {
				o.Verdict, o.Detail = WrongIssue, fmt.Sprintf("want %v, got %v", keys(want), keys(got))
			}
		}
	case "unrepairable":
		switch {
		case executed:
			o.Verdict, o.Detail = Silent, "executed with "+string(cr.Arguments)
		case errors.Is(cr.Err, saidex.ErrMalformedArguments):
			o.Verdict, o.Detail = Pass, cr.Err.Error()
		default:
			o.Verdict, o.Detail = Invented, describe(cr)
		}
	default:
		o.Verdict, o.Detail = Broken, "unknown expect "+c.Expect
	}
	return o
}

func describe(cr saidex.CallReport) string {
	if cr.Err != nil {
		return "error: " + cr.Err.Error()
	}
	var parts []string
	for _, is := range cr.Issues {
		parts = append(parts, fmt.Sprintf("%s %s: %s", is.Path, is.Kind, is.Message))
	}
	return "issues: " + strings.Join(parts, "; ")
}

func keys(m map[corpusfile.IssueKey]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k.Path+" "+k.Kind)
	}
	sort.Strings(out)
	return out
}

// Equal reports whether two texts are each exactly one JSON value and hold
// the same value: object key order does not matter and numbers compare
// numerically. A text with anything but white space after its value is
// not equal to any other.
func Equal(a, b []byte) bool {
	va, err1 := jsonread.Decode(string(a))
	vb, err2 := jsonread.Decode(string(b))
	return err1 == nil && err2 == nil && jsonvalue.Equal(va, vb)
}

// Summary aggregates outcomes.
type Summary struct {
	N, Pass, Silent, OverStrict, WrongIssues, Other int
	Want, Got, Hit                                  int
}

// Add counts one outcome.
func (s *Summary) Add(o Outcome) {
	s.N++
	switch o.Verdict {
	case Pass:
		s.Pass++
	case Silent:
		s.Silent++
	case OverStrict:
		s.OverStrict++
	case WrongIssue:
		s.WrongIssues++
	default:
		s.Other++
	}
	s.Want += o.Want
	s.Got += o.Got
	s.Hit += o.Hit
}

// Line is the one-line summary corpuseval ends with.
func (s Summary) Line() string {
	return fmt.Sprintf("corpus: %d cases, %d passed, %d silent corruptions, %d over-strict, %d wrong issue sets",
		s.N, s.Pass, s.Silent, s.OverStrict, s.WrongIssues)
}
