package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Bounds of a Writer's batch: it is written when it holds this many
// postings rows, chunks or files. A batch is one transaction, which on
// SQLite holds the database's write lock (the store's other writers wait
// for it, up to their busy timeout); README.md has how long it takes.
const (
	batchPostings = 20000
	batchChunks   = 2000
	batchFiles    = 500
)

// The bounds of a batch on PostgreSQL, where a transaction blocks only
// the other writers of its knowledge base (its kb_bases row), not the
// store's: three times SQLite's. A batch upserts a kb_terms row per
// distinct term it holds, so fewer, larger batches update fewer rows
// (a build's term rows 27 % fewer, README.md); it costs the memory of the
// files' chunks and vectors, two batches at most (one being written).
const (
	pgBatchPostings = 3 * batchPostings
	pgBatchChunks   = 3 * batchChunks
	pgBatchFiles    = 3 * batchFiles
)

// Writer replaces and deletes the files of one knowledge base in batches:
// each call analyses its file at once (and embeds its chunks), and the
// files are written together, in one transaction, when the batch is full
// and at Flush. A full batch is written by a goroutine of its own while
// the caller goes on with the next (one batch at a time, in order), with
// the context of the call that filled it; a failure is returned by a
// later call (at the latest the one that fills the next batch, or Flush)
// and by every call after that one. A search sees a batch's files
// all or none, each whole; what a file's write means is Replace's and
// Delete's. A Writer is for one goroutine; the files not yet flushed are
// lost if it is dropped.
type Writer struct {
	ix      *Index
	kb      string
	files   []fileWrite
	names   map[string]bool
	rows    int // postings rows in files
	chunks  int // chunks in files
	written int // files changed by the batches written
	// writing receives the result of the batch being written, nil when
	// none is; err is the first batch's failure.
	writing chan batchResult
	err     error
	// last is the version the last batch written made, warmed at Flush.
	last written
	// The batch's bounds: batchPostings, batchChunks, batchFiles, or
	// pgBatch… on PostgreSQL (tests lower them).
	maxRows, maxChunks, maxFiles int
	// onWrite, when set (benchmarks), is called with how long each
	// batch's transaction took, on the goroutine that wrote it.
	onWrite func(time.Duration)
}

// NewWriter returns a Writer of the knowledge base kb.
func (ix *Index) NewWriter(kb string) *Writer {
	w := &Writer{ix: ix, kb: kb, names: map[string]bool{},
		maxRows: batchPostings, maxChunks: batchChunks, maxFiles: batchFiles}
	if ix.dialect.pg {
		w.maxRows, w.maxChunks, w.maxFiles = pgBatchPostings, pgBatchChunks, pgBatchFiles
	}
	return w
}

// Replace replaces fileName's chunks as Index.Replace does (a file
// indexed with hash already is left as it is), in the Writer's batch.
// An error is the file's, or that of writing the batch it filled.
func (w *Writer) Replace(ctx context.Context, fileName, hash string, chunks []chunk.Chunk) error {
	if w.kb == "" || fileName == "" {
		return errors.New("index: replacing a file needs a knowledge base id and a file name")
	}
	if err := w.failed(); err != nil {
		return err
	}
	if err := w.flushIfNamed(ctx, fileName); err != nil {
		return err
	}
	f, err := w.ix.prepareFile(ctx, w.kb, fileName, hash, chunks)
	if err != nil {
		return err
	}
	return w.add(ctx, f)
}

// Delete removes fileName as Index.Delete does, in the Writer's batch.
func (w *Writer) Delete(ctx context.Context, fileName string) error {
	if err := w.failed(); err != nil {
		return err
	}
	if err := w.flushIfNamed(ctx, fileName); err != nil {
		return err
	}
	return w.add(ctx, fileWrite{name: fileName, del: true, now: w.ix.opts.Now().UnixNano()})
}

// Flush writes the batch and waits until every batch is written. The
// batch is dropped when it fails. When they changed the index, a warm-up
// of the postings cache then starts for the version written (the scores
// of the base's commonest terms, in the background), so that the
// searches after an indexing run do not each read them whole.
func (w *Writer) Flush(ctx context.Context) error {
	if err := w.start(ctx); err != nil {
		return err
	}
	if err := w.wait(); err != nil {
		return err
	}
	if last := w.last; last.id != 0 {
		w.last = written{}
		w.ix.maybeWarm(last.kb, last.id, last.version, last.chunks)
	}
	return nil
}

// batchResult is the outcome of writing a batch.
type batchResult struct {
	written int
	version written // the version it made
	err     error
}

// start hands the batch to a goroutine that writes it, once the batch
// before it is written.
func (w *Writer) start(ctx context.Context) error {
	if err := w.wait(); err != nil {
		return err
	}
	if len(w.files) == 0 {
		return nil
	}
	files := w.files
	w.files, w.rows, w.chunks = nil, 0, 0
	clear(w.names)
	done := make(chan batchResult, 1)
	w.writing = done
	onWrite := w.onWrite
	go func() {
		start := time.Now()
		v, err := w.ix.write(ctx, w.kb, files)
		if onWrite != nil {
			onWrite(time.Since(start))
		}
		if err != nil {
			done <- batchResult{err: fmt.Errorf("index: writing %d files of %s: %w", len(files), w.kb, err)}
			return
		}
		n := 0
		for _, f := range files {
			if f.changed {
				n++
			}
		}
		done <- batchResult{written: n, version: v}
	}()
	return nil
}

// wait waits for the batch being written, and returns the first failure.
func (w *Writer) wait() error {
	if w.writing != nil {
		w.done(<-w.writing)
	}
	return w.err
}

// failed returns the first failure of the batches written so far, without
// waiting for the one being written.
func (w *Writer) failed() error {
	if w.writing != nil {
		select {
		case r := <-w.writing:
			w.done(r)
		default:
		}
	}
	return w.err
}

// done takes in the result of the batch that was being written.
func (w *Writer) done(r batchResult) {
	w.writing = nil
	w.written += r.written
	if r.version.id != 0 {
		w.last = r.version
	}
	if r.err != nil && w.err == nil {
		w.err = r.err
	}
}

// Written is how many files the batches written changed (all of them
// after Flush): files replaced with a new hash (or none), and deleted
// files that were indexed.
func (w *Writer) Written() int { return w.written }

// flushIfNamed starts writing the batch when it holds fileName already: a
// batch writes each file once.
func (w *Writer) flushIfNamed(ctx context.Context, fileName string) error {
	if w.names[fileName] {
		return w.start(ctx)
	}
	return nil
}

func (w *Writer) add(ctx context.Context, f fileWrite) error {
	w.files = append(w.files, f)
	w.names[f.name] = true
	w.rows += f.doc.rows
	w.chunks += len(f.chunks)
	if w.rows >= w.maxRows || w.chunks >= w.maxChunks || len(w.files) >= w.maxFiles {
		return w.start(ctx)
	}
	return nil
}
