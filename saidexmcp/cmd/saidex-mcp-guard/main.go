// Command saidex-mcp-guard runs in front of any MCP server, whatever
// language it is written in, and guards its tool calls with saidex: a call
// whose arguments saidex repairs (a number sent as a string, an object
// encoded as a JSON string, ...) reaches the server repaired, and a call
// that stays invalid is answered with a result marked isError whose text
// is field-level feedback the model can act on, and never reaches the
// server.
//
// Over stdio, it launches the server and speaks MCP on its own standard
// input and output:
//
//	saidex-mcp-guard [flags] -- <upstream command and args>
//
// Over streamable HTTP, it connects to the server's endpoint and serves
// its own:
//
//	saidex-mcp-guard [flags] --upstream <url> --listen <addr>
//
// It mirrors the upstream's tools (every page of the list; a change the
// upstream announces is announced to the client), guards tools/call, and
// forwards prompts, resources (subscriptions, updates and list changes
// included), completion, logging, progress, _meta,
// cancellation, structured content and isError unchanged, and the
// upstream's sampling and elicitation requests to the client. A tool whose
// schema the Go SDK refuses is forwarded unguarded (logged once). It logs
// to standard error with log/slog, one line per refused call, with no
// argument value. A stalled upstream is answered with an error after
// --call-timeout; a crashed one with an error at once. Its shutdown (a
// signal, or the client closing standard input) stops the upstream it
// launched.
//
// Install it with:
//
//	go install github.com/saidex/saidex-go/saidexmcp/cmd/saidex-mcp-guard@latest
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
)

// version is the guard's version, as it introduces itself.
const version = "v0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config holds the flags.
type config struct {
	coerce        string
	feedbackLimit int
	unknownTools  string
	maxArgBytes   int
	callTimeout   time.Duration
	initTimeout   time.Duration
	upstream      string
	listen        string
	command       []string
}

// options returns the saidex options of the flags.
func (c config) options(log *slog.Logger) []saidex.Option {
	mode := saidex.CoercionNone
	if c.coerce == "lax" {
		mode = saidex.CoercionLax
	}
	return []saidex.Option{
		saidex.WithCoercion(mode),
		saidex.WithFeedbackLimit(c.feedbackLimit),
		saidex.WithMaxArgumentBytes(c.maxArgBytes),
		saidex.WithLogger(log),
	}
}

const usageHead = `saidex-mcp-guard guards the tool calls of an MCP server with saidex.

Usage:
  saidex-mcp-guard [flags] -- <upstream command and args>      (stdio)
  saidex-mcp-guard [flags] --upstream <url> --listen <addr>     (streamable HTTP)

Flags:
`

// parse reads the flags; the error is for the usage line.
func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flags(&c, stderr)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.command = fs.Args()
	switch {
	case c.coerce != "lax" && c.coerce != "none":
		return c, fmt.Errorf("--coerce must be lax or none, not %q", c.coerce)
	case c.unknownTools != "feedback" && c.unknownTools != "error":
		return c, fmt.Errorf("--unknown-tools must be feedback or error, not %q", c.unknownTools)
	case c.upstream == "" && c.listen == "" && len(c.command) == 0:
		return c, errors.New("give the upstream command after --, or --upstream and --listen")
	case (c.upstream == "") != (c.listen == ""):
		return c, errors.New("--upstream and --listen go together")
	case c.upstream != "" && len(c.command) > 0:
		return c, errors.New("give either an upstream command or --upstream, not both")
	}
	return c, nil
}

// flags returns the guard's flag set, writing into c.
func flags(c *config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("saidex-mcp-guard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.coerce, "coerce", "lax", "how values of the wrong type are treated: \"lax\" converts them when the conversion is exact (\"5\" for an integer becomes 5), \"none\" validates strictly")
	fs.IntVar(&c.feedbackLimit, "feedback-limit", 3, "after this many refused calls of one tool in a row in a session, answer with a final message telling the model to stop calling it this way; 0 sets no limit")
	fs.StringVar(&c.unknownTools, "unknown-tools", "feedback", "a call of a tool the server does not list: \"feedback\" answers it with an isError result naming the closest tools, \"error\" passes it on to the server (a JSON-RPC error)")
	fs.IntVar(&c.maxArgBytes, "max-argument-bytes", saidex.DefaultMaxArgumentBytes, "refuse, with feedback, a call whose arguments are larger than this many bytes")
	fs.DurationVar(&c.callTimeout, "call-timeout", 5*time.Minute, "answer a request with an error when the upstream has not answered it in this time; 0 waits as long as the client does")
	fs.DurationVar(&c.initTimeout, "init-timeout", 30*time.Second, "give up when the upstream has not completed the MCP handshake in this time")
	fs.StringVar(&c.upstream, "upstream", "", "the upstream server's streamable HTTP endpoint (with --listen), instead of a command after --")
	fs.StringVar(&c.listen, "listen", "", "the address to serve streamable HTTP on, such as 127.0.0.1:8080 (with --upstream); the endpoint is every path")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	return fs
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "saidex-mcp-guard: %v\nRun saidex-mcp-guard --help for the flags.\n", err)
		return 2
	}
	guard, err := newGuard(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "saidex-mcp-guard: %v\n", err)
		return 2
	}
	if cfg.upstream != "" {
		err = serveHTTP(ctx, cfg, guard, log, stderr)
	} else {
		err = serveStdio(ctx, cfg, guard, log, stdin, stdout)
	}
	if err != nil {
		log.Error("saidex-mcp-guard: " + err.Error())
		return 1
	}
	return 0
}

// serveStdio launches the upstream command and serves its mirror on
// stdin and stdout until the client closes stdin or ctx is done; then it
// stops the upstream.
func serveStdio(ctx context.Context, cfg config, guard mcp.Middleware, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	cmd.Stderr = os.Stderr // the upstream's own log
	p := newProxy(log, cfg.callTimeout)
	initCtx, cancel := context.WithTimeout(ctx, cfg.initTimeout)
	err := p.connect(initCtx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, guard)
	cancel()
	if err != nil {
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if ctx.Err() != nil {
			return nil // a signal during the handshake
		}
		if initCtx.Err() != nil {
			err = fmt.Errorf("the upstream %q did not complete the MCP handshake within %s: %w", cfg.command[0], cfg.initTimeout, err)
		}
		return err
	}
	defer p.close()
	go p.watch(ctx, cfg.command[0])
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	err = p.server.Run(ctx, t)
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)) {
		err = nil // the client went away, or a signal
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveHTTP connects to the upstream endpoint and serves the mirror over
// streamable HTTP on cfg.listen until ctx is done.
func serveHTTP(ctx context.Context, cfg config, guard mcp.Middleware, log *slog.Logger, stderr io.Writer) error {
	p := newProxy(log, cfg.callTimeout)
	initCtx, cancel := context.WithTimeout(ctx, cfg.initTimeout)
	err := p.connect(initCtx, &mcp.StreamableClientTransport{Endpoint: cfg.upstream}, guard)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil // a signal during the handshake
		}
		return fmt.Errorf("upstream %s: %w", cfg.upstream, err)
	}
	defer p.close()
	go p.watch(ctx, cfg.upstream)
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.server }, nil)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "saidex-mcp-guard: listening on http://%s/ for %s\n", ln.Addr(), strings.TrimSpace(cfg.upstream))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	<-errc
	return nil
}
