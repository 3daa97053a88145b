package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/store"
)

// openBusy opens the store at path with busy as the longest wait for the
// lock of a write without a deadline, closed when the test ends.
func openBusy(t *testing.T, path string, busy time.Duration) *SQLite {
	t.Helper()
	s, err := open(path, busy, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// holdLock takes the file's write lock on a connection of another pool,
// as another process's transaction (or River's, after a restart) would;
// the returned func releases it.
func holdLock(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := c.ExecContext(ctx, `ROLLBACK`); err != nil {
				t.Error(err)
			}
			_ = c.Close()
			_ = db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// waitQueued waits until n writes are waiting in s's writer (a count,
// not a time: the writes are all queued behind the lock).
func waitQueued(t *testing.T, s *SQLite, n int64) {
	t.Helper()
	for s.w.queued.Load() < n {
		time.Sleep(time.Millisecond)
	}
}

// walCommits counts the commits in the file's write-ahead log: the write
// transactions since the log was last restarted (frames whose header
// gives the database's size after a commit, of the log's current salt).
func walCommits(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 32 {
		return 0
	}
	be := binary.BigEndian
	page := int(be.Uint32(data[8:]))
	salt1, salt2 := be.Uint32(data[16:]), be.Uint32(data[20:])
	n := 0
	for off := 32; off+24+page <= len(data); off += 24 + page {
		h := data[off:]
		if be.Uint32(h[8:]) != salt1 || be.Uint32(h[12:]) != salt2 {
			break // a frame of an earlier log
		}
		if be.Uint32(h[4:]) != 0 {
			n++
		}
	}
	return n
}

// TestWritesWaitForTheLockUntilTheirDeadline (soak finding F4): while
// another connection holds the write lock for longer than the store's
// busy wait (River's transactions after a restart, another replica's),
// writes whose context allows the wait are kept, not failed with
// "database is locked". Before the writer, each write failed when
// busy_timeout (5 s) ran out, however long its caller would have waited;
// here the busy wait is made short so that the test need not hold the
// lock for 5 s.
func TestWritesWaitForTheLockUntilTheirDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.db")
	const busy = 100 * time.Millisecond
	s := openBusy(t, path, busy)
	release := holdLock(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- s.Put(ctx, fmt.Sprint("k", i), []byte("v"), time.Hour) }()
	}
	waitQueued(t, s, n)
	// Longer than the busy wait: a write bounded by it, rather than by
	// its caller's deadline, has failed by now.
	time.Sleep(3 * busy)
	release()
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a write queued behind the lock: %v", err)
		}
	}
	if got := countRows(t, s); got != n {
		t.Errorf("%d rows, want %d", got, n)
	}
}

// TestWritesQueuedBehindTheLockCommitTogether (F4): writes queued while
// the lock is held commit in one transaction once it is free, not one
// transaction (a lock, a commit) each: counted in the write-ahead log.
func TestWritesQueuedBehindTheLockCommitTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "batch.db")
	s := openBusy(t, path, time.Minute)
	ctx := context.Background()
	if err := s.Put(ctx, "first", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	before := walCommits(t, path)
	release := holdLock(t, path)
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if ok, err := s.Swap(ctx, fmt.Sprint("context/", i), nil, []byte("turn"), time.Hour); !ok || err != nil {
				t.Errorf("swap %d: %v, %v", i, ok, err)
			}
		})
	}
	waitQueued(t, s, n)
	release()
	wg.Wait()
	if got := walCommits(t, path) - before; got != 1 {
		t.Errorf("%d writes queued behind the lock took %d transactions, want 1", n, got)
	}
	if got := countRows(t, s); got != n+1 {
		t.Errorf("%d rows, want %d", got, n+1)
	}
}

// TestAFailedWriteFailsOnlyItself: a write whose statement fails inside a
// batch answers with its error; the writes batched with it, before and
// after, are kept (the batch is run again without it).
func TestAFailedWriteFailsOnlyItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fail.db")
	s := openBusy(t, path, time.Minute)
	ctx := context.Background()
	if _, err := s.DB().ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON store WHEN NEW.key = 'bad'
		BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, path)
	keys := []string{"a", "b", "bad", "c", "d"}
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Go(func() { errs[i] = s.Put(ctx, k, []byte(k), time.Hour) })
		waitQueued(t, s, int64(i+1)) // queued in this order
	}
	release()
	wg.Wait()
	for i, k := range keys {
		switch {
		case k == "bad":
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "refused by the test") {
				t.Errorf("Put(bad) = %v, want the trigger's error", errs[i])
			}
			if _, err := s.Get(ctx, k); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Get(bad) = %v, want not found", err)
			}
		case errs[i] != nil:
			t.Errorf("Put(%s), batched with a failing write: %v", k, errs[i])
		default:
			if v, err := s.Get(ctx, k); err != nil || string(v) != k {
				t.Errorf("Get(%s) = %q, %v", k, v, err)
			}
		}
	}
}

// TestAGivenUpWriteIsNotApplied: a write whose caller's context ends
// while it waits for the lock answers with the context's error and is not
// applied later.
func TestAGivenUpWriteIsNotApplied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cancel.db")
	s := openBusy(t, path, time.Minute)
	release := holdLock(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Put(ctx, "given-up", []byte("v"), time.Hour) }()
	waitQueued(t, s, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Put, its context cancelled while it waited: %v", err)
	}
	release()
	bg := context.Background()
	if err := s.Put(bg, "after", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(bg, "given-up"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(given-up) = %v, want not found: the write was applied after its caller left", err)
	}
}

// TestAWriteWithoutDeadlineWaitsBusy: a write whose context has no
// deadline waits for the lock as long as the store's wait for it
// (writeWait), then fails with SQLite's "database is locked": another
// process that holds the lock for good does not hang it.
func TestAWriteWithoutDeadlineWaitsBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodeadline.db")
	s := openBusy(t, path, 50*time.Millisecond)
	holdLock(t, path)
	err := s.Put(context.Background(), "k", []byte("v"), time.Hour)
	if err == nil || !isBusy(err) {
		t.Fatalf("Put while another holds the lock, no deadline: %v, want database is locked", err)
	}
}

// TestCloseAnswersQueuedWrites: Close does not wait for the lock; the
// writes still queued fail.
func TestCloseAnswersQueuedWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	s, err := open(path, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	holdLock(t, path)
	errc := make(chan error, 1)
	go func() { errc <- s.Put(context.Background(), "k", []byte("v"), time.Hour) }()
	waitQueued(t, s, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, errClosed) {
		t.Fatalf("a write queued when the store closed: %v, want %v", err, errClosed)
	}
}

// BenchmarkConcurrentWrites: 64 callers putting at once, each its own
// key, as the requests of many clients do: the writer commits what queued
// meanwhile in one transaction.
func BenchmarkConcurrentWrites(b *testing.B) {
	s := openTestSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	value := []byte(strings.Repeat("x", 512))
	var n atomic.Int64
	b.SetParallelism(32) // × GOMAXPROCS callers
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprint("context/", n.Add(1))
		for pb.Next() {
			if err := s.Put(ctx, key, value, time.Minute); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkConcurrentConversationPuts: 64 callers replacing 16 KiB values
// (a conversation of 20 turns) among 512 keys and reading them back: a
// table of 8 MB, more than the writer's page cache (writerCacheKiB) holds,
// and batches of 64 × 16 KiB of dirty pages. With 128 KiB against SQLite's
// 2,000 the CPU per op was the same (bench/README.md, 2026-11-30).
func BenchmarkConcurrentConversationPuts(b *testing.B) {
	s := openTestSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	value := []byte(strings.Repeat("x", 16<<10))
	for i := range 512 {
		if err := s.Put(ctx, fmt.Sprint("conversation/", i), value, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := fmt.Sprint("conversation/", n.Add(1)%512)
			if err := s.Put(ctx, key, value, time.Hour); err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Get(ctx, key); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
