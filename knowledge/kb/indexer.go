package kb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

// maxFileBytes bounds a file read for indexing.
const maxFileBytes = 1 << 20

// Report says what indexing a knowledge base did.
type Report struct {
	KB                       string
	Indexed, Unchanged, Gone int
	// Embedded counts the chunks that were given the vector they lacked
	// (indexed while the embedder failed).
	Embedded int
	Skipped  []string // files that could not be chunked, with why
	Commits  string   // the sources' commits, label=commit,…
}

// IndexAll indexes every knowledge base, one after the other; a failing
// one is logged and the others go on. It returns the first error.
func (m *Manager) IndexAll(ctx context.Context) error {
	var first error
	for _, id := range m.ids {
		if _, err := m.Index(ctx, id); err != nil {
			m.log.Error("knowledge base not indexed", "kb", id, "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// Run warms each knowledge base's search cache (index.Index.Warm), then
// indexes every knowledge base now, then every interval (following
// fetched branches), until ctx ends.
func (m *Manager) Run(ctx context.Context, every time.Duration) {
	if len(m.ids) == 0 {
		return
	}
	if every <= 0 {
		every = 5 * time.Minute
	}
	// The common words' scores of each base cached first, so that the
	// searches right after a start do not each read them whole.
	for _, id := range m.ids {
		if err := m.bases[id].ix.Warm(ctx, id); err != nil {
			m.log.Warn("knowledge base: warming the search cache failed; searches read the postings themselves", "kb", id, "err", err)
		}
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_ = m.IndexAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Index brings knowledge base id up to date with its sources: a file
// whose content is unchanged is not chunked again, a file gone from its
// source leaves the index; a repository whose ref has not moved since the
// last indexing is not read at all.
func (m *Manager) Index(ctx context.Context, id string) (*Report, error) {
	b, ok := m.bases[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st, err := b.ix.Stats(ctx, id)
	if err != nil {
		return nil, err
	}
	known, err := b.ix.FileHashes(ctx, id)
	if err != nil {
		return nil, err
	}
	prev := sourceCommits(st.LastCommit)
	rep := &Report{KB: id}
	seen := map[string]bool{}
	var commits []string
	start := time.Now()
	// The files are written in batches (index.Writer), a transaction
	// each: what a search sees moves a batch at a time.
	w := b.ix.NewWriter(id)
	for _, s := range b.cfg.Sources {
		commit, err := m.indexSource(ctx, b, w, s, prev[s.label()], known, seen, rep)
		if err != nil {
			return rep, fmt.Errorf("knowledge base %s, source %s: %w", id, s.label(), err)
		}
		if commit != "" {
			commits = append(commits, s.label()+"="+commit)
		}
	}
	for name := range known {
		if !seen[name] {
			if err := w.Delete(ctx, name); err != nil {
				return rep, err
			}
			rep.Gone++
		}
	}
	if err := w.Flush(ctx); err != nil {
		return rep, err
	}
	sort.Strings(commits)
	rep.Commits = strings.Join(commits, ",")
	if err := b.ix.SetMeta(ctx, id, rep.Commits); err != nil {
		return rep, err
	}
	if b.cfg.Embeddings != nil {
		// Chunks indexed while the embedder failed have no vector yet;
		// they are searched lexically meanwhile.
		n, err := b.ix.EmbedMissing(ctx, id)
		rep.Embedded = n
		if err != nil {
			m.log.Warn("knowledge base: embedding the chunks without vectors failed; they are searched lexically until a later indexing",
				"kb", id, "embedded", n, "err", err)
		}
	}
	if rep.Indexed+rep.Gone+rep.Embedded > 0 {
		if err := b.ix.Optimize(ctx); err != nil {
			m.log.Warn("optimizing the knowledge index", "kb", id, "err", err)
		}
		m.log.Info("knowledge base indexed", "kb", id, "indexed", rep.Indexed, "unchanged", rep.Unchanged, "removed", rep.Gone, "embedded", rep.Embedded,
			"skipped", len(rep.Skipped), "commits", rep.Commits, "ms", time.Since(start).Milliseconds())
	}
	return rep, nil
}

// fileSource reads the files of a source.
type fileSource interface {
	// files lists the files matching the source's globs, "/"-separated.
	files(ctx context.Context) ([]string, error)
	read(ctx context.Context, name string) ([]byte, error)
}

// indexSource indexes one source's files into b through w; with a
// repository whose commit is still prevCommit, it only marks its files
// seen. It returns the commit indexed ("" for a directory).
func (m *Manager) indexSource(ctx context.Context, b *base, w *index.Writer, s Source, prevCommit string, known map[string]string, seen map[string]bool, rep *Report) (string, error) {
	var src fileSource
	commit := ""
	switch {
	case s.Repo != "":
		if m.repos == nil {
			return "", errors.New("the gateway has no git.repositories")
		}
		r, err := m.repos.Repo(ctx, s.Repo)
		if err != nil {
			return "", err
		}
		ref := firstNonEmpty(s.Ref, "HEAD")
		if commit, err = r.Resolve(ctx, ref); err != nil {
			return "", err
		}
		src = &repoSource{repo: r, ref: commit, globs: s.Paths}
	default:
		root, err := os.OpenRoot(s.Dir)
		if err != nil {
			return "", err
		}
		defer root.Close()
		src = &dirSource{root: root, globs: s.Paths}
	}
	names, err := src.files(ctx)
	if err != nil {
		return "", err
	}
	if commit != "" && commit == prevCommit {
		for _, n := range names {
			seen[n] = true
		}
		rep.Unchanged += len(names)
		return commit, nil
	}
	for i, name := range names {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if m.progress != nil {
			m.progress(Progress{KB: b.cfg.ID, Source: s.label(), Done: i, Total: len(names)})
		}
		seen[name] = true
		data, err := src.read(ctx, name)
		if err != nil {
			rep.Skipped = append(rep.Skipped, name+": "+err.Error())
			continue
		}
		hash := contentHash(data)
		if known[name] == hash {
			rep.Unchanged++
			continue
		}
		chunks, err := chunk.Split(name, s.label(), data, b.chunkOptions())
		if errors.Is(err, chunk.ErrTruncated) && len(chunks) > 0 {
			// Over the size bound: its head is indexed.
			rep.Skipped = append(rep.Skipped, name+": "+err.Error())
			err = nil
		}
		if err != nil {
			rep.Skipped = append(rep.Skipped, name+": "+err.Error())
			if known[name] != "" {
				if err := w.Delete(ctx, name); err != nil {
					return "", err
				}
			}
			continue
		}
		if err := w.Replace(ctx, name, hash, chunks); err != nil {
			return "", err
		}
		rep.Indexed++
		if (i+1)%500 == 0 {
			m.log.Info("indexing", "kb", b.cfg.ID, "source", s.label(), "files", i+1, "of", len(names))
		}
	}
	if m.progress != nil {
		m.progress(Progress{KB: b.cfg.ID, Source: s.label(), Done: len(names), Total: len(names)})
	}
	return commit, nil
}

// dirSource is a directory's files, read through an os.Root (nothing
// outside it).
type dirSource struct {
	root  *os.Root
	globs []string
}

func (d *dirSource) files(context.Context) ([]string, error) {
	var out []string
	err := fs.WalkDir(d.root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != "." && strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir // .git and the like
			}
			return nil
		}
		if e.Type().IsRegular() && index.MatchAny(d.globs, p) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func (d *dirSource) read(_ context.Context, name string) ([]byte, error) {
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileBytes))
}

// repoSource is a repository's files at a commit.
type repoSource struct {
	repo  *gitrepo.Repo
	ref   string
	globs []string
}

func (r *repoSource) files(ctx context.Context) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := r.repo.Tree(ctx, r.ref, dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			switch e.Type {
			case "dir":
				if err := walk(e.Path); err != nil {
					return err
				}
			case "file":
				if index.MatchAny(r.globs, e.Path) {
					out = append(out, e.Path)
				}
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

func (r *repoSource) read(ctx context.Context, name string) ([]byte, error) {
	f, err := r.repo.Show(ctx, r.ref, name, maxFileBytes)
	if err != nil {
		return nil, err
	}
	if f.Binary {
		return nil, errors.New("a binary file")
	}
	return []byte(f.Content), nil
}
