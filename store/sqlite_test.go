package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSQLiteInstancesShareTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := openTestSQLite(t, path), openTestSQLite(t, path)
	if err := a.Put(ctx, "run-1", []byte("paused"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Get(ctx, "run-1"); err != nil || string(v) != "paused" {
		t.Fatalf("b.Get = %q, %v", v, err)
	}
	if err := b.Put(ctx, "run-1", []byte("again"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Take(ctx, "run-1"); err != nil || string(v) != "again" {
		t.Fatalf("a.Take = %q, %v", v, err)
	}
	if v, err := b.Take(ctx, "run-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("b.Take after a.Take = %q, %v", v, err)
	}
	var mode string
	if err := a.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int
	if err := b.db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != int(busyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
}

// TestSQLiteSweep: expired rows are deleted every sweepEvery puts and when
// a store is opened; live ones stay.
func TestSQLiteSweep(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sweep.db")
	c := newClock()
	s := openTestSQLite(t, path)
	s.now = c.Now
	for i := range 10 {
		if err := s.Put(ctx, fmt.Sprint("old", i), nil, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(time.Second)
	for i := range sweepEvery - 11 {
		if err := s.Put(ctx, fmt.Sprint("new", i), nil, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, s); n != sweepEvery-1 {
		t.Fatalf("%d rows before the sweep, want %d", n, sweepEvery-1)
	}
	if err := s.Put(ctx, "last", nil, time.Minute); err != nil { // the sweepEvery-th put
		t.Fatal(err)
	}
	if n := countRows(t, s); n != sweepEvery-10 {
		t.Errorf("%d rows after the sweep, want the %d live ones", n, sweepEvery-10)
	}

	for i := range 5 { // expired for the real clock of the next open too
		if err := s.Put(ctx, fmt.Sprint("gone", i), nil, -time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	reopened := openTestSQLite(t, path)
	if n := countRows(t, reopened); n != sweepEvery-10 {
		t.Errorf("%d rows after opening, want %d", n, sweepEvery-10)
	}
}

func countRows(t *testing.T, s *SQLite) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM store`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenSQLiteErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	otherTable := filepath.Join(dir, "other.db")
	o := openTestSQLite(t, otherTable)
	if _, err := o.db.Exec(`DROP TABLE store; CREATE TABLE store (id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"", "store: SQLite path is empty"},
		{filepath.Join(dir, "missing", "s.db"), "store: migrating SQLite database " + filepath.Join(dir, "missing", "s.db")},
		{notDB, "store: migrating SQLite database " + notDB + ": file is not a database"},
		{otherTable, `has a table "store" of another shape`},
	}
	for _, tt := range tests {
		s, err := OpenSQLite(tt.path)
		if err == nil {
			_ = s.Close()
			t.Errorf("OpenSQLite(%q) succeeded", tt.path)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenSQLite(%q) = %v, want it to say %q", tt.path, err, tt.want)
		}
	}
}

// TestOpenSQLiteOddPath: characters that mean something in a URI are part
// of the file name.
func TestOpenSQLiteOddPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a b?c=1#d%20.db")
	s := openTestSQLite(t, path)
	if err := s.Put(context.Background(), "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at its path: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 || len(entries) > 3 { // the file, -wal, -shm
		t.Errorf("files in the directory: %v", entries)
	}
}

func TestSQLiteCanceledContext(t *testing.T) {
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "c.db"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Put(ctx, "k", nil, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a canceled context: %v", err)
	}
	if _, err := s.Take(ctx, "k"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Take with a canceled context: %v", err)
	}
}

func BenchmarkSQLitePutTake(b *testing.B) {
	s := openTestSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	value := []byte(strings.Repeat("x", 512))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Put(ctx, "run", value, time.Minute); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Take(ctx, "run"); err != nil {
			b.Fatal(err)
		}
	}
}
