package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// embedServer is an OpenAI-compatible /embeddings endpoint on loopback.
// It answers each input with HashEmbedder's vector of it (so that an index
// on it ranks as one on HashEmbedder), records each request, and answers
// the n-th request (from 0) with the status statuses[n] when it is set:
// dropConn closes the connection without an answer, badAnswer answers
// with one embedding too few.
type embedServer struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	// statuses are the failures of the first requests; failAll, when
	// set, fails every request with 500.
	statuses []int
	failAll  bool
	requests []fakeRequest
}

type fakeRequest struct {
	auth string
	body string
}

const (
	dropConn  = -1
	badAnswer = -2
)

func newEmbedServer(t testing.TB, statuses ...int) *embedServer {
	f := &embedServer{t: t, statuses: statuses}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *embedServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, fakeRequest{auth: r.Header.Get("Authorization"), body: string(body)})
	status := 0
	if n < len(f.statuses) {
		status = f.statuses[n]
	}
	if f.failAll {
		status = http.StatusInternalServerError
	}
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	switch {
	case status == dropConn:
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = c.Close()
		}
		return
	case status > 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"error":{"message":"the fake fails","type":"server_error"}}`)
		return
	}
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	vecs, _ := HashEmbedder{Dim: 16}.Embed(r.Context(), req.Input)
	if status == badAnswer {
		vecs = vecs[:len(vecs)-1]
	}
	type datum struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
	}{Object: "list", Model: "fake"}
	for i, v := range vecs {
		out.Data = append(out.Data, datum{"embedding", v, i})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// bodies returns the requests' bodies so far and forgets them.
func (f *embedServer) take() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.requests
	f.requests = nil
	return r
}

func (f *embedServer) setFailAll(v bool) {
	f.mu.Lock()
	f.failAll = v
	f.mu.Unlock()
}

func (f *embedServer) embedder(t testing.TB, cfg OpenAIConfig) *OpenAIEmbedder {
	t.Helper()
	cfg.BaseURL = f.srv.URL + "/v1"
	cfg.Model = "fake-embed"
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	e, err := NewOpenAIEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestOpenAIEmbedderBatches: texts go BatchSize at a time, each request
// exactly as the OpenAI API takes it, the key as a bearer token, and the
// vectors come back in the texts' order.
func TestOpenAIEmbedderBatches(t *testing.T) {
	f := newEmbedServer(t)
	e := f.embedder(t, OpenAIConfig{BatchSize: 2, APIKey: "sk-test", MaxChars: 8})
	texts := []string{"alpha", "beta", "", "delta é", "ünïcödé text"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want := []fakeRequest{
		{"Bearer sk-test", `{"input":["alpha","beta"],"model":"fake-embed"}`},
		{"Bearer sk-test", `{"input":[" ","delta é"],"model":"fake-embed"}`},
		{"Bearer sk-test", `{"input":["ünïcö"],"model":"fake-embed"}`},
	}
	reqs := f.take()
	for i := range reqs {
		reqs[i].body = strings.TrimSpace(reqs[i].body)
	}
	if !slices.Equal(reqs, want) {
		t.Errorf("requests\n%q\nwant\n%q", reqs, want)
	}
	wantVecs, _ := HashEmbedder{Dim: 16}.Embed(context.Background(), []string{"alpha", "beta", " ", "delta é", "ünïcö"})
	if len(got) != len(wantVecs) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i := range got {
		if !slices.Equal(got[i], wantVecs[i]) {
			t.Errorf("vector %d: %v, want %v", i, got[i], wantVecs[i])
		}
	}
}

// TestOpenAIEmbedderRetries: a 408, 429, 5xx or a dropped connection is
// tried again as Retries allows; a 4xx or an answer that does not fit is
// not.
func TestOpenAIEmbedderRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		retries  int
		statuses []int
		requests int
		ok       bool
	}{
		{"500 then 503 then ok", 2, []int{500, 503}, 3, true},
		{"429 then ok", 2, []int{429}, 2, true},
		{"408 then ok", 1, []int{408}, 2, true},
		{"dropped connection then ok", 2, []int{dropConn}, 2, true},
		{"500 three times", 2, []int{500, 500, 500}, 3, false},
		{"400 is not retried", 2, []int{400}, 1, false},
		{"401 is not retried", 2, []int{401}, 1, false},
		{"an answer short of an embedding is not retried", 2, []int{badAnswer}, 1, false},
		{"no retries", -1, []int{500}, 1, false},
		{"default retries", 0, []int{502, 502}, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newEmbedServer(t, tc.statuses...)
			e := f.embedder(t, OpenAIConfig{Retries: tc.retries})
			vecs, err := e.Embed(context.Background(), []string{"one", "two"})
			if n := len(f.take()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.ok && (err != nil || len(vecs) != 2) {
				t.Errorf("Embed: %d vectors, %v", len(vecs), err)
			}
			if !tc.ok && err == nil {
				t.Errorf("Embed succeeded, want an error")
			}
		})
	}
}

// TestOpenAIEmbedderStopsWithContext: a cancelled context ends the
// retries at once.
func TestOpenAIEmbedderStopsWithContext(t *testing.T) {
	f := newEmbedServer(t, 500, 500, 500, 500)
	e := f.embedder(t, OpenAIConfig{Retries: 3, Backoff: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := e.Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("Embed succeeded against a failing endpoint")
	}
	if n := len(f.take()); n != 1 {
		t.Errorf("%d requests, want 1 (the wait for the retry is cancelled)", n)
	}
}

// logBuffer is a slog handler's output, safe to read while it is written.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the log lines so far and forgets them.
func (l *logBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSpace(l.b.String())
	l.b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func countNullVectors(t testing.TB, ix *Index) int {
	t.Helper()
	var n int64
	if err := ix.pool.QueryRow(context.Background(), `SELECT COUNT(*) FROM kb_chunks WHERE vec IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// TestFailingEmbedderDegrades: with an embeddings endpoint that fails,
// indexing and search go on lexically, each failure a WARN line and no
// error; once the endpoint is back EmbedMissing gives the chunks their
// vectors, and search is hybrid again, as with the embedder working all
// along.
func TestFailingEmbedderDegrades(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		f := newEmbedServer(t)
		f.setFailAll(true)
		var logs logBuffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		ix := openIndex(t, db, Options{Embedder: f.embedder(t, OpenAIConfig{Retries: 1, APIKey: "sk-secret"}), Logger: log})
		_ = logs.lines() // the migrations'
		files := testCorpus()
		nChunks := 0
		for _, fl := range files {
			nChunks += len(fl.chunks)
		}
		mustReplace(t, ix, "kb", files...)
		if n := countNullVectors(t, ix); n != nChunks {
			t.Errorf("%d chunks without a vector, want all %d", n, nChunks)
		}
		lines := logs.lines()
		if len(lines) != len(files) {
			t.Errorf("%d log lines for %d files indexed with a failing embedder:\n%s", len(lines), len(files), strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "embedding failed") || !strings.Contains(l, "kb=kb") ||
				strings.Contains(l, "sk-secret") {
				t.Errorf("log line %s", l)
			}
		}

		lexical := openIndex(t, db, Options{})
		hashed := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 16}})
		q := Query{KB: []string{"kb"}, Text: "sqlite store"}
		got := mustSearch(t, ix, q)
		if want := mustSearch(t, lexical, q); len(got) == 0 || !slices.Equal(got, want) {
			t.Errorf("search with a failing embedder: %+v, want the lexical %+v", got, want)
		}
		lines = logs.lines()
		if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "ranking lexically") ||
			strings.Contains(lines[0], "sk-secret") {
			t.Errorf("log lines of the search: %q", lines)
		}

		// Still failing: EmbedMissing says so and changes nothing.
		if _, err := ix.EmbedMissing(ctx, "kb"); err == nil {
			t.Error("EmbedMissing succeeded with a failing embedder")
		}
		if n := countNullVectors(t, ix); n != nChunks {
			t.Errorf("%d chunks without a vector, want all %d", n, nChunks)
		}

		f.setFailAll(false)
		f.take()
		n, err := ix.EmbedMissing(ctx, "kb")
		if err != nil || n != nChunks {
			t.Fatalf("EmbedMissing: %d, %v; want %d", n, err, nChunks)
		}
		if n := countNullVectors(t, ix); n != 0 {
			t.Errorf("%d chunks without a vector after EmbedMissing", n)
		}
		if n, err := ix.EmbedMissing(ctx, "kb"); err != nil || n != 0 {
			t.Errorf("EmbedMissing again: %d, %v; want nothing to do", n, err)
		}
		// The vectors are those a working embedder gives: hybrid search
		// ranks as over an index embedded all along.
		ref := "ref"
		mustReplace(t, hashed, ref, files...)
		for _, text := range []string{"sqlite store", "scheduling", "parseHTTPRequest decodes the JSON body"} {
			got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: text})
			want := mustSearch(t, hashed, Query{KB: []string{ref}, Text: text})
			if len(got) != len(want) {
				t.Errorf("%q: %d hits, want %d", text, len(got), len(want))
				continue
			}
			for i := range got {
				if loc(got[i]) != loc(want[i]) || got[i].Score != want[i].Score {
					t.Errorf("%q: hit %d %s %v, want %s %v", text, i, loc(got[i]), got[i].Score, loc(want[i]), want[i].Score)
				}
			}
		}
		if lines := logs.lines(); len(lines) != 0 {
			t.Errorf("log lines with a working embedder: %q", lines)
		}
	})
}

// TestIncrementalEmbedding: replacing a file embeds only the chunks whose
// symbol or text changed, the others keep their stored vectors; an
// unchanged file asks for nothing.
func TestIncrementalEmbedding(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		f := newEmbedServer(t)
		ix := openIndex(t, db, Options{Embedder: f.embedder(t, OpenAIConfig{BatchSize: 100})})
		v1 := mkFile("a.go", "h1", chunk.TypeCode, [2]string{"A", "func A() {}"}, [2]string{"B", "func B() {}"}, [2]string{"C", "func C() {}"})
		mustReplace(t, ix, "kb", v1)
		inputs := func() []string {
			var out []string
			for _, r := range f.take() {
				var req struct {
					Input []string `json:"input"`
				}
				if err := json.Unmarshal([]byte(r.body), &req); err != nil {
					t.Fatal(err)
				}
				out = append(out, req.Input...)
			}
			return out
		}
		if got, want := inputs(), []string{"a.go\nA\nfunc A() {}", "a.go\nB\nfunc B() {}", "a.go\nC\nfunc C() {}"}; !slices.Equal(got, want) {
			t.Errorf("first indexing embedded %q, want %q", got, want)
		}
		before := storedVectorBytes(t, ix)

		mustReplace(t, ix, "kb", v1)
		if got := inputs(); len(got) != 0 {
			t.Errorf("an unchanged file embedded %q", got)
		}

		// B changes, D is new, A and C stay (C moves).
		v2 := mkFile("a.go", "h2", chunk.TypeCode, [2]string{"A", "func A() {}"}, [2]string{"B", "func B() { return }"},
			[2]string{"D", "func D() {}"}, [2]string{"C", "func C() {}"})
		mustReplace(t, ix, "kb", v2)
		if got, want := inputs(), []string{"a.go\nB\nfunc B() { return }", "a.go\nD\nfunc D() {}"}; !slices.Equal(got, want) {
			t.Errorf("second indexing embedded %q, want %q", got, want)
		}
		after := storedVectorBytes(t, ix)
		for _, sym := range []string{"A", "C"} {
			if !bytes.Equal(after[sym], before[sym]) || len(after[sym]) != 4*16 {
				t.Errorf("%s's vector changed: %x, was %x", sym, after[sym], before[sym])
			}
		}
		if len(after["B"]) != 4*16 || bytes.Equal(after["B"], before["B"]) || len(after["D"]) != 4*16 {
			t.Errorf("B and D's vectors: %x, %x", after["B"], after["D"])
		}
		if n := countNullVectors(t, ix); n != 0 {
			t.Errorf("%d chunks without a vector", n)
		}
		checkInvariants(t, ix)
	})
}

// storedVectorBytes are the stored vectors by chunk symbol.
func storedVectorBytes(t testing.TB, ix *Index) map[string][]byte {
	t.Helper()
	rs, err := ix.pool.Query(context.Background(), `SELECT symbol, vec FROM kb_chunks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string][]byte{}
	for rs.Next() {
		var sym string
		var vec []byte
		if err := rs.Scan(&sym, &vec); err != nil {
			t.Fatal(err)
		}
		out[sym] = vec
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// countingEmbedder fails while fail is set and counts its calls.
type countingEmbedder struct {
	calls int
	fail  bool
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls++
	if c.fail {
		return nil, errNoModel
	}
	return HashEmbedder{Dim: 4}.Embed(ctx, texts)
}

// TestPausingEmbedder: after a failure the embedder is not called for the
// pause, and is called again after it; a cancelled call does not pause it.
func TestPausingEmbedder(t *testing.T) {
	now := time.Unix(1000, 0)
	inner := &countingEmbedder{fail: true}
	p := &PausingEmbedder{Embedder: inner, Pause: time.Minute, Now: func() time.Time { return now }}
	ctx := context.Background()
	step := func(want error, wantCalls int) {
		t.Helper()
		_, err := p.Embed(ctx, []string{"x"})
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("at %v: %v, want %v", now.Unix(), err, want)
		}
		if inner.calls != wantCalls {
			t.Errorf("at %v: %d calls, want %d", now.Unix(), inner.calls, wantCalls)
		}
	}
	step(errNoModel, 1)
	now = now.Add(59 * time.Second)
	step(ErrEmbedderPaused, 1)
	inner.fail = false
	now = now.Add(time.Second)
	step(nil, 2)
	step(nil, 3)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	inner.fail = true
	if _, err := p.Embed(cctx, []string{"x"}); err == nil {
		t.Fatal("a failing call succeeded")
	}
	inner.fail = false
	step(nil, 5)
}
