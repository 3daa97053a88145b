package mcp

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
)

// stdioServer is the path of the stdioserver program, built once by TestMain.
var stdioServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcptest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if stdioServer, err = buildStdioServer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildStdioServer builds the test stdio server into dir, in a sub-directory
// with a space and a quote in its name so that entries need quoting.
func buildStdioServer(dir string) (string, error) {
	bin := filepath.Join(dir, "my 'bin", "stdioserver")
	cmd := exec.Command("go", "build", "-o", bin, "./internal/testserver/stdioserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building stdioserver: %v\n%s", err, out)
	}
	return bin, nil
}

// stdioEntry is the command-line entry that runs the stdio test server.
func stdioEntry() string {
	return `"` + strings.ReplaceAll(stdioServer, `"`, `\"`) + `"`
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.DiscardHandler)

// switchHandler serves with whatever handler it holds now.
type switchHandler struct{ h atomic.Pointer[http.Handler] }

func (s *switchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

// set replaces the handler.
func (s *switchHandler) set(h http.Handler) { s.h.Store(&h) }

// httpTestServer serves the test tools over stateful streamable HTTP. The
// returned function replaces the handler with a fresh one, which forgets
// every session.
func httpTestServer(t *testing.T, hooks testserver.Hooks) (url string, reset func()) {
	t.Helper()
	sw := &switchHandler{}
	reset = func() { sw.set(sdkHandler(testserver.New(hooks))) }
	reset()
	ts := httptest.NewServer(sw)
	t.Cleanup(ts.Close)
	return ts.URL, reset
}

// sdkHandler serves srv with the SDK's stateful streamable HTTP handler.
func sdkHandler(srv *sdk.Server) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}

// dial dials entry and closes the client when the test ends.
func dial(t *testing.T, entry string, env []string) *Client {
	t.Helper()
	c, err := Dial(t.Context(), entry, env, "test", quiet)
	if err != nil {
		t.Fatalf("Dial(%s): %v", entry, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// toolInfo is one tool as an MCP server lists it.
type toolInfo struct {
	Name        string
	Description string
	// InputSchema is {"type":"object"} when the server gave none.
	InputSchema json.RawMessage
}

// listTools lists the tools of c's server, following pagination.
func listTools(t *testing.T, c *Client) []toolInfo {
	t.Helper()
	var out []toolInfo
	for tool, err := range c.session.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("listing tools of %s: %v", c.entry, err)
		}
		schema := json.RawMessage(`{"type":"object"}`)
		if tool.InputSchema != nil {
			b, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatalf("encoding the input schema of %s: %v", tool.Name, err)
			}
			schema = b
		}
		out = append(out, toolInfo{Name: tool.Name, Description: tool.Description, InputSchema: schema})
	}
	return out
}
