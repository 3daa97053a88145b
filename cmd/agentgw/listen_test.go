package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListenAddr: with no address named anywhere the gateway listens on
// loopback only, unless inbound auth is configured (tokens or admin
// tokens); an address the operator names (config file, AGENTGW_ADDR,
// --addr) is used as it is, auth or not. Before, the embedded default was
// :18080, every interface, without auth.
func TestListenAddr(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "gw.yaml", "addr: \"0.0.0.0:9000\"\n")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"nothing named, no auth", nil, nil, "127.0.0.1:18080"},
		{"nothing named, auth tokens", map[string]string{"AGENTGW_TOKENS": "t1,t2"}, nil, ":18080"},
		{"nothing named, admin tokens", map[string]string{"AGENTGW_ADMIN_TOKENS": "a"}, nil, ":18080"},
		{"nothing named, empty token list", map[string]string{"AGENTGW_TOKENS": " , "}, nil, "127.0.0.1:18080"},
		{"AGENTGW_ADDR, no auth", map[string]string{"AGENTGW_ADDR": ":18080"}, nil, ":18080"},
		{"AGENTGW_ADDR, auth", map[string]string{"AGENTGW_ADDR": "127.0.0.1:7000", "AGENTGW_TOKENS": "t"}, nil, "127.0.0.1:7000"},
		{"--addr", nil, []string{"--addr", "10.1.2.3:8000"}, "10.1.2.3:8000"},
		{"--addr over AGENTGW_ADDR", map[string]string{"AGENTGW_ADDR": ":1"}, []string{"--addr", "127.0.0.1:2"}, "127.0.0.1:2"},
		{"config file", nil, []string{"--config", file}, "0.0.0.0:9000"},
		{"config file by AGENTGW_CONFIG", map[string]string{"AGENTGW_CONFIG": file}, nil, "0.0.0.0:9000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tc.env, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			auth, admin := inboundTokens(cfg, envOf(tc.env))
			if got := listenAddr(cfg.Addr, len(auth)+len(admin) > 0); got != tc.want {
				t.Errorf("listen address %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWarnExposed: a WARN whenever the gateway listens beyond loopback
// without inbound auth, and only then.
func TestWarnExposed(t *testing.T) {
	tests := []struct {
		ip   string
		auth bool
		warn bool
	}{
		{"0.0.0.0", false, true},
		{"::", false, true},
		{"10.0.0.1", false, true},
		{"2001:db8::1", false, true},
		{"0.0.0.0", true, false},
		{"127.0.0.1", false, false},
		{"127.0.0.2", false, false},
		{"::1", false, false},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		warnExposed(log, &net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 18080}, tc.auth)
		got := strings.Contains(buf.String(), "level=WARN msg=\"agentgw listens beyond loopback without inbound auth")
		if got != tc.warn {
			t.Errorf("%s, auth %v: warned %v, want %v; log: %q", tc.ip, tc.auth, got, tc.warn, buf.String())
		}
	}
}

// TestServeWarnsWhenExposed: serve logs the WARN, with the address, when
// it listens on every interface without inbound auth, and not on loopback
// or with auth.
func TestServeWarnsWhenExposed(t *testing.T) {
	for _, tc := range []struct {
		addr string
		env  map[string]string
		warn bool
	}{
		{"0.0.0.0:0", nil, true},
		{"0.0.0.0:0", map[string]string{"AGENTGW_TOKENS": "t"}, false},
		{"127.0.0.1:0", nil, false},
	} {
		cfg := testConfig(t, "")
		cfg.Addr = tc.addr
		cfg.Data = filepath.Join(t.TempDir(), "data")
		var buf lockedBuffer
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan string, 1)
		errc := make(chan error, 1)
		go func() { errc <- serve(ctx, cfg, envOf(tc.env), slog.New(slog.NewTextHandler(&buf, nil)), ready) }()
		select {
		case <-ready:
		case err := <-errc:
			t.Fatalf("serve: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not start")
		}
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("serve: %v", err)
		}
		logs := buf.String()
		got := strings.Contains(logs, "level=WARN msg=\"agentgw listens beyond loopback without inbound auth")
		if got != tc.warn {
			t.Errorf("%s %v: warned %v, want %v; log:\n%s", tc.addr, tc.env, got, tc.warn, logs)
		}
		if tc.warn && !strings.Contains(logs, "addr=0.0.0.0:") && !strings.Contains(logs, "addr=[::]:") {
			t.Errorf("the WARN does not name the address:\n%s", logs)
		}
	}
}

// TestDebugListenerWarnsWhenExposed: the debug listener (pprof, expvar,
// metrics; no auth) logs a WARN when it listens beyond loopback, and not
// on loopback.
func TestDebugListenerWarnsWhenExposed(t *testing.T) {
	for _, tc := range []struct {
		addr string
		warn bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		ctx, cancel := context.WithCancel(context.Background())
		if err := serveDebug(ctx, tc.addr, nil, log); err != nil {
			cancel()
			t.Fatal(err)
		}
		cancel()
		got := strings.Contains(buf.String(), `level=WARN msg="the debug listener has no auth and listens beyond loopback`)
		if got != tc.warn {
			t.Errorf("%s: warned %v, want %v; log: %q", tc.addr, got, tc.warn, buf.String())
		}
	}
}

// TestPlaygroundURL: the playground's URL is the listening address, with
// loopback for every interface.
func TestPlaygroundURL(t *testing.T) {
	tests := []struct {
		ip   string
		want string
	}{
		{"127.0.0.1", "http://127.0.0.1:18080/ui/"},
		{"0.0.0.0", "http://127.0.0.1:18080/ui/"},
		{"::", "http://127.0.0.1:18080/ui/"},
		{"::1", "http://[::1]:18080/ui/"},
		{"10.1.2.3", "http://10.1.2.3:18080/ui/"},
	}
	for _, tc := range tests {
		if got := playgroundURL(&net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 18080}); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.ip, got, tc.want)
		}
	}
}

// TestServeLogsPlayground: serve's start log says at INFO where the
// playground is, and that URL serves the page; GET / leads there.
func TestServeLogsPlayground(t *testing.T) {
	cfg := testConfig(t, "")
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready, errc := make(chan string, 1), make(chan error, 1)
	go func() { errc <- serve(ctx, cfg, envOf(nil), slog.New(slog.NewTextHandler(&logs, nil)), ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatalf("serve: %v", err)
	}
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	url := "http://" + addr + "/ui/"
	if want := `level=INFO msg="playground at ` + url + `" url=` + url + "\n"; !strings.Contains(logs.String(), want) {
		t.Errorf("no line %q in the start log:\n%s", want, logs.String())
	}
	for _, u := range []string{url, "http://" + addr + "/"} { // GET / redirects to it
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Request.URL.String() != url {
			t.Errorf("GET %s: %d %s at %s, want the page at %s", u, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Request.URL, url)
		}
	}
}
