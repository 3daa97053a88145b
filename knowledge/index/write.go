package index

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Rows per multi-row statement: well under SQLite's 32766 and Postgres's
// 65535 parameters.
const (
	batchRows      = 1000
	chunkBatchRows = 200
)

// Replace indexes chunks as the whole content of fileName in kb, in place
// of what the file had, and records hash as its content hash. When the
// file is indexed with that hash already, it does nothing and returns
// false (an empty hash always replaces). With an Embedder the chunks'
// vectors are computed first, outside the transaction, only for chunks
// whose symbol or text changed (embedFile); if the embedder fails, the
// file is indexed without them, and EmbedMissing adds them. The chunks' source
// types must be chunk.TypeCode or chunk.TypeDoc; their order is the
// file's.
func (ix *Index) Replace(ctx context.Context, kb, fileName, hash string, chunks []chunk.Chunk) (bool, error) {
	if kb == "" || fileName == "" {
		return false, errors.New("index: replacing a file needs a knowledge base id and a file name")
	}
	if hash != "" {
		old, err := ix.fileHash(ctx, kb, fileName)
		if err != nil {
			return false, err
		}
		if old == hash {
			return false, nil
		}
	}
	doc, err := analyze(ix.opts.Tokenizer, chunks)
	if err != nil {
		return false, fmt.Errorf("index: %s in %s: %w", fileName, kb, err)
	}
	vecs := ix.embedFile(ctx, kb, fileName, chunks)
	changed := true
	now := ix.opts.Now().UnixNano()
	err = ix.inTx(ctx, func(tx dbconn.Conn) error {
		var kbID int64
		err := tx.QueryRow(ctx, `INSERT INTO kb_bases (name, updated_at) VALUES (?, ?)
ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at RETURNING id`, kb, now).Scan(&kbID)
		if err != nil {
			return fmt.Errorf("locking the knowledge base: %w", err)
		}
		old, found, err := readFile(ctx, tx, kbID, fileName)
		if err != nil {
			return err
		}
		if found && hash != "" && old.hash == hash {
			changed = false
			return nil
		}
		deltas := map[string]int{}
		var c counts
		if found {
			if c, err = removeFile(ctx, tx, ix.dialect, kbID, old, deltas); err != nil {
				return err
			}
		}
		var fileID int64
		err = tx.QueryRow(ctx, `INSERT INTO kb_files (kb_id, name, hash, chunks, tokens, terms, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			kbID, fileName, hash, len(chunks), doc.tokens, encodeTerms(doc.terms), now).Scan(&fileID)
		if err != nil {
			return fmt.Errorf("recording the file: %w", err)
		}
		if err := insertChunks(ctx, tx, fileID, chunks, vecs); err != nil {
			return err
		}
		if err := insertPostings(ctx, tx, kbID, fileID, doc); err != nil {
			return err
		}
		for _, t := range doc.terms {
			deltas[t.term] += t.n
		}
		if err := applyDeltas(ctx, tx, ix.dialect, kbID, deltas); err != nil {
			return err
		}
		c.files++
		c.chunks += len(chunks)
		c.tokens += doc.tokens
		return c.apply(ctx, tx, kbID)
	})
	if err != nil {
		return false, fmt.Errorf("index: replacing %s in %s: %w", fileName, kb, err)
	}
	return changed, nil
}

// Delete removes fileName and its chunks from kb; a file not indexed is
// no error.
func (ix *Index) Delete(ctx context.Context, kb, fileName string) error {
	now := ix.opts.Now().UnixNano()
	err := ix.inTx(ctx, func(tx dbconn.Conn) error {
		var kbID int64
		err := tx.QueryRow(ctx, `UPDATE kb_bases SET updated_at = ? WHERE name = ? RETURNING id`, now, kb).Scan(&kbID)
		if dbconn.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("locking the knowledge base: %w", err)
		}
		old, found, err := readFile(ctx, tx, kbID, fileName)
		if err != nil || !found {
			return err
		}
		deltas := map[string]int{}
		c, err := removeFile(ctx, tx, ix.dialect, kbID, old, deltas)
		if err != nil {
			return err
		}
		if err := applyDeltas(ctx, tx, ix.dialect, kbID, deltas); err != nil {
			return err
		}
		return c.apply(ctx, tx, kbID)
	})
	if err != nil {
		return fmt.Errorf("index: deleting %s from %s: %w", fileName, kb, err)
	}
	return nil
}

// fileHash is the hash fileName is indexed with in kb, "" when it is not.
func (ix *Index) fileHash(ctx context.Context, kb, fileName string) (string, error) {
	var h string
	err := ix.pool.QueryRow(ctx, `SELECT f.hash FROM kb_files f JOIN kb_bases b ON b.id = f.kb_id
WHERE b.name = ? AND f.name = ?`, kb, fileName).Scan(&h)
	if dbconn.IsNoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("index: reading the hash of %s in %s: %w", fileName, kb, err)
	}
	return h, nil
}

// storedFile is a kb_files row.
type storedFile struct {
	id             int64
	hash           string
	chunks, tokens int
	terms          []byte
}

func readFile(ctx context.Context, tx dbconn.Conn, kbID int64, name string) (storedFile, bool, error) {
	var f storedFile
	var chunks, tokens int64
	err := tx.QueryRow(ctx, `SELECT id, hash, chunks, tokens, terms FROM kb_files WHERE kb_id = ? AND name = ?`,
		kbID, name).Scan(&f.id, &f.hash, &chunks, &tokens, &f.terms)
	if dbconn.IsNoRows(err) {
		return storedFile{}, false, nil
	}
	if err != nil {
		return storedFile{}, false, fmt.Errorf("reading the file's record: %w", err)
	}
	f.chunks, f.tokens = int(chunks), int(tokens)
	return f, true, nil
}

// counts are changes to a knowledge base's counters.
type counts struct{ files, chunks, tokens int }

func (c counts) apply(ctx context.Context, tx dbconn.Conn, kbID int64) error {
	_, err := tx.Exec(ctx, `UPDATE kb_bases SET files = files + ?, chunks = chunks + ?, tokens = tokens + ? WHERE id = ?`,
		c.files, c.chunks, c.tokens, kbID)
	if err != nil {
		return fmt.Errorf("updating the counters: %w", err)
	}
	return nil
}

// removeFile deletes the file f's postings, chunks and record, subtracts
// its terms from deltas and returns the counters' changes.
func removeFile(ctx context.Context, tx dbconn.Conn, d dialect, kbID int64, f storedFile, deltas map[string]int) (counts, error) {
	terms, err := decodeTerms(f.terms)
	if err != nil {
		return counts{}, fmt.Errorf("reading the file's terms: %w", err)
	}
	for part := range slices.Chunk(terms, batchRows) {
		names := make([]string, len(part))
		for i, t := range part {
			names[i] = t.term
			deltas[t.term] -= t.n
		}
		cond, targs := d.strs("term", names)
		q := `DELETE FROM kb_postings WHERE kb_id = ? AND file_id = ? AND ` + cond
		if _, err := tx.Exec(ctx, q, append([]any{kbID, f.id}, targs...)...); err != nil {
			return counts{}, fmt.Errorf("deleting the file's postings: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM kb_chunks WHERE file_id = ?`, f.id); err != nil {
		return counts{}, fmt.Errorf("deleting the file's chunks: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM kb_files WHERE id = ?`, f.id); err != nil {
		return counts{}, fmt.Errorf("deleting the file's record: %w", err)
	}
	return counts{files: -1, chunks: -f.chunks, tokens: -f.tokens}, nil
}

func insertChunks(ctx context.Context, tx dbconn.Conn, fileID int64, chunks []chunk.Chunk, vecs [][]float32) error {
	for start := 0; start < len(chunks); start += chunkBatchRows {
		part := chunks[start:min(start+chunkBatchRows, len(chunks))]
		args := make([]any, 0, 9*len(part))
		for i, c := range part {
			var vec []byte
			if vecs != nil {
				vec = encodeVector(vecs[start+i])
			}
			args = append(args, fileID, start+i, c.Source, c.SourceType, c.StartLine, c.EndLine, c.Symbol, c.Text, vec)
		}
		q := `INSERT INTO kb_chunks (file_id, ord, source, source_type, start_line, end_line, symbol, text, vec) VALUES ` +
			dbconn.Values(len(part), 9)
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("inserting the chunks: %w", err)
		}
	}
	return nil
}

// insertPostings inserts a file's postings, a row per term and part (see
// maxPostBytes), batchRows rows a statement.
func insertPostings(ctx context.Context, tx dbconn.Conn, kbID, fileID int64, doc fileDoc) error {
	args := make([]any, 0, 5*batchRows)
	flush := func() error {
		n := len(args) / 5
		if n == 0 {
			return nil
		}
		q := `INSERT INTO kb_postings (kb_id, term, file_id, part, post) VALUES ` + dbconn.Values(n, 5)
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("inserting the postings: %w", err)
		}
		args = args[:0]
		return nil
	}
	for _, t := range doc.terms {
		for i, post := range doc.postings[t.term] {
			args = append(args, kbID, t.term, fileID, i, post)
			if len(args) == 5*batchRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// applyDeltas adds deltas to the document frequencies of kb_terms, in the
// terms' order, and deletes the terms no chunk holds any more.
func applyDeltas(ctx context.Context, tx dbconn.Conn, d dialect, kbID int64, deltas map[string]int) error {
	var terms, gone []string
	for t, d := range deltas {
		if d != 0 {
			terms = append(terms, t)
		}
		if d < 0 {
			gone = append(gone, t)
		}
	}
	slices.Sort(terms)
	slices.Sort(gone)
	for part := range slices.Chunk(terms, batchRows) {
		args := make([]any, 0, 3*len(part))
		for _, t := range part {
			args = append(args, kbID, t, deltas[t])
		}
		q := `INSERT INTO kb_terms (kb_id, term, df) VALUES ` + dbconn.Values(len(part), 3) +
			` ON CONFLICT (kb_id, term) DO UPDATE SET df = kb_terms.df + excluded.df`
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("updating the document frequencies: %w", err)
		}
	}
	for part := range slices.Chunk(gone, batchRows) {
		cond, targs := d.strs("term", part)
		q := `DELETE FROM kb_terms WHERE kb_id = ? AND df <= 0 AND ` + cond
		if _, err := tx.Exec(ctx, q, append([]any{kbID}, targs...)...); err != nil {
			return fmt.Errorf("deleting unused terms: %w", err)
		}
	}
	return nil
}
