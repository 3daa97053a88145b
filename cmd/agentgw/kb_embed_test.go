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

// TestKBIndexWithFailingEmbeddings: with an embeddings endpoint that
// fails, kb index still indexes every file (exit 0; after the first
// failure the embedder pauses, and a WARN line says so) and
// kb search answers lexically; once the endpoint is back, the next kb
// index gives the chunks their vectors though no file changed.
func TestKBIndexWithFailingEmbeddings(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	down := true
	inputs := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			http.Error(w, `{"error":{"message":"down"}}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		inputs += len(req.Input)
		mu.Unlock()
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []datum
		for i, in := range req.Input {
			data = append(data, datum{i, []float32{float32(len(in)), 1}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "e", "data": data})
	}))
	defer srv.Close()

	env := kbTree(t, 5)
	b, err := os.ReadFile(env["AGENTGW_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b) + "    embeddings: {url: " + srv.URL + "/v1, model: e}\n"
	if err := os.WriteFile(env["AGENTGW_CONFIG"], []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	var stdout, stderr bytes.Buffer
	if code := run([]string{"kb", "index"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb index: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "docs: 5 files indexed") {
		t.Errorf("kb index: %s", stdout.String())
	}
	// The first file's failure pauses the embedder: one WARN line for the
	// files, one for the chunks still without vectors at the end.
	if n := strings.Count(stderr.String(), "level=WARN msg=\"knowledge index: embedding failed"); n != 1 {
		t.Errorf("%d WARN lines about the files' embedding, want 1:\n%s", n, stderr.String())
	}
	if n := strings.Count(stderr.String(), "level=WARN msg=\"knowledge base: embedding the chunks without vectors failed"); n != 1 {
		t.Errorf("%d WARN lines about the chunks left without vectors, want 1:\n%s", n, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"kb", "search", "docs", "zebra"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb search: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "n00.md:1-4") || !strings.Contains(stderr.String(), "ranking lexically") {
		t.Errorf("kb search with the endpoint down:\nstdout %s\nstderr %s", stdout.String(), stderr.String())
	}

	mu.Lock()
	down = false
	mu.Unlock()
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"kb", "index"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb index: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "docs: 0 files indexed, 5 unchanged") || !strings.Contains(stderr.String(), "embedded=5") {
		t.Errorf("kb index with the endpoint back:\nstdout %s\nstderr %s", stdout.String(), stderr.String())
	}
	mu.Lock()
	if inputs != 5 {
		t.Errorf("%d texts embedded, want the 5 chunks", inputs)
	}
	mu.Unlock()
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"kb", "search", "docs", "zebra"}, getenv, nil, &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), "WARN") {
		t.Fatalf("kb search: exit %d\n%s", code, stderr.String())
	}
}
