package remote_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

// pluginHeader is what a plugin's request to the gateway carried, after
// the gateway's own handling (it would have removed a matched token).
func pluginHeader() http.Header {
	return http.Header{
		"Host":                {"gateway.example"},
		"Content-Length":      {"123"},
		"Content-Type":        {"application/json; charset=utf-8"},
		"Accept":              {"*/*"},
		"Accept-Encoding":     {"gzip, br"},
		"Connection":          {"keep-alive, X-Hop"},
		"X-Hop":               {"named by Connection"},
		"Keep-Alive":          {"timeout=5"},
		"Te":                  {"trailers"},
		"Trailer":             {"X-T"},
		"Upgrade":             {"h2c"},
		"Expect":              {"100-continue"},
		"Proxy-Authorization": {"Basic cHJveHk6cHc="},
		"X-Agentgw-Token":     {"gateway-inbound-token"},
		"x-agentgw-token":     {"lower-case spelling"},
		"Authorization":       {"Bearer plugin-platform-token"},
		"Cookie":              {"session=abc123"},
		"User-Agent":          {"ide-plugin/1.2"},
		"X-Request-Id":        {"req-42"},
		"X-Custom":            {"a", "b"},
	}
}

// captured is what a remote received.
type captured struct {
	method string
	uri    string
	header http.Header
	body   string
}

// captureOf is what the remote's request r was.
func captureOf(r llmtest.Request) captured {
	return captured{method: r.Method, uri: r.RequestURI, header: r.Header, body: string(r.Body)}
}

func (c captured) String() string {
	var lines []string
	for k, vs := range c.header {
		for _, v := range vs {
			lines = append(lines, k+": "+v)
		}
	}
	slices.Sort(lines)
	return fmt.Sprintf("%s %s\n%s\n\n%s\n", c.method, c.uri, strings.Join(lines, "\n"), c.body)
}

// TestHeaderPolicy: the exact request a remote receives, per setting
// (testdata/headers/<name>.golden).
func TestHeaderPolicy(t *testing.T) {
	tests := []struct {
		name string
		cfg  remote.Config
	}{
		{"default", remote.Config{}},
		{"forward_authorization", remote.Config{ForwardAuthorization: true}},
		{"endpoint_header", remote.Config{EndpointHeader: func(endpoint string) http.Header {
			return http.Header{"X-Agentgw-Token": {"token-of-the-remote-gateway"}, "x-tenant": {"t1"}}
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := remoteServer(t, agentStream(llmtest.Done)) // it records the request
			err := newClient(t, tt.cfg).Forward(context.Background(), srv.URL(), "security", []byte(agentBody), pluginHeader(), &recorder{})
			if err != nil {
				t.Fatal(err)
			}
			got := captureOf(srv.Only(t))
			out := strings.ReplaceAll(got.String(), strings.TrimPrefix(srv.URL(), "http://"), "remote.test")
			golden.Check(t, filepath.Join("testdata", "headers", tt.name+".golden"), []byte(out))
		})
	}
}

func TestForwardHeadersDoesNotTouchInput(t *testing.T) {
	in := pluginHeader()
	before := fmt.Sprint(in)
	out := remote.ForwardHeaders(in, false)
	out.Set("X-Custom", "changed")
	if fmt.Sprint(in) != before {
		t.Error("ForwardHeaders changed its input or shares its slices")
	}
}

// TestForwardTargets: the URL and body a remote receives for each form of
// endpoint and agent name.
func TestForwardTargets(t *testing.T) {
	tests := []struct {
		endpoint, agent, body string
		wantURI, wantBody     string
	}{
		{"", "security", agentBody, "/agents/security",
			`{"agent":"security","command":"default","contextVariables":[{"name":"userInputPrompt","value":"hi"}],"temperature":0.2}`},
		{"/", "sec urity/x", `{"command":"c"}`, "/agents/sec%20urity%2Fx", `{"agent":"sec urity/x","command":"c"}`},
		{"/hook?key=1", "security", `{"agent":"x"}`, "/hook?key=1", `{"agent":"security"}`},
		{"/agents/security", "security", ` { "agent" : "x" , "agent":"y"} `, "/agents/security", ` { "agent" : "security" , "agent":"security"} `},
		{"", "", agentBody, "/agent", agentBody},
		{"/seed", "", `{"agent":"hello","command":"default"}`, "/seed", `{"agent":"hello","command":"default"}`},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint+" "+tt.agent, func(t *testing.T) {
			srv := remoteServer(t, agentStream(llmtest.Done)) // it records the request
			c := newClient(t, remote.Config{})
			if err := c.Forward(context.Background(), srv.URL()+tt.endpoint, tt.agent, []byte(tt.body), nil, &recorder{}); err != nil {
				t.Fatal(err)
			}
			got := captureOf(srv.Only(t))
			if got.method != http.MethodPost || got.uri != tt.wantURI || got.body != tt.wantBody {
				t.Errorf("got %s %s %s\nwant POST %s %s", got.method, got.uri, got.body, tt.wantURI, tt.wantBody)
			}
		})
	}
}
