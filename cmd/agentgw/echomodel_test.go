package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/echomodel"
)

// TestBuiltinEchoModel: upstream.url builtin:echo streams a real answer
// through the whole path with no model platform: the coder example's
// prompt, as the model got it, comes back.
func TestBuiltinEchoModel(t *testing.T) {
	cfg := testConfig(t, echomodel.URL)
	base := startGateway(t, cfg, nil)
	got := ask(t, base+"/agents/coder", `{"contextVariables":[{"name":"userInputPrompt","value":"What does main.go do?"}]}`)
	if e := got.errorFrame(); e != nil || !strings.HasPrefix(got.text, "echo model (") || !strings.Contains(got.text, "- user: ") {
		t.Fatalf("the echo model answered %q, error %+v", got.text, e)
	}
}

// lockedBuffer is a log destination serve's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBuiltinModelByDefault: with no upstream in the config file, the
// environment or the flags, the gateway the default configuration builds
// answers model commands with the built-in model, and says so in its log
// with how to point it at a real model.
func TestBuiltinModelByDefault(t *testing.T) {
	cfg, err := loadConfig(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr, cfg.Data, cfg.Upstream.BuiltinPace = "127.0.0.1:0", t.TempDir(), 0
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
	got := ask(t, "http://"+addr+"/agents/coder", `{"contextVariables":[{"name":"userInputPrompt","value":"What does main.go do?"}]}`)
	want := "echo model (gpt-4o-mini) got 2 messages:\n" +
		"- system: You are a senior software engineer helping a colleague inside their IDE.\n" +
		"  Answer concisely and show code in fenced blocks.\n" +
		"- user: What does main.go do?\n"
	if e := got.errorFrame(); e != nil || got.text != want {
		t.Fatalf("answer %q, error %+v; want %q", got.text, e, want)
	}
	if l := logs.String(); !strings.Contains(l, `msg="no upstream configured: model commands are answered by the built-in echo model, which streams back what it received; `+
		`point at a real model with --upstream URL, AGENTGW_UPSTREAM_URL or upstream.url (e.g. https://api.openai.com/v1)"`) {
		t.Errorf("no log line saying the built-in model is the default:\n%s", l)
	}
}

// TestNoBuiltinModelWhenConfigured: an upstream named anywhere is kept.
func TestNoBuiltinModelWhenConfigured(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"environment", map[string]string{"AGENTGW_UPSTREAM_URL": "http://env.example/v1"}, nil},
		{"flag", nil, []string{"--upstream", "http://flag.example/v1"}},
	} {
		cfg, err := loadConfig(t, tc.env, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Upstream.URL == echomodel.URL || cfg.Upstream.builtinDefault {
			t.Errorf("%s: upstream %q, builtin default %v", tc.name, cfg.Upstream.URL, cfg.Upstream.builtinDefault)
		}
	}
}
