package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Bounds of a Writer's batch: it is written when it holds this many
// postings rows, chunks or files. A batch is one transaction, which on
// SQLite holds the database's write lock (the store's other writers wait
// for it, up to their busy timeout): about 50 ms of writing on an idle
// machine at these bounds (the package README).
const (
	batchPostings = 20000
	batchChunks   = 2000
	batchFiles    = 500
)

// Writer replaces and deletes the files of one knowledge base in batches:
// each call analyses its file at once (and embeds its chunks), and the
// files are written together, in one transaction, when the batch is full
// and at Flush. A search sees a batch's files all or none, each whole;
// what a file's write means is Replace's and Delete's. A Writer is for
// one goroutine; the files not yet flushed are lost if it is dropped.
type Writer struct {
	ix      *Index
	kb      string
	files   []fileWrite
	names   map[string]bool
	rows    int // postings rows in files
	chunks  int // chunks in files
	written int // files changed by the flushed batches
	// The batch's bounds: batchPostings, batchChunks, batchFiles (tests
	// lower them).
	maxRows, maxChunks, maxFiles int
}

// NewWriter returns a Writer of the knowledge base kb.
func (ix *Index) NewWriter(kb string) *Writer {
	return &Writer{ix: ix, kb: kb, names: map[string]bool{},
		maxRows: batchPostings, maxChunks: batchChunks, maxFiles: batchFiles}
}

// Replace replaces fileName's chunks as Index.Replace does (a file
// indexed with hash already is left as it is), in the Writer's batch.
// An error is the file's, or that of writing the batch it filled.
func (w *Writer) Replace(ctx context.Context, fileName, hash string, chunks []chunk.Chunk) error {
	if w.kb == "" || fileName == "" {
		return errors.New("index: replacing a file needs a knowledge base id and a file name")
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
	if err := w.flushIfNamed(ctx, fileName); err != nil {
		return err
	}
	return w.add(ctx, fileWrite{name: fileName, del: true, now: w.ix.opts.Now().UnixNano()})
}

// Flush writes the batch. The Writer is empty after it, even when it
// fails.
func (w *Writer) Flush(ctx context.Context) error {
	if len(w.files) == 0 {
		return nil
	}
	files := w.files
	w.files, w.rows, w.chunks = nil, 0, 0
	clear(w.names)
	if err := w.ix.write(ctx, w.kb, files); err != nil {
		return fmt.Errorf("index: writing %d files of %s: %w", len(files), w.kb, err)
	}
	for _, f := range files {
		if f.changed {
			w.written++
		}
	}
	return nil
}

// Written is how many files the flushed batches changed: files replaced
// with a new hash (or none), and deleted files that were indexed.
func (w *Writer) Written() int { return w.written }

// flushIfNamed flushes the batch when it holds fileName already: a batch
// writes each file once.
func (w *Writer) flushIfNamed(ctx context.Context, fileName string) error {
	if w.names[fileName] {
		return w.Flush(ctx)
	}
	return nil
}

func (w *Writer) add(ctx context.Context, f fileWrite) error {
	w.files = append(w.files, f)
	w.names[f.name] = true
	w.rows += f.doc.rows
	w.chunks += len(f.chunks)
	if w.rows >= w.maxRows || w.chunks >= w.maxChunks || len(w.files) >= w.maxFiles {
		return w.Flush(ctx)
	}
	return nil
}
