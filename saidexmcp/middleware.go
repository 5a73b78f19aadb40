package saidexmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/guardcore"
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
//     side, so the session is the conversation. What it keeps per tool is
//     bounded whatever the size of the calls (the last 8 refused calls in
//     full, arguments over 4 KiB as a digest, and a count and digests of
//     the earlier ones; see docs/mcp-server.md). A session's record is
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
	g := &guard{cfg: c, keys: map[weakKey]bool{}}
	core, err := guardcore.New(opts, g.log)
	if err != nil {
		return nil, fmt.Errorf("saidexmcp: %w", err)
	}
	g.core = core
	return g.middleware, nil
}

// middleware is the mcp.Middleware of g.
func (g *guard) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		return g.handle(ctx, next, call)
	}
}

// guard is the state of one middleware.
type guard struct {
	cfg  MiddlewareConfig
	core *guardcore.Guard

	mu   sync.Mutex
	keys map[weakKey]bool // sessions with a cleanup
}

func (g *guard) log() *slog.Logger {
	if g.cfg.Logger != nil {
		return g.cfg.Logger
	}
	return slog.Default()
}

// handle guards one tools/call.
func (g *guard) handle(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	name := req.Params.Name
	tool, names, err := listedTool(ctx, next, req.Session, req.Extra, name)
	if err != nil {
		g.log().Warn("saidexmcp: the call is not guarded: the server's tool list could not be read", "tool", name, "error", err)
		return next(ctx, "tools/call", req)
	}
	if tool == nil {
		if g.cfg.UnknownToolFeedback {
			g.log().Warn("saidexmcp: refused a call of an unknown tool", "tool", name)
			return errorResult(guardcore.UnknownToolText(name, names)), nil
		}
		return next(ctx, "tools/call", req)
	}
	v, err := g.core.Check(ctx, g.sessionKey(req.Session), name, tool,
		func() ([]byte, error) { return json.Marshal(tool.InputSchema) }, string(req.Params.Arguments))
	if err != nil {
		return nil, err
	}
	switch {
	case !v.Guarded:
		return next(ctx, "tools/call", req)
	case !v.Ready:
		return errorResult(v.Feedback), nil
	}
	if v.Arguments != string(req.Params.Arguments) {
		params := *req.Params
		params.Arguments = json.RawMessage(v.Arguments)
		r := *req
		r.Params = &params
		req = &r
	}
	return next(ctx, "tools/call", req)
}

// sessionKey returns the key of session s in the core guard, which forgets
// it once s is garbage; nil for no session.
func (g *guard) sessionKey(s *mcp.ServerSession) any {
	if s == nil {
		return nil
	}
	key := weak.Make(s)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.keys[key] {
		g.keys[key] = true
		runtime.AddCleanup(s, g.forget, key)
	}
	return key
}

func (g *guard) forget(key weak.Pointer[mcp.ServerSession]) {
	g.core.Forget(key)
	g.mu.Lock()
	delete(g.keys, key)
	g.mu.Unlock()
}

// listedTool finds the tool called name in the server's tool list, read
// through next, and returns it (nil when the list does not hold it) with
// every listed name. extra is the call's own (token info, headers), so
// that a server that lists tools by caller lists the caller's.
func listedTool(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, extra *mcp.RequestExtra, name string) (*mcp.Tool, []string, error) {
	var names []string
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: session, Params: params, Extra: extra})
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

// errorResult is a tools/call result marked IsError with one text.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// weakKey is a session's key: a weak pointer, so that the guard does not
// keep the session alive.
type weakKey = weak.Pointer[mcp.ServerSession]
