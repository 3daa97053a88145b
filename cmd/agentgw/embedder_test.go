package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/knowledge/kb"
)

// TestEmbedderKey: a knowledge base's embeddings endpoint gets the key of
// its keyEnv; without one, the upstream's key when it is the upstream's
// endpoint, and no key at all when it is another (the upstream's key does
// not leave for another host).
func TestEmbedderKey(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "m",
			"data": []map[string]any{{"object": "embedding", "index": 0, "embedding": []float32{1, 0}}}})
	}))
	defer srv.Close()
	env := map[string]string{"UP_KEY": "sk-upstream", "EMB_KEY": "sk-embeddings"}
	cfg := &Config{Upstream: UpstreamConfig{URL: srv.URL + "/v1", KeyEnv: "UP_KEY"}}
	for _, tc := range []struct {
		name string
		e    kb.Embeddings
		want string
	}{
		{"the upstream's endpoint", kb.Embeddings{Model: "m"}, "Bearer sk-upstream"},
		{"another endpoint", kb.Embeddings{Model: "m", URL: srv.URL + "/v1"}, ""},
		{"another endpoint with its key", kb.Embeddings{Model: "m", URL: srv.URL + "/v1", KeyEnv: "EMB_KEY"}, "Bearer sk-embeddings"},
		{"the upstream's endpoint with another key", kb.Embeddings{Model: "m", KeyEnv: "EMB_KEY"}, "Bearer sk-embeddings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := embedder(cfg, func(k string) string { return env[k] }, &tc.e)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			auth = nil
			mu.Unlock()
			if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(auth) != 1 || auth[0] != tc.want {
				t.Errorf("Authorization %q, want %q", auth, tc.want)
			}
		})
	}
}
