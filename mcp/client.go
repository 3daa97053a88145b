package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentgw/agentgw/observe"
)

// clientName identifies agentgw to the MCP servers it calls.
const clientName = "agentgw"

// waitDelay bounds how long closing a stdio server waits for its output pipes
// once the process has exited (a grandchild may keep them open).
const waitDelay = 2 * time.Second

// Client talks to one MCP server: a command line (stdio) or an http(s) URL
// (streamable HTTP). It is safe for concurrent use.
type Client struct {
	entry   string
	session *sdk.ClientSession
	stderr  *stderrLog // nil for HTTP servers
	done    chan struct{}
	log     *slog.Logger
}

// Dial connects to the MCP server named by entry and initialises the session.
// An entry starting with http: or https: is a streamable HTTP endpoint;
// anything else is a command line, split with [SplitArgs] (never by a shell)
// and run with exactly env as its environment (nil means an empty one).
// version is agentgw's, told to the server with the name "agentgw". ctx
// bounds the connection and the handshake only, not the Client's life.
func Dial(ctx context.Context, entry string, env []string, version string, log *slog.Logger) (*Client, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{entry: entry, done: make(chan struct{}), log: log.With("mcpServer", entry)}
	transport, err := c.transport(entry, env)
	if err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: version},
		&sdk.ClientOptions{Logger: c.log, Capabilities: &sdk.ClientCapabilities{}})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to MCP server %s: %w%s", entry, err, c.stderr.tail())
	}
	c.session = session
	go func() {
		_ = session.Wait()
		close(c.done)
	}()
	return c, nil
}

// transport builds the SDK transport for entry.
func (c *Client) transport(entry string, env []string) (sdk.Transport, error) {
	e, err := parseEntry(entry)
	if err != nil {
		return nil, err
	}
	if e.url != "" {
		return &sdk.StreamableClientTransport{Endpoint: e.url, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: observe.Transport(nil)}}, nil
	}
	if len(e.argv) == 0 {
		return nil, errors.New("parsing MCP server command: empty command")
	}
	cmd := exec.Command(e.argv[0], e.argv[1:]...)
	cmd.Env = append([]string{}, env...) // never nil: nil would inherit ours
	c.stderr = newStderrLog(c.log)
	cmd.Stderr = c.stderr
	cmd.WaitDelay = waitDelay
	return &sdk.CommandTransport{Command: cmd}, nil
}

// serverEntry is a parsed MCP server entry: a streamable HTTP endpoint or
// a command line.
type serverEntry struct {
	url  string   // the endpoint; "" for a command line
	argv []string // the command line's words; none for a blank entry
}

// parseEntry parses an MCP server entry, blanks around it ignored. One with
// an http or https scheme (see isHTTPEntry) must be a URL with a host;
// anything else is a command line, split with SplitArgs.
func parseEntry(entry string) (serverEntry, error) {
	entry = strings.TrimSpace(entry)
	if isHTTPEntry(entry) {
		u, err := url.Parse(entry)
		if err != nil || u.Host == "" {
			return serverEntry{}, fmt.Errorf("parsing MCP server URL %q: invalid URL", entry)
		}
		return serverEntry{url: entry}, nil
	}
	argv, err := SplitArgs(entry)
	if err != nil {
		return serverEntry{}, fmt.Errorf("parsing MCP server command %q: %w", entry, err)
	}
	return serverEntry{argv: argv}, nil
}

// isHTTPEntry reports whether entry names a streamable HTTP endpoint: it
// starts with "http:" or "https:" (any case; blanks before it ignored).
// A command is never named so, so "http:host" is a bad URL, not a program.
func isHTTPEntry(entry string) bool {
	lower := strings.ToLower(strings.TrimSpace(entry))
	return strings.HasPrefix(lower, "http:") || strings.HasPrefix(lower, "https:")
}

// Call calls the named tool. The result is the tool's structuredContent when
// present, else the text of its text contents joined with newlines (a text that
// happens to be JSON stays a string). A result flagged isError becomes a
// *ToolError carrying that text.
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (any, error) {
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("calling tool %q on MCP server %s: %w", name, c.entry, err)
	}
	return resultValue(res)
}

// Close ends the session; for a stdio server it closes the server's stdin and
// waits for it to exit (signalling it after a grace period).
func (c *Client) Close() error {
	if err := c.session.Close(); err != nil {
		return fmt.Errorf("closing MCP server %s: %w", c.entry, err)
	}
	return nil
}

// broken reports whether the connection is gone, judging by err (from a call
// on c) and by whether the session has ended.
func (c *Client) broken(err error) bool {
	var toolErr *ToolError
	var wireErr *jsonrpc.Error
	if errors.As(err, &toolErr) || errors.As(err, &wireErr) {
		return false // the server answered
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true // closed, unknown to the server, or the server's output ended
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
