package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/knowledge/rerank"
	"github.com/agentgw/agentgw/store"
)

// KnowledgeConfig is how knowledge bases are kept up to date.
type KnowledgeConfig struct {
	// Reindex is how often the knowledge bases are brought up to date with
	// their sources (repositories are fetched when stale, only changed
	// files re-indexed); 0 means 5m.
	Reindex Duration `yaml:"reindex"`
	// MaxGlobs bounds the path globs of one search (POST
	// /knowledge-bases/{id}/search, recall steps); more is BAD_REQUEST. 0
	// means 64.
	MaxGlobs int `yaml:"maxGlobs"`
	// MaxGlobLength bounds the bytes of each path glob of a search; a
	// longer one is BAD_REQUEST. 0 means 256.
	MaxGlobLength int `yaml:"maxGlobLength"`
}

// newKnowledge opens the configured knowledge bases in the store's
// database; nil without any. The memory store keeps no index: knowledge
// bases then are an error.
func newKnowledge(ctx context.Context, st store.Store, cfg *Config, getenv func(string) string, repos *gitrepo.Manager, log *slog.Logger) (*kb.Manager, error) {
	if len(cfg.KnowledgeBases) == 0 {
		return nil, nil
	}
	m, err := kb.New(ctx, st, cfg.KnowledgeBases, kb.Options{Repos: repos, Logger: log, RepoLocations: repoLocations(cfg.Git),
		MaxGlobs: cfg.Knowledge.MaxGlobs, MaxGlobLen: cfg.Knowledge.MaxGlobLength,
		Embedder: func(e *kb.Embeddings) (index.Embedder, error) { return embedder(cfg, getenv, e) },
		Reranker: func(r *kb.Rerank) (kb.Reranker, error) { return reranker(cfg, getenv, r, log) }})
	if err != nil {
		return nil, fmt.Errorf("knowledge bases: %w", err)
	}
	return m, nil
}

// repoLocations are the repositories' URLs, or their paths made
// absolute, by name: where the references of knowledge bases over them
// say their files are.
func repoLocations(g gitrepo.Config) map[string]string {
	out := make(map[string]string, len(g.Repositories))
	for _, r := range g.Repositories {
		loc := r.URL
		if loc == "" {
			loc = r.Path
			if abs, err := filepath.Abs(r.Path); err == nil {
				loc = abs
			}
		}
		out[r.Name] = loc
	}
	return out
}

// embedder makes the embedder of a knowledge base's embeddings: the
// hashing one, or the model at its URL (the upstream's when empty) with
// the key in KeyEnv, else the upstream's key when the URL is the
// upstream's (never sent to another endpoint).
func embedder(cfg *Config, getenv func(string) string, e *kb.Embeddings) (index.Embedder, error) {
	if e.Hash {
		return index.HashEmbedder{Dim: e.Dimensions, Tokenizer: chunk.Tokens}, nil
	}
	url := firstNonEmpty(e.URL, cfg.Upstream.URL)
	if url == "" {
		return nil, fmt.Errorf("embeddings: no url, and no upstream to ask")
	}
	return index.NewOpenAIEmbedder(index.OpenAIConfig{BaseURL: url, Model: e.Model, Dimensions: e.Dimensions,
		BatchSize: e.BatchSize, APIKey: endpointKey(cfg, getenv, e.URL, e.KeyEnv)})
}

// endpointKey is the key of a model endpoint a knowledge base configures
// (url, keyEnv): keyEnv's, else the upstream's when url is empty (the
// upstream's own endpoint), else none: the upstream's key is not sent to
// another host.
func endpointKey(cfg *Config, getenv func(string) string, url, keyEnv string) string {
	if keyEnv == "" && url == "" {
		keyEnv = cfg.Upstream.KeyEnv
	}
	if keyEnv == "" {
		return ""
	}
	return getenv(keyEnv)
}

// reranker makes the re-ranker of a knowledge base's rerank config: the
// model at its URL (the upstream's when empty), the key as endpointKey
// says.
func reranker(cfg *Config, getenv func(string) string, r *kb.Rerank, log *slog.Logger) (kb.Reranker, error) {
	url := firstNonEmpty(r.URL, cfg.Upstream.URL)
	if url == "" {
		return nil, fmt.Errorf("rerank: no url, and no upstream to ask")
	}
	rr, err := rerank.New(rerank.Options{URL: url, Model: r.Model, APIKey: endpointKey(cfg, getenv, r.URL, r.KeyEnv),
		Candidates: r.Candidates, Timeout: r.Timeout, Logger: log})
	if err != nil {
		return nil, err
	}
	return rr, nil
}

// reindexEvery is the knowledge bases' re-index interval.
func reindexEvery(cfg *Config) time.Duration {
	if d := time.Duration(cfg.Knowledge.Reindex); d > 0 {
		return d
	}
	return 5 * time.Minute
}
