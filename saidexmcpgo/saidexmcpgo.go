// Package saidexmcpgo guards the tool calls of an MCP server built with
// github.com/mark3labs/mcp-go with saidex: a call whose arguments saidex
// repairs or coerces reaches the tool's handler repaired, and a call that
// stays invalid is answered with a result marked isError whose text is
// saidex's field-level feedback, which the model reads, and never reaches
// the handler.
//
//	s := server.NewMCPServer("files", "1.0.0")
//	s.AddTool(writeFile, handleWriteFile)
//	mw, err := saidexmcpgo.Middleware(s, saidex.WithCoercion(saidex.CoercionLax))
//	if err != nil {
//		return err
//	}
//	s.Use(mw)
//
// Use saidex instead of server.WithInputSchemaValidation, not with it:
// mcp-go runs that validation before any tool middleware, so while it is
// on, an invalid call is answered with mcp-go's own schema error and
// saidex never sees it (it can neither repair it nor give its feedback).
//
// It is a module of its own, so that programs that use saidex without
// mcp-go do not depend on it.
package saidexmcpgo

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/guardcore"
)

// Middleware is [Config.Middleware] of the zero Config: warnings go to
// slog.Default().
func Middleware(s *server.MCPServer, opts ...saidex.Option) (server.ToolHandlerMiddleware, error) {
	return Config{}.Middleware(s, opts...)
}

// Config configures the middleware [Config.Middleware] returns. The zero
// value is the default.
type Config struct {
	// Logger receives one warning per refused call (the tool, the outcome
	// and the paths and kinds of its issues, never an argument value) and
	// one per tool whose schema saidex cannot use. nil means
	// slog.Default() at the time of logging.
	Logger *slog.Logger
}

// Middleware returns a tool handler middleware for s (install it with
// s.Use, or pass it to server.WithToolHandlerMiddleware of a server whose
// pointer you then give here), configured by opts, the options of
// [saidex.NewToolNode] (coercion, feedback limit, argument size,
// validators, correction model). On each tool call it:
//
//   - takes the tool's inputSchema from the session's own tools, else from
//     s.GetTool, compiling it once and again only when it changes;
//   - repairs, coerces and validates the arguments as a saidex.ToolNode
//     built with opts does (arguments absent are checked as {});
//   - calls the handler with a ready call, its arguments replaced by the
//     repaired ones when they changed (both Params.Arguments, as a
//     map[string]any, and Params.RawArguments), and answers any other call
//     itself with a result marked isError whose one text content is
//     saidex's feedback;
//   - keeps, per client session (by session ID), the feedback it gave for
//     each tool since that tool last ran, for [saidex.WithFeedbackLimit]
//     and for telling the model that a call repeats one already refused
//     (bounded per tool: the last 8 refused calls in full, arguments over
//     4 KiB as a digest, and a count and digests of the earlier ones; see
//     docs/mcp-server.md). A session's record is dropped when mcp-go
//     unregisters the session (the client closed it: a DELETE, the end of
//     a stdio or SSE connection, mcp-go's idle sweep), and otherwise when
//     10,000 sessions are remembered, oldest first. A call without a
//     session ID (the stateless streamable HTTP of protocol version
//     2026-07-28, which mcp-go's client negotiates by default) is checked
//     on its own: there is no session to count in.
//
// Middleware adds an OnUnregisterSession hook to s's hooks (s.GetHooks,
// or new hooks installed with server.WithHooks when s has none), so call
// it before s serves: mcp-go's hooks are not safe to change while it runs.
//
// A tool whose schema saidex cannot compile passes unguarded, logged once
// per schema. Calls of unknown tools never reach a tool middleware (mcp-go
// answers them with a JSON-RPC error first). Feedback and log lines carry
// no secret value (see [saidex.Secret]).
//
// A call for which saidex returns an error (a raise policy of
// [saidex.WithOnUnresolved], ctx done) is answered with that error. The
// error of Middleware wraps [saidex.ErrInvalidConfig] when
// saidex.NewToolNode refuses opts.
func (c Config) Middleware(s *server.MCPServer, opts ...saidex.Option) (server.ToolHandlerMiddleware, error) {
	g, err := newGuard(c, s, opts)
	if err != nil {
		return nil, err
	}
	return g.middleware, nil
}

// newGuard returns the guard of Middleware, its unregister hook added to
// s's hooks.
func newGuard(c Config, s *server.MCPServer, opts []saidex.Option) (*guard, error) {
	if s == nil {
		return nil, fmt.Errorf("saidexmcpgo: nil server")
	}
	g := &guard{cfg: c, server: s, order: list.New(), seen: map[string]*list.Element{}}
	core, err := guardcore.New(opts, g.log)
	if err != nil {
		return nil, fmt.Errorf("saidexmcpgo: %w", err)
	}
	g.core = core
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		if cs != nil {
			g.forget(cs.SessionID())
		}
	})
	return g, nil
}

type guard struct {
	cfg    Config
	server *server.MCPServer
	core   *guardcore.Guard

	mu    sync.Mutex
	order *list.List               // session IDs seen, oldest first
	seen  map[string]*list.Element // their elements in order
}

// maxSessions bounds the sessions a guard remembers.
const maxSessions = 10000

func (g *guard) log() *slog.Logger {
	if g.cfg.Logger != nil {
		return g.cfg.Logger
	}
	return slog.Default()
}

func (g *guard) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.Params.Name
		tool, ok := g.lookup(ctx, name)
		if !ok {
			return next(ctx, req)
		}
		args, err := argumentsOf(req)
		if err != nil {
			return next(ctx, req)
		}
		sess := g.sessionKey(ctx)
		v, err := g.core.Check(ctx, sess, name, nil, func() ([]byte, error) { return inputSchema(tool) }, args)
		if id, ok := sess.(string); ok {
			g.forgetIfGone(id) // the session ended during the check
		}
		if err != nil {
			return nil, err
		}
		switch {
		case !v.Guarded:
			return next(ctx, req)
		case !v.Ready:
			return mcp.NewToolResultError(v.Feedback), nil
		}
		if v.Arguments != args {
			var decoded any
			if err := json.Unmarshal([]byte(v.Arguments), &decoded); err == nil {
				req.Params.Arguments = decoded
				req.Params.RawArguments = json.RawMessage(v.Arguments)
			}
		}
		return next(ctx, req)
	}
}

// lookup returns the tool name of the calling session, else of the server.
func (g *guard) lookup(ctx context.Context, name string) (mcp.Tool, bool) {
	if st, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok && st != nil {
		if t, ok := st.GetSessionTools()[name]; ok {
			return t.Tool, true
		}
	}
	if t := g.server.GetTool(name); t != nil {
		return t.Tool, true
	}
	return mcp.Tool{}, false
}

// sessionKey returns the calling session's key: its ID, remembered up to
// maxSessions sessions; nil for a call without a session ID.
func (g *guard) sessionKey(ctx context.Context) any {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" {
		return nil
	}
	id := s.SessionID()
	g.track(id)
	return id
}

// track records id, forgetting the oldest session past maxSessions.
func (g *guard) track(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen[id] != nil {
		return
	}
	g.seen[id] = g.order.PushBack(id)
	if g.order.Len() > maxSessions {
		old := g.order.Remove(g.order.Front()).(string)
		delete(g.seen, old)
		g.core.Forget(old)
	}
}

// forget drops what session id left: mcp-go unregistered it.
func (g *guard) forget(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.seen[id]; e != nil {
		g.order.Remove(e)
		delete(g.seen, id)
	}
	g.core.Forget(id)
}

// forgetIfGone drops what session id left when it was unregistered while
// one of its calls was being checked, so that the check's record does not
// outlive the session.
func (g *guard) forgetIfGone(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen[id] == nil {
		g.core.Forget(id)
	}
}

// argumentsOf returns the call's arguments as JSON text: as received when
// mcp-go kept them, else marshalled from Params.Arguments ("" when absent).
func argumentsOf(req mcp.CallToolRequest) (string, error) {
	if len(req.Params.RawArguments) > 0 {
		return string(req.Params.RawArguments), nil
	}
	switch a := req.Params.Arguments.(type) {
	case nil:
		return "", nil
	case json.RawMessage:
		return string(a), nil
	case string:
		b, err := json.Marshal(a) // a JSON string: saidex may find an object in it
		return string(b), err
	}
	b, err := json.Marshal(req.Params.Arguments)
	return string(b), err
}

// inputSchema returns the tool's inputSchema as JSON, as mcp-go lists it.
func inputSchema(t mcp.Tool) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var m struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m.InputSchema, nil
}
