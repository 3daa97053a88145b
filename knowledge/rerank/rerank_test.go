package rerank

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

// endpoint is a re-ranking endpoint on loopback: it records each request
// and answers with answer (a status and a body), or never, until the
// request is cancelled, when hang is set.
type endpoint struct {
	srv *httptest.Server
	mu  sync.Mutex
	// requests are the bodies and Authorization headers received.
	requests []string
	auth     []string
	status   int
	answer   string
	hang     bool
}

func newEndpoint(t *testing.T, status int, answer string) *endpoint {
	e := &endpoint{status: status, answer: answer}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.requests = append(e.requests, r.Method+" "+r.URL.Path+" "+string(b))
		e.auth = append(e.auth, r.Header.Get("Authorization"))
		hang := e.hang
		e.mu.Unlock()
		if hang {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.status)
		_, _ = io.WriteString(w, e.answer)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func hits(n int) []index.Hit {
	out := make([]index.Hit, n)
	for i := range out {
		out[i] = index.Hit{KB: "kb", Score: 1 - float64(i)/10, Chunk: chunk.Chunk{
			FileName: fmt.Sprintf("f%d.go", i), Symbol: fmt.Sprintf("F%d", i), Text: fmt.Sprintf("func F%d() {}", i),
			SourceType: chunk.TypeCode, StartLine: 1, EndLine: 1}}
	}
	return out
}

func names(hs []index.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s:%.2f ", h.Chunk.Symbol, h.Score)
	}
	return strings.TrimSpace(b.String())
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRerank(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         int
		candidates int
		topK       int
		status     int
		answer     string
		hang       bool
		want       string
		wantLog    string // "" for none
	}{
		{name: "reordered", in: 3, candidates: 3, topK: 3, status: 200,
			answer: `{"results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.5},{"index":1,"relevance_score":0.1}]}`,
			want:   "F2:0.90 F0:0.50 F1:0.10"},
		{name: "cut to topK", in: 3, candidates: 3, topK: 2, status: 200,
			answer: `{"results":[{"index":1,"relevance_score":0.8},{"index":2,"relevance_score":0.7},{"index":0,"relevance_score":0.2}]}`,
			want:   "F1:0.80 F2:0.70"},
		{name: "hits past the candidates follow, their scores capped", in: 4, candidates: 2, topK: 4, status: 200,
			answer: `{"results":[{"index":1,"relevance_score":0.6},{"index":0,"relevance_score":0.5}]}`,
			want:   "F1:0.60 F0:0.50 F2:0.50 F3:0.50"},
		{name: "a candidate left out follows the scored ones", in: 3, candidates: 3, topK: 3, status: 200,
			answer: `{"results":[{"index":2,"relevance_score":0.95}]}`,
			want:   "F2:0.95 F0:0.95 F1:0.90"},
		{name: "logits are mapped into [0, 1]", in: 2, candidates: 2, topK: 2, status: 200,
			answer: `{"results":[{"index":0,"relevance_score":-2},{"index":1,"relevance_score":3}]}`,
			want:   "F1:0.95 F0:0.12"},
		{name: "an error keeps the order", in: 3, candidates: 3, topK: 2, status: 500, answer: `{"error":"down"}`,
			want: "F0:1.00 F1:0.90", wantLog: "answered 500 Internal Server Error"},
		{name: "a bad answer keeps the order", in: 3, candidates: 3, topK: 3, status: 200,
			answer: `{"results":[{"index":7,"relevance_score":0.9}]}`,
			want:   "F0:1.00 F1:0.90 F2:0.80", wantLog: "without a valid index"},
		{name: "a duplicate keeps the order", in: 2, candidates: 2, topK: 2, status: 200,
			answer: `{"results":[{"index":0,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}`,
			want:   "F0:1.00 F1:0.90", wantLog: "twice"},
		{name: "not JSON keeps the order", in: 2, candidates: 2, topK: 2, status: 200, answer: `<html>`,
			want: "F0:1.00 F1:0.90", wantLog: "decoding the answer"},
		{name: "past the budget keeps the order", in: 3, candidates: 3, topK: 3, hang: true,
			want: "F0:1.00 F1:0.90 F2:0.80", wantLog: "no answer within the budget of 50ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEndpoint(t, tc.status, tc.answer)
			e.hang = tc.hang
			var logs logBuffer
			// Only the hanging endpoint meets the short budget: an answering
			// one gets a long budget, so a loaded machine cannot turn its
			// case into "past the budget".
			budget := time.Minute
			if tc.hang {
				budget = 50 * time.Millisecond
			}
			r, err := New(Options{URL: e.srv.URL + "/v1/", Model: "rr", APIKey: "sk-rerank", Candidates: tc.candidates,
				Timeout: budget, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			got := r.Rerank(context.Background(), "find F", hits(tc.in), tc.topK)
			if names(got) != tc.want {
				t.Errorf("got %s, want %s", names(got), tc.want)
			}
			l := logs.String()
			switch {
			case tc.wantLog == "" && l != "":
				t.Errorf("log %s", l)
			case tc.wantLog != "" && (!strings.Contains(l, "level=WARN") || !strings.Contains(l, tc.wantLog) || strings.Count(l, "\n") != 1):
				t.Errorf("log %q, want one WARN line with %q", l, tc.wantLog)
			}
			if strings.Contains(l, "sk-rerank") {
				t.Errorf("the key is in the log: %s", l)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			var docs []string
			for i := range min(tc.in, tc.candidates) {
				docs = append(docs, fmt.Sprintf(`"f%d.go\nF%d\nfunc F%d() {}"`, i, i, i))
			}
			wantReq := fmt.Sprintf(`POST /v1/rerank {"model":"rr","query":"find F","documents":[%s],"top_n":%d}`,
				strings.Join(docs, ","), min(tc.in, tc.candidates))
			if len(e.requests) != 1 || e.requests[0] != wantReq || e.auth[0] != "Bearer sk-rerank" {
				t.Errorf("requests %q (%q), want %q", e.requests, e.auth, wantReq)
			}
		})
	}
}

// TestRerankNothingToOrder: no request for fewer than two hits or a
// blank query.
func TestRerankNothingToOrder(t *testing.T) {
	e := newEndpoint(t, 200, `{"results":[]}`)
	r, err := New(Options{URL: e.srv.URL, Model: "rr"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rerank(context.Background(), "q", hits(1), 5); names(got) != "F0:1.00" {
		t.Errorf("one hit: %s", names(got))
	}
	if got := r.Rerank(context.Background(), " ", hits(3), 2); names(got) != "F0:1.00 F1:0.90" {
		t.Errorf("a blank query: %s", names(got))
	}
	if len(e.requests) != 0 {
		t.Errorf("requests %q", e.requests)
	}
}

func TestNew(t *testing.T) {
	for _, o := range []Options{{Model: "m"}, {URL: "http://x"}, {URL: "http://x", Model: "m", Candidates: MaxCandidates + 1}, {URL: "http://x", Model: "m", Candidates: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	r, err := New(Options{URL: "http://x", Model: "m"})
	if err != nil || r.Candidates() != DefaultCandidates || r.o.Timeout != DefaultTimeout {
		t.Errorf("defaults: %+v, %v", r, err)
	}
}

// FuzzRerankAnswer: whatever the endpoint answers, Rerank returns the same
// hits (reordered), each once, scores in [0, 1], best first among those
// the model scored.
func FuzzRerankAnswer(f *testing.F) {
	for _, s := range []string{`{"results":[{"index":1,"relevance_score":0.5}]}`, `{"results":[{"index":0,"relevance_score":1e308}]}`,
		`{"results":[{"index":-1}]}`, `{}`, `null`, `{"results":[{"index":2,"relevance_score":-1e9},{"index":0,"relevance_score":0}]}`} {
		f.Add(s)
	}
	var mu sync.Mutex
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	r, err := New(Options{URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a string) {
		mu.Lock()
		answer = a
		mu.Unlock()
		got := r.Rerank(context.Background(), "q", hits(4), 10)
		if len(got) != 4 {
			t.Fatalf("%d hits", len(got))
		}
		seen := map[string]bool{}
		for i, h := range got {
			if seen[h.Chunk.Symbol] || h.Score < 0 || h.Score > 1 || math.IsNaN(h.Score) || (i > 0 && h.Score > got[i-1].Score) {
				t.Errorf("hits %s", names(got))
			}
			seen[h.Chunk.Symbol] = true
		}
	})
}
