package server_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/server"
)

// TestLongNamesClipped: a 900 KB name is echoed in the error message and
// the access log clipped to apierr.MaxEcho bytes, saying its length, not
// whole.
func TestLongNamesClipped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 900<<10)
	clipped := strings.Repeat("a", apierr.MaxEcho) + "…(921600 bytes)"
	var logs syncbuf.Buffer
	gw := newGateway(t, withServer(func(c *server.Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) }))
	tests := []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"agent in the path", "POST", "/agents/" + long, `{}`, 404, apierr.CodeAgentNotFound,
			`no agent named "` + clipped + `"`},
		{"agent in the body", "POST", "/agent", `{"agent":"` + long + `"}`, 404, apierr.CodeAgentNotFound,
			`no agent named "` + clipped + `"`},
		{"definition of an agent", "GET", "/agents/" + long, "", 404, apierr.CodeAgentNotFound,
			`no agent named "` + clipped + `"`},
		{"command", "POST", "/agents/hello", `{"command":"` + long + `"}`, 404, apierr.CodeCommandNotFound,
			`agent "hello" has no command "` + clipped + `"`},
		{"path and body differ", "POST", "/agents/hello", `{"agent":"` + long + `"}`, 400, apierr.CodeBadRequest,
			`the path names agent "hello" but the body names "` + clipped + `"`},
	}
	for _, tt := range tests {
		var r response
		if tt.method == "GET" {
			r = get(t, gw.URL+tt.path)
		} else {
			r = post(t, gw.URL+tt.path, tt.body)
		}
		e := errorResponse(t, r, tt.status, tt.code)
		if e.Message != tt.msg {
			t.Errorf("%s: message\n%.400q\nwant\n%.400q", tt.name, e.Message, tt.msg)
		}
		if len(r.body) > 2*apierr.MaxEcho+1024 {
			t.Errorf("%s: a %d-byte answer", tt.name, len(r.body))
		}
	}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 4<<20)
	lines := 0
	for sc.Scan() {
		var l struct {
			Msg, Path, Agent, Command string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line is not JSON: %v", err)
		}
		if len(sc.Bytes()) > 3*apierr.MaxEcho+1024 {
			t.Errorf("a %d-byte log line: %.300s…", len(sc.Bytes()), sc.Bytes())
		}
		if l.Msg != "request" {
			continue
		}
		lines++
		for _, v := range []string{l.Path, l.Agent, l.Command} {
			if len(v) > apierr.MaxEcho && !strings.HasSuffix(v, "…(921600 bytes)") && !strings.HasSuffix(v, "…(921608 bytes)") {
				t.Errorf("access log value not clipped: %.300s…", v)
			}
		}
	}
	if lines != len(tests) {
		t.Errorf("%d access log lines, want %d", lines, len(tests))
	}
}
