package main

//lint:file-ignore SA1019 sampling and logging are deprecated in MCP 2026-07-28 but clients and servers of earlier versions use them: the guard forwards them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/saidexmcp"
)

// proxy mirrors one upstream MCP session as an mcp.Server guarded by
// saidexmcp's middleware.
type proxy struct {
	log         *slog.Logger
	callTimeout time.Duration
	server      *mcp.Server

	mu          sync.Mutex
	up          *mcp.ClientSession
	listed      map[string]string    // tool name -> its JSON as last mirrored
	passthrough map[string]*mcp.Tool // tools the SDK refuses to register
	refusedLog  map[string]bool      // name+schema of refused tools already logged
	inFlight    map[*mcp.ServerSession]int
	last        *mcp.ServerSession // the session of the latest request
	resync      chan struct{}      // holds a token when the upstream said its tools changed
	gone        chan struct{}      // closed when the upstream session has ended
	// subscribed holds, per resource URI the upstream was asked to
	// subscribe to by a listen stream (MCP 2026-07-28), a channel closed
	// when the upstream acknowledged it.
	subscribed map[string]chan struct{}
}

// newProxy returns a proxy whose server is not yet built: connect it with
// connect, which reads the upstream's capabilities.
func newProxy(log *slog.Logger, callTimeout time.Duration) *proxy {
	return &proxy{
		log:         log,
		callTimeout: callTimeout,
		listed:      map[string]string{},
		passthrough: map[string]*mcp.Tool{},
		refusedLog:  map[string]bool{},
		inFlight:    map[*mcp.ServerSession]int{},
		subscribed:  map[string]chan struct{}{},
		resync:      make(chan struct{}, 1),
		gone:        make(chan struct{}),
	}
}

// watch waits for the upstream session to end, which close or the
// upstream's exit does, and logs the exit.
func (p *proxy) watch(ctx context.Context, upstream string) {
	<-p.gone
	if ctx.Err() == nil {
		p.log.Error("saidex-mcp-guard: the upstream server is gone; every request is answered with an error", "upstream", upstream)
	}
}

// client returns the MCP client the proxy connects upstream with: it
// passes the upstream's notifications and requests on to the downstream
// client, and its subscription acknowledgements to subscribe.
func (p *proxy) client() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "saidex-mcp-guard", Version: version}, &mcp.ClientOptions{
		// Input requests of a multi round-trip call are the client's to
		// answer: the result goes to it as it is, and its retry upstream.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		// The SDK handles the upstream's notifications one at a time, in
		// order: listing the tools here would hold up every later
		// notification and request of the upstream until the list came.
		// syncLoop lists them instead.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case p.resync <- struct{}{}:
			default: // a sync is already due; it lists the tools as they are then
			}
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			p.announce(func(s *mcp.Server) {
				s.AddPrompt(&mcp.Prompt{Name: announceName}, nil)
				s.RemovePrompts(announceName)
			})
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			p.announce(func(s *mcp.Server) {
				s.AddResource(&mcp.Resource{URI: announceURI, Name: announceName}, nil)
				s.RemoveResources(announceURI)
			})
		},
		ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			p.mu.Lock()
			server := p.server
			p.mu.Unlock()
			if server != nil {
				_ = server.ResourceUpdated(ctx, req.Params)
			}
		},
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			if ss := p.current(); ss != nil {
				_ = ss.Log(ctx, req.Params)
			}
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			if ss := p.current(); ss != nil {
				_ = ss.NotifyProgress(ctx, req.Params)
			}
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ss := p.current()
			if ss == nil {
				return nil, errors.New("saidex-mcp-guard: no client is connected")
			}
			return ss.CreateMessage(ctx, req.Params)
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ss := p.current()
			if ss == nil {
				return nil, errors.New("saidex-mcp-guard: no client is connected")
			}
			return ss.Elicit(ctx, req.Params)
		},
	})
	c.AddReceivingMiddleware(p.acknowledged)
	return c
}

// The prompt and resource that announce brings and takes away. No client
// lists them: forward serves prompts/list and resources/list from the
// upstream.
const (
	announceName = "saidex-mcp-guard-list-changed"
	announceURI  = "saidex-mcp-guard:list-changed"
)

// announce tells the downstream clients that the upstream's prompts or
// resources changed: the SDK sends list-changed notifications only for
// changes of a server's own lists, so change makes one and undoes it (the
// SDK then sends one notification).
func (p *proxy) announce(change func(*mcp.Server)) {
	p.mu.Lock()
	server := p.server
	p.mu.Unlock()
	if server != nil {
		change(server)
	}
}

// connect connects to the upstream over t, builds the server that mirrors
// it, guarded by guard, and mirrors the upstream's tools.
func (p *proxy) connect(ctx context.Context, t mcp.Transport, guard mcp.Middleware) error {
	up, err := p.client().Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connect to the upstream: %w", err)
	}
	init := up.InitializeResult()
	impl := &mcp.Implementation{Name: "saidex-mcp-guard", Version: version}
	opts := &mcp.ServerOptions{
		Logger: p.log,
		// Subscriptions are forwarded, and the SDK records them, so that
		// the upstream's updates reach the subscribed clients.
		// A listen stream (MCP 2026-07-28) subscribes through this
		// handler too.
		SubscribeHandler: func(ctx context.Context, req *mcp.SubscribeRequest) error {
			_, err := withTimeout(ctx, p, "resources/subscribe", func(ctx context.Context) (struct{}, error) {
				return struct{}{}, p.subscribe(ctx, req.Params)
			})
			return err
		},
		UnsubscribeHandler: func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
			_, err := withTimeout(ctx, p, "resources/unsubscribe", func(ctx context.Context) (struct{}, error) {
				p.mu.Lock()
				delete(p.subscribed, req.Params.URI)
				p.mu.Unlock()
				return struct{}{}, p.upstream().Unsubscribe(ctx, req.Params)
			})
			return err
		},
	}
	if init != nil {
		if init.ServerInfo != nil {
			impl = init.ServerInfo
		}
		opts.Instructions = init.Instructions
		if init.Capabilities != nil {
			caps := *init.Capabilities
			caps.Tools = &mcp.ToolCapabilities{ListChanged: true} // the mirror notifies its own changes
			opts.Capabilities = &caps
		}
	}
	server := mcp.NewServer(impl, opts)
	// forward is outermost: it serves what is not a guarded tool call, and
	// the tools the SDK refuses to register, unguarded.
	server.AddReceivingMiddleware(p.forward, guard)
	p.mu.Lock()
	p.up, p.server = up, server
	p.mu.Unlock()
	go func() {
		_ = up.Wait()
		close(p.gone)
	}()
	if err := p.syncTools(ctx); err != nil {
		_ = up.Close()
		return fmt.Errorf("list the upstream's tools: %w", err)
	}
	go p.syncLoop()
	return nil
}

// syncLoop mirrors the upstream's tools again each time it says they
// changed (notices that come during a sync make one more sync, not one
// each), each sync bounded by the call timeout, until the upstream session
// ends. A sync that fails is logged; the mirror keeps the tools it had.
func (p *proxy) syncLoop() {
	for {
		select {
		case <-p.gone:
			return
		case <-p.resync:
		}
		_, err := withTimeout(context.Background(), p, "tools/list", func(ctx context.Context) (struct{}, error) {
			return struct{}{}, p.syncTools(ctx)
		})
		select {
		case <-p.gone:
			return
		default:
		}
		if err != nil {
			p.log.Warn("saidex-mcp-guard: could not list the upstream's tools after it said they changed", "error", err)
		}
	}
}

// close closes the upstream session, which stops an upstream command.
func (p *proxy) close() error {
	p.mu.Lock()
	up := p.up
	p.mu.Unlock()
	if up == nil {
		return nil
	}
	return up.Close()
}

// upstream returns the upstream session.
// subscribe subscribes the upstream to a resource and returns once the
// upstream has recorded it, so that an update it sends after the
// downstream's subscription was acknowledged reaches the downstream. Under
// MCP 2026-07-28 the SDK's Subscribe only opens a listen stream and returns
// at once: subscribe then waits for the upstream's acknowledgement naming
// the URI, which acknowledged passes on. A URI already subscribed waits for
// the same acknowledgement.
func (p *proxy) subscribe(ctx context.Context, params *mcp.SubscribeParams) error {
	up := p.upstream()
	if init := up.InitializeResult(); init == nil || init.ProtocolVersion < "2026-07-28" {
		return up.Subscribe(ctx, params) // answered once the upstream recorded it
	}
	p.mu.Lock()
	acked, ok := p.subscribed[params.URI]
	if !ok {
		acked = make(chan struct{})
		p.subscribed[params.URI] = acked
	}
	p.mu.Unlock()
	if !ok {
		if err := up.Subscribe(ctx, params); err != nil {
			p.mu.Lock()
			delete(p.subscribed, params.URI)
			p.mu.Unlock()
			return err
		}
	}
	select {
	case <-acked:
		return nil
	case <-p.gone:
		return errUpstreamGone
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acknowledged is the upstream client's receiving middleware: it wakes
// subscribe for each URI an upstream's subscriptions/acknowledged names.
func (p *proxy) acknowledged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ack, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && ack != nil {
			p.mu.Lock()
			for _, uri := range ack.Notifications.ResourceSubscriptions {
				if ch, ok := p.subscribed[uri]; ok {
					select {
					case <-ch:
					default:
						close(ch)
					}
				}
			}
			p.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

func (p *proxy) upstream() *mcp.ClientSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// syncTools lists every page of the upstream's tools and mirrors them:
// new and changed tools are registered (the SDK then notifies the
// downstream clients), and tools gone are removed. A tool the SDK refuses
// to register is served by forward, unguarded, and logged once.
//
// connect runs it once, then syncLoop, one sync at a time.
func (p *proxy) syncTools(ctx context.Context) error {
	up := p.upstream()

	var tools []*mcp.Tool
	for t, err := range up.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if t != nil {
			tools = append(tools, t)
		}
	}
	seen := map[string]bool{}
	var removed []string
	for _, t := range tools {
		seen[t.Name] = true
		b, err := json.Marshal(t)
		if err != nil {
			continue
		}
		p.mu.Lock()
		same := p.listed[t.Name] == string(b)
		p.mu.Unlock()
		if same {
			continue
		}
		refusal := p.register(t)
		p.mu.Lock()
		p.listed[t.Name] = string(b)
		if refusal != nil {
			p.passthrough[t.Name] = t
			key := string(b)
			if !p.refusedLog[key] {
				p.refusedLog[key] = true
				p.log.Warn("saidex-mcp-guard: the SDK refuses the tool's schema; its calls pass through unguarded", "tool", t.Name, "error", refusal)
			}
		} else {
			delete(p.passthrough, t.Name)
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	for name := range p.listed {
		if !seen[name] {
			removed = append(removed, name)
			delete(p.listed, name)
			delete(p.passthrough, name)
		}
	}
	server := p.server
	p.mu.Unlock()
	if len(removed) > 0 {
		server.RemoveTools(removed...)
	}
	return nil
}

// register adds t to the server with a handler that forwards its calls,
// and returns why the SDK refused it, if it did (AddTool panics on a schema
// it refuses).
func (p *proxy) register(t *mcp.Tool) (refusal error) {
	defer func() {
		if r := recover(); r != nil {
			refusal = fmt.Errorf("%v", r)
			p.server.RemoveTools(t.Name) // an earlier version of the tool
		}
	}()
	p.server.AddTool(t, p.callUpstream)
	return nil
}

// callUpstream forwards a tools/call, with its _meta and arguments as
// received (or as the guard rewrote them), and returns the upstream's
// result as it is.
func (p *proxy) callUpstream(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Meta: req.Params.Meta, Name: req.Params.Name,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	if len(req.Params.Arguments) > 0 {
		params.Arguments = req.Params.Arguments
	}
	return withTimeout(ctx, p, "tools/call", func(ctx context.Context) (*mcp.CallToolResult, error) {
		return p.upstream().CallTool(ctx, params)
	})
}

// withTimeout runs f with the proxy's call timeout, and words its error.
func withTimeout[R any](ctx context.Context, p *proxy, method string, f func(context.Context) (R, error)) (R, error) {
	if p.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.callTimeout)
		defer cancel()
	}
	r, err := f(ctx)
	if err == nil {
		return r, nil
	}
	var zero R
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return zero, fmt.Errorf("saidex-mcp-guard: the upstream server did not answer %s within %s", method, p.callTimeout)
	}
	select {
	case <-p.gone:
		err = fmt.Errorf("%w (%w)", errUpstreamGone, err)
	default:
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, errUpstreamGone) {
		return zero, fmt.Errorf("saidex-mcp-guard: the upstream server is gone (%s): %w", method, err)
	}
	return zero, err
}

// errUpstreamGone marks an error of a request that failed once the
// upstream session had ended.
var errUpstreamGone = errors.New("the upstream session has ended")

// current returns the downstream session that upstream requests and
// notifications go to: the one with a request in flight (the latest to
// send one, if several have), else the latest to send one.
func (p *proxy) current() *mcp.ServerSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inFlight[p.last] > 0 {
		return p.last
	}
	for ss := range p.inFlight {
		return ss
	}
	return p.last
}

// track records a request of ss in flight until the returned func runs.
func (p *proxy) track(ss *mcp.ServerSession) func() {
	if ss == nil {
		return func() {}
	}
	p.mu.Lock()
	p.inFlight[ss]++
	p.last = ss
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.inFlight[ss]--; p.inFlight[ss] <= 0 {
			delete(p.inFlight, ss)
		}
		p.mu.Unlock()
	}
}

// forward is the proxy's outermost receiving middleware: it forwards the
// methods the mirror does not serve itself to the upstream, calls of tools
// the SDK refused (unguarded), and lists those tools after the others.
func (p *proxy) forward(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			defer p.track(ss)()
		}
		up := p.upstream()
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if r.Params != nil {
				p.mu.Lock()
				_, pass := p.passthrough[r.Params.Name]
				p.mu.Unlock()
				if pass {
					return p.callUpstream(ctx, r)
				}
			}
		case *mcp.ListToolsRequest:
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil && list.NextCursor == "" {
				p.mu.Lock()
				extra := make([]*mcp.Tool, 0, len(p.passthrough))
				for _, t := range p.passthrough {
					extra = append(extra, t)
				}
				p.mu.Unlock()
				if len(extra) > 0 {
					cp := *list
					cp.Tools = append(append([]*mcp.Tool(nil), list.Tools...), extra...)
					return &cp, nil
				}
			}
			return res, err
		case *mcp.ListPromptsRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.ListPromptsResult, error) { return up.ListPrompts(ctx, r.Params) })
		case *mcp.GetPromptRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.GetPromptResult, error) { return up.GetPrompt(ctx, r.Params) })
		case *mcp.ListResourcesRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.ListResourcesResult, error) { return up.ListResources(ctx, r.Params) })
		case *mcp.ListResourceTemplatesRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.ListResourceTemplatesResult, error) {
				return up.ListResourceTemplates(ctx, r.Params)
			})
		case *mcp.ReadResourceRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.ReadResourceResult, error) { return up.ReadResource(ctx, r.Params) })
		case *mcp.CompleteRequest:
			return forwarded(ctx, p, method, func(ctx context.Context) (*mcp.CompleteResult, error) { return up.Complete(ctx, r.Params) })
		case *mcp.ServerRequest[*mcp.SetLoggingLevelParams]:
			// The upstream logs at that level; the mirror's session
			// records it too, so that it passes those messages on.
			if _, err := withTimeout(ctx, p, method, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, up.SetLoggingLevel(ctx, r.Params)
			}); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// forwarded runs f with the call timeout and returns its result as an
// mcp.Result.
func forwarded[R mcp.Result](ctx context.Context, p *proxy, method string, f func(context.Context) (R, error)) (mcp.Result, error) {
	r, err := withTimeout(ctx, p, method, f)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// newGuard returns saidexmcp's middleware for the flags' options.
func newGuard(cfg config, log *slog.Logger) (mcp.Middleware, error) {
	return saidexmcp.MiddlewareConfig{UnknownToolFeedback: cfg.unknownTools == "feedback", Logger: log}.Middleware(cfg.options(log)...)
}
