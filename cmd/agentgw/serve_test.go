package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

func TestServeEndToEnd(t *testing.T) {
	up := newFakeUpstream(t, "It adds ", "two numbers.")
	base := startGateway(t, testConfig(t, up.URL()), nil)

	t.Run("healthz", func(t *testing.T) {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h struct {
			Status  string `json:"status"`
			Agents  int    `json:"agents"`
			Version string `json:"version"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || h.Status != "ok" || h.Agents != 7 || h.Version != versionString() {
			t.Errorf("GET /healthz: %d %+v", resp.StatusCode, h)
		}
	})

	t.Run("hello greets and offers a confirm", func(t *testing.T) {
		resp, events := postAgent(t, base+"/agents/hello",
			`{"contextVariables":[{"name":"userInfo","value":{"id":"ada@example.com","name":"Ada","nickname":"Ada"}}]}`)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if got, want := streamText(t, events), "Hello, Ada!\nWelcome to agent hello!"; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
		var confirm struct {
			Action string          `json:"action"`
			State  json.RawMessage `json:"state"`
			Data   map[string]any  `json:"data"`
		}
		var actions int
		for _, ev := range events {
			if ev.Name == "copilot_action" {
				actions++
				if err := json.Unmarshal([]byte(ev.Data), &confirm); err != nil {
					t.Fatal(err)
				}
			}
		}
		if actions != 1 || confirm.Action != "confirm" || confirm.Data["title"] != "Get version" ||
			confirm.Data["command"] != "version" || len(confirm.State) == 0 {
			t.Errorf("%d actions, confirm %+v state %s", actions, confirm, confirm.State)
		}
		if last := events[len(events)-1]; last.Data != "[DONE]" {
			t.Errorf("last frame %+v, want [DONE]", last)
		}
	})

	t.Run("coder explain relays the upstream", func(t *testing.T) {
		body := `{"agent":"coder","command":"explain","model":"fake-1","contextVariables":[
			{"name":"activeEditor","value":{"filePath":"/src/add.go","language":"go","content":"func add(a, b int) int { return a + b }\n",
			 "selectedRanges":[{"content":"return a + b","startLine":1,"startColumn":26,"endLine":1,"endColumn":38}]}},
			{"name":"userInputPrompt","value":"why?"}]}`
		_, events := postAgent(t, base+"/agents/coder", body)
		if got, want := streamText(t, events), "It adds two numbers."; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
		reqs := up.Requests()
		if len(reqs) != 1 {
			t.Fatalf("upstream got %d requests, want 1", len(reqs))
		}
		r := reqs[0]
		if r.Path != "/chat/completions" || !r.Stream || r.Model != "fake-1" {
			t.Errorf("upstream request: path %q stream %v model %q", r.Path, r.Stream, r.Model)
		}
		user := r.Messages[len(r.Messages)-1]
		for _, want := range []string{"Explain this go from add.go:", "```go\nreturn a + b\n```", "The user asks: why?"} {
			if user.Role != "user" || !strings.Contains(user.Content, want) {
				t.Errorf("user message %q lacks %q", user.Content, want)
			}
		}
	})
}

// TestServeResolverOptions checks that the gateway re-applies the command's
// resolverOptions to what a client sent.
func TestServeResolverOptions(t *testing.T) {
	up := newFakeUpstream(t, "fine")
	base := startGateway(t, testConfig(t, up.URL()), nil)
	body := `{"command":"review","contextVariables":[
		{"name":"activeEditor","value":{"filePath":"/src/a.go","language":"go","content":"l1\nl2\nl3\nl4\n",
		 "selectedRanges":[{"content":"l3","startLine":3,"startColumn":1,"endLine":3,"endColumn":3,
		   "contentBeforeSelection":"l1\nl2\n","contentAfterSelection":"\nl4\n"}]}},
		{"name":"packageFiles","value":[{"filepath":"f1/go.mod","content":"m1"},{"filepath":"f2/go.mod","content":"m2"},
		 {"filepath":"f3/go.mod","content":"m3"},{"filepath":"f4/go.mod","content":"m4"},{"filepath":"f5/go.mod","content":"m5"}]}]}`
	_, events := postAgent(t, base+"/agents/coder", body)
	if got := streamText(t, events); got != "fine" {
		t.Errorf("text = %q", got)
	}
	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests", len(reqs))
	}
	system := reqs[0].Messages[0].Content
	for _, f := range []string{"f1/go.mod", "f2/go.mod", "f3/go.mod"} {
		if !strings.Contains(system, f) {
			t.Errorf("system message lacks %s:\n%s", f, system)
		}
	}
	for _, f := range []string{"f4/go.mod", "f5/go.mod"} {
		if strings.Contains(system, f) {
			t.Errorf("system message has %s beyond maximumNumber 3:\n%s", f, system)
		}
	}
}

func TestServeErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		env  map[string]string
		want string
	}{
		{
			name: "key auth with an empty key",
			cfg: func(c *Config) {
				c.Upstream.URL, c.Upstream.Auth, c.Upstream.KeyEnv = "http://127.0.0.1:1/v1", "key", "TEST_KEY"
			},
			want: "upstream.auth is key but the environment variable TEST_KEY is empty",
		},
		{
			name: "relative upstream URL",
			cfg:  func(c *Config) { c.Upstream.URL = "api.example.com/v1" },
			want: "upstream: llm: base URL",
		},
		{
			name: "address in use or invalid",
			cfg:  func(c *Config) { c.Addr = "127.0.0.1:-1" },
			want: "listening on 127.0.0.1:-1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, "")
			tt.cfg(cfg)
			ready := make(chan string, 1)
			err := serve(context.Background(), cfg, envOf(tt.env), slog.New(slog.DiscardHandler), ready)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("serve = %v, want an error containing %q", err, tt.want)
			}
			if len(ready) != 0 {
				t.Error("serve reported ready although it failed")
			}
		})
	}
}

func TestServeKeyAuth(t *testing.T) {
	up := newFakeUpstream(t, "ok")
	cfg := testConfig(t, up.URL())
	cfg.Upstream.Auth, cfg.Upstream.KeyEnv = "key", "TEST_KEY"
	base := startGateway(t, cfg, map[string]string{"TEST_KEY": "sk-test"})
	req, _ := http.NewRequest(http.MethodPost, base+"/agents/happy", strings.NewReader(`{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer from-the-plugin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("upstream Authorization = %q, want the configured key", got)
	}
	if reqs[0].Model != "hunyuan" {
		t.Errorf("model = %q, want the agent's hunyuan", reqs[0].Model)
	}
}

func TestServeInboundAuthAndTerminator(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Server.Terminator = "[Done]"
	base := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": "t1, t2"})
	resp, err := http.Post(base+"/agents/hello", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/agents/hello", strings.NewReader(`{"command":"version"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Agentgw-Token", "t2")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasSuffix(string(data), "data: [Done]\n\n") {
		t.Errorf("with a token: %d\n%s", resp.StatusCode, data)
	}
}

func TestSplitTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"a", []string{"a"}},
		{" a ,b,, c ", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		got := splitTokens(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestServeGracefulShutdown cancels serve while a stream is in flight: the
// stream still ends properly and serve returns nil.
func TestServeGracefulShutdown(t *testing.T) {
	held := llmtest.NewGate()
	slow := llmtest.New(t, llmtest.Repeat(llmtest.Text("finished ", "anyway").Hold(held)))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- serve(ctx, testConfig(t, slow.URL()), envOf(nil), slog.New(slog.DiscardHandler), ready)
	}()
	base := "http://" + <-ready

	type result struct {
		events []streamEvent
		err    error
	}
	done := make(chan result, 1)
	go func() {
		_, events, err := readAgent(base+"/agents/happy", `{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`)
		done <- result{events, err}
	}()
	<-held.Reached() // the request is in flight
	cancel()         // shut down
	held.Release()
	r := <-done
	if r.err != nil || len(r.events) == 0 {
		t.Fatalf("in-flight stream: %v", r.err)
	}
	if text, last := streamText(t, r.events), r.events[len(r.events)-1].Data; text != "finished anyway" || last != "[DONE]" {
		t.Errorf("in-flight stream: text %q, last frame %q", text, last)
	}
	if err := <-errc; err != nil {
		t.Errorf("serve = %v, want nil", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the gateway still answers after shutdown")
	}
}
