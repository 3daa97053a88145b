package metrics

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/agentgw/agentgw/observe"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// clock is a clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// golden compares the registry's text output with testdata/name, or
// writes it there with -update.
func golden(t *testing.T, m *Metrics, name string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		mfs, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := testutil.GatherAndCompare(m.Registry(), bytes.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestScripted plays the events of three requests, a schedule run and a
// scrape of the queue and the store, and compares every series with
// testdata/scripted.txt.
func TestScripted(t *testing.T) {
	clk := newClock()
	m := New(Options{NoRuntime: true, Now: clk.now})
	ctx := context.Background()

	// An agent request: a model call retried once, a tool, a plan step, a
	// git fetch, a failed hand-off, a consent pause, then a store failure
	// in the stream.
	_, run := m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Route: "/agents/:name", Method: "POST",
		Path: "/agents/reviewer?user=alice", RequestID: "req-1", Remote: "10.0.0.7:5555"})
	run.Routed("reviewer", "review", true)
	if got := testutil.ToFloat64(m.openStreams.WithLabelValues("reviewer")); got != 1 {
		t.Errorf("open streams during the request = %v, want 1", got)
	}
	_, endUp := run.Upstream(ctx, observe.Upstream{Model: "gpt-4o-mini", Stream: true, Messages: 3})
	clk.advance(1500 * time.Millisecond)
	endUp(observe.UpstreamResult{Model: "gpt-4o-mini", Status: 200, Attempts: 2, FirstByte: 300 * time.Millisecond,
		Chunks: 12, Usage: observe.Usage{In: 120, Out: 30}, FinishReason: "tool_calls"})
	_, endTool := run.Tool(ctx, observe.Tool{Name: "run_tests", Runtime: "stdio", CallID: "call_1"})
	clk.advance(200 * time.Millisecond)
	endTool(observe.ToolResult{Status: "SUCCESS"})
	_, endStep := run.Step(ctx, observe.Step{ID: "s1", Kind: "llm"})
	clk.advance(2 * time.Second)
	endStep(observe.StepResult{Status: "SUCCESS"})
	_, endGit := run.Git(ctx, "fetch", "app")
	endGit(nil)
	_, endHandoff := run.Handoff(ctx, observe.Handoff{Type: "task_request", To: "fixer"})
	endHandoff(errors.New("queue full"))
	run.Paused(observe.PauseConsent)
	run.Failed("STORE_UNAVAILABLE")
	run.End(observe.Outcome{Result: observe.ResultError, Code: "STORE_UNAVAILABLE", Status: 200,
		Bytes: 900, TTFB: 40 * time.Millisecond, Duration: 3 * time.Second})

	// An agent the request defined: its names are not labels; the
	// upstream sent no usage.
	_, run = m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Route: "/agent", Method: "POST", Path: "/agent"})
	run.Routed("my-secret-agent-name", "whatever", false)
	_, endUp = run.Upstream(ctx, observe.Upstream{Model: "gpt-4o", Stream: true})
	clk.advance(700 * time.Millisecond)
	endUp(observe.UpstreamResult{Model: "gpt-4o", Status: 200, Attempts: 1, FirstByte: 80 * time.Millisecond,
		Usage: observe.Usage{In: 50, Out: 7, Estimated: true}, FinishReason: "stop"})
	run.End(observe.Outcome{Result: observe.ResultOK, Status: 200, TTFB: 90 * time.Millisecond, Duration: 800 * time.Millisecond})

	// A hand-off run (no stream) whose model call timed out, and a health
	// check (no agent).
	_, run = m.Begin(ctx, &observe.Request{Source: observe.SourceHandoff})
	run.Routed("fixer", "fix", true)
	_, endUp = run.Upstream(ctx, observe.Upstream{Model: "gpt-4o-mini"})
	clk.advance(60 * time.Second)
	endUp(observe.UpstreamResult{Model: "gpt-4o-mini", Attempts: 3, Code: "UPSTREAM_TIMEOUT"})
	run.End(observe.Outcome{Result: observe.ResultError, Code: "UPSTREAM_TIMEOUT", Duration: 61 * time.Second})
	_, run = m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Route: "/healthz", Method: "GET", Path: "/healthz"})
	run.End(observe.Outcome{Result: observe.ResultOK, Status: 200, TTFB: time.Millisecond, Duration: time.Millisecond})

	m.ScheduleRun("SUCCESS")
	m.ScheduleRun("TIMEOUT")
	queued := clk.now().Add(-90 * time.Second)
	if err := m.WatchQueue(func(context.Context) ([]QueueStat, error) {
		return []QueueStat{{Status: "QUEUED", Count: 4, Oldest: queued}, {Status: "RUNNING"}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.WatchPausedRuns(func(context.Context) (int64, error) { return 3, nil }); err != nil {
		t.Fatal(err)
	}
	golden(t, m, "scripted.txt")
}

// TestScrapeFailure: a store that cannot be read leaves its metrics out
// of the scrape and counts the failure; the rest is served.
func TestScrapeFailure(t *testing.T) {
	m := New(Options{NoRuntime: true})
	if err := m.WatchPausedRuns(func(context.Context) (int64, error) { return 0, errors.New("database is locked") }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := m.Registry().Gather(); err != nil {
			t.Fatal(err)
		}
	}
	// Read without a third scrape: a scrape counts its own failure while
	// it collects, so what it reports of the counter depends on the order
	// its collectors run in.
	if got := testutil.ToFloat64(m.storeErrors.WithLabelValues("scrape")); got != 2 {
		t.Errorf("scrape failures %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.storeErrors.WithLabelValues("request")); got != 0 {
		t.Errorf("request store errors %v, want 0", got)
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(""), "agentgw_paused_runs"); err != nil {
		t.Errorf("the paused runs were served: %v", err)
	}
}

// TestBounded: a label keeps MaxValues distinct values, later ones are
// _other, and so are values too long or not UTF-8; an agent the request
// defined is _request whatever it is called.
func TestBounded(t *testing.T) {
	m := New(Options{NoRuntime: true, MaxValues: 3})
	ctx := context.Background()
	call := func(agent string, loaded bool, model string) {
		_, run := m.Begin(ctx, &observe.Request{Source: observe.SourceSchedule})
		run.Routed(agent, "default", loaded)
		_, end := run.Upstream(ctx, observe.Upstream{Model: model})
		end(observe.UpstreamResult{Status: 200, Attempts: 1, Usage: observe.Usage{In: 1, Out: 1}})
		run.End(observe.Outcome{Result: observe.ResultOK})
	}
	for _, model := range []string{"m1", "m2", "m3", "m4", "m1", "m5", strings.Repeat("x", 129), "bad\xff"} {
		call("a", true, model)
	}
	for i := range 1000 {
		call("client-"+strings.Repeat("z", i%7), false, "m2")
	}
	want := `# HELP agentgw_upstream_retries_total Attempts beyond the first of calls to the model (retries and fallbacks), by model.
# TYPE agentgw_upstream_retries_total counter
agentgw_upstream_retries_total{model="_other"} 0
agentgw_upstream_retries_total{model="m1"} 0
agentgw_upstream_retries_total{model="m2"} 0
agentgw_upstream_retries_total{model="m3"} 0
# HELP agentgw_tokens_total Tokens of model calls, by model, agent, type (input, output) and whether the gateway estimated them (the upstream sent no usage).
# TYPE agentgw_tokens_total counter
agentgw_tokens_total{agent="_request",estimated="false",model="m2",type="input"} 1000
agentgw_tokens_total{agent="_request",estimated="false",model="m2",type="output"} 1000
agentgw_tokens_total{agent="a",estimated="false",model="_other",type="input"} 4
agentgw_tokens_total{agent="a",estimated="false",model="_other",type="output"} 4
agentgw_tokens_total{agent="a",estimated="false",model="m1",type="input"} 2
agentgw_tokens_total{agent="a",estimated="false",model="m1",type="output"} 2
agentgw_tokens_total{agent="a",estimated="false",model="m2",type="input"} 1
agentgw_tokens_total{agent="a",estimated="false",model="m2",type="output"} 1
agentgw_tokens_total{agent="a",estimated="false",model="m3",type="input"} 1
agentgw_tokens_total{agent="a",estimated="false",model="m3",type="output"} 1
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "agentgw_upstream_retries_total", "agentgw_tokens_total"); err != nil {
		t.Error(err)
	}
	// However many distinct values came, each metric has a bounded number
	// of series.
	for _, name := range []string{"agentgw_requests_total", "agentgw_upstream_requests_total"} {
		if n := testutil.CollectAndCount(m.Registry(), name); n > 4 {
			t.Errorf("%s has %d series", name, n)
		}
	}
}

// TestConcurrent runs events of one request from several goroutines, as a
// plan's parallel steps do (go test -race).
func TestConcurrent(t *testing.T) {
	m := New(Options{NoRuntime: true})
	ctx := context.Background()
	_, run := m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Route: "/agent"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i == 0 {
				run.Routed("a", "c", true)
			}
			_, end := run.Tool(ctx, observe.Tool{Name: "t"})
			end(observe.ToolResult{Status: "SUCCESS"})
			_, endUp := run.Upstream(ctx, observe.Upstream{Model: "m"})
			endUp(observe.UpstreamResult{Attempts: 1, Usage: observe.Usage{In: 1}})
		})
	}
	wg.Wait()
	run.End(observe.Outcome{Result: observe.ResultOK})
	if got := testutil.ToFloat64(m.toolCalls.WithLabelValues("t", "SUCCESS")); got != 8 {
		t.Errorf("tool calls = %v, want 8", got)
	}
	if got := testutil.ToFloat64(m.openStreams.WithLabelValues("a")); got != 0 {
		t.Errorf("open streams after the end = %v, want 0", got)
	}
}

// TestDefaultCommand: a request that names no command runs "default", and
// is counted so.
func TestDefaultCommand(t *testing.T) {
	m := New(Options{NoRuntime: true})
	_, run := m.Begin(context.Background(), &observe.Request{Source: observe.SourceHTTP, Route: "/agents/:name"})
	run.Routed("hello", "", true)
	run.End(observe.Outcome{Result: observe.ResultOK, Status: 200})
	if got := testutil.ToFloat64(m.requests.WithLabelValues("http", "/agents/:name", "hello", "default", "ok", "")); got != 1 {
		t.Errorf("requests of hello/default = %v, want 1", got)
	}
}

// TestRoutedTwice: the server names the agent before the command is known,
// then both: the request counts under the command that ran, and its open
// stream once.
func TestRoutedTwice(t *testing.T) {
	m := New(Options{NoRuntime: true})
	_, run := m.Begin(context.Background(), &observe.Request{Source: observe.SourceHTTP, Route: "/agents/:name"})
	run.Routed("chat", "", true)
	run.Routed("chat", "templated", true)
	if got := testutil.ToFloat64(m.openStreams.WithLabelValues("chat")); got != 1 {
		t.Errorf("open streams of chat = %v, want 1", got)
	}
	run.End(observe.Outcome{Result: observe.ResultOK, Status: 200})
	if got := testutil.ToFloat64(m.requests.WithLabelValues("http", "/agents/:name", "chat", "templated", "ok", "")); got != 1 {
		t.Errorf("requests of chat/templated = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.openStreams.WithLabelValues("chat")); got != 0 {
		t.Errorf("open streams of chat after the end = %v, want 0", got)
	}
}
