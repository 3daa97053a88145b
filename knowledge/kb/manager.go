package kb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/store"
)

// Manager runs the configured knowledge bases.
type Manager struct {
	bases map[string]*base
	ids   []string
	repos *gitrepo.Manager
	log   *slog.Logger
	// places maps a source's label (Source.label) to where its files
	// are: the directory, or the repository's location; a reference's
	// metadata.source is the place joined with the file's path.
	places map[string]string
	// progress, when set, is told of each file of an index run.
	progress func(Progress)
}

// Progress is where an index run is: Done of Total files of a source of
// a knowledge base have been read.
type Progress struct {
	KB, Source  string
	Done, Total int
}

// SetProgress makes Index call f before each file of a source and once
// when the source is done (Done == Total); f runs on the indexing
// goroutine. Set it before indexing starts; nil stops the calls.
func (m *Manager) SetProgress(f func(Progress)) { m.progress = f }

// base is one knowledge base: its config and its index (an Index per base,
// for each may have its own embedder; they share the tables).
type base struct {
	cfg Config
	ix  *index.Index
	// rerank reorders its searches' first hits; nil without.
	rerank Reranker
	// mu serializes its indexing in this process.
	mu sync.Mutex
}

// Options are what New needs besides the configs.
type Options struct {
	// Repos are the gateway's repositories (git.repositories), for repo
	// sources; nil when none are configured.
	Repos *gitrepo.Manager
	// Embedder makes the embedder of a base's Embeddings config.
	Embedder func(*Embeddings) (index.Embedder, error)
	// Reranker makes the re-ranker of a base's Rerank config.
	Reranker func(*Rerank) (Reranker, error)
	Logger   *slog.Logger
	// MaxGlobs and MaxGlobLen bound the path globs of a search
	// (index.Options); 0 takes the index's defaults.
	MaxGlobs   int
	MaxGlobLen int
	// RepoLocations are the repositories' URLs or paths by name
	// (git.repositories' url, or its path made absolute), for the metadata.source of their
	// references: the URL normalised (host/path, no credentials) or the
	// absolute path, then the file's path. A repository missing here is
	// named by its name.
	RepoLocations map[string]string
}

// New opens the index of each configured knowledge base in the store's
// database (SQLite or Postgres).
func New(ctx context.Context, st store.Store, cfgs []Config, opts Options) (*Manager, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{bases: map[string]*base{}, repos: opts.Repos, log: log, places: map[string]string{}}
	for _, c := range cfgs {
		if err := c.Check(); err != nil {
			return nil, err
		}
		for _, s := range c.Sources {
			m.places[s.label()] = s.place(opts.RepoLocations)
		}
		if _, dup := m.bases[c.ID]; dup {
			return nil, fmt.Errorf("knowledge base %q is defined twice", c.ID)
		}
		io := index.Options{Tokenizer: chunk.Tokens, MaxGlobs: opts.MaxGlobs, MaxGlobLen: opts.MaxGlobLen, Logger: log}
		if c.Embeddings != nil {
			if opts.Embedder == nil {
				return nil, fmt.Errorf("knowledge base %q: embeddings are configured, and no embedder is", c.ID)
			}
			e, err := opts.Embedder(c.Embeddings)
			if err != nil {
				return nil, fmt.Errorf("knowledge base %q: %w", c.ID, err)
			}
			// A failing endpoint is not called again for a minute: files
			// are indexed and queries ranked lexically meanwhile.
			io.Embedder = &index.PausingEmbedder{Embedder: e}
		}
		ix, err := index.Open(ctx, st, io)
		if err != nil {
			return nil, fmt.Errorf("knowledge base %q: %w", c.ID, err)
		}
		b := &base{cfg: c, ix: ix}
		if c.Rerank != nil {
			if opts.Reranker == nil {
				return nil, fmt.Errorf("knowledge base %q: rerank is configured, and no re-ranker is", c.ID)
			}
			if b.rerank, err = opts.Reranker(c.Rerank); err != nil {
				return nil, fmt.Errorf("knowledge base %q: %w", c.ID, err)
			}
		}
		m.bases[c.ID] = b
		m.ids = append(m.ids, c.ID)
	}
	return m, nil
}

// IDs lists the knowledge bases.
func (m *Manager) IDs() []string { return slices.Clone(m.ids) }

// Summary is a knowledge base as GET /knowledge-bases lists it.
type Summary struct {
	ID         string    `json:"id"`
	Name       string    `json:"name,omitempty"`
	Sources    []Source  `json:"sources"`
	Files      int       `json:"files"`
	Chunks     int       `json:"chunks"`
	LastCommit string    `json:"lastIndexedCommit,omitempty"`
	Updated    time.Time `json:"updatedAt,omitzero"`
	Hybrid     bool      `json:"hybrid"`
}

// List summarizes every knowledge base.
func (m *Manager) List(ctx context.Context) ([]Summary, error) {
	out := make([]Summary, 0, len(m.ids))
	for _, id := range m.ids {
		b := m.bases[id]
		st, err := b.ix.Stats(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, Summary{ID: id, Name: b.cfg.Name, Sources: b.cfg.Sources, Files: st.Files, Chunks: st.Chunks,
			LastCommit: st.LastCommit, Updated: st.Updated, Hybrid: b.cfg.Embeddings != nil})
	}
	return out, nil
}

// ErrUnknown is the error of a knowledge base id no config defines.
var ErrUnknown = errors.New("no such knowledge base")

// Reranker reorders the first hits of a search (knowledge/rerank's
// *Reranker): Rerank returns the first topK, and on any failure the
// search's order.
type Reranker interface {
	// Candidates is how many hits a search asks for to be re-ranked.
	Candidates() int
	Rerank(ctx context.Context, query string, hits []index.Hit, topK int) []index.Hit
}

// Search searches knowledge base id, its first hits re-ranked when the
// base configures it (within the re-ranker's budget). A hit's Chunk.Source is where its
// file is (docs/protocol.md §6: the file's path, as
// /srv/docs/guide/deploy.md or github.com/org/repo/server/parse.go), not
// the source's label the index keeps (dir:/srv/docs, repo:NAME@REF).
func (m *Manager) Search(ctx context.Context, id string, q index.Query) ([]index.Hit, error) {
	b, ok := m.bases[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	q.KB = []string{id}
	topK := cmp.Or(q.TopK, index.DefaultTopK)
	if b.rerank != nil && topK > 0 {
		q.TopK = min(max(topK, b.rerank.Candidates()), index.MaxTopK)
	}
	hits, err := b.ix.Search(ctx, q)
	if err == nil && b.rerank != nil && topK > 0 {
		hits = b.rerank.Rerank(ctx, q.Text, hits, topK)
	}
	for i := range hits {
		hits[i].Chunk.Source = m.filePath(hits[i].Chunk.Source, hits[i].Chunk.FileName)
	}
	return hits, err
}

// filePath is where file of the source labelled label is: the source's
// place joined with the file's path (the label, for a source no config
// names any more).
func (m *Manager) filePath(label, file string) string {
	place, ok := m.places[label]
	if !ok {
		return label
	}
	return strings.TrimSuffix(place, "/") + "/" + strings.TrimPrefix(file, "/")
}

// Recall implements recallstage.Recaller: per knowledge base of ids (the
// unknown ones are skipped), its topK chunks for query, as references.
func (m *Manager) Recall(ctx context.Context, ids []string, query string, topK int) ([]contextvars.KnowledgeBase, error) {
	var out []contextvars.KnowledgeBase
	for _, id := range ids {
		if _, ok := m.bases[id]; !ok {
			continue
		}
		hits, err := m.Search(ctx, id, index.Query{Text: query, TopK: topK})
		if err != nil {
			return nil, apierr.New(apierr.CodeStoreUnavailable, "the knowledge bases could not be searched").Wrap(err)
		}
		kb := contextvars.KnowledgeBase{KnowledgeBaseID: id, References: make([]contextvars.Reference, 0, len(hits))}
		for _, h := range hits {
			kb.References = append(kb.References, Reference(h))
		}
		out = append(out, kb)
	}
	return out, nil
}

// Reference is a hit in the protocol's reference shape.
func Reference(h index.Hit) contextvars.Reference {
	start, end := h.Chunk.StartLine, h.Chunk.EndLine
	return contextvars.Reference{Score: h.Score, Chunk: h.Chunk.Text, Metadata: contextvars.ReferenceMetadata{
		FileName: h.Chunk.FileName, SourceType: h.Chunk.SourceType, Source: h.Chunk.Source, StartPos: &start, EndPos: &end}}
}

// contentHash is a file's hash in the index: of its content.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// chunkOptions are a base's chunking bounds.
func (b *base) chunkOptions() chunk.Options {
	return chunk.Options{WindowLines: b.cfg.Chunking.WindowLines, Overlap: b.cfg.Chunking.Overlap, MaxLines: b.cfg.Chunking.MaxLines}
}

// label names a source in chunks' metadata.
func (s Source) label() string {
	if s.Repo != "" {
		return "repo:" + s.Repo + "@" + firstNonEmpty(s.Ref, "HEAD")
	}
	return "dir:" + s.Dir
}

// place is where the source's files are: the directory, or the
// repository's location (its URL normalised, without credentials, or its
// absolute path; its name when locations do not know it).
func (s Source) place(locations map[string]string) string {
	if s.Repo == "" {
		if abs, err := filepath.Abs(s.Dir); err == nil {
			return filepath.ToSlash(abs)
		}
		return filepath.ToSlash(s.Dir)
	}
	loc := locations[s.Repo]
	if loc == "" {
		return s.Repo
	}
	norm, err := gitrepo.NormalizeURL(loc)
	if err != nil {
		return s.Repo
	}
	return norm
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sourceCommits parses the commits a base's meta keeps: label=commit,…
func sourceCommits(meta string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(meta, ",") {
		if k, v, ok := strings.Cut(part, "="); ok {
			out[k] = v
		}
	}
	return out
}
