package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// newFakeUpstream is a model platform that answers every request with
// the chunks as text (none: an empty answer) and records the requests.
func newFakeUpstream(t *testing.T, chunks ...string) *llmtest.Model {
	return llmtest.New(t, llmtest.Repeat(llmtest.Text(chunks...)))
}

// lastToolResult is the content of the last tool message that ended a
// request m received ("" if none).
func lastToolResult(m *llmtest.Model) string {
	out := ""
	for _, r := range m.Requests() {
		if last := r.LastMessage(); last.Role == "tool" {
			out = last.Content
		}
	}
	return out
}

// testConfig is the embedded configuration on a loopback port with upstream
// as the model platform ("" for none).
func testConfig(t *testing.T, upstream string) *Config {
	t.Helper()
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = "127.0.0.1:0"
	// Never the user's state directory: a directory of the test's own.
	cfg.Data = t.TempDir()
	cfg.Upstream.URL = upstream
	cfg.Upstream.BuiltinPace = 0
	cfg.Server.ShutdownGrace = Duration(5 * time.Second)
	return cfg
}

// startGateway runs serve until the test ends and returns its base URL.
// Cleanup checks that serve shut down gracefully (returned nil).
func startGateway(t *testing.T, cfg *Config, env map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, cfg, envOf(env), slog.New(slog.DiscardHandler), ready) }()
	select {
	case addr := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("serve returned %v after cancel, want nil", err)
			}
		})
		return "http://" + addr
	case err := <-errc:
		cancel()
		t.Fatalf("serve failed to start: %v", err)
	}
	return ""
}

// streamEvent is one SSE event of an answer.
type streamEvent struct {
	Name string
	Data string
}

// postAgent posts body to url and reads the whole SSE answer.
func postAgent(t *testing.T, url, body string) (*http.Response, []streamEvent) {
	t.Helper()
	resp, events, err := readAgent(url, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, events
}

// readAgent is postAgent for goroutines other than the test's.
func readAgent(url, body string) (*http.Response, []streamEvent, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var events []streamEvent
	rd := sse.NewReader(resp.Body)
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return resp, events, nil
		}
		if err != nil {
			return resp, events, fmt.Errorf("reading the stream: %w", err)
		}
		events = append(events, streamEvent{Name: ev.Name, Data: string(ev.Data)})
	}
}

// streamText joins the text deltas of an answer.
func streamText(t *testing.T, events []streamEvent) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		if ev.Name != "" || ev.Data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			t.Fatalf("text frame %q: %v", ev.Data, err)
		}
		for _, c := range chunk.Choices {
			b.WriteString(c.Delta.Content)
		}
	}
	return b.String()
}
