package kb

import (
	"strings"
	"testing"
	"time"
)

// TestCheckModels: the embeddings and rerank parts of a knowledge base's
// config are checked, each problem named.
func TestCheckModels(t *testing.T) {
	src := []Source{{Dir: "docs"}}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"none", Config{ID: "kb", Sources: src}, ""},
		{"embeddings", Config{ID: "kb", Sources: src, Embeddings: &Embeddings{Model: "m", URL: "http://localhost:11434/v1", BatchSize: 16}}, ""},
		{"hash embeddings", Config{ID: "kb", Sources: src, Embeddings: &Embeddings{Hash: true}}, ""},
		{"embeddings without a model", Config{ID: "kb", Sources: src, Embeddings: &Embeddings{URL: "http://x"}}, "embeddings: model is required"},
		{"a negative batch", Config{ID: "kb", Sources: src, Embeddings: &Embeddings{Model: "m", BatchSize: -1}}, "must not be negative"},
		{"rerank", Config{ID: "kb", Sources: src, Rerank: &Rerank{Model: "r", Candidates: 50, Timeout: time.Second}}, ""},
		{"rerank without a model", Config{ID: "kb", Sources: src, Rerank: &Rerank{URL: "http://x"}}, "rerank: model is required"},
		{"too many candidates", Config{ID: "kb", Sources: src, Rerank: &Rerank{Model: "r", Candidates: 101}}, "candidates must be between 1 and 100"},
		{"a negative timeout", Config{ID: "kb", Sources: src, Rerank: &Rerank{Model: "r", Timeout: -time.Second}}, "timeout must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check: %v, want %q", err, tc.want)
			}
		})
	}
}
