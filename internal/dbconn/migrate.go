package dbconn

import (
	"context"
	"fmt"
)

// A Migration is one step of a package's own schema: one or more
// statements, separated by semicolons, for one backend. A package keeps
// one list per backend, steps numbered from 1 up by one; a published step
// is never edited, steps are additive.
type Migration struct {
	// Version is the step's number, its index in the list plus one.
	Version int
	// Name says what the step does; the record of an applied step must
	// name it the same.
	Name string
	// SQL is the step's statements.
	SQL string
}

// ApplyMigrations applies the steps of list that tx's database lacks, in
// order, recording each in table (version, name, applied_at), which it
// creates if need be, in tx: the caller begins tx holding its package's
// migration lock (SQLite's write lock or a Postgres advisory lock) and
// commits it. A database recording versions beyond list is accepted (a
// replica of the previous release keeps working beside a newer one); one
// recording a version under another name is an error. table must be a
// plain SQL identifier, and list numbered 1, 2, …: ApplyMigrations panics
// otherwise, both being the program's mistakes.
func ApplyMigrations(ctx context.Context, tx Conn, table string, list []Migration) error {
	if !isIdentifier(table) {
		panic(fmt.Sprintf("dbconn: migrations table %q is not a plain identifier", table))
	}
	create := `CREATE TABLE IF NOT EXISTS ` + table + ` (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
)`
	if _, err := tx.Exec(ctx, create); err != nil {
		return fmt.Errorf("creating %s: %w", table, err)
	}
	rs, err := tx.Query(ctx, `SELECT version, name FROM `+table)
	if err != nil {
		return fmt.Errorf("reading %s: %w", table, err)
	}
	applied := map[int64]string{}
	for rs.Next() {
		var v int64
		var name string
		if err := rs.Scan(&v, &name); err != nil {
			_ = rs.Close()
			return fmt.Errorf("reading %s: %w", table, err)
		}
		applied[v] = name
	}
	_ = rs.Close()
	if err := rs.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", table, err)
	}
	for i, m := range list {
		if m.Version != i+1 {
			panic(fmt.Sprintf("dbconn: %s: migration %q has version %d, want %d", table, m.Name, m.Version, i+1))
		}
		name, ok := applied[int64(m.Version)]
		if ok && name != m.Name {
			return fmt.Errorf("%s records version %d as %q, not %q: the database belongs to another program or version", table, m.Version, name, m.Name)
		}
		if ok {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+table+` (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			return fmt.Errorf("recording migration %d (%s): %w", m.Version, m.Name, err)
		}
	}
	return nil
}

// isIdentifier reports whether s is a lower-case SQL identifier that
// needs no quoting: a letter or underscore, then letters, digits and
// underscores.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
