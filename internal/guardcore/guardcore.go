// Package guardcore is what saidex's MCP server middlewares share: it
// checks one tools/call a server received against the inputSchema the
// server publishes for the tool, with the feedback the session was
// already given for that tool as the conversation, since a server has no
// other history. It holds no MCP type, so that each SDK's adapter (in its
// own module) uses it without depending on the other SDK.
package guardcore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Guard checks the calls of a server's tools. It is safe for concurrent use.
type Guard struct {
	opts  []saidex.Option
	log   func() *slog.Logger
	nonce string // in the placeholder of a call whose text is not kept

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
// answered since that tool last ran (see toolRefusals).
type session struct {
	refused map[string]*toolRefusals
}

// The bounds of what a session keeps per tool. The node reads two things
// from the refused calls a Check replays: the feedback-limit streak (the
// turns in a row answered with its feedback, back to one answered with
// anything else) and the identical-call detection (a call whose argument
// text, or the JSON value it repairs to, equals that of a call already
// answered with feedback). So a session keeps, per tool, since the tool
// last ran:
//
//   - the last MaxKeptRefusals refused calls in full, each with its
//     feedback: the correction prompt quotes them (10 messages, 5 calls,
//     by default), and their arguments are compared as JSON values too;
//     arguments longer than MaxKeptArgumentBytes are kept as a SHA-256
//     digest only, and feedback is cut to MaxKeptFeedbackBytes;
//   - of the calls before those, the length of the streak they end with
//     (a count), and the digests of the argument texts of those answered
//     with the node's feedback (the last MaxRefusals-MaxKeptRefusals
//     distinct ones).
//
// A Check replays one refused turn per counted call, up to MaxRefusals
// turns in all: the kept calls, and before them as many turns as the count
// holds, each answered with a fixed text that the node reads as its own
// feedback. A call whose text has the digest of a call kept as a digest
// is replayed with that call, in its own text, so the node still finds it
// identical, byte for byte. What is lost: an older call (before the last
// MaxKeptRefusals, or longer than MaxKeptArgumentBytes) is found again
// only when sent with the same text, not when it merely repairs to the
// same value; and the correction prompt sees the fixed text instead of the
// feedback of those calls. A session holds at most about
// MaxKeptRefusals*(MaxKeptArgumentBytes+MaxKeptFeedbackBytes) bytes of
// text per tool, whatever the size of the calls.
const (
	// MaxRefusals bounds the refused turns a Check replays per tool; a
	// feedback limit larger than this never trips.
	MaxRefusals = 64
	// MaxKeptRefusals is how many of the latest refused calls per tool a
	// session keeps in full.
	MaxKeptRefusals = 8
	// MaxKeptArgumentBytes is the longest argument text kept in full;
	// a longer one is kept as its digest.
	MaxKeptArgumentBytes = 4 << 10
	// MaxKeptFeedbackBytes is the most feedback text kept per refused call
	// (the node's own feedback is at most 8 KiB; a hook's may be longer).
	MaxKeptFeedbackBytes = 8 << 10
)

// toolRefusals is what a session keeps for one tool since the tool last
// ran, by the rule of MaxKeptRefusals.
type toolRefusals struct {
	recent []refusal  // the latest refused calls, oldest first, at most MaxKeptRefusals
	streak int        // the streak the calls before recent end with, at most MaxRefusals
	older  [][32]byte // digests of the node-feedback calls before recent, distinct, oldest first
}

// refusal is one refused call as kept.
type refusal struct {
	args     string   // the argument text, "" when only its digest is kept
	digest   [32]byte // sha256 of the argument text
	size     int      // the length of the argument text
	feedback string   // the answer, cut to MaxKeptFeedbackBytes
	counts   bool     // the answer is the node's feedback (limit.go's rule)
}

// add records a refused call.
func (tr *toolRefusals) add(r refusal) {
	tr.recent = append(tr.recent, r)
	if len(tr.recent) <= MaxKeptRefusals {
		return
	}
	out := tr.recent[0]
	tr.recent = slices.Delete(tr.recent, 0, 1)
	if !out.counts { // an answer the node does not count ends the streak
		tr.streak = 0
		return
	}
	tr.streak = min(tr.streak+1, MaxRefusals)
	if i := slices.Index(tr.older, out.digest); i >= 0 {
		tr.older = slices.Delete(tr.older, i, i+1)
	}
	tr.older = append(tr.older, out.digest)
	if len(tr.older) > MaxRefusals-MaxKeptRefusals {
		tr.older = slices.Delete(tr.older, 0, 1)
	}
}

// size returns the bytes of text tr holds.
func (tr *toolRefusals) size() int {
	n := 32 * len(tr.older)
	for _, r := range tr.recent {
		n += len(r.args) + len(r.feedback) + 32
	}
	return n
}

// New returns a Guard that checks calls with the saidex options opts; log
// returns the logger for its warnings. The error wraps
// saidex.ErrInvalidConfig when saidex.NewToolNode refuses opts.
func New(opts []saidex.Option, log func() *slog.Logger) (*Guard, error) {
	if _, err := saidex.NewToolNode(nil, opts...); err != nil {
		return nil, err
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:]) // never fails (crypto/rand)
	return &Guard{opts: opts, log: log, nonce: hex.EncodeToString(nonce[:]),
		tools: map[string]*compiled{}, sessions: map[any]*session{}}, nil
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
// session's next calls of the tool, within the bounds MaxKeptRefusals
// states; a ready one clears them.
func (g *Guard) Check(ctx context.Context, sess any, name string, ident any, schema func() ([]byte, error), args string) (Verdict, error) {
	c := g.compiledTool(name, ident, schema)
	if c.node == nil {
		return Verdict{}, nil
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	digest := sha256.Sum256([]byte(args))
	g.mu.Lock()
	st := g.sessions[sess]
	if st == nil {
		st = &session{refused: map[string]*toolRefusals{}}
		if sess != nil {
			g.sessions[sess] = st
		}
	}
	past := g.replay(c.name, st.refused[name], args, digest)
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
	r := refusal{digest: digest, size: len(args), feedback: cutText(report.Output, MaxKeptFeedbackBytes),
		counts: isNodeFeedback(report.Output, c.name)}
	if len(args) <= MaxKeptArgumentBytes {
		r.args = args
	}
	g.mu.Lock()
	tr := st.refused[name]
	if tr == nil {
		tr = &toolRefusals{}
		st.refused[name] = tr
	}
	tr.add(r)
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

// pastCall is one refused call as a Check replays it.
type pastCall struct{ args, feedback string }

// replay returns the refused turns of tool (its model name) to check a
// call with arguments args (of digest) after, oldest first, each turn one
// or more calls: the turns of the streak before the kept calls, answered
// with a fixed text, then the kept calls. Its caller holds g.mu.
func (g *Guard) replay(tool string, tr *toolRefusals, args string, digest [32]byte) [][]pastCall {
	if tr == nil {
		return nil
	}
	fixed := "Error: " + tool + " was not executed because its arguments were invalid (an earlier call; its feedback is no longer kept)."
	turns := make([][]pastCall, 0, min(tr.streak, MaxRefusals-len(tr.recent))+len(tr.recent))
	for range min(tr.streak, MaxRefusals-len(tr.recent)) {
		turns = append(turns, []pastCall{{args: g.placeholder(0), feedback: fixed}})
	}
	echo := slices.Contains(tr.older, digest)
	for _, r := range tr.recent {
		a := r.args
		if a == "" && r.size > 0 { // kept as its digest
			a = g.placeholder(r.size)
			echo = echo || r.counts && r.digest == digest
		}
		turns = append(turns, []pastCall{{args: a, feedback: r.feedback}})
	}
	if echo && len(turns) > 0 {
		// The call was refused before, with this very text: the node finds
		// it identical by comparing it with itself.
		turns[0] = append(turns[0], pastCall{args: args, feedback: fixed})
	}
	return turns
}

// placeholder is the argument text a replayed call whose text is not kept
// carries: a JSON object no client sends, since it holds the guard's
// random nonce, so that the node never finds a call identical to it.
func (g *Guard) placeholder(size int) string {
	s := `{"saidex_note":"an earlier call whose arguments are no longer kept"`
	if size > 0 {
		s += `,"bytes":` + strconv.Itoa(size)
	}
	return s + `,"nonce":"` + g.nonce + `"}`
}

// isNodeFeedback reports whether content, answering a call of tool name
// (its model name), is the node's own feedback by the rule
// saidex.WithFeedbackLimit documents: only those answers count toward the
// limit and toward identical calls.
func isNodeFeedback(content, name string) bool {
	return strings.HasPrefix(content, "Error: "+name+" was not executed because") ||
		strings.HasPrefix(content, "Error: the arguments of "+name+" could not be read as one JSON object")
}

// cutText returns s cut to at most n bytes, at a UTF-8 boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// check runs saidex on one call with the session's earlier refusals of the
// tool as the conversation.
func check(ctx context.Context, c *compiled, args string, past [][]pastCall) (saidex.CallReport, error) {
	msgs := make([]llms.MessageContent, 0, 2*len(past)+1)
	for i, turn := range past {
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		answers := llms.MessageContent{Role: llms.ChatMessageTypeTool}
		for k, p := range turn {
			id := "refused_" + strconv.Itoa(i)
			if k > 0 {
				id += "_" + strconv.Itoa(k)
			}
			ai.Parts = append(ai.Parts, llms.ToolCall{
				ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.name, Arguments: p.args}})
			answers.Parts = append(answers.Parts, llms.ToolCallResponse{ToolCallID: id, Name: c.name, Content: p.feedback})
		}
		msgs = append(msgs, ai, answers)
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
