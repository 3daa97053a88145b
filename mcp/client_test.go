package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
)

// transports returns an entry per transport for the test tools.
func transports(t *testing.T) map[string]string {
	url, _ := httpTestServer(t, testserver.Hooks{})
	return map[string]string{"http": url, "stdio": stdioEntry()}
}

func TestClientTools(t *testing.T) {
	want := []string{"add", "echo", "env", "fail", "hang", "json", "multi", "pid", "slow"}
	for name, entry := range transports(t) {
		t.Run(name, func(t *testing.T) {
			tools := listTools(t, dial(t, entry, nil))
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Fatalf("tools = %v, want %v (all pages)", names, want)
			}
			add := tools[slices.IndexFunc(tools, func(ti toolInfo) bool { return ti.Name == "add" })]
			var schema struct {
				Type       string
				Required   []string
				Properties map[string]struct{ Type, Description string }
			}
			if err := json.Unmarshal(add.InputSchema, &schema); err != nil {
				t.Fatalf("add schema %s: %v", add.InputSchema, err)
			}
			if schema.Type != "object" || !slices.Equal(schema.Required, []string{"a", "b"}) ||
				schema.Properties["a"].Type != "number" || schema.Properties["b"].Description != "the second addend" {
				t.Fatalf("add schema = %s", add.InputSchema)
			}
			if add.Description != "Adds two numbers." {
				t.Fatalf("add description = %q", add.Description)
			}
		})
	}
}

func TestClientCall(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    any
		wantErr string // a substring of the error
		toolErr bool   // the error is a *ToolError
	}{
		{name: "text", tool: "echo", args: map[string]any{"text": "héllo <b>"}, want: "héllo <b>"},
		{name: "nil args", tool: "echo", want: ""},
		{name: "structured", tool: "add", args: map[string]any{"a": 1.5, "b": 2}, want: map[string]any{"sum": 3.5}},
		{name: "json text stays text", tool: "json", want: `{"a":1}`},
		{name: "texts joined, image left out", tool: "multi", want: "one\ntwo"},
		{name: "isError", tool: "fail", wantErr: "it failed", toolErr: true},
		{name: "invalid args", tool: "add", args: map[string]any{"a": "x"}, wantErr: "a", toolErr: true},
		{name: "unknown tool", tool: "nope", wantErr: `unknown tool "nope"`},
	}
	for name, entry := range transports(t) {
		t.Run(name, func(t *testing.T) {
			c := dial(t, entry, nil)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := c.Call(t.Context(), tt.tool, tt.args)
					if tt.wantErr == "" {
						if err != nil || !reflect.DeepEqual(got, tt.want) {
							t.Fatalf("Call = %#v, %v; want %#v", got, err, tt.want)
						}
						return
					}
					var te *ToolError
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &te) != tt.toolErr {
						t.Fatalf("Call = %#v, %v; want error containing %q (tool error: %v)", got, err, tt.wantErr, tt.toolErr)
					}
					if tt.toolErr && err.Error() != te.Text {
						t.Fatalf("ToolError = %+v", te)
					}
				})
			}
		})
	}
}

func TestClientCallFailText(t *testing.T) {
	c := dial(t, stdioEntry(), nil)
	_, err := c.Call(t.Context(), "fail", nil)
	if err == nil || err.Error() != "it failed" {
		t.Fatalf("err = %v, want exactly the tool's text", err)
	}
}

func TestClientCallTimeout(t *testing.T) {
	for name, entry := range transports(t) {
		t.Run(name, func(t *testing.T) {
			c := dial(t, entry, nil)
			ctx, cancel := context.WithTimeout(t.Context(), 50e6)
			defer cancel()
			if _, err := c.Call(ctx, "slow", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want deadline exceeded", err)
			}
			if got, err := c.Call(t.Context(), "echo", map[string]any{"text": "still here"}); err != nil || got != "still here" {
				t.Fatalf("after timeout: %v, %v", got, err)
			}
		})
	}
}

func TestClientCallCancelReachesServer(t *testing.T) {
	started, cancelled := make(chan string, 1), make(chan string, 1)
	url, _ := httpTestServer(t, testserver.Hooks{Started: started, Cancelled: cancelled})
	c := dial(t, url, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if _, err := c.Call(ctx, "slow", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if got := <-cancelled; got != "slow" {
		t.Fatalf("server saw cancellation of %q", got)
	}
}

func TestClientEnvIsExactlyTheCallers(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{name: "nil is empty", env: nil, want: ""},
		{name: "given", env: []string{"A=1", "B=two words", "PATH=/nowhere"}, want: "A=1\nB=two words\nPATH=/nowhere"},
	}
	t.Setenv("MCPTEST_LEAK", "parent")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dial(t, stdioEntry(), tt.env).Call(t.Context(), "env", nil)
			if err != nil || got != tt.want {
				t.Fatalf("server environment = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDialErrors(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	tests := []struct{ name, entry, err string }{
		{name: "empty", entry: "  ", err: "empty command"},
		{name: "bad quoting", entry: `"abc`, err: "unterminated double quote"},
		{name: "no such program", entry: "/nonexistent/mcp-server --x", err: "no such file"},
		{name: "no host", entry: "http://", err: "invalid URL"},
		{name: "no slashes", entry: "HTTP:localhost/mcp", err: "invalid URL"},
		{name: "not an MCP endpoint", entry: notFound.URL, err: "connecting to MCP server " + notFound.URL},
		{name: "not listening", entry: "http://127.0.0.1:1/mcp", err: "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Dial(t.Context(), tt.entry, nil, "test", nil)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				if c != nil {
					c.Close()
				}
				t.Fatalf("Dial(%q) error = %v, want %q", tt.entry, err, tt.err)
			}
		})
	}
}

// TestDialTellsVersion: the server learns agentgw's name and the version
// the caller gave, through a Pool as through Dial.
func TestDialTellsVersion(t *testing.T) {
	infos := make(chan *sdk.Implementation, 2)
	srv := sdk.NewServer(&sdk.Implementation{Name: "peer", Version: "v1"}, &sdk.ServerOptions{
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			infos <- req.Session.InitializeParams().ClientInfo
		},
	})
	ts := httptest.NewServer(sdkHandler(srv))
	defer ts.Close()
	c, err := Dial(t.Context(), ts.URL, nil, "v1.2.3-test", quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := NewPool("v4.5.6-pool", quiet)
	defer p.Close()
	if _, err := p.Call(t.Context(), ts.URL, nil, "nope", nil); err == nil {
		t.Fatal("calling a tool the server lacks succeeded")
	}
	var versions []string
	for range 2 {
		select {
		case got := <-infos:
			if got == nil || got.Name != "agentgw" {
				t.Fatalf("client info %+v, want agentgw's", got)
			}
			versions = append(versions, got.Version)
		case <-time.After(10 * time.Second):
			t.Fatalf("the server was initialized by %v only", versions)
		}
	}
	slices.Sort(versions)
	if !slices.Equal(versions, []string{"v1.2.3-test", "v4.5.6-pool"}) {
		t.Errorf("versions %v, want the ones given to Dial and NewPool", versions)
	}
}
