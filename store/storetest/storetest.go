// Package storetest is the contract every store.Store backend keeps,
// as tests each backend's package runs over its own stores: Contract for
// the behaviour of one store and of instances sharing a database,
// AcrossProcesses for processes sharing one.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
)

// A Backend opens the stores of one backend for Contract.
type Backend struct {
	// Open returns a new, empty store whose clock is now, closed when t
	// ends.
	Open func(t *testing.T, now func() time.Time) store.Store
	// Another, set for a backend whose instances share a database,
	// returns a second instance on s's database (s from Open) with s's
	// clock, closed when t ends.
	Another func(t *testing.T, s store.Store) store.Store
	// DoesIO is set for a backend that fails calls whose context has
	// ended (a database); Memory does no I/O and does not look at the
	// context.
	DoesIO bool
}

// Contract runs the behaviour every backend must share, as subtests of
// t, over stores of b. Every store must implement store.Swapper and
// store.Counter.
func Contract(t *testing.T, b Backend) {
	t.Run("Behaviour", func(t *testing.T) { testBehaviour(t, b) })
	t.Run("ValueCopies", func(t *testing.T) { testValueCopies(t, b) })
	t.Run("ValueBytes", func(t *testing.T) { testValueBytes(t, b) })
	t.Run("ConcurrentTake", func(t *testing.T) { testConcurrentTake(t, b) })
	t.Run("Swap", func(t *testing.T) { testSwap(t, b) })
	t.Run("ConcurrentSwap", func(t *testing.T) { testConcurrentSwap(t, b) })
	t.Run("Count", func(t *testing.T) { testCount(t, b) })
	t.Run("Claim", func(t *testing.T) { testClaim(t, b) })
	t.Run("ConcurrentClaim", func(t *testing.T) { testConcurrentClaim(t, b) })
	if b.DoesIO {
		t.Run("CanceledContext", func(t *testing.T) { testCanceledContext(t, b) })
	}
}

// newClock starts at the real time: a store opened later with the real
// clock (a second instance, a reopened file) must agree on what is live.
func newClock() *testclock.Clock { return testclock.New(time.Now()) }

// open opens a store of b on the clock c.
func (b Backend) open(t *testing.T, c *testclock.Clock) store.Store { return b.Open(t, c.Now) }

// instances is s and, for a backend whose instances share a database, a
// second instance on it.
func (b Backend) instances(t *testing.T, s store.Store) []store.Store {
	if b.Another == nil {
		return []store.Store{s}
	}
	return []store.Store{s, b.Another(t, s)}
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
func getNone(key string) op                     { return op{do: "get", key: key, err: store.ErrNotFound} }
func takeNone(key string) op                    { return op{do: "take", key: key, err: store.ErrNotFound} }
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

func testBehaviour(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, tc := range behaviour {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClock()
			s := b.open(t, c)
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

// testValueCopies: neither the caller's slice given to Put nor the one
// returned by Get or Take is the stored value.
func testValueCopies(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t, newClock())
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
}

// testValueBytes: a value comes back byte for byte, whatever its bytes
// (NUL, invalid UTF-8, every byte value), from Get and from Take; an empty
// value comes back empty.
func testValueBytes(t *testing.T, b Backend) {
	ctx := context.Background()
	all := make([]byte, 0, 512)
	for i := range 256 {
		all = append(all, byte(i), byte(255-i))
	}
	values := [][]byte{all, {}, []byte("\x00"), []byte(`{"raw":"{\"role\": \"user\"}"}` + "\xff\xfe")}
	s := b.open(t, newClock())
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
}

// testConcurrentTake: many goroutines take the same keys; each key is won
// exactly once, with its value.
func testConcurrentTake(t *testing.T, b Backend) {
	s := b.open(t, newClock())
	stores := b.instances(t, s) // and a second instance on the same database
	takeRace(t, stores, 32, 12)
}

// takeRace puts keys values in stores[0], then workers spread over stores
// take every key; it fails unless each key was won exactly once.
func takeRace(t *testing.T, stores []store.Store, keys, workers int) {
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
				case errors.Is(err, store.ErrNotFound):
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

// testSwap: Swap stores only over the value it names, or, with old nil,
// over no live value; a lost swap writes nothing.
func testSwap(t *testing.T, b Backend) {
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
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClock()
			s := b.open(t, c).(store.Swapper)
			st := s.(store.Store)
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
					if !errors.Is(err, store.ErrNotFound) {
						t.Fatalf("step %d: Get = %q, %v; want not found", i, got, err)
					}
				} else if err != nil || string(got) != sp.want {
					t.Fatalf("step %d: Get = %q, %v; want %q", i, got, err, sp.want)
				}
			}
		})
	}
}

// testConcurrentSwap: workers on two instances of one database all swap
// from the same value; exactly one wins, and its value is stored.
func testConcurrentSwap(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t, newClock())
	stores := b.instances(t, s)
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
			sw := stores[w%len(stores)].(store.Swapper)
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
}

// testCanceledContext: the database stores fail a call whose context has
// ended (Put with the context's error) and never report such a Take as a
// missing key. Memory does no I/O and does not look at the context.
func testCanceledContext(t *testing.T, b Backend) {
	s := b.open(t, newClock())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Put(ctx, "k", nil, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a canceled context: %v", err)
	}
	if _, err := s.Take(ctx, "k"); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Take with a canceled context: %v", err)
	}
}

// testCount: the live keys with a prefix, in every backend; expired keys
// and keys either side of the prefix's range are not counted.
func testCount(t *testing.T, b Backend) {
	ctx := context.Background()
	c := newClock()
	s := b.open(t, c)
	for key, ttl := range map[string]time.Duration{
		"pause/1": time.Hour, "pause/2": time.Hour, "pause/3": time.Minute, "pause0": time.Hour,
		"pause": time.Hour, "pause.": time.Hour, "call/1": time.Hour, "\xff\xff/1": time.Hour,
	} {
		if err := s.Put(ctx, key, []byte("v"), ttl); err != nil {
			t.Fatal(err)
		}
	}
	count := func(prefix string, want int64) {
		t.Helper()
		n, err := s.(store.Counter).Count(ctx, prefix)
		if err != nil || n != want {
			t.Errorf("Count(%q) = %d, %v; want %d", prefix, n, err, want)
		}
	}
	count("pause/", 3)
	count("\xff\xff", 1)
	count("", 8)
	c.Advance(2 * time.Minute)
	count("pause/", 2)
	count("", 7)
}

// testClaim: a claimed key is not there for Get, Take, Claim, Swap and
// Count, on every instance sharing the database, until its claim's token
// releases it (then it is as it was) or finishes it (then it is gone);
// another token does neither. An expired key cannot be claimed, and a Put
// replaces a claimed key with an unclaimed one.
func testClaim(t *testing.T, b Backend) {
	ctx := context.Background()
	c := newClock()
	s := b.open(t, c)
	all := b.instances(t, s)
	other := all[len(all)-1]
	if err := s.Put(ctx, "pause/1", []byte("v1"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if v, err := other.Claim(ctx, "pause/1", "tok"); err != nil || string(v) != "v1" {
		t.Fatalf("Claim = %q, %v", v, err)
	}
	gone := func(when string) {
		t.Helper()
		for _, st := range all {
			if v, err := st.Get(ctx, "pause/1"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: Get = %q, %v", when, v, err)
			}
			if v, err := st.Claim(ctx, "pause/1", "tok2"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: Claim = %q, %v", when, v, err)
			}
			if n, err := st.(store.Counter).Count(ctx, "pause/"); n != 0 || err != nil {
				t.Errorf("%s: Count = %d, %v", when, n, err)
			}
		}
	}
	gone("claimed")
	if ok, err := s.(store.Swapper).Swap(ctx, "pause/1", nil, []byte("x"), time.Hour); ok || err != nil {
		t.Errorf("Swap over a claimed key = %v, %v", ok, err)
	}
	for _, op := range []func(context.Context, string, string) error{s.Release, s.Finish} {
		if err := op(ctx, "pause/1", "not-tok"); err != nil {
			t.Fatal(err)
		}
	}
	gone("after another token's Release and Finish")
	if v, err := s.Take(ctx, "pause/1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Take of a claimed key = %q, %v", v, err)
	}
	if err := s.Release(ctx, "pause/1", "tok"); err != nil {
		t.Fatal(err)
	}
	if v, err := other.Get(ctx, "pause/1"); err != nil || string(v) != "v1" {
		t.Fatalf("released: Get = %q, %v", v, err)
	}
	if err := s.Release(ctx, "pause/1", "tok"); err != nil { // again: a no-op
		t.Fatal(err)
	}
	if v, err := s.Claim(ctx, "pause/1", "tok3"); err != nil || string(v) != "v1" {
		t.Fatalf("claimed again = %q, %v", v, err)
	}
	if err := other.Finish(ctx, "pause/1", "tok3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, "pause/1", "tok3"); err != nil {
		t.Fatal(err)
	}
	gone("finished, then released")

	if err := s.Put(ctx, "pause/2", []byte("v2"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "pause/2", "tok"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "pause/2", []byte("v3"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := other.Get(ctx, "pause/2"); err != nil || string(v) != "v3" {
		t.Fatalf("put over a claim: Get = %q, %v", v, err)
	}
	c.Advance(2 * time.Minute)
	if v, err := s.Claim(ctx, "pause/2", "tok"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Claim of an expired key = %q, %v", v, err)
	}
}

// testConcurrentClaim: many goroutines on every instance claim the same
// keys with tokens of their own; each key is won exactly once.
func testConcurrentClaim(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t, newClock())
	stores := b.instances(t, s)
	const keys, workers = 20, 8
	for k := range keys {
		if err := s.Put(ctx, fmt.Sprint("k", k), []byte(fmt.Sprint("v", k)), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	var won [keys]atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		st := stores[w%len(stores)]
		wg.Go(func() {
			for k := range keys {
				v, err := st.Claim(ctx, fmt.Sprint("k", k), fmt.Sprint("w", w))
				switch {
				case errors.Is(err, store.ErrNotFound):
				case err != nil:
					t.Errorf("Claim(k%d): %v", k, err)
				case string(v) != fmt.Sprint("v", k):
					t.Errorf("Claim(k%d) = %q", k, v)
				default:
					won[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	for k := range keys {
		if n := won[k].Load(); n != 1 {
			t.Errorf("k%d claimed %d times", k, n)
		}
	}
}
