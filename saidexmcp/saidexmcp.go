// Package saidexmcp hands the tools of an MCP server to a [saidex.ToolNode].
//
// [Tools] lists the tools of the server a *mcp.ClientSession (from
// github.com/modelcontextprotocol/go-sdk) is connected to and returns them
// as [saidex.Tool] values whose schema is the server's inputSchema. A
// ToolNode built from them repairs, validates and, with a correction model,
// corrects every call against that schema before it reaches the server: a
// call the server would reject, or misread, is answered with field-level
// feedback and never sent.
//
//	mcpTools, err := saidexmcp.Tools(ctx, session)
//	if err != nil {
//		return err
//	}
//	node, err := saidex.NewToolNode(mcpTools, saidex.WithHandleToolErrors(true))
//
// The session comes from an mcp.Client connected over a transport. For a
// server that runs as a subprocess and speaks over its standard input and
// output:
//
//	client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "v1.0.0"}, nil)
//	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("weather-server")}, nil)
//	if err != nil {
//		return err
//	}
//	defer session.Close()
//
// For a server over HTTP, connect with
// &mcp.StreamableClientTransport{Endpoint: "https://example.com/mcp"}. For a
// server in the same process (tests, examples), mcp.NewInMemoryTransports
// returns the two ends: server.Connect(ctx, serverEnd, nil), then
// client.Connect(ctx, clientEnd, nil), as the package's example does.
//
// On the server side, [Middleware] guards the tools/call requests an MCP
// server built with the same SDK receives: a call saidex repairs reaches
// the tool's handler repaired, and one that stays invalid is answered with
// a result marked IsError whose text is saidex's field-level feedback:
//
//	server.AddReceivingMiddleware(saidexmcp.Middleware(saidex.WithCoercion(saidex.CoercionLax)))
//
// The command saidex-mcp-guard (in cmd/saidex-mcp-guard) does the same in
// front of any MCP server, as a proxy. docs/mcp-server.md in the
// repository is the guide to all three.
//
// It is a module of its own, so that programs that use saidex without MCP
// do not depend on the MCP SDK.
package saidexmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/guardcore"
	"github.com/tmc/langchaingo/tools"
)

// Tools lists the tools of the server session is connected to, following
// the pagination cursor to the last page, and returns one [*Tool] per
// server tool, in the server's order, as the []tools.Tool that
// saidex.NewToolNode takes. ctx bounds the listing only.
//
// A tool that saidex.NewToolNode would refuse (a schema past
// saidex.MaxSchemaDepth, MaxSchemaObjects or MaxSchemaBytes, one that does
// not compile, a name it cannot turn into a valid one) is left out and
// logged with slog.Default, naming the tool and the reason, so that one
// hostile or broken schema does not take the server's other tools down.
//
// It returns the session's error, wrapped, when a page cannot be listed.
// The tools of several servers can share one node as long as their names
// (see [Tool.Name]) differ: saidex.NewToolNode refuses a duplicate name.
func Tools(ctx context.Context, session *mcp.ClientSession) ([]tools.Tool, error) {
	if session == nil {
		return nil, errors.New("saidexmcp: nil session")
	}
	var out []tools.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("saidexmcp: list tools: %w", err)
		}
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			tool := NewTool(session, t)
			if err := usable(tool); err != nil {
				slog.Warn("saidexmcp: skipped a tool saidex cannot guard (its name or schema is refused)",
					slog.String("tool", t.Name), slog.String("error", err.Error()))
				continue
			}
			out = append(out, tool)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if res.NextCursor == params.Cursor {
			return nil, fmt.Errorf("saidexmcp: list tools: the server returned cursor %q again", res.NextCursor)
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// Tool is a tool of an MCP server as a [saidex.Tool]: its Schema is the
// server's inputSchema, and Call sends a tools/call request through the
// session. It is safe for concurrent use, as the session is.
type Tool struct {
	session *mcp.ClientSession
	tool    *mcp.Tool
	name    string // the name the model sees (see Name)
}

var _ saidex.Tool = (*Tool)(nil)

// NewTool returns the server tool t, as listed by session, as a [*Tool];
// t must not be nil. [Tools] calls it for every listed tool; call it
// yourself to pick tools, or to hand the node a tool whose inputSchema you
// have edited. A nil session makes every Call fail.
//
// saidex.NewToolNode compiles every tool's schema and refuses the whole
// set when one does not compile, naming the tool.
func NewTool(session *mcp.ClientSession, t *mcp.Tool) *Tool {
	return &Tool{session: session, tool: t, name: guardcore.ModelName(t.Name)}
}

// Name returns the name the model calls the tool by: the server's name
// with every character other than an ASCII letter, a digit, '_' and '-'
// replaced by '_' ("github.create_issue" becomes "github_create_issue").
// MCP allows '.' in tool names (and up to 128 characters), OpenAI and
// Anthropic do not, and saidex.NewToolNode refuses a name that breaks
// their rule, ^[a-zA-Z0-9_-]{1,64}$. Two server names that map to one
// name (a.b and a_b) make NewToolNode refuse the set as duplicates; a
// name longer than 64 characters is refused too: wrap such a tool in a
// type whose Name method returns a shorter name. Calls always reach the
// server under [Tool.ServerName].
func (t *Tool) Name() string { return t.name }

// ServerName returns the server's name of the tool, which Call sends.
func (t *Tool) ServerName() string { return t.tool.Name }

// Description returns the server's description of the tool, or its title
// when the description is empty.
func (t *Tool) Description() string {
	if t.tool.Description != "" {
		return t.tool.Description
	}
	return t.tool.Title
}

// Schema returns the server's inputSchema, as the session decoded it
// (a map[string]any).
func (t *Tool) Schema() any { return t.tool.InputSchema }

// Call sends input, which must be one JSON object, to the server as the
// arguments of a tools/call request, and returns the result's content as
// text (see [ResultText]). Its errors name the tool as the model calls it
// ([Tool.Name]), since under saidex.WithHandleToolErrors the model reads
// them.
//
// Input that is not one JSON object is refused with an error wrapping
// [saidex.ErrInvalidArguments], without a request. A result the server
// marks with IsError is returned as a [*ResultError], which a ToolNode
// treats as any tool error: it stops the run by default, and becomes an
// error tool message with [saidex.WithHandleToolErrors]. An error of the
// request itself (the session closed, a protocol error, ctx done) is
// returned wrapped, as is a result asking for client input, which the
// session answers itself unless its multi round-trip handling is disabled; ctx is the request's context, so cancelling it cancels
// the call on the server too.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	if t.session == nil {
		return "", fmt.Errorf("saidexmcp: call %s: nil session", t.name)
	}
	args := json.RawMessage(input)
	if !isObject(args) {
		return "", fmt.Errorf("%w: %s: the arguments are not one JSON object", saidex.ErrInvalidArguments, t.name)
	}
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: t.tool.Name, Arguments: args})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return "", fmt.Errorf("saidexmcp: call %s: %w", t.name, err)
	}
	if res.NeedsInput() {
		// The session's multi round-trip middleware, on by default,
		// answers input requests itself; it was disabled.
		return "", fmt.Errorf("saidexmcp: call %s: the server asks for client input (%d requests), which a tool call cannot give: keep the session's multi round-trip handling enabled", t.name, len(res.InputRequests))
	}
	text := ResultText(res)
	if res.IsError {
		return "", &ResultError{Tool: t.name, Text: text}
	}
	return text, nil
}

// isObject reports whether b is one valid JSON value that is an object.
func isObject(b []byte) bool {
	s := strings.TrimLeft(string(b), " \t\r\n")
	return strings.HasPrefix(s, "{") && json.Valid(b)
}

// ResultError is the error [Tool.Call] returns for a result the server
// marked with IsError: the tool ran and failed, for example on an unknown
// city.
type ResultError struct {
	// Tool is the name the model calls the tool by ([Tool.Name]): the
	// model reads this error, and a server name with a '.' is not one it
	// knows (see [Tool.ServerName]).
	Tool string
	// Text is the result's content, as [ResultText] renders it.
	Text string
}

// Error returns the tool name and the result's text, which is what the
// model reads after "Error: " under saidex.WithHandleToolErrors(true).
func (e *ResultError) Error() string {
	return e.Tool + ": " + e.Text
}

// ResultText renders the content of a tools/call result as the text of a
// tool message, one content block per line: text as it is, an embedded
// text resource as its URI on a line followed by its text, and every other
// content type as a bracketed description (type, MIME type, size, URI),
// so that nothing is dropped silently. A result without content renders
// its structured content as JSON, and "" when it has none.
func ResultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	if len(res.Content) == 0 {
		if res.StructuredContent == nil {
			return ""
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return fmt.Sprintf("[structured content that does not marshal: %v]", err)
		}
		return string(b)
	}
	lines := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		lines = append(lines, describe(c))
	}
	return strings.Join(lines, "\n")
}

// describe renders one content block.
func describe(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		if c.MIMEType != "" {
			s += ", " + c.MIMEType
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[embedded resource without contents]"
		}
		if r.Blob != nil {
			return fmt.Sprintf("[resource %s: %s, %d bytes, not shown]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
		}
		return "[resource " + r.URI + "]\n" + r.Text
	case nil:
		return "[empty content]"
	default:
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Sprintf("[%T content]", c)
		}
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &head) == nil && head.Type != "" {
			return "[" + head.Type + " content, not shown]"
		}
		return fmt.Sprintf("[%T content, not shown]", c)
	}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// usable reports why saidex.NewToolNode refuses t on its own, nil when it
// accepts it: the check costs one schema compilation, bounded by the
// core's schema limits.
func usable(t *Tool) error {
	_, err := saidex.NewToolNode([]tools.Tool{t}, saidex.WithLogger(slog.New(slog.DiscardHandler)))
	return err
}
