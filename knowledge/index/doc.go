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
//     ts_rank and ts_rank_cd are not BM25 (they weigh a document by its
//     own lexemes, with no inverse document frequency), so a query would
//     rank differently on the default database and on the replicas' one,
//     and the quality benchmark would measure only one of them. FTS5's bm25() also drops
//     the weight of a term held by more than half the chunks to nothing.
//   - bleve (github.com/blevesearch/bleve/v2, well kept, served at v2.6.3):
//     its index is a directory of segment files. Replicas do not share
//     files, so each would index the sources itself and keep a volume of
//     its own, outside the store; and its go.mod brings some thirty-five
//     modules (six versions of its zap segment format among them).
//   - BM25 computed in Go over an inverted index kept in plain tables:
//     the same statements, rows and arithmetic on both databases, so the
//     same ranking to the last bit (a test checks it), in the store, for
//     replicas. Chosen.
//
// What it costs: about 900 lines of our own instead of a library's
// (postings, BM25, top-k pruning, the schema), and an index larger and
// slower to build than FTS5's segment b-trees. To keep it small and fast,
// postings are one row per (base, term, file), a blob of (ordinal,
// length, source type, the term's frequency in each field) per chunk of
// the file holding the term, rather than a row per chunk (cut into rows
// of at most 2,000 bytes for a large file, which a PostgreSQL btree entry
// must hold); document frequencies are kept in kb_terms, updated
// in the writing transaction, and N and the average length come from
// counters in kb_bases. A query reads its terms rarest first and, once
// the k-th best score so far is out of reach of the terms left, reads the
// long postings of the common terms only for the candidates that can
// still reach the top k, dropping the others (MaxScore: exact top-k, not
// an approximation; a test checks it against exhaustive BM25). Its worst
// case is a query made only of words most chunks hold: nothing can be
// pruned, and each of its terms' postings is read whole. Scores are kept
// in a slice per file, by the chunk's ordinal (a map look-up per row, not
// per posting), and postings are decoded in place from the driver's
// memory. For a term a thousand chunks or more hold, what each of its
// postings adds to its chunk's score is kept in a cache of bounded memory
// (Options.PostingsCacheBytes, 32 MB by default, least recently used out
// first; 13 bytes a posting: the ordinal, the source type and the
// float64 the scoring loop computes, so the ranking is the same to the
// bit), for the next search naming it: the common words of code (err,
// ctx, return) come back in query after query, and reading, decoding and
// scoring their postings was most of what they cost. On Postgres such a
// term is read whole the first time (even when the pruning would have
// read it for a few candidates only), all such terms of a query together
// with the rarest ones (their postings together short) in one statement;
// a query of cached words then runs one postings statement, or none. On
// SQLite, where a statement is a call, not a round trip, a search caches
// such a term when it reads it whole, and reads it for the candidates
// only otherwise, as without a cache; a term being read whole by another
// search or by a warm-up is waited for (at most maxShareWait) rather than
// read twice. The cache is filled off the search path too (warm.go): a
// warm-up reads the scores of a base's commonest terms, most first, as
// many as the room left in the cache holds, in a snapshot of its own, when
// Writer.Flush has written a version (after an indexing run), when the
// indexer starts (Index.Warm, knowledge/kb's Run) and, on SQLite, when a
// search first sees a version (a restart, another process's write); the
// searches racing it never wait for it past maxShareWait, and rank as
// without it (its entries are keyed by the version it read). The cached scores name a file by its slot in the base's file
// layout (its files and their chunk counts, read once a version), so that
// a search adds them by indexing slices, not by a map look-up per file.
// An entry belongs to
// a knowledge base at a version of its index, kb_bases.version, which a
// trigger increments whenever the base's counters change, that is in
// every transaction that changes its postings, whichever process or
// release wrote them; a search reads the version in its snapshot, so it
// never ranks by scores older or newer than the snapshot's (a test writes
// through a second Index, as another replica would, and compares each
// ranking with an uncached index's). Only searches of one base use it.
//
// Measured (BenchmarkIndexBuild, BenchmarkSearch100k; 2 cores shared
// with other sessions' builds and benchmarks, load average 7 to 26, so
// wall times are several times the CPU; SQLite in WAL on local disk,
// PostgreSQL 15 on loopback). Building, at 13b39d2: 450 to 730 ms per
// 10,000 lines of real code on SQLite and 1.2 to 1.5 s on Postgres in
// wall time, for 155 to 165 and 135 to 155 ms of CPU (as before the
// fields: main's build in the same minutes took 145 and 137 ms); toward a
// million lines of synthetic code with 256-dimension vectors, 6.7 s per
// 10,000 lines on SQLite (1.7 s of CPU, a 354 MB database) and 2.9 s on
// Postgres (0.5 s of the process's CPU). Searching over 100,000 chunks,
// at e408949 on the index built at 13b39d2, load 8: a lexical search
// takes 4.6 to 6 ms at the median and 34 to 43 ms at the 99th percentile
// on SQLite, 6.5 to 8.3 ms and 24 to 29 ms on Postgres (after Optimize),
// for 4 to 6 ms of the process's CPU. Before e408949 Postgres took 16 to
// 21 ms and 124 to 128 ms: the postings of a common term read for the
// candidate files as "file_id = ANY($n)" ran, under the prepared
// statement's generic plan, as a filter comparing each of the term's
// 10,000 rows with each of up to 1,000 files (100 ms; dialect.fileSet's
// semi-join takes 3). The 99th percentile left is queries made only of
// words most chunks hold: nothing can be pruned, each term's postings are
// read whole, thousands of rows (half of a search's CPU is stepping
// through rows; aggregating them into one array in the statement
// measured no better). The synthetic chunks all count as private
// (lower-case names), so they score 0.7 of their sum while the bounds
// assume a public chunk, and pruning starts later than in real code; a
// per-term count of public chunks in kb_terms would tighten the bounds
// (not done). Before the fields (at 774dc2b, on a less loaded machine):
// 6 to 11 ms and 60 to 140 ms on SQLite, 19 to 22 and 150 to 250 ms on
// Postgres. Hybrid over the lexical candidates took 20 to 30 ms at the
// median on SQLite, 47 to 51 ms on Postgres; comparing all 100,000
// vectors of 256 dimensions takes 500 to 750 ms, hence the brute-force
// bound.
//
// Long queries of common words (bench/README.md's recall row: the IDE's
// prompt and selected code, words most chunks hold), measured at 5b38c97
// against 6dfda9e on the same 100,000-chunk index, BenchmarkSearch100k's
// lexical-long (200 searches; load average 20 to 28 from other sessions,
// so the CPU figures are rough and the counts are what to compare): on
// SQLite 74,251 postings rows read a search before, 1,769 with the cache
// (74,251 without it, the first search naming the terms), 35 ms of CPU
// against 177 (119 without the cache); on Postgres 70,410 rows before,
// 6,554 after, 34 ms of CPU against 99 (53 without). A long search runs
// 129 M instructions with the cache warm, 454 M without it, where it ran
// 630 M (callgrind, SQLite). Short queries read a third fewer rows (4,573 to 3,063 on
// SQLite), the cache holding their common words. The bench row's own
// query (two words in the corpus, both in all 100,000 chunks: nothing
// can be pruned) took 92 to 108 ms of CPU a search before, 16 to 20
// after without the cache and 11 to 18 with it, once rank sorted only
// the chunks at or over the depth-th score rather than all of them.
// With scores cached rather than rows (e2a2187 against 7785f7e, load 7
// to 18; README.md has the tables): a long search on Postgres runs one
// postings statement instead of 11, decodes 212 postings instead of
// 145,748, and takes 13 ms of CPU instead of 31 to 35 (10 once every
// query has run once), p50 11.6 ms; on SQLite 15 to 16 ms of CPU
// instead of 29 to 35. The first searches after a write still read
// every common word whole (the 99th percentile).
//
// # The ranking: BM25F over a chunk's fields, for code
//
// A chunk is indexed as five fields (chunk.Parts cuts them from its text
// by its language): its symbol's name with the declaration's kind, the
// declaration's line (the signature), its doc comment (a Python
// docstring too; its first sentence, chunk.Parts.Synopsis, counted
// twice: it says what the declaration is or does, as a question asks
// it) with, for a type, a constant group or a class, the
// comments inside it (its members' docs: a struct's fields'), the rest of
// its text (the body; a function's inner comments, notes on how it works,
// stay there), and its file's path.
// A posting keeps the term's frequency in each field, so the weights are
// applied as a query is ranked (Ranking; changing them needs no
// re-indexing). A term's weighted frequency is BM25F's,
//
//	tf = 5·symbol + 2·signature + 1.5·path + (2·doc + 1·body) / (1 - b + b·dl/avgdl)
//
// (the short fields are not normalized by length, b = 0.5), saturated as
// BM25 does, tf·(k1+1)/(tf+k1) with k1 = 1.2, times the term's idf,
// Lucene's ln(1 + (N - df + 0.5)/(df + 0.5)). On top of it:
//
//   - A name clause (Ranking.Names): each term also scores 0.25 of that,
//     saturated apart, over the symbol and signature alone
//     (5·symbol + 2·signature). BM25F saturates a term's frequency over
//     all fields together, so a doc comment repeating a word earned
//     nearly what the name holding it does (SameSite's doc before
//     Request.Cookie for "read a cookie"); MaxScore's bound per term
//     grows by as much.
//   - The declaration before its callers: the symbol field weighs five
//     times the body, so the chunk declaring Send ranks before the chunks
//     calling http.Send, and a chunk that declares only private names (an
//     unexported Go declaration, a Python or JavaScript _helper, a private
//     Java member; chunk.Parts.Private) scores 0.7 of its sum: questions
//     are more often about an API than its insides. So does a deprecated
//     declaration (chunk.Parts.Deprecated): a question asks for the API to
//     use.
//   - Identifiers split both ways: the tokenizer (knowledge/chunk.Tokens)
//     keeps an identifier's parts and its whole (parseHTTPRequest: pars,
//     http, request, parsehttprequest), in chunks and queries alike, and
//     a query's adjacent plain words are also looked up joined, as one
//     identifier (read header timeout: readheadertimeout, read_header_…),
//     weighing as much as a word of the query. This is the ranking's
//     phrase signal: it costs a few more term look-ups, nothing at
//     indexing, and favours the chunks where the words are one name.
//     Word proximity in prose (positions in postings, or re-reading the
//     first candidates' texts) was left out: it would grow the postings
//     or the search's reads for what the development questions showed
//     no need of.
//   - Light stemming (plurals, -ing, -ed, a final e), so that "parsing"
//     meets Parse, and English function words dropped (a question's "my
//     own", "against", "while"; not those naming things in code, as
//     after, all, any, out, over, until).
//   - Duplicates collapsed: chunks of one text (a vendored copy, a file
//     in two directories) are one hit, the best ranked; the ranking goes
//     deeper when that leaves fewer than TopK hits.
//   - No vocabulary bridge by default. Options.Expand (with
//     Ranking.Expanded) adds, for each of a query's terms, up to 3 terms
//     it is also looked up as, 12 a query, counted in the symbol and
//     signature only; LearnExpansions learns such a table from the
//     corpus's declarations. Measured on knowledge/eval (its README), it
//     moved one development question and no held-out figure: the words a
//     question lacks are mostly absent from the corpus too.
//
// The weights were chosen on the development half of knowledge/eval's
// questions; the held-out half was only scored. Measured there at
// d5b7174 (go test ./knowledge/eval -run TestRecall -v, the eval as at
// c86aaf2; the same on both databases, -eval.pg),
// lexical, against plain BM25 over the whole text as before (774dc2b),
// recall@5 and MRR@10:
//
//	                              plain BM25     this ranking
//	all sets, held-out half       0.888 0.807    0.881 0.809
//	all sets, both halves         0.890 0.791    0.910 0.812
//	go hand-written, held out     0.643 0.517    0.679 0.487
//	go hand-written, all 60       0.650 0.459    0.767 0.537
//	js hand-written, all 28       0.607 0.471    0.607 0.505
//
// Issue 30's goals (recall@5 0.80, MRR 0.55) are met over the held-out
// half of all sets, not over the 60 hand-written Go questions: those ask
// in a developer's words (stop the server gracefully; Server.Shutdown)
// what the code says in others, which no weighing of the words present
// bridges. On the development half the Go questions went from 0.656 and
// 0.408 to 0.844 and 0.581; on their held-out half recall rose less and
// MRR fell: 32 questions chose weights that 28 others do not confirm.
// Taking one signal away at a time (both halves, recall@5 and MRR; all
// sets with the generated questions as at aa0cbc0, 0.907 and 0.807 with
// every signal): without the private prior 0.883 and 0.792 (the 60 Go
// questions 0.667 and 0.490: the prior is most of the gain), without the
// joined words 0.907 and 0.806, with every field weighing 1 0.907 and
// 0.805 (the fields' weights add nothing measurable here; the doc comment
// and symbol are in the text anyway). Tried on the development half and left
// out, as it measured no gain: looking a word's usual abbreviation up with
// it (directory: dir, address: addr) at weights 0.3 to 1.
//
// A second pass at f23bb9a (knowledge/eval/README.md has every figure
// and what was tried and left out) added the stop words, the deprecated
// prior and a type's inner comments as its doc, each chosen on the
// development half: over the 60 Go questions recall@5 0.767 and MRR
// 0.585 (held-out 28: 0.679, 0.516), over the held-out half of all sets
// 0.881 and 0.814; this repository's 75 questions unchanged (0.667,
// 0.973, 0.784). Issue 30's MRR goal is met over the 60, recall@5 not.
//
// A third pass counts a doc comment's first sentence twice (1d935b3)
// and adds the name clause (9af2124): over the 60 Go questions recall@5
// 0.833 and MRR 0.631 (held-out 28: 0.786, 0.589), over the held-out
// half of all sets 0.909 and 0.840; this repository's 75 questions
// 0.640, 0.973, 0.773. Issue 30's goals are met over the 60 and over
// the held-out half of all sets; over the held-out 28 MRR is, recall@5
// one question short. A question's framing words weighing less
// (something, another; get, make) raised the development half and not
// the held-out one, and was reverted; per-field length normalization
// was measured on the development half and left out (knowledge/eval's
// README).
//
// Statistics (N, average length, df) are those of the knowledge bases
// searched together. Query text is only tokenized, never parsed as
// a query language, so no text can inject syntax.
//
// Re-indexing: the fields are in the postings, so the index of an older
// gateway cannot be ranked this way. Migrations 2, 3 and 4 (which fields a
// type's comments and a deprecated flag go to, the stop words, the
// doc's first sentence counted twice) empty the
// index's tables (keeping the knowledge bases' rows, their commits
// forgotten) and
// the indexer (knowledge/kb) rebuilds each base from its sources at its
// next pass (at start and every knowledge.reindex), as it would a new
// one; until it has, searches of that base find nothing.
//
// # Hybrid
//
// With an Embedder, each chunk's vector (unit length, little-endian
// float32s, a BLOB or bytea beside the chunk) is computed as it is
// indexed. A query's vector is compared by cosine, in Go, with every
// vector of the searched bases when they hold at most BruteForceLimit
// chunks (default 5,000: about 7.5 µs a vector of 256 dimensions read
// and compared, so 40 ms, and five times that at 1,536 dimensions), else
// with those of the lexical ranking's first VectorCandidates chunks
// (default 100: the vector side then reorders what BM25 found rather
// than finding more; a vector index would lift that, at the cost of
// keeping one beside the tables). The two rankings, each VectorCandidates deep, are
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
// the commit indexed. Replacing a file rewrites only its rows. A Writer
// does the same for many files, a batch of them per transaction, written
// while the next are analysed (README.md has what it saves).
package index
