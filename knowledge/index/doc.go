// Package index keeps the chunks of the knowledge bases (knowledge/chunk)
// in the gateway's database and searches them: lexical ranking by BM25
// with no model at all, and hybrid ranking when an Embedder is configured.
//
// # Where the index lives
//
// In tables of its own (kb_bases, kb_files, kb_chunks, kb_terms,
// kb_postings; migrate.go) in the store's database: SQLite by default,
// PostgreSQL for replicas, which then share one index. Writers of one
// knowledge base take turns on its kb_bases row; a search reads a
// snapshot (a deferred transaction on SQLite's WAL, REPEATABLE READ on
// Postgres), so it never waits for an indexer and never sees half a file.
//
// # The full-text engine: BM25 in Go over an inverted index in plain tables
//
// Three were weighed:
//
//   - SQLite's FTS5 (built into modernc.org/sqlite; its bm25() works there)
//     with Postgres's full text (tsvector, GIN). Two engines, two rankings:
//     ts_rank and ts_rank_cd are not BM25 (no inverse document frequency,
//     no length saturation), so a query would rank differently on the
//     default database and on the replicas' one, and the quality
//     benchmark would measure only one of them. FTS5's bm25() also drops
//     the weight of a term held by more than half the chunks to nothing.
//   - bleve (github.com/blevesearch/bleve/v2, well kept, BM25 since 2.5):
//     its index is a directory of segment files. Replicas do not share
//     files, so each would index the sources itself and keep a volume of
//     its own, outside the store; it also brings about forty modules.
//   - BM25 computed in Go over an inverted index kept in plain tables:
//     the same statements, rows and arithmetic on both databases, so the
//     same ranking to the last bit (a test checks it), in the store, for
//     replicas. Chosen.
//
// What it costs: about 600 lines of our own instead of a library's
// (tokens to postings, BM25, top-k pruning, the schema), and an index
// larger and slower to build than FTS5's segment b-trees. To keep it
// small and fast, postings are one row per (base, term, file), a blob of
// (ordinal, tf, length, source type) per chunk of the file holding the
// term, rather than a row per chunk; document frequencies are kept in
// kb_terms, updated in the writing transaction; the counters behind N and
// the average length in kb_bases. A query reads its terms rarest first
// and stops reading the long postings of common terms for chunks that can
// no longer reach the top k (MaxScore: exact top-k, not an
// approximation). Measured numbers are in the package's benchmarks and
// in the README of knowledge bases.
//
// BM25 uses Lucene's idf, ln(1 + (N - df + 0.5)/(df + 0.5)), k1 = 1.2,
// b = 0.75. Statistics (N, average length, df) are those of the
// knowledge bases searched together. A chunk's indexed text is its file
// name, its symbol and its text, tokenized by Options.Tokenizer: the
// code-aware tokens reach the index as terms, nothing re-tokenizes them.
// Query text is only tokenized, never parsed as a query language, so no
// text can inject syntax.
//
// # Hybrid
//
// With an Embedder, each chunk's vector (unit length, little-endian
// float32s, a BLOB or bytea beside the chunk) is computed as it is
// indexed. A query's vector is compared by cosine, in Go, with every
// vector of the searched bases when they hold at most BruteForceLimit
// chunks (default 20,000: reading 20,000 vectors of 256 dimensions is
// about 20 MB per query), else with those of the lexical ranking's first
// VectorCandidates chunks (default 200: the vector side then reorders
// what BM25 found). The two rankings, each VectorCandidates deep, are
// fused by reciprocal rank fusion with k = 60: it needs no calibration of
// BM25 scores against cosines, which have unrelated scales. HashEmbedder
// is a deterministic embedder for tests and benchmarks; OpenAIEmbedder
// calls an OpenAI-compatible /embeddings endpoint.
//
// # Incremental indexing
//
// Replace indexes a file's chunks with its content hash and skips a file
// whose hash is unchanged; FileHashes lets an indexer diff a commit's
// files against the index, Delete removes a file gone, SetMeta records
// the commit indexed. Replacing a file rewrites only its rows.
package index
