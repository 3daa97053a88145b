package index

import (
	"github.com/agentgw/agentgw/internal/dbconn"
)

// The tables:
//
//   - kb_bases: one row per knowledge base, its counters (BM25's N and
//     average length come from chunks and tokens) and its last commit.
//     Times are unix nanoseconds. version (migration 5) counts the
//     updates of the counters, which every transaction that changes the
//     base's postings makes (a trigger increments it, so that the
//     writers of a release before it count too): the searches' postings
//     cache (cache.go) keys a term's rows by it. A migration that changes
//     postings must update the counters too (reindex does).
//   - kb_files: one row per indexed file, its content hash (the indexer
//     skips a file whose hash is unchanged) and terms, the file's terms
//     with how many of its chunks hold each: what Delete takes back from
//     kb_postings and kb_terms without tokenizing again.
//   - kb_chunks: the chunks, keyed by file and ordinal, with their vector
//     (little-endian float32, unit length; NULL without an embedder).
//   - kb_terms: a term's document frequency (chunks holding it) per base.
//   - kb_postings: one row per (base, term, file, part), its postings a
//     blob of (ordinal, length, source type, the term's frequency in each
//     field) per chunk of the file holding the term (encode.go), cut into
//     parts of at most maxPostBytes: fewer, shorter rows than one per
//     chunk, and a file's rows are replaced together. On Postgres the primary key's index includes
//     the blob: a term's postings are then read by an index-only scan, in
//     order, where the heap would cost a page per row (SQLite's WITHOUT
//     ROWID table is itself that index). It doubles the postings' size.
//
// Terms are compared bytewise (COLLATE "C" on Postgres, SQLite's default).
// The migrations: applied once and in order by dbconn's runner (schema),
// recorded in kb_migrations, as the hand-off queue's and the schedules'
// are. A migration that changes what the rows mean rather than their
// shape (version 2, the postings' fields; versions 3 and 4, what the
// fields and terms hold) empties the index: the
// gateway's indexer rebuilds it from the sources at its next pass, as it
// would a new knowledge base, and searches find nothing meanwhile.
var (
	// reindex empties the index and forgets the commits indexed, so that
	// the indexer (knowledge/kb) reads every file of every base again at
	// its next pass: version 2's postings carry each field's term
	// frequency, which version 1's rows cannot give, and a term's postings
	// in a file are cut into parts (a row each, the part's number in the
	// key) so that no row outgrows a PostgreSQL btree entry.
	reindex = `DELETE FROM kb_terms;
DELETE FROM kb_chunks;
DELETE FROM kb_files;
UPDATE kb_bases SET files = 0, chunks = 0, tokens = 0, last_commit = '';
DROP TABLE kb_postings;
`
	// reindex3 empties the index as reindex does, keeping the postings'
	// table: version 3 weighs the comments inside a type or class as its
	// doc comment (chunk.Parts.Comments), marks deprecated declarations
	// with the private prior, and drops more stop words, so the rows of
	// version 2 hold other fields and terms than a new index would.
	// Version 4 empties it again: the doc field holds the doc's first
	// sentence twice (chunk.Parts.Synopsis).
	reindex3 = `DELETE FROM kb_postings;
DELETE FROM kb_terms;
DELETE FROM kb_chunks;
DELETE FROM kb_files;
UPDATE kb_bases SET files = 0, chunks = 0, tokens = 0, last_commit = ''`
	sqliteMigrations = []dbconn.Migration{
		{Version: 1, Name: "knowledge index", SQL: `CREATE TABLE kb_bases (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT NOT NULL UNIQUE,
	last_commit TEXT NOT NULL DEFAULT '',
	updated_at  INTEGER NOT NULL DEFAULT 0,
	files       INTEGER NOT NULL DEFAULT 0,
	chunks      INTEGER NOT NULL DEFAULT 0,
	tokens      INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE kb_files (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	kb_id      INTEGER NOT NULL,
	name       TEXT NOT NULL,
	hash       TEXT NOT NULL,
	chunks     INTEGER NOT NULL,
	tokens     INTEGER NOT NULL,
	terms      BLOB NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (kb_id, name)
);
CREATE TABLE kb_chunks (
	file_id     INTEGER NOT NULL,
	ord         INTEGER NOT NULL,
	source      TEXT NOT NULL,
	source_type TEXT NOT NULL,
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	symbol      TEXT NOT NULL,
	text        TEXT NOT NULL,
	vec         BLOB,
	PRIMARY KEY (file_id, ord)
);
CREATE TABLE kb_terms (
	kb_id INTEGER NOT NULL,
	term  TEXT NOT NULL,
	df    INTEGER NOT NULL,
	PRIMARY KEY (kb_id, term)
) WITHOUT ROWID;
CREATE TABLE kb_postings (
	kb_id   INTEGER NOT NULL,
	term    TEXT NOT NULL,
	file_id INTEGER NOT NULL,
	post    BLOB NOT NULL,
	PRIMARY KEY (kb_id, term, file_id)
) WITHOUT ROWID`},
		{Version: 2, Name: "ranking fields: re-index", SQL: reindex + `CREATE TABLE kb_postings (
	kb_id   INTEGER NOT NULL,
	term    TEXT NOT NULL,
	file_id INTEGER NOT NULL,
	part    INTEGER NOT NULL,
	post    BLOB NOT NULL,
	PRIMARY KEY (kb_id, term, file_id, part)
) WITHOUT ROWID`},
		{Version: 3, Name: "comments as doc, deprecated, stop words: re-index", SQL: reindex3},
		{Version: 4, Name: "a doc's first sentence counted twice: re-index", SQL: reindex3},
		{Version: 5, Name: "postings version", SQL: `ALTER TABLE kb_bases ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER kb_bases_version AFTER UPDATE OF files, chunks, tokens ON kb_bases
BEGIN
	UPDATE kb_bases SET version = version + 1 WHERE id = NEW.id;
END`},
	}
	postgresMigrations = []dbconn.Migration{
		{Version: 1, Name: "knowledge index", SQL: `CREATE TABLE kb_bases (
	id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	last_commit TEXT NOT NULL DEFAULT '',
	updated_at  BIGINT NOT NULL DEFAULT 0,
	files       BIGINT NOT NULL DEFAULT 0,
	chunks      BIGINT NOT NULL DEFAULT 0,
	tokens      BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE kb_files (
	id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	kb_id      BIGINT NOT NULL,
	name       TEXT NOT NULL,
	hash       TEXT NOT NULL,
	chunks     BIGINT NOT NULL,
	tokens     BIGINT NOT NULL,
	terms      BYTEA NOT NULL,
	updated_at BIGINT NOT NULL,
	UNIQUE (kb_id, name)
);
CREATE TABLE kb_chunks (
	file_id     BIGINT NOT NULL,
	ord         BIGINT NOT NULL,
	source      TEXT NOT NULL,
	source_type TEXT NOT NULL,
	start_line  BIGINT NOT NULL,
	end_line    BIGINT NOT NULL,
	symbol      TEXT NOT NULL,
	text        TEXT NOT NULL,
	vec         BYTEA,
	PRIMARY KEY (file_id, ord)
);
CREATE TABLE kb_terms (
	kb_id BIGINT NOT NULL,
	term  TEXT COLLATE "C" NOT NULL,
	df    BIGINT NOT NULL,
	PRIMARY KEY (kb_id, term)
);
CREATE TABLE kb_postings (
	kb_id   BIGINT NOT NULL,
	term    TEXT COLLATE "C" NOT NULL,
	file_id BIGINT NOT NULL,
	post    BYTEA NOT NULL,
	PRIMARY KEY (kb_id, term, file_id) INCLUDE (post)
)`},
		{Version: 2, Name: "ranking fields: re-index", SQL: reindex + `CREATE TABLE kb_postings (
	kb_id   BIGINT NOT NULL,
	term    TEXT COLLATE "C" NOT NULL,
	file_id BIGINT NOT NULL,
	part    BIGINT NOT NULL,
	post    BYTEA NOT NULL,
	PRIMARY KEY (kb_id, term, file_id, part) INCLUDE (post)
)`},
		{Version: 3, Name: "comments as doc, deprecated, stop words: re-index", SQL: reindex3},
		{Version: 4, Name: "a doc's first sentence counted twice: re-index", SQL: reindex3},
		{Version: 5, Name: "postings version", SQL: `ALTER TABLE kb_bases ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION kb_bases_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.version := OLD.version + 1;
	RETURN NEW;
END
$$;
CREATE TRIGGER kb_bases_version BEFORE UPDATE OF files, chunks, tokens ON kb_bases
	FOR EACH ROW EXECUTE FUNCTION kb_bases_version()`},
	}
)

// schema is the package's tables for dbconn's migration runner.
var schema = dbconn.Schema{
	Table:    "kb_migrations",
	Lock:     migrationLock,
	SQLite:   sqliteMigrations,
	Postgres: postgresMigrations,
}

// migrationLock is the Postgres advisory lock key of migrating, "kbindex1"
// in ASCII: not the store's, the queue's nor the schedules', so that the
// packages never wait for each other.
const migrationLock int64 = 0x6b_62_69_6e_64_65_78_31
