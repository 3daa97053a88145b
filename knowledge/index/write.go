package index

import (
	"container/heap"
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
// file's. It writes the file in a transaction of its own; a Writer
// writes many files in one.
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
	f, err := ix.prepareFile(ctx, kb, fileName, hash, chunks)
	if err != nil {
		return false, err
	}
	files := []fileWrite{f}
	if _, err := ix.write(ctx, kb, files); err != nil {
		return false, fmt.Errorf("index: replacing %s in %s: %w", fileName, kb, err)
	}
	return files[0].changed, nil
}

// Delete removes fileName and its chunks from kb; a file not indexed is
// no error.
func (ix *Index) Delete(ctx context.Context, kb, fileName string) error {
	files := []fileWrite{{name: fileName, del: true, now: ix.opts.Now().UnixNano()}}
	if _, err := ix.write(ctx, kb, files); err != nil {
		return fmt.Errorf("index: deleting %s from %s: %w", fileName, kb, err)
	}
	return nil
}

// fileWrite is a file's replacement or deletion, analysed and embedded,
// not yet written.
type fileWrite struct {
	name, hash string
	del        bool
	chunks     []chunk.Chunk
	doc        fileDoc
	vecs       [][]float32
	now        int64 // when it was asked for, unix nanoseconds
	// changed is set by write: whether the index changed (false for a
	// file indexed with hash already, or the deletion of a file not
	// indexed).
	changed bool
}

// prepareFile analyses and embeds the chunks of a file to replace.
func (ix *Index) prepareFile(ctx context.Context, kb, fileName, hash string, chunks []chunk.Chunk) (fileWrite, error) {
	doc, err := analyze(ix.opts.Tokenizer, chunks)
	if err != nil {
		return fileWrite{}, fmt.Errorf("index: %s in %s: %w", fileName, kb, err)
	}
	return fileWrite{name: fileName, hash: hash, chunks: chunks, doc: doc,
		vecs: ix.embedFile(ctx, kb, fileName, chunks), now: ix.opts.Now().UnixNano()}, nil
}

// write applies files, in their order and in one transaction, to kb: a
// file's old rows go, its new ones come. Their names must differ. A
// deletion alone does not create the knowledge base. It returns the
// version of the base written (with a postings cache; none when nothing
// changed).
func (ix *Index) write(ctx context.Context, kb string, files []fileWrite) (written, error) {
	if len(files) == 0 {
		return written{}, nil
	}
	create := slices.ContainsFunc(files, func(f fileWrite) bool { return !f.del })
	now := files[len(files)-1].now
	var w written
	err := ix.inWriteTx(ctx, func(tx writeTx) error {
		kbID, ok, err := lockBase(ctx, tx, kb, now, create)
		if err != nil || !ok {
			return err
		}
		stored, err := readFiles(ctx, tx, ix.dialect, kbID, files)
		if err != nil {
			return err
		}
		deltas := map[string]int{}
		var c counts
		var added []addedFile
		changed := false
		for i := range files {
			f := &files[i]
			old, found := stored[f.name]
			if !f.del && found && f.hash != "" && old.hash == f.hash {
				continue
			}
			f.changed = found || !f.del
			changed = changed || f.changed
			if found {
				rc, err := removeFile(ctx, tx, ix.dialect, kbID, old, deltas)
				if err != nil {
					return err
				}
				c = c.plus(rc)
			}
			if f.del {
				continue
			}
			var fileID int64
			err = tx.QueryRow(ctx, `INSERT INTO kb_files (kb_id, name, hash, chunks, tokens, terms, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				kbID, f.name, f.hash, len(f.chunks), f.doc.tokens, encodeTerms(f.doc.terms), f.now).Scan(&fileID)
			if err != nil {
				return fmt.Errorf("recording the file %s: %w", f.name, err)
			}
			added = append(added, addedFile{id: fileID, f: f})
			for _, t := range f.doc.terms {
				deltas[t.term] += t.n
			}
			c = c.plus(counts{files: 1, chunks: len(f.chunks), tokens: f.doc.tokens})
		}
		if err := insertChunks(ctx, tx, added); err != nil {
			return err
		}
		if err := insertPostings(ctx, tx, kbID, added); err != nil {
			return err
		}
		if err := applyDeltas(ctx, tx, ix.dialect, kbID, deltas); err != nil {
			return err
		}
		if !changed {
			return nil
		}
		if err := c.apply(ctx, tx, kbID); err != nil {
			return err
		}
		if ix.cache == nil {
			return nil
		}
		w = written{kb: kb, id: kbID}
		if err := tx.QueryRow(ctx, `SELECT version, chunks FROM kb_bases WHERE id = ?`, kbID).Scan(&w.version, &w.chunks); err != nil {
			return fmt.Errorf("reading the version written: %w", err)
		}
		return nil
	})
	if err != nil {
		return written{}, err
	}
	return w, nil
}

// written is the version of a base a write made (0 when it changed none).
type written struct {
	kb      string
	id      int64
	version int64
	chunks  int64 // the base's, at that version
}

// addedFile is a file of a write and its new row's id.
type addedFile struct {
	id int64
	f  *fileWrite
}

// lockBase returns the id of kb's row, locking it for the transaction
// and setting its updated time; when kb has none, it makes one if create,
// else returns false.
func lockBase(ctx context.Context, tx dbconn.Conn, kb string, now int64, create bool) (int64, bool, error) {
	var kbID int64
	var err error
	if create {
		err = tx.QueryRow(ctx, `INSERT INTO kb_bases (name, updated_at) VALUES (?, ?)
ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at RETURNING id`, kb, now).Scan(&kbID)
	} else {
		err = tx.QueryRow(ctx, `UPDATE kb_bases SET updated_at = ? WHERE name = ? RETURNING id`, now, kb).Scan(&kbID)
		if dbconn.IsNoRows(err) {
			return 0, false, nil
		}
	}
	if err != nil {
		return 0, false, fmt.Errorf("locking the knowledge base: %w", err)
	}
	return kbID, true, nil
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

// readFiles returns the kb_files rows of files' names in kb, by name: on
// Postgres in one statement (its text is the same for any number of
// names), on SQLite a statement per name, of one text, which the store's
// connections keep compiled (a list of placeholders would be a new text
// for each number of files).
func readFiles(ctx context.Context, tx dbconn.Conn, d dialect, kbID int64, files []fileWrite) (map[string]storedFile, error) {
	const cols = `SELECT id, name, hash, chunks, tokens, terms FROM kb_files WHERE kb_id = ? AND `
	out := make(map[string]storedFile, len(files))
	scan := func(r dbconn.Row) error {
		var f storedFile
		var name string
		var chunks, tokens int64
		if err := r.Scan(&f.id, &name, &f.hash, &chunks, &tokens, &f.terms); err != nil {
			return err
		}
		f.chunks, f.tokens = int(chunks), int(tokens)
		out[name] = f
		return nil
	}
	if !d.pg {
		for _, f := range files {
			err := scan(tx.QueryRow(ctx, cols+`name = ?`, kbID, f.name))
			if err != nil && !dbconn.IsNoRows(err) {
				return nil, fmt.Errorf("reading the record of %s: %w", f.name, err)
			}
		}
		return out, nil
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	cond, args := d.strs("name", names)
	rs, err := tx.Query(ctx, cols+cond, append([]any{kbID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("reading the files' records: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := scan(rs); err != nil {
			return nil, fmt.Errorf("reading the files' records: %w", err)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the files' records: %w", err)
	}
	return out, nil
}

// counts are changes to a knowledge base's counters.
type counts struct{ files, chunks, tokens int }

func (c counts) plus(o counts) counts {
	return counts{c.files + o.files, c.chunks + o.chunks, c.tokens + o.tokens}
}

// apply updates the counters even when c is zero (a file replaced by
// one of its size): the update bumps kb_bases.version (migration 5's
// trigger), which the searches' postings cache keys rows by.
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

var chunkColumns = []string{"file_id", "ord", "source", "source_type", "start_line", "end_line", "symbol", "text", "vec"}

// insertChunks inserts the chunks of files, in their order.
func insertChunks(ctx context.Context, tx writeTx, files []addedFile) error {
	type ref struct {
		file *addedFile
		ord  int
	}
	var rows []ref
	for i := range files {
		for ord := range files[i].f.chunks {
			rows = append(rows, ref{&files[i], ord})
		}
	}
	err := tx.insert(ctx, "kb_chunks", chunkColumns, len(rows), func(i int, dst []any) {
		f, ord := rows[i].file, rows[i].ord
		c := &f.f.chunks[ord]
		var vec []byte
		if f.f.vecs != nil {
			vec = encodeVector(f.f.vecs[ord])
		}
		dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7], dst[8] = f.id, ord, c.Source, c.SourceType, c.StartLine, c.EndLine, c.Symbol, c.Text, vec
	})
	if err != nil {
		return fmt.Errorf("inserting the chunks: %w", err)
	}
	return nil
}

var postingColumns = []string{"kb_id", "term", "file_id", "part", "post"}

// postingRow is a kb_postings row of a write.
type postingRow struct {
	term string
	file int64
	part int
	post []byte
}

// insertPostings inserts the postings of files, a row per term, file and
// part (see maxPostBytes), in key order: the rows of a term are then
// written side by side, each page of the table's btree once a write.
func insertPostings(ctx context.Context, tx writeTx, kbID int64, files []addedFile) error {
	rows := mergePostings(files)
	var kb any = kbID
	err := tx.insert(ctx, "kb_postings", postingColumns, len(rows), func(i int, dst []any) {
		r := &rows[i]
		dst[0], dst[1], dst[2], dst[3], dst[4] = kb, r.term, r.file, r.part, r.post
	})
	if err != nil {
		return fmt.Errorf("inserting the postings: %w", err)
	}
	return nil
}

// applyDeltas adds deltas to the document frequencies of kb_terms, in the
// terms' order, and deletes the terms no chunk holds any more.
func applyDeltas(ctx context.Context, tx writeTx, d dialect, kbID int64, deltas map[string]int) error {
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
	if err := tx.addTerms(ctx, kbID, terms, deltas); err != nil {
		return fmt.Errorf("updating the document frequencies: %w", err)
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

// mergePostings returns the postings rows of files in key order (term,
// file, part): a merge of the files' rows, each file's in term order
// already, the files in id order.
func mergePostings(files []addedFile) []postingRow {
	n := 0
	for _, f := range files {
		n += f.f.doc.rows
	}
	rows := make([]postingRow, 0, n)
	h := make(cursorHeap, 0, len(files))
	for i := range files {
		if len(files[i].f.doc.terms) > 0 {
			h = append(h, cursor{file: &files[i]})
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := &h[0]
		doc := &c.file.f.doc
		term := doc.terms[c.term].term
		for part, post := range doc.parts[c.term] {
			rows = append(rows, postingRow{term, c.file.id, part, post})
		}
		c.term++
		if c.term == len(doc.terms) {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return rows
}

// cursor is the next term of a file in mergePostings.
type cursor struct {
	file *addedFile
	term int
}

// cursorHeap orders cursors by their term, then file id.
type cursorHeap []cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i].file.f.doc.terms[h[i].term].term, h[j].file.f.doc.terms[h[j].term].term
	if a != b {
		return a < b
	}
	return h[i].file.id < h[j].file.id
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
