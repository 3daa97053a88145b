package server_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/server"
)

// TestAccessLog: one JSON line per request with its id, agent, command,
// status and timings.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	var buf syncbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	gw := newGateway(t, withServer(func(c *server.Config) { c.Logger = log }), withUpstream(replay(t, "normal.sse")))

	readStream(t, post(t, gw.URL+"/agents/hello", `{"command":"version"}`, "X-Request-Id", "req-1"), "[DONE]")
	readStream(t, post(t, gw.URL+"/agent", `{"agent":"chat","command":"templated"}`, "X-Request-Id", "req-2"), "[DONE]")
	post(t, gw.URL+"/agent", `{"agent":"chat","command":"nope"}`, "X-Request-Id", "req-3")
	get(t, gw.URL+"/healthz")

	type line struct {
		Msg       string   `json:"msg"`
		RequestID string   `json:"request_id"`
		Agent     *string  `json:"agent"`
		Command   *string  `json:"command"`
		Status    int      `json:"status"`
		TTFB      *float64 `json:"ttfb_ms"`
		Duration  *float64 `json:"duration_ms"`
		Method    string   `json:"method"`
		Path      string   `json:"path"`
	}
	var lines []line
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
		}
		if l.Msg == "request" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d access log lines, want 4:\n%s", len(lines), buf.String())
	}
	want := []struct {
		id, agent, command string
		status             int
	}{
		{"req-1", "hello", "version", 200},
		{"req-2", "chat", "templated", 200},
		{"req-3", "chat", "", 404},
		{"", "", "", 200},
	}
	for i, w := range want {
		l := lines[i]
		if w.id != "" && l.RequestID != w.id || l.RequestID == "" {
			t.Errorf("line %d: request_id %q, want %q", i, l.RequestID, w.id)
		}
		if got := deref(l.Agent); got != w.agent {
			t.Errorf("line %d: agent %q, want %q", i, got, w.agent)
		}
		if got := deref(l.Command); got != w.command {
			t.Errorf("line %d: command %q, want %q", i, got, w.command)
		}
		if l.Status != w.status {
			t.Errorf("line %d: status %d, want %d", i, l.Status, w.status)
		}
		if l.TTFB == nil || l.Duration == nil || *l.TTFB < 0 || *l.Duration < *l.TTFB || *l.Duration <= 0 {
			t.Errorf("line %d: ttfb_ms %v, duration_ms %v", i, l.TTFB, l.Duration)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
