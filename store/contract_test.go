package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/testclock"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newClock starts at the real time: a store opened later with the real
// clock (a second instance, a reopened file) must agree on what is live.
func newClock() *testclock.Clock { return testclock.New(time.Now()) }

// impls are the Store implementations that must behave alike.
var impls = []struct {
	name string
	open func(t *testing.T, c *testclock.Clock) Store
}{
	{"memory", func(t *testing.T, c *testclock.Clock) Store {
		m := NewMemory()
		m.now = c.Now
		return m
	}},
	{"sqlite", func(t *testing.T, c *testclock.Clock) Store {
		s := openTestSQLite(t, filepath.Join(t.TempDir(), "store.db"))
		s.now = c.Now
		return s
	}},
	{"postgres", func(t *testing.T, c *testclock.Clock) Store {
		s := openTestPostgres(t, pgtest.Schema(t))
		s.now = c.Now
		return s
	}},
}

// openTestPostgres opens the Postgres store at url, closed when the test
// ends.
func openTestPostgres(t testing.TB, url string) *Postgres {
	t.Helper()
	s, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func openTestSQLite(t testing.TB, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// op is one step of a behaviour case: "put" (key, val, ttl), "get" or
// "take" (key; want the value or err), or "wait" (ttl passes).
type op struct {
	do       string
	key, val string
	ttl      time.Duration
	want     string
	err      error
}

func put(key, val string, ttl time.Duration) op { return op{do: "put", key: key, val: val, ttl: ttl} }
func get(key, want string) op                   { return op{do: "get", key: key, want: want} }
func take(key, want string) op                  { return op{do: "take", key: key, want: want} }
func getNone(key string) op                     { return op{do: "get", key: key, err: ErrNotFound} }
func takeNone(key string) op                    { return op{do: "take", key: key, err: ErrNotFound} }
func wait(d time.Duration) op                   { return op{do: "wait", ttl: d} }

var behaviour = []struct {
	name string
	ops  []op
}{
	{"put then get", []op{put("a", "1", time.Minute), get("a", "1"), get("a", "1")}},
	{"missing", []op{getNone("a"), takeNone("a")}},
	{"overwrite", []op{put("a", "1", time.Minute), put("a", "2", time.Minute), get("a", "2")}},
	{"keys apart", []op{put("a", "1", time.Minute), put("b", "2", time.Minute), get("a", "1"), get("b", "2")}},
	{"expires at ttl", []op{put("a", "1", time.Minute), wait(time.Minute - 1), get("a", "1"), wait(1), getNone("a"), takeNone("a")}},
	{"zero ttl", []op{put("a", "1", 0), getNone("a"), takeNone("a")}},
	{"overwrite renews the ttl", []op{put("a", "1", time.Second), wait(time.Second / 2), put("a", "2", time.Second),
		wait(time.Second * 3 / 4), get("a", "2")}},
	{"put again after expiry", []op{put("a", "1", time.Second), wait(time.Second), put("a", "2", time.Second), get("a", "2")}},
	{"longest ttl", []op{put("a", "1", math.MaxInt64), wait(100 * 365 * 24 * time.Hour), get("a", "1")}},
	{"negative ttl", []op{put("a", "1", -time.Hour), getNone("a")}},
	{"take", []op{put("a", "1", time.Minute), take("a", "1"), getNone("a")}},
	{"take twice", []op{put("a", "1", time.Minute), take("a", "1"), takeNone("a")}},
	{"take leaves other keys", []op{put("a", "1", time.Minute), put("b", "2", time.Minute), take("a", "1"), get("b", "2")}},
	{"take expired", []op{put("a", "1", time.Second), wait(time.Second), takeNone("a"), getNone("a")}},
	{"put after take", []op{put("a", "1", time.Minute), take("a", "1"), put("a", "2", time.Minute), take("a", "2")}},
	{"empty value", []op{put("a", "", time.Minute), get("a", ""), take("a", ""), takeNone("a")}},
	{"binary value and key", []op{put("k\x00é", "\x00\xff\n", time.Minute), get("k\x00é", "\x00\xff\n"), getNone("k")}},
}

func TestBehaviour(t *testing.T) {
	ctx := context.Background()
	for _, impl := range impls {
		for _, tc := range behaviour {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				c := newClock()
				s := impl.open(t, c)
				for i, o := range tc.ops {
					var got []byte
					var err error
					switch o.do {
					case "put":
						err = s.Put(ctx, o.key, []byte(o.val), o.ttl)
					case "get":
						got, err = s.Get(ctx, o.key)
					case "take":
						got, err = s.Take(ctx, o.key)
					case "wait":
						c.Advance(o.ttl)
					}
					if !errors.Is(err, o.err) || (o.err == nil && string(got) != o.want) {
						t.Fatalf("op %d %s(%q) = %q, %v; want %q, %v", i, o.do, o.key, got, err, o.want, o.err)
					}
				}
			})
		}
	}
}

// TestValueCopies: neither the caller's slice given to Put nor the one
// returned by Get or Take is the stored value.
func TestValueCopies(t *testing.T) {
	ctx := context.Background()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			s := impl.open(t, newClock())
			v := []byte("abc")
			if err := s.Put(ctx, "k", v, time.Minute); err != nil {
				t.Fatal(err)
			}
			v[0] = 'x'
			got, err := s.Get(ctx, "k")
			if err != nil || string(got) != "abc" {
				t.Fatalf("after changing Put's slice: Get = %q, %v", got, err)
			}
			got[0] = 'y'
			got, err = s.Take(ctx, "k")
			if err != nil || string(got) != "abc" {
				t.Fatalf("after changing Get's slice: Take = %q, %v", got, err)
			}
		})
	}
}

// TestValueBytes: a value comes back byte for byte, whatever its bytes
// (NUL, invalid UTF-8, every byte value), from Get and from Take; an empty
// value comes back empty.
func TestValueBytes(t *testing.T) {
	ctx := context.Background()
	all := make([]byte, 0, 512)
	for i := range 256 {
		all = append(all, byte(i), byte(255-i))
	}
	values := [][]byte{all, {}, []byte("\x00"), []byte(`{"raw":"{\"role\": \"user\"}"}` + "\xff\xfe")}
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			s := impl.open(t, newClock())
			for i, v := range values {
				key := fmt.Sprint("k", i)
				if err := s.Put(ctx, key, v, time.Minute); err != nil {
					t.Fatal(err)
				}
				got, err := s.Get(ctx, key)
				if err != nil || !bytes.Equal(got, v) {
					t.Fatalf("value %d: Get = %q, %v; want %q", i, got, err, v)
				}
				got, err = s.Take(ctx, key)
				if err != nil || !bytes.Equal(got, v) {
					t.Fatalf("value %d: Take = %q, %v; want %q", i, got, err, v)
				}
			}
		})
	}
}

// TestConcurrentTake: many goroutines take the same keys; each key is won
// exactly once, with its value.
func TestConcurrentTake(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			s := impl.open(t, newClock())
			stores := []Store{s}
			switch s := s.(type) { // a second instance on the same database
			case *SQLite:
				other := openTestSQLite(t, s.path)
				other.now = s.now
				stores = append(stores, other)
			case *Postgres:
				other := openTestPostgres(t, s.pool.Config().ConnString())
				other.now = s.now
				stores = append(stores, other)
			}
			takeRace(t, stores, 32, 12)
		})
	}
}

// takeRace puts keys values in stores[0], then workers spread over stores
// take every key; it fails unless each key was won exactly once.
func takeRace(t *testing.T, stores []Store, keys, workers int) {
	t.Helper()
	ctx := context.Background()
	for k := range keys {
		if err := stores[0].Put(ctx, fmt.Sprint("k", k), []byte(fmt.Sprint("v", k)), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	wins := make([]atomic.Int32, keys)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			<-start
			for i := range keys {
				k := (i + w) % keys // workers start apart and meet on every key
				v, err := s.Take(ctx, fmt.Sprint("k", k))
				switch {
				case errors.Is(err, ErrNotFound):
				case err != nil:
					t.Errorf("Take(k%d): %v", k, err)
				case string(v) != fmt.Sprint("v", k):
					t.Errorf("Take(k%d) = %q", k, v)
				default:
					wins[k].Add(1)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for k := range wins {
		if n := wins[k].Load(); n != 1 {
			t.Errorf("key k%d was taken %d times, want exactly once", k, n)
		}
	}
}

// TestSwap: Swap stores only over the value it names, or, with old nil,
// over no live value; a lost swap writes nothing.
func TestSwap(t *testing.T) {
	ctx := context.Background()
	type step struct {
		put      string // put this value first (ttl a minute), unless ""
		wait     time.Duration
		old, val []byte
		ok       bool
		want     string // the value after; "-" for none
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"create", []step{{old: nil, val: []byte("1"), ok: true, want: "1"}}},
		{"create over live loses", []step{{put: "1", old: nil, val: []byte("2"), ok: false, want: "1"}}},
		{"create over expired", []step{{put: "1", wait: time.Minute, old: nil, val: []byte("2"), ok: true, want: "2"}}},
		{"swap match", []step{{put: "1", old: []byte("1"), val: []byte("2"), ok: true, want: "2"}}},
		{"swap mismatch", []step{{put: "1", old: []byte("0"), val: []byte("2"), ok: false, want: "1"}}},
		{"swap missing", []step{{old: []byte("1"), val: []byte("2"), ok: false, want: "-"}}},
		{"swap expired", []step{{put: "1", wait: time.Minute, old: []byte("1"), val: []byte("2"), ok: false, want: "-"}}},
		{"swap twice from one value", []step{
			{put: "1", old: []byte("1"), val: []byte("2"), ok: true, want: "2"},
			{old: []byte("1"), val: []byte("3"), ok: false, want: "2"}}},
		{"empty old is a value", []step{{put: "", old: []byte{}, val: []byte("2"), ok: false, want: "-"}}},
	}
	for _, impl := range impls {
		for _, tc := range cases {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				c := newClock()
				s := impl.open(t, c).(Swapper)
				st := s.(Store)
				for i, sp := range tc.steps {
					if sp.put != "" {
						if err := st.Put(ctx, "k", []byte(sp.put), time.Minute); err != nil {
							t.Fatal(err)
						}
					}
					c.Advance(sp.wait)
					ok, err := s.Swap(ctx, "k", sp.old, sp.val, time.Hour)
					if err != nil || ok != sp.ok {
						t.Fatalf("step %d: Swap = %v, %v; want %v", i, ok, err, sp.ok)
					}
					got, err := st.Get(ctx, "k")
					if sp.want == "-" {
						if !errors.Is(err, ErrNotFound) {
							t.Fatalf("step %d: Get = %q, %v; want not found", i, got, err)
						}
					} else if err != nil || string(got) != sp.want {
						t.Fatalf("step %d: Get = %q, %v; want %q", i, got, err, sp.want)
					}
				}
			})
		}
	}
}

// TestConcurrentSwap: workers on two instances of one database all swap
// from the same value; exactly one wins, and its value is stored.
func TestConcurrentSwap(t *testing.T) {
	ctx := context.Background()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			s := impl.open(t, newClock())
			stores := []Store{s}
			switch s := s.(type) {
			case *SQLite:
				other := openTestSQLite(t, s.path)
				other.now = s.now
				stores = append(stores, other)
			case *Postgres:
				other := openTestPostgres(t, s.pool.Config().ConnString())
				other.now = s.now
				stores = append(stores, other)
			}
			for round := range 8 {
				old := []byte(fmt.Sprint("v", round))
				if err := s.Put(ctx, "k", old, time.Hour); err != nil {
					t.Fatal(err)
				}
				var wins atomic.Int32
				var winner atomic.Value
				start := make(chan struct{})
				var wg sync.WaitGroup
				for w := range 8 {
					sw := stores[w%len(stores)].(Swapper)
					wg.Go(func() {
						<-start
						val := []byte(fmt.Sprint("w", w))
						ok, err := sw.Swap(ctx, "k", old, val, time.Hour)
						if err != nil {
							t.Error(err)
						}
						if ok {
							wins.Add(1)
							winner.Store(string(val))
						}
					})
				}
				close(start)
				wg.Wait()
				if n := wins.Load(); n != 1 {
					t.Fatalf("round %d: %d swaps won, want 1", round, n)
				}
				if got, err := s.Get(ctx, "k"); err != nil || string(got) != winner.Load() {
					t.Fatalf("round %d: Get = %q, %v; want the winner's %q", round, got, err, winner.Load())
				}
			}
		})
	}
}

// TestCanceledContext: the database stores fail a call whose context has
// ended (Put with the context's error) and never report such a Take as a
// missing key. Memory does no I/O and does not look at the context.
func TestCanceledContext(t *testing.T) {
	for _, impl := range impls {
		if impl.name == "memory" {
			continue
		}
		t.Run(impl.name, func(t *testing.T) {
			s := impl.open(t, newClock())
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := s.Put(ctx, "k", nil, time.Minute); !errors.Is(err, context.Canceled) {
				t.Errorf("Put with a canceled context: %v", err)
			}
			if _, err := s.Take(ctx, "k"); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Take with a canceled context: %v", err)
			}
		})
	}
}
