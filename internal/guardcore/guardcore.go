// Package guardcore is what saidex's MCP server middlewares share: it
// checks one tools/call a server received against the inputSchema the
// server publishes for the tool, with the feedback the session was
// already given for that tool as the conversation, since a server has no
// other history. It holds no MCP type, so that each SDK's adapter (in its
// own module) uses it without depending on the other SDK.
package guardcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Guard checks the calls of a server's tools. It is safe for concurrent use.
type Guard struct {
	opts []saidex.Option
	log  func() *slog.Logger

	mu       sync.Mutex
	tools    map[string]*compiled // by server name
	sessions map[any]*session
}

// compiled is a server tool as last compiled.
type compiled struct {
	ident  any    // the server's value for the tool, compared first
	schema []byte // its inputSchema as JSON, compared when ident changed
	node   *saidex.ToolNode
	name   string // the name the node knows the tool by
	err    error  // why the tool is not guarded; node is nil
}

// session is what a session's calls left: per tool name, the calls
// answered with feedback since the tool last ran, oldest first.
type session struct {
	refused map[string][]refusal
}

type refusal struct{ args, feedback string }

// MaxRefusals bounds the refusals a session keeps per tool; a feedback
// limit larger than this never trips.
const MaxRefusals = 64

// New returns a Guard that checks calls with the saidex options opts; log
// returns the logger for its warnings. The error wraps
// saidex.ErrInvalidConfig when saidex.NewToolNode refuses opts.
func New(opts []saidex.Option, log func() *slog.Logger) (*Guard, error) {
	if _, err := saidex.NewToolNode(nil, opts...); err != nil {
		return nil, err
	}
	return &Guard{opts: opts, log: log, tools: map[string]*compiled{}, sessions: map[any]*session{}}, nil
}

// Verdict is what Check decided for one call.
type Verdict struct {
	// Guarded is false when the tool's schema cannot be used: the call
	// passes as it is, unchecked (Check logged why, once per schema).
	Guarded bool
	// Ready reports that the call may run, with Arguments: the JSON text
	// saidex passes (the arguments as sent when they were valid).
	Ready     bool
	Arguments string
	// Feedback is the text to answer a call that must not run with, and
	// Report saidex's report of it.
	Feedback string
	Report   saidex.CallReport
}

// Check checks the call of the server tool name with arguments args (a
// JSON text; "" is read as {}) made in session sess (a comparable key; nil
// for none). ident identifies the server's current version of the tool
// (its pointer, say), and schema returns its inputSchema as JSON: it is
// called, and the schema compiled again, only when ident changed and the
// schema's JSON changed too. A call that is not ready is remembered for the
// session's next calls of the tool; a ready one clears them.
func (g *Guard) Check(ctx context.Context, sess any, name string, ident any, schema func() ([]byte, error), args string) (Verdict, error) {
	c := g.compiledTool(name, ident, schema)
	if c.node == nil {
		return Verdict{}, nil
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	g.mu.Lock()
	st := g.sessions[sess]
	if st == nil {
		st = &session{refused: map[string][]refusal{}}
		if sess != nil {
			g.sessions[sess] = st
		}
	}
	past := append([]refusal(nil), st.refused[name]...)
	g.mu.Unlock()

	report, err := check(ctx, c, args, past)
	if err != nil {
		return Verdict{}, err
	}
	switch report.Outcome {
	case saidex.OutcomeExecuted, saidex.OutcomeCorrected, saidex.OutcomeSalvaged:
		g.mu.Lock()
		delete(st.refused, name)
		g.mu.Unlock()
		out := args
		if report.Arguments != nil {
			out = string(report.Arguments)
		}
		return Verdict{Guarded: true, Ready: true, Arguments: out, Report: report}, nil
	}
	g.mu.Lock()
	rs := append(st.refused[name], refusal{args: args, feedback: report.Output})
	if len(rs) > MaxRefusals {
		rs = rs[len(rs)-MaxRefusals:]
	}
	st.refused[name] = rs
	g.mu.Unlock()
	g.log().Warn("saidex: refused a tool call", "tool", name, "outcome", string(report.Outcome), "issues", IssueSummary(report.Issues))
	return Verdict{Guarded: true, Feedback: report.Output, Report: report}, nil
}

// Forget drops what session sess left.
func (g *Guard) Forget(sess any) {
	g.mu.Lock()
	delete(g.sessions, sess)
	g.mu.Unlock()
}

// Sessions returns how many sessions the guard remembers.
func (g *Guard) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// check runs saidex on one call with the session's earlier refusals of the
// tool as the conversation.
func check(ctx context.Context, c *compiled, args string, past []refusal) (saidex.CallReport, error) {
	msgs := make([]llms.MessageContent, 0, 2*len(past)+1)
	for i, p := range past {
		id := "refused_" + strconv.Itoa(i)
		msgs = append(msgs,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
				ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.name, Arguments: p.args}}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
				ToolCallID: id, Name: c.name, Content: p.feedback}}})
	}
	msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
		ID: "call", Type: "function", FunctionCall: &llms.FunctionCall{Name: c.name, Arguments: args}}}})
	reports, err := c.node.Check(ctx, msgs)
	if err != nil {
		return saidex.CallReport{}, err
	}
	if len(reports) != 1 {
		return saidex.CallReport{}, fmt.Errorf("saidex checked %d calls, not 1", len(reports))
	}
	return reports[0], nil
}

// compiledTool returns the compiled form of the server tool, compiling it
// when its schema changed since it was last seen.
func (g *Guard) compiledTool(name string, ident any, schema func() ([]byte, error)) *compiled {
	g.mu.Lock()
	c := g.tools[name]
	g.mu.Unlock()
	if c != nil && ident != nil && c.ident == ident {
		return c
	}
	b, err := schema()
	if c != nil && err == nil && string(c.schema) == string(b) {
		cp := *c
		cp.ident = ident
		g.mu.Lock()
		g.tools[name] = &cp
		g.mu.Unlock()
		return &cp
	}
	c = &compiled{ident: ident, schema: b, name: ModelName(name)}
	if err != nil {
		c.err = fmt.Errorf("its inputSchema does not marshal: %w", err)
	} else {
		var decoded any
		if err := json.Unmarshal(b, &decoded); err != nil {
			c.err = fmt.Errorf("its inputSchema is not JSON: %w", err)
		} else {
			c.node, c.err = saidex.NewToolNode([]tools.Tool{&schemaTool{name: c.name, schema: decoded}}, g.opts...)
		}
	}
	if c.err != nil {
		g.log().Warn("saidex: the tool is not guarded: saidex cannot use its schema; its calls pass through unchecked", "tool", name, "error", c.err)
	}
	g.mu.Lock()
	g.tools[name] = c
	g.mu.Unlock()
	return c
}

// ModelName replaces the characters of an MCP tool name that the
// providers' rule, ^[a-zA-Z0-9_-]{1,64}$, does not allow by '_'.
func ModelName(name string) string {
	ok := func(r rune) bool {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
	}
	return strings.Map(func(r rune) rune {
		if ok(r) {
			return r
		}
		return '_'
	}, name)
}

// schemaTool is a server tool as a saidex.Tool, for checking only: the
// server runs it.
type schemaTool struct {
	name   string
	schema any
}

func (t *schemaTool) Name() string        { return t.name }
func (t *schemaTool) Description() string { return "" }
func (t *schemaTool) Schema() any         { return t.schema }
func (t *schemaTool) Call(context.Context, string) (string, error) {
	return "", errors.New("saidex: a server tool runs on the server")
}

// The bounds of UnknownToolText, the node's own.
const (
	maxListedTools = 20
	nearTools      = 5
)

// UnknownToolText answers a call of a tool the server does not list, among
// names: every name for up to 20 tools, else the 5 closest.
func UnknownToolText(name string, names []string) string {
	quoted := strconv.Quote(name)
	if len(quoted) > 200 {
		quoted = quoted[:200] + "…\""
	}
	if len(names) == 0 {
		return "Error: " + quoted + " is not a valid tool: the server has no tools."
	}
	if len(names) <= maxListedTools {
		return "Error: " + quoted + " is not a valid tool, try one of [" + strings.Join(names, ", ") + "]."
	}
	near := nearest.Closest(name, names, nearTools)
	picked := make([]string, len(near))
	for i, k := range near {
		picked[i] = names[k]
	}
	return "Error: " + quoted + " is not a valid tool; did you mean one of [" + strings.Join(picked, ", ") +
		"]? (" + strconv.Itoa(len(names)) + " tools are available; these are the closest by name.)"
}

// IssueSummary renders issues as path:kind pairs, without values.
func IssueSummary(issues []saidex.Issue) string {
	parts := make([]string, 0, len(issues))
	for _, is := range issues {
		parts = append(parts, is.Path+":"+string(is.Kind))
	}
	return strings.Join(parts, ",")
}
