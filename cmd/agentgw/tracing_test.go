package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentgw/agentgw/sse"
)

// otlpCollector is an OTLP/HTTP receiver keeping the spans it got.
type otlpCollector struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
	// services are the service.name of each resource received.
	services []string
}

func newOTLPCollector(t *testing.T) *otlpCollector {
	c := &otlpCollector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			t.Errorf("collector: %s %s, %d bytes not an export", r.Method, r.URL.Path, len(body))
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					c.services = append(c.services, kv.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				c.spans = append(c.spans, ss.Spans...)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(c.Close)
	return c
}

// tree draws the spans of a trace received as a tree of "name [kind]",
// children in the order they started, and returns the span of each name.
func (c *otlpCollector) tree(traceID string) (string, map[string]*tracepb.Span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	ids := map[string]bool{}
	kids := map[string][]*tracepb.Span{}
	var spans []*tracepb.Span
	for _, s := range c.spans {
		if hex.EncodeToString(s.TraceId) == traceID {
			spans = append(spans, s)
			byName[s.Name] = s
			ids[string(s.SpanId)] = true
		}
	}
	var roots []*tracepb.Span
	for _, s := range spans {
		if ids[string(s.ParentSpanId)] {
			kids[string(s.ParentSpanId)] = append(kids[string(s.ParentSpanId)], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var draw func(s *tracepb.Span, depth int)
	draw = func(s *tracepb.Span, depth int) {
		kind := strings.ToLower(strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"))
		fmt.Fprintf(&b, "%s%s [%s]\n", strings.Repeat("  ", depth), s.Name, kind)
		k := kids[string(s.SpanId)]
		slices.SortStableFunc(k, func(a, b *tracepb.Span) int { return cmp.Compare(a.StartTimeUnixNano, b.StartTimeUnixNano) })
		for _, c := range k {
			draw(c, depth+1)
		}
	}
	for _, r := range roots {
		draw(r, 0)
	}
	return b.String(), byName
}

// startGatewayStopping runs serve and returns its base URL and stop,
// which ends serve and waits for it to return.
func startGatewayStopping(t *testing.T, cfg *Config, env map[string]string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, cfg, envOf(env), slog.New(slog.DiscardHandler), ready) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("serve returned %v after cancel, want nil", err)
			}
		})
	}
	select {
	case addr := <-ready:
		t.Cleanup(stop)
		return "http://" + addr, stop
	case err := <-errc:
		cancel()
		t.Fatalf("serve failed to start: %v", err)
	}
	return "", nil
}

// TestTracesEndToEnd runs a plan with an http tool call and a model call
// on a loopback gateway exporting to an OTLP/HTTP collector: every part
// of the request has its span under its parent, in the plugin's trace, and
// the tool and the model got the traceparent of their own spans. A second
// request, a command with a prompt of its own and no traceparent, starts
// a trace of its own.
func TestTracesEndToEnd(t *testing.T) {
	const (
		traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parentID = "00f067aa0ba902b7"
	)
	collector := newOTLPCollector(t)
	var mu sync.Mutex
	var toolHeaders []http.Header
	toolSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		toolHeaders = append(toolHeaders, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"found":"forty-two"}`)
	}))
	defer toolSrv.Close()
	up := newFakeUpstream(t, "It is ", "forty-two.")

	dir := t.TempDir()
	writeFile(t, dir, "agents/traced.yaml", `name: traced
tools:
  - {name: lookup, description: Looks it up, runtime: http, entry: "`+toolSrv.URL+`/lookup", parameters: {type: object, properties: {q: {type: string}}}}
commands:
  - name: default
    steps:
      - id: fetch
        tool: lookup
        with: {q: answer}
      - id: answer
        dependsOn: [fetch]
        llm:
          stream: true
          messageTemplates:
            - {role: user, template: "Say {{ .steps.fetch.result.found }}."}
  - name: ask
    messageTemplates: [{role: user, template: "Why?"}]
`)
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Tools.HTTPAllow = []string{toolSrv.URL + "/"}
	base, stop := startGatewayStopping(t, cfg, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_SERVICE_NAME": "agentgw-e2e",
	})

	if answer := postTraced(t, base+"/agents/traced", `{"model":"fake-1"}`, "00-"+traceID+"-"+parentID+"-01"); !strings.Contains(answer, "forty-two.") {
		t.Fatalf("answer:\n%s", answer)
	}
	postTraced(t, base+"/agents/traced", `{"command":"ask","model":"fake-1"}`, "")
	stop() // serve returned: the spans left were exported

	got, spans := collector.tree(traceID)
	want := `agent traced/default [server]
  decode context [internal]
  step fetch [internal]
    execute_tool lookup [internal]
  step answer [internal]
    chat fake-1 [client]
`
	if got != want {
		t.Errorf("spans:\n%s\nwant:\n%s", got, want)
	}
	for name, s := range spans {
		if id := hex.EncodeToString(s.TraceId); id != traceID {
			t.Errorf("%s: trace %s, want the plugin's %s", name, id, traceID)
		}
	}
	if root := spans["agent traced/default"]; root == nil || hex.EncodeToString(root.ParentSpanId) != parentID {
		t.Errorf("the request's span is not a child of the plugin's %s", parentID)
	}
	if collector.services[0] != "agentgw-e2e" {
		t.Errorf("service.name %q", collector.services)
	}
	var other string
	for _, s := range collector.spans {
		if id := hex.EncodeToString(s.TraceId); id != traceID {
			other = id
		}
	}
	got, askSpans := collector.tree(other)
	want = `agent traced/ask [server]
  decode context [internal]
  render prompt [internal]
  chat fake-1 [client]
`
	if got != want {
		t.Errorf("the second request's spans:\n%s\nwant:\n%s", got, want)
	}

	// The tool and the model got the traceparent of their spans.
	traceparent := func(name string) string {
		if s := spans[name]; s != nil {
			return "00-" + traceID + "-" + hex.EncodeToString(s.SpanId) + "-01"
		}
		return "no span " + name
	}
	mu.Lock()
	defer mu.Unlock()
	if len(toolHeaders) != 1 || toolHeaders[0].Get("Traceparent") != traceparent("execute_tool lookup") {
		t.Errorf("the tool got traceparent %q, want %q", headerValues(toolHeaders, "Traceparent"), traceparent("execute_tool lookup"))
	}
	var upHeaders []http.Header
	for _, r := range up.Requests() {
		upHeaders = append(upHeaders, r.Header)
	}
	if len(upHeaders) != 2 || upHeaders[0].Get("Traceparent") != traceparent("chat fake-1") {
		t.Errorf("the model got traceparent %q, want %q first", headerValues(upHeaders, "Traceparent"), traceparent("chat fake-1"))
	} else if s := askSpans["chat fake-1"]; s == nil || upHeaders[1].Get("Traceparent") != "00-"+other+"-"+hex.EncodeToString(s.SpanId)+"-01" {
		t.Errorf("the model got traceparent %q for the second request, not its chat span's", upHeaders[1].Get("Traceparent"))
	}
}

// postTraced posts body to url with a traceparent ("": none) and returns
// the data of the answer's events, a line each.
func postTraced(t *testing.T, url, body, traceparent string) string {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if traceparent != "" {
		req.Header.Set("Traceparent", traceparent)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var text strings.Builder
	rd := sse.NewReader(resp.Body)
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return text.String()
		}
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		text.WriteString(string(ev.Data) + "\n")
	}
}

// TestObserversOffByDefault: without OTEL_* variables there is no
// tracer, so no observer is added for it.
func TestObserversOffByDefault(t *testing.T) {
	obs, stop, err := newObservers(context.Background(), nil, envOf(nil), slog.New(slog.DiscardHandler))
	if err != nil || len(obs) != 0 {
		t.Fatalf("observers %v, error %v; want none", obs, err)
	}
	stop()
	if _, _, err := newObservers(context.Background(), nil, envOf(map[string]string{"OTEL_TRACES_EXPORTER": "jaeger"}), slog.New(slog.DiscardHandler)); err == nil {
		t.Error("an unknown exporter started")
	}
}

func headerValues(hs []http.Header, key string) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Values(key)...)
	}
	return out
}
