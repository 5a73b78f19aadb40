package saidexmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Middleware returns a receiving middleware for an MCP server of
// github.com/modelcontextprotocol/go-sdk that guards every tools/call
// with saidex, configured by opts (the options of [saidex.NewToolNode]:
// coercion, feedback limit, argument size, validators, correction model,
// logger):
//
//	server.AddReceivingMiddleware(saidexmcp.Middleware(saidex.WithCoercion(saidex.CoercionLax)))
//
// It is [MiddlewareConfig.Middleware] of the zero MiddlewareConfig: unknown
// tools are left to the server (a JSON-RPC error), and lines are logged
// with slog.Default(). Options that saidex.NewToolNode refuses make every
// tools/call fail with an error wrapping [saidex.ErrInvalidConfig]; use
// [MiddlewareConfig.Middleware] to get that error at once.
func Middleware(opts ...saidex.Option) mcp.Middleware {
	mw, err := MiddlewareConfig{}.Middleware(opts...)
	if err != nil {
		return func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					return nil, err
				}
				return next(ctx, method, req)
			}
		}
	}
	return mw
}

// MiddlewareConfig configures the middleware that [MiddlewareConfig.Middleware]
// returns. The zero value is the default. A config is copied by
// Middleware: changing it afterwards changes nothing.
type MiddlewareConfig struct {
	// UnknownToolFeedback makes the middleware answer a call of a tool the
	// server does not list with a result marked IsError whose text names
	// the tools closest to the one called (all of them for up to 20
	// tools), which the model reads, instead of passing the call on to
	// the server, which answers it with a JSON-RPC error (invalid params,
	// "unknown tool"). Off by default.
	UnknownToolFeedback bool
	// Logger receives one warning per refused call (the tool, the outcome
	// and the paths and kinds of its issues, never an argument value) and
	// one per tool the middleware cannot guard. nil means slog.Default()
	// at the time of logging.
	Logger *slog.Logger
}

// Middleware returns the middleware of the config, for
// Server.AddReceivingMiddleware, configured by opts (the options of
// [saidex.NewToolNode]). On tools/call it:
//
//   - finds the tool's inputSchema in the server's own tool list, which it
//     reads through the handler it wraps (a tools/list request, following
//     the cursor), so that a tool added or removed later is seen at its
//     next call; the schema is compiled once and compiled again only when
//     the server's tool changes;
//   - repairs, coerces and validates the call's arguments as a
//     [saidex.ToolNode] built with opts does ([saidex.ToolNode.Check]):
//     arguments absent from the request are checked as {};
//   - passes a call that is ready on to the server, with its arguments
//     replaced by the repaired ones when they changed, and answers any
//     other call itself with a result marked IsError whose one text
//     content is saidex's field-level feedback, which the model reads (so
//     the tool's handler never sees an invalid call);
//   - keeps, per server session (a client connection), the feedback it
//     gave for each tool since that tool last ran, for
//     [saidex.WithFeedbackLimit] and for telling the model that a call
//     repeats one already refused: there is no conversation on the server
//     side, so the session is the conversation. A session's record is
//     dropped once the session is garbage.
//
// A tool whose schema saidex cannot compile (or whose name is not one that
// saidex accepts, after replacing the characters [Tool.Name] replaces) is
// passed on unguarded, and the middleware logs that once per schema. Feedback
// names the tool as [Tool.Name] does. Every other method passes through
// unchanged. The feedback and the log lines carry no secret value (see
// [saidex.Secret]); the tool receives the values as sent.
//
// A call for which saidex returns an error (a raise policy of
// [saidex.WithOnUnresolved], an interrupt, ctx done) is answered with that
// error, which the SDK sends as a JSON-RPC error.
//
// The error is non-nil, and wraps [saidex.ErrInvalidConfig], when
// saidex.NewToolNode refuses opts. The middleware is safe for concurrent
// use and may wrap several servers.
func (c MiddlewareConfig) Middleware(opts ...saidex.Option) (mcp.Middleware, error) {
	if _, err := saidex.NewToolNode(nil, opts...); err != nil {
		return nil, fmt.Errorf("saidexmcp: %w", err)
	}
	g := &guard{
		cfg:      c,
		opts:     opts,
		tools:    map[string]*guardedTool{},
		sessions: map[weak.Pointer[mcp.ServerSession]]*sessionState{},
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			return g.handle(ctx, next, call)
		}
	}, nil
}

// guard is the state of one middleware.
type guard struct {
	cfg  MiddlewareConfig
	opts []saidex.Option

	mu       sync.Mutex
	tools    map[string]*guardedTool // by server name
	sessions map[weak.Pointer[mcp.ServerSession]]*sessionState
	none     sessionState // for a request without a session
}

// guardedTool is a server tool as last compiled.
type guardedTool struct {
	tool   *mcp.Tool // the server's value, compared by identity first
	schema []byte    // its inputSchema as JSON, compared when tool changed
	node   *saidex.ToolNode
	name   string // the name the node knows the tool by
	err    error  // why the tool is not guarded; node is nil
}

// sessionState is what a session's calls left: per tool name, the calls
// answered with feedback since the tool last ran, oldest first.
type sessionState struct {
	refused map[string][]refusal
}

type refusal struct{ args, feedback string }

// maxRefusals bounds the refusals a session keeps per tool; the feedback
// limit counts at most this many (a larger limit never trips).
const maxRefusals = 64

func (g *guard) log() *slog.Logger {
	if g.cfg.Logger != nil {
		return g.cfg.Logger
	}
	return slog.Default()
}

// handle guards one tools/call.
func (g *guard) handle(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	name := req.Params.Name
	tool, names, err := listedTool(ctx, next, req.Session, name)
	if err != nil {
		g.log().Warn("saidexmcp: the call is not guarded: the server's tool list could not be read", "tool", name, "error", err)
		return next(ctx, "tools/call", req)
	}
	if tool == nil {
		if g.cfg.UnknownToolFeedback {
			g.log().Warn("saidexmcp: refused a call of an unknown tool", "tool", name)
			return errorResult(unknownToolText(name, names)), nil
		}
		return next(ctx, "tools/call", req)
	}
	gt := g.compiled(tool)
	if gt.node == nil {
		return next(ctx, "tools/call", req)
	}
	args := string(req.Params.Arguments)
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	st := g.session(req.Session)
	g.mu.Lock()
	past := append([]refusal(nil), st.refused[name]...)
	g.mu.Unlock()

	ready, arguments, report, err := check(ctx, gt, args, past)
	if err != nil {
		return nil, err
	}
	if ready {
		g.mu.Lock()
		delete(st.refused, name)
		g.mu.Unlock()
		if arguments != string(req.Params.Arguments) {
			params := *req.Params
			params.Arguments = json.RawMessage(arguments)
			r := *req
			r.Params = &params
			req = &r
		}
		return next(ctx, "tools/call", req)
	}
	g.mu.Lock()
	rs := append(st.refused[name], refusal{args: args, feedback: report.Output})
	if len(rs) > maxRefusals {
		rs = rs[len(rs)-maxRefusals:]
	}
	st.refused[name] = rs
	g.mu.Unlock()
	g.log().Warn("saidexmcp: refused a tool call", "tool", name, "outcome", string(report.Outcome), "issues", issueSummary(report.Issues))
	return errorResult(report.Output), nil
}

// check runs saidex on one call of gt with the session's earlier refusals
// of the tool as the conversation. It reports whether the call is ready and
// the arguments to run it with; else report holds the answer.
func check(ctx context.Context, gt *guardedTool, args string, past []refusal) (ready bool, arguments string, report saidex.CallReport, err error) {
	msgs := make([]llms.MessageContent, 0, 2*len(past)+1)
	for i, p := range past {
		id := "refused_" + strconv.Itoa(i)
		msgs = append(msgs,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
				ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: gt.name, Arguments: p.args}}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
				ToolCallID: id, Name: gt.name, Content: p.feedback}}})
	}
	msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
		ID: "call", Type: "function", FunctionCall: &llms.FunctionCall{Name: gt.name, Arguments: args}}}})
	reports, err := gt.node.Check(ctx, msgs)
	if err != nil {
		return false, "", saidex.CallReport{}, err
	}
	if len(reports) != 1 {
		return false, "", saidex.CallReport{}, fmt.Errorf("saidexmcp: saidex checked %d calls, not 1", len(reports))
	}
	r := reports[0]
	switch r.Outcome {
	case saidex.OutcomeExecuted, saidex.OutcomeCorrected, saidex.OutcomeSalvaged:
		if r.Arguments == nil {
			return true, args, r, nil
		}
		return true, string(r.Arguments), r, nil
	}
	return false, "", r, nil
}

// compiled returns the guarded form of the server tool t, compiling it
// when its schema changed since it was last seen.
func (g *guard) compiled(t *mcp.Tool) *guardedTool {
	g.mu.Lock()
	gt := g.tools[t.Name]
	g.mu.Unlock()
	if gt != nil && gt.tool == t {
		return gt
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		schema = nil
	}
	if gt != nil && schema != nil && string(gt.schema) == string(schema) {
		g.mu.Lock()
		gt2 := *gt
		gt2.tool = t
		g.tools[t.Name] = &gt2
		g.mu.Unlock()
		return &gt2
	}
	gt = &guardedTool{tool: t, schema: schema, name: modelName(t.Name)}
	if err != nil {
		gt.err = fmt.Errorf("its inputSchema does not marshal: %w", err)
	} else {
		var decoded any
		if err := json.Unmarshal(schema, &decoded); err != nil {
			gt.err = fmt.Errorf("its inputSchema is not JSON: %w", err)
		} else {
			st := &schemaTool{name: gt.name, description: t.Description, schema: decoded}
			gt.node, gt.err = saidex.NewToolNode([]tools.Tool{st}, g.opts...)
		}
	}
	if gt.err != nil {
		g.log().Warn("saidexmcp: the tool is not guarded: saidex cannot use its schema; its calls pass through unchecked", "tool", t.Name, "error", gt.err)
	}
	g.mu.Lock()
	g.tools[t.Name] = gt
	g.mu.Unlock()
	return gt
}

// session returns the state of session s, made on first use and dropped
// once s is garbage.
func (g *guard) session(s *mcp.ServerSession) *sessionState {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s == nil {
		if g.none.refused == nil {
			g.none.refused = map[string][]refusal{}
		}
		return &g.none
	}
	key := weak.Make(s)
	st := g.sessions[key]
	if st == nil {
		st = &sessionState{refused: map[string][]refusal{}}
		g.sessions[key] = st
		runtime.AddCleanup(s, g.forget, key)
	}
	return st
}

func (g *guard) forget(key weak.Pointer[mcp.ServerSession]) {
	g.mu.Lock()
	delete(g.sessions, key)
	g.mu.Unlock()
}

// listedTool finds the tool called name in the server's tool list, read
// through next, and returns it (nil when the list does not hold it) with
// every listed name.
func listedTool(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, name string) (*mcp.Tool, []string, error) {
	var names []string
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: session, Params: params})
		if err != nil {
			return nil, nil, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return nil, nil, fmt.Errorf("tools/list returned a %T", res)
		}
		for _, t := range list.Tools {
			if t == nil {
				continue
			}
			if t.Name == name {
				return t, nil, nil
			}
			names = append(names, t.Name)
		}
		if list.NextCursor == "" {
			return nil, names, nil
		}
		if list.NextCursor == params.Cursor || page > 10000 {
			return nil, nil, errors.New("tools/list repeats its cursor")
		}
		params = &mcp.ListToolsParams{Cursor: list.NextCursor}
	}
}

// schemaTool is a server tool as a saidex.Tool, for checking only: the
// server runs it.
type schemaTool struct {
	name, description string
	schema            any
}

func (t *schemaTool) Name() string        { return t.name }
func (t *schemaTool) Description() string { return t.description }
func (t *schemaTool) Schema() any         { return t.schema }
func (t *schemaTool) Call(context.Context, string) (string, error) {
	return "", errors.New("saidexmcp: a server tool runs on the server")
}

// errorResult is a tools/call result marked IsError with one text.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// maxListedTools and nearTools are the bounds of unknownToolText, the
// node's own (saidex answers an unknown tool the same way).
const (
	maxListedTools = 20
	nearTools      = 5
)

// unknownToolText answers a call of a tool the server does not list.
func unknownToolText(name string, names []string) string {
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

// issueSummary renders issues as path:kind pairs, without values.
func issueSummary(issues []saidex.Issue) string {
	parts := make([]string, 0, len(issues))
	for _, is := range issues {
		parts = append(parts, is.Path+":"+string(is.Kind))
	}
	return strings.Join(parts, ",")
}
