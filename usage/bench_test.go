package usage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/metrics"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
	"github.com/agentgw/agentgw/usage"
)

// BenchmarkMeteredRelay is server.BenchmarkGatewayOwn (the plugin's 3.6 KB
// request through the middleware, the prompt, an upstream answering 23
// events without a socket, the relay to a writer that discards) with the
// metrics on, as serve has them by default, and:
//
//   - off: no usage configured (the relay as it is without this package);
//   - record: usage.record, a record per request queued and written in
//     batches;
//   - budget-sqlite, budget-postgres: a team budget (tokens per day and
//     requests per minute) on the caller's key: a reservation (one
//     transaction, two conditional upserts) before each request and its
//     settlement in the batches.
//
// Every case authenticates the caller with a stored key (a fake lookup:
// what keys cost is not measured here).
func BenchmarkMeteredRelay(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchRelay(b, nil) })
	b.Run("record", func(b *testing.B) { benchRelay(b, openMeter(b, sqliteDB(b), nil)) })
	budgets := []usage.Budget{{Team: "core", TokensPerDay: 1 << 50, RequestsPerMinute: 1 << 40}}
	b.Run("budget-sqlite", func(b *testing.B) { benchRelay(b, openMeter(b, sqliteDB(b), budgets)) })
	b.Run("budget-postgres", func(b *testing.B) { benchRelay(b, openMeter(b, pgtest.Schema(b), budgets)) })
}

func sqliteDB(b *testing.B) string { return filepath.Join(b.TempDir(), "usage.db") }

// openMeter is a meter on a fresh database db (a SQLite path or a
// PostgreSQL URL) with budgets.
func openMeter(b *testing.B, db string, budgets []usage.Budget) *usage.Meter {
	b.Helper()
	ctx := context.Background()
	var st *usage.Store
	var err error
	if filepath.IsAbs(db) {
		s, err := sqlitestore.Open(db)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		st, err = usage.NewSQLite(ctx, s.DB(), nil)
	} else {
		p, err := pgstore.Open(ctx, db)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = p.Close() })
		st, err = usage.NewPostgres(ctx, p.Pool(), nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	m, err := usage.New(st, usage.Config{Budgets: budgets, Prices: map[string]usage.Price{"*": {Input: 1, Output: 2}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Close) // before the store closes: cleanups run last first
	return m
}

// meterAPI is cmd/agentgw's adapter, without GET /usage.
type meterAPI struct{ *usage.Meter }

func (meterAPI) Usage(context.Context, access.Caller, string, time.Time) (json.RawMessage, error) {
	return nil, nil
}

// oneKey authenticates every credential as a key of team core.
type oneKey struct{}

func (oneKey) Authenticate(context.Context, string) (access.Caller, bool, error) {
	return access.Caller{Owner: access.MemberOwner("ada"), KeyID: "k1", User: "ada", Team: "core"}, true, nil
}
func (oneKey) List(context.Context) ([]json.RawMessage, error)         { return nil, nil }
func (oneKey) Get(context.Context, string) (json.RawMessage, error)    { return nil, nil }
func (oneKey) Rotate(context.Context, string) (json.RawMessage, error) { return nil, nil }
func (oneKey) Revoke(context.Context, string) (json.RawMessage, error) { return nil, nil }
func (oneKey) Create(context.Context, access.Caller, []byte) (json.RawMessage, error) {
	return nil, nil
}

// cannedTransport answers every request with the same SSE body, without a
// socket (server's bench harness).
type cannedTransport struct{ body []byte }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: -1, Request: r}, nil
}

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

func benchRelay(b *testing.B, m *usage.Meter) {
	a := llmtest.Answer{Model: "m", Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 20, TotalTokens: 920}}
	for i := range 20 {
		a.Text = append(a.Text, fmt.Sprintf("token %02d of the answer: some text of about a hundred bytes, as a model streams it to the IDE", i))
	}
	var stream bytes.Buffer
	for _, d := range a.Chunks() {
		stream.WriteString(llmtest.Frame(d))
	}
	stream.WriteString(llmtest.Done)
	agents, diags := program.Load("../bench/agents")
	if diags.Errors() > 0 {
		b.Fatal(diags)
	}
	client, err := llm.New(llm.Config{BaseURL: "http://upstream.invalid", HTTPClient: &http.Client{Transport: cannedTransport{stream.Bytes()}}})
	if err != nil {
		b.Fatal(err)
	}
	cfg := server.Config{Runner: runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: client}),
		Keys: oneKey{}, Observers: observe.Observers{metrics.New(metrics.Options{NoRuntime: true})}}
	if m != nil {
		cfg.Meter = meterAPI{m}
	}
	h := server.New(cfg).Handler()
	body, err := os.ReadFile("../server/testdata/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/agents/bench", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer agw_bench")
		h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}

// BenchmarkReserve is what holding a hand-off's or a schedule's run to its
// team's budget costs before the run: Reserve (one transaction), and its
// settlement queued when the run ends (Begin, End).
func BenchmarkReserve(b *testing.B) {
	budgets := []usage.Budget{{Team: "core", TokensPerDay: 1 << 50, RequestsPerMinute: 1 << 40}}
	for _, db := range []struct {
		name string
		url  func(*testing.B) string
	}{{"sqlite", sqliteDB}, {"postgres", func(b *testing.B) string { return pgtest.Schema(b) }}} {
		b.Run(db.name, func(b *testing.B) {
			m := openMeter(b, db.url(b), budgets)
			ctx := context.Background()
			for b.Loop() {
				rctx, release, err := m.Reserve(ctx, observe.SourceHandoff, access.TeamOwner("core"), "h", 2048)
				if err != nil {
					b.Fatal(err)
				}
				_, run := m.Begin(rctx, &observe.Request{Source: observe.SourceHandoff, RequestID: "h"})
				run.End(observe.Outcome{Agent: "a", Model: "m", Usage: observe.Usage{In: 500, Out: 100}})
				release()
			}
		})
	}
}
