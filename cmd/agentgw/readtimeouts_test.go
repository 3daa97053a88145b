package main

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestConfigReadTimeouts: server.readHeaderTimeout and
// server.bodyReadTimeout come from the embedded defaults, the file, the
// environment and the flags, each over the one before.
func TestConfigReadTimeouts(t *testing.T) {
	file := writeFile(t, t.TempDir(), "gw.yaml", "server:\n  readHeaderTimeout: 3s\n  bodyReadTimeout: 4s\n")
	tests := []struct {
		name             string
		env              map[string]string
		args             []string
		header, bodyRead time.Duration
	}{
		{name: "embedded defaults", header: 10 * time.Second, bodyRead: 30 * time.Second},
		{name: "file", args: []string{"--config", file}, header: 3 * time.Second, bodyRead: 4 * time.Second},
		{name: "environment over file", args: []string{"--config", file},
			env:    map[string]string{"AGENTGW_READ_HEADER_TIMEOUT": "5s", "AGENTGW_BODY_READ_TIMEOUT": "1m"},
			header: 5 * time.Second, bodyRead: time.Minute},
		{name: "flags over environment", args: []string{"--config", file, "--read-header-timeout", "2s", "--body-read-timeout", "90s"},
			env:    map[string]string{"AGENTGW_READ_HEADER_TIMEOUT": "5s", "AGENTGW_BODY_READ_TIMEOUT": "1m"},
			header: 2 * time.Second, bodyRead: 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Duration(cfg.Server.ReadHeaderTimeout); got != tt.header {
				t.Errorf("server.readHeaderTimeout = %v, want %v", got, tt.header)
			}
			if got := time.Duration(cfg.Server.BodyReadTimeout); got != tt.bodyRead {
				t.Errorf("server.bodyReadTimeout = %v, want %v", got, tt.bodyRead)
			}
		})
	}
}

// TestConfigReadTimeoutErrors: a bad or negative read bound is refused,
// naming where it came from.
func TestConfigReadTimeoutErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		file string
		env  map[string]string
		want string
	}{
		{name: "negative in the file", file: "server: {bodyReadTimeout: -1s}\n", want: "server.bodyReadTimeout must not be negative"},
		{name: "negative header bound", file: "server: {readHeaderTimeout: -1s}\n", want: "server.readHeaderTimeout must not be negative"},
		{name: "not a duration in the environment", env: map[string]string{"AGENTGW_BODY_READ_TIMEOUT": "soon"}, want: `AGENTGW_BODY_READ_TIMEOUT: "soon" is not a duration`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			if tt.file != "" {
				args = []string{"--config", writeFile(t, t.TempDir(), "gw.yaml", tt.file)}
			}
			_, err := loadConfig(t, tt.env, args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestServeBodyReadTimeout: serve hands the configured body read time to
// the server: a client that stalls mid-body is answered 400 and
// disconnected.
func TestServeBodyReadTimeout(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Server.BodyReadTimeout = Duration(50 * time.Millisecond)
	url := startGateway(t, cfg, nil)
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second)) // against a hang only
	if _, err := io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{\"agent\":"); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("reading: %v (got %q)", err, got)
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 400 ") || !strings.Contains(string(got), "body read time of 50ms") {
		t.Errorf("got %q, want a 400 naming the body read time, then the connection closed", got)
	}
}
