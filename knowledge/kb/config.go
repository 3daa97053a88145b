// Package kb runs the gateway's knowledge bases: it indexes their sources
// (the server-side git repositories the gateway manages, and directories)
// into the index in the store's database, keeps the index following each
// repository's branch by re-indexing only the files that changed, and
// recalls references for agents (recallByAgent), the recall step, the
// search_knowledge tool and the API.
package kb

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/rerank"
)

// Config is a knowledge base as the gateway config defines it
// (knowledgeBases).
type Config struct {
	ID      string   `yaml:"id"`
	Name    string   `yaml:"name"`
	Sources []Source `yaml:"sources"`
	// Chunking bounds the chunks (knowledge/chunk's defaults when zero).
	Chunking Chunking `yaml:"chunking"`
	// Embeddings, when set, give chunks and queries vectors: recall then
	// fuses the lexical and the vector rankings.
	Embeddings *Embeddings `yaml:"embeddings"`
	// Rerank, when set, has a re-ranking model reorder the first hits of
	// each search, within a latency budget (off by default).
	Rerank *Rerank `yaml:"rerank"`
}

// Rerank configures the re-ranking of a knowledge base's searches by a
// model endpoint of the /rerank API Cohere, Jina, vLLM and Infinity share
// (knowledge/rerank): the search's first candidates are sent, and when
// the model fails or does not answer within the timeout the search's own
// order is kept.
type Rerank struct {
	// Model names the re-ranking model.
	Model string `yaml:"model"`
	// URL is the API's base, its endpoint URL + "/rerank"; empty: the
	// upstream's.
	URL string `yaml:"url"`
	// KeyEnv names the environment variable holding the API key, sent as
	// a bearer token. Empty: the upstream's key when URL is empty, none
	// otherwise.
	KeyEnv string `yaml:"keyEnv"`
	// Candidates is how many of the search's first hits the model orders
	// (default 20, at most 100).
	Candidates int `yaml:"candidates"`
	// Timeout is the re-ranking's latency budget (default 500ms).
	Timeout time.Duration `yaml:"timeout"`
}

// Source is where a knowledge base's files come from: a repository of
// git.repositories at a ref, or a directory; Paths are globs of the files
// taken ("**" for any depth; all files when empty).
type Source struct {
	Repo  string   `yaml:"repo" json:"repo,omitempty"`
	Ref   string   `yaml:"ref" json:"ref,omitempty"`
	Dir   string   `yaml:"dir" json:"dir,omitempty"`
	Paths []string `yaml:"paths" json:"paths,omitempty"`
}

// Chunking bounds a knowledge base's chunks.
type Chunking struct {
	WindowLines int `yaml:"windowLines"`
	Overlap     int `yaml:"overlap"`
	MaxLines    int `yaml:"maxLines"`
}

// Embeddings configure the vectors of a knowledge base: an OpenAI-style
// /embeddings endpoint (the upstream's when URL is empty), or, with Hash, a
// deterministic hashing embedder needing no model (for demos and tests).
type Embeddings struct {
	// Model names the embeddings model (required unless hash).
	Model string `yaml:"model"`
	// URL is the base of any OpenAI-compatible API, its endpoint URL +
	// "/embeddings" (Ollama: http://localhost:11434/v1; vLLM:
	// http://host:8000/v1); empty: the upstream's.
	URL string `yaml:"url"`
	// KeyEnv names the environment variable holding the API key, sent as
	// a bearer token. Empty: the upstream's key when URL is empty, none
	// when URL names another endpoint (the upstream's key is not sent
	// elsewhere).
	KeyEnv string `yaml:"keyEnv"`
	// Dimensions asks a model that can shorten its vectors for that many;
	// with hash, the vectors' dimension (default 256).
	Dimensions int `yaml:"dimensions"`
	// BatchSize bounds the texts of one request (default 64).
	BatchSize int `yaml:"batchSize"`
	// Hash uses the deterministic hashing embedder instead of a model.
	Hash bool `yaml:"hash"`
}

// idPattern is what a knowledge base's id may be made of; maxIDLen bounds
// its length (a counted repetition, {0,63}, would compile into a program
// of 64 copies held from the process's start).
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxIDLen is the longest a knowledge base's id may be, in bytes.
const maxIDLen = 64

// validID reports whether s may be a knowledge base's id.
func validID(s string) bool { return len(s) <= maxIDLen && idPattern.MatchString(s) }

// Check reports what is wrong with a knowledge base's config.
func (c *Config) Check() error {
	var errs []error
	if !validID(c.ID) {
		errs = append(errs, fmt.Errorf("id %q must be 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit)", c.ID))
	}
	if len(c.Sources) == 0 {
		errs = append(errs, errors.New("sources: at least one (repo: NAME or dir: PATH)"))
	}
	for i, s := range c.Sources {
		if (s.Repo == "") == (s.Dir == "") {
			errs = append(errs, fmt.Errorf("sources[%d]: exactly one of repo and dir", i))
		}
		if s.Dir != "" && s.Ref != "" {
			errs = append(errs, fmt.Errorf("sources[%d]: a dir has no ref", i))
		}
		if err := index.CheckGlobs(s.Paths); err != nil {
			errs = append(errs, fmt.Errorf("sources[%d]: paths: %w", i, err))
		}
	}
	if e := c.Embeddings; e != nil {
		if !e.Hash && e.Model == "" {
			errs = append(errs, errors.New("embeddings: model is required (or hash: true)"))
		}
		if e.Dimensions < 0 || e.BatchSize < 0 {
			errs = append(errs, errors.New("embeddings: dimensions and batchSize must not be negative"))
		}
	}
	if r := c.Rerank; r != nil {
		if r.Model == "" {
			errs = append(errs, errors.New("rerank: model is required"))
		}
		if r.Candidates < 0 || r.Candidates > rerank.MaxCandidates {
			errs = append(errs, fmt.Errorf("rerank: candidates must be between 1 and %d", rerank.MaxCandidates))
		}
		if r.Timeout < 0 {
			errs = append(errs, errors.New("rerank: timeout must not be negative"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("knowledge base %q: %w", c.ID, err)
	}
	return nil
}
