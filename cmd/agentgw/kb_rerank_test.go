package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestKBSearchReranked: a knowledge base with rerank sends its search's
// first candidates to the /rerank endpoint and answers in the model's
// order; when the endpoint fails, in the search's own order.
func TestKBSearchReranked(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var docs [][]string
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/rerank" || json.Unmarshal(body, &req) != nil || req.Model != "rr" || req.Query != "retry backoff" || req.TopN != len(req.Documents) {
			http.Error(w, "bad request "+string(body), http.StatusBadRequest)
			return
		}
		mu.Lock()
		docs = append(docs, req.Documents)
		f := fail
		mu.Unlock()
		if f {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		// The model likes note 7 best, then note 3; the others less the
		// later they come.
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []result
		for i, d := range req.Documents {
			s := 0.5 / float64(i+2)
			switch {
			case strings.HasPrefix(d, "n07.md\n"):
				s = 0.9
			case strings.HasPrefix(d, "n03.md\n"):
				s = 0.8
			}
			out = append(out, result{i, s})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()

	env := kbTree(t, 12)
	b, err := os.ReadFile(env["AGENTGW_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b) + "    rerank: {url: " + srv.URL + "/v1, model: rr, candidates: 20, timeout: 5s}\n"
	if err := os.WriteFile(env["AGENTGW_CONFIG"], []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	var stdout, stderr bytes.Buffer
	if code := run([]string{"kb", "index"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb index: exit %d\n%s", code, stderr.String())
	}
	search := func() []string {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"kb", "search", "--top", "3", "docs", "retry backoff"}, getenv, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("kb search: exit %d\n%s", code, stderr.String())
		}
		var files []string
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			f := strings.Fields(l)
			files = append(files, f[1])
		}
		return files
	}
	got := search()
	mu.Lock()
	if len(docs) != 1 || len(docs[0]) != 12 {
		t.Errorf("the endpoint got %d requests, the first with %d documents; want 1 with all 12 files (candidates: 20)", len(docs), len(docs[0]))
	}
	candidates := docs[0]
	fail = true
	mu.Unlock()
	if want := []string{"n07.md:1-3", "n03.md:1-3"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("reranked hits %q, want %q first", got, want)
	}

	// The endpoint down: the search's own order, the first three of the
	// candidates it sent.
	got = search()
	if len(got) != 3 {
		t.Fatalf("hits %q", got)
	}
	for i, f := range got {
		name, _, _ := strings.Cut(f, ":")
		if !strings.HasPrefix(candidates[i], name+"\n") {
			t.Errorf("hit %d is %s, the search's own order has %q", i, f, strings.SplitN(candidates[i], "\n", 2)[0])
		}
	}
}
