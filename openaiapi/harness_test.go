package openaiapi_test

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/echomodel"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/tools/toolload"
)

// created is the clock of every test gateway: 2025-01-01T00:00:00Z.
const created = 1735689600

// setup describes a test gateway.
type setup struct {
	// upstream is the model platform's answers; nil is the built-in echo
	// model.
	upstream llmtest.Option
	// noUpstream leaves the gateway without one.
	noUpstream  bool
	passthrough bool
	// passModels are the models passed through; nil is every one.
	passModels []string
	apiKey     string
	tokens     []string
	bodyLimit  int64
	// keepAlive is the endpoint's; 0 is its default.
	keepAlive time.Duration
	observers observe.Observers
	// secrets are the passthrough's other credentials.
	secrets []string
	// logger is the gateway's; nil discards.
	logger *slog.Logger
	// keys are the gateway's stored keys; nil is none.
	keys server.Keys
}

// gateway is a running test gateway: the real server with the endpoint
// mounted, on a loopback port.
type gateway struct {
	URL string
	up  *llmtest.Model
	// served counts the gateway's handler calls in flight: a client has
	// the whole answer before the handler returns and its observers
	// record the request.
	served sync.WaitGroup
}

// settled waits until every request the gateway got has been handled to
// the end, its metrics and access log line recorded.
func (g *gateway) settled() { g.served.Wait() }

// handle is an upstream that answers every request with h: the HTTP
// oddities (trailers, 1xx answers, encodings) the other replies do not say.
func handle(h http.HandlerFunc) llmtest.Option {
	return llmtest.Repeat(llmtest.Handle(h))
}

func start(t *testing.T, s setup) *gateway {
	t.Helper()
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, filepath.Join("testdata", "agents"))
	if diags.Errors() > 0 {
		t.Fatalf("test agents: %v", diags)
	}
	gw := &gateway{}
	rc := runner.RunnerConfig{Signer: actions.NewSigner([]byte("test"), time.Hour), DefaultModel: "test-model", Store: store.NewMemory()}
	oc := openaiapi.Config{Now: func() time.Time { return time.Unix(created, 0) }, Logger: s.logger, KeepAlive: s.keepAlive}
	if !s.noUpstream {
		answers := s.upstream
		if answers == nil {
			answers = handle(echomodel.Handler(0).ServeHTTP)
		}
		gw.up = llmtest.New(t, answers)
		lc := llm.Config{BaseURL: gw.up.URL()}
		if s.apiKey != "" {
			lc.Auth, lc.APIKey = llm.AuthKey, s.apiKey
		}
		client, err := llm.New(lc)
		if err != nil {
			t.Fatal(err)
		}
		rc.LLM = client
		if s.passthrough {
			p, err := openaiapi.NewPassthrough(openaiapi.PassthroughConfig{BaseURL: gw.up.URL(), APIKey: s.apiKey,
				Secrets: s.secrets, Logger: s.logger})
			if err != nil {
				t.Fatal(err)
			}
			oc.Passthrough, oc.PassthroughModels = p, s.passModels
			if s.passModels == nil {
				oc.PassthroughModels = []string{"*"}
			}
		}
	}
	oc.Runner = runner.NewRunner(program.NewRegistry(agents), rc)
	srv := server.New(server.Config{Runner: oc.Runner, AuthTokens: s.tokens, Keys: s.keys, BodyLimit: s.bodyLimit, OpenAI: openaiapi.New(oc),
		Observers: s.observers, Logger: s.logger})
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gw.served.Add(1)
		defer gw.served.Done()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	gw.URL = ts.URL
	return gw
}

// post sends body to path with the headers given as name, value pairs.
func (g *gateway) post(t *testing.T, path, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func (g *gateway) get(t *testing.T, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

var chunkID = regexp.MustCompile(`"id":"chatcmpl-[0-9a-f-]{36}"`)

// events splits a stream into its events, checking that every chunk has
// one id, which is replaced by chatcmpl-ID.
func events(t *testing.T, stream string) []string {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range chunkID.FindAllString(stream, -1) {
		ids[m] = true
	}
	if len(ids) > 1 {
		t.Errorf("the chunks carry %d ids, want one: %v", len(ids), ids)
	}
	stream = chunkID.ReplaceAllString(stream, `"id":"chatcmpl-ID"`)
	var out []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := strings.Index(string(data), "\n\n"); i >= 0 {
			return i + 2, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
