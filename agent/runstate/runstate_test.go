package runstate_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/deptest"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/store"
)

// errDown is what a store whose database went away answers.
var errDown = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

// downKV fails every call.
type downKV struct{}

func (downKV) Put(context.Context, string, []byte, time.Duration) error { return errDown }
func (downKV) Get(context.Context, string) ([]byte, error)              { return nil, errDown }
func (downKV) Claim(context.Context, string, string) ([]byte, error)    { return nil, errDown }
func (downKV) Release(context.Context, string, string) error            { return errDown }
func (downKV) Finish(context.Context, string, string) error             { return errDown }

// lossyKV is a store whose connection drops as it answers: while down, a
// claim runs and its answer is lost, and every other call fails.
type lossyKV struct {
	*store.Memory
	mu   sync.Mutex
	down bool
}

func (l *lossyKV) isDown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

func (l *lossyKV) setDown(down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = down
}

func (l *lossyKV) Get(ctx context.Context, key string) ([]byte, error) {
	if l.isDown() {
		return nil, errDown
	}
	return l.Memory.Get(ctx, key)
}

func (l *lossyKV) Claim(ctx context.Context, key, token string) ([]byte, error) {
	v, err := l.Memory.Claim(ctx, key, token)
	if l.isDown() {
		return nil, errDown
	}
	return v, err
}

func (l *lossyKV) Release(ctx context.Context, key, token string) error {
	if l.isDown() {
		return errDown
	}
	return l.Memory.Release(ctx, key, token)
}

// TestTakeLost (soak F11): a take whose claim ran but whose answer was
// lost is STORE_UNAVAILABLE, and the paused run is not lost: while the
// store is down it is not found either way, and once it is back the run
// is taken exactly once.
func TestTakeLost(t *testing.T) {
	ctx := context.Background()
	kv := &lossyKV{Memory: store.NewMemory()}
	s := runstate.New(kv, 0, time.Hour, nil)
	rec := &runstate.Record{ID: "p1", Agent: "a", Command: "c", Messages: []llm.Message{{Role: "user", Content: "hi"}}, Results: []string{}}
	if err := s.SavePause(ctx, rec); err != nil {
		t.Fatal(err)
	}
	kv.setDown(true)
	_, err := s.TakePause(ctx, "p1")
	wantUnavailable(t, err)
	if v, err := kv.Memory.Get(ctx, "pause/p1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the claim did not run: %q %v", v, err)
	}
	_, err = s.PeekPause(ctx, "p1")
	wantUnavailable(t, err)
	_, err = s.TakePause(ctx, "p1")
	wantUnavailable(t, err)

	kv.setDown(false)
	if n, err := runstate.CountPaused(ctx, kv); err != nil || n != 0 && n != 1 {
		t.Fatalf("CountPaused: %d %v", n, err)
	}
	got, err := s.TakePause(ctx, "p1")
	if err != nil {
		t.Fatalf("once the store is back: %v", err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatalf("got %+v, want %+v", got, rec)
	}
	if _, err := s.TakePause(ctx, "p1"); !errors.Is(err, runstate.ErrNotFound) {
		t.Fatalf("taken twice: %v", err)
	}
	if n, err := runstate.CountPaused(ctx, kv); err != nil || n != 0 {
		t.Fatalf("CountPaused after the take: %d %v", n, err)
	}
}

// wantUnavailable fails unless err is STORE_UNAVAILABLE caused by errDown.
func wantUnavailable(t *testing.T, err error) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeStoreUnavailable || !errors.Is(err, errDown) {
		t.Fatalf("got %v, want STORE_UNAVAILABLE", err)
	}
}

// TestPauseRoundTrip: a paused run comes back as it was kept, whole numbers
// as ints, under the keys replicas of every version share; it is taken
// once, and its frontend calls find it.
func TestPauseRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	s := runstate.New(mem, 0, time.Hour, nil)
	if !s.Keeps() {
		t.Fatal("a Store over a KV keeps nothing")
	}
	rec := &runstate.Record{ID: "p1", Kind: runstate.KindPlan, Agent: "a", Step: "ask",
		Params: map[string]any{"max_tokens": 10000000}, State: map[string]any{"n": 7, "xs": []any{1, 2.5}},
		Done:    map[string]any{"init": map[string]any{"big": 1e7}},
		Waiting: []runstate.PendingCall{{Index: 0, Call: llm.ToolCall{ID: "c", Name: "t"}, Frontend: true, ClientID: "cc"}}}
	if err := s.SavePause(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if id, err := mem.Get(ctx, "call/cc"); err != nil || string(id) != "p1" {
		t.Fatalf("call/cc: %q %v", id, err)
	}
	if _, err := mem.Get(ctx, "pause/p1"); err != nil {
		t.Fatalf("pause/p1: %v", err)
	}
	if id, err := s.PauseOfCall(ctx, "cc"); err != nil || id != "p1" {
		t.Fatalf("PauseOfCall: %q %v", id, err)
	}
	got, err := s.PeekPause(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	want := *rec
	want.Done = map[string]any{"init": map[string]any{"big": 10000000}}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("got %+v, want %+v", *got, want)
	}
	if _, err := s.TakePause(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakePause(ctx, "p1"); !errors.Is(err, runstate.ErrNotFound) {
		t.Fatalf("taken twice: %v", err)
	}
	if n, err := runstate.CountPaused(ctx, mem); err != nil || n != 0 {
		t.Fatalf("CountPaused after the take: %d %v", n, err)
	}
}

// TestNoStore: without a KV nothing is kept and nothing found, and a pause
// is the TOOL_FAILED of a gateway with no store for paused runs.
func TestNoStore(t *testing.T) {
	ctx := context.Background()
	for _, s := range []runstate.Store{{}, runstate.New(nil, 0, 0, nil)} {
		if s.Keeps() {
			t.Fatal("a Store without a KV keeps")
		}
		var e *apierr.Error
		if err := s.SavePause(ctx, &runstate.Record{ID: "x"}); !errors.As(err, &e) || e.Code != apierr.CodeToolFailed ||
			e.Message != "the run waits, and this gateway keeps no store for paused runs" {
			t.Fatalf("SavePause: %v", err)
		}
		if _, err := s.PeekPause(ctx, "x"); !errors.Is(err, runstate.ErrNotFound) {
			t.Fatalf("PeekPause: %v", err)
		}
		if _, err := s.PauseOfCall(ctx, "x"); !errors.Is(err, runstate.ErrNotFound) {
			t.Fatalf("PauseOfCall: %v", err)
		}
		if err := s.SaveState(ctx, "r", map[string]any{"n": 1}); err != nil {
			t.Fatalf("SaveState: %v", err)
		}
		if st, err := s.PlanState(ctx, "r"); st != nil || err != nil {
			t.Fatalf("PlanState: %v %v", st, err)
		}
	}
}

// TestPlanState: a plan's state comes back with its whole numbers as ints;
// one never saved, or that cannot be read back, is nil; one over MaxState
// is not kept.
func TestPlanState(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	s := runstate.New(mem, 0, time.Hour, nil)
	if err := s.SaveState(ctx, "r1", map[string]any{"n": 10000000, "f": 0.5}); err != nil {
		t.Fatal(err)
	}
	got, err := s.PlanState(ctx, "r1")
	if err != nil || !reflect.DeepEqual(got, map[string]any{"n": 10000000, "f": 0.5}) {
		t.Fatalf("got %#v %v", got, err)
	}
	if got, err := s.PlanState(ctx, "never"); got != nil || err != nil {
		t.Fatalf("never saved: %v %v", got, err)
	}
	_ = mem.Put(ctx, "run/bad/state", []byte("{"), time.Hour)
	if got, err := s.PlanState(ctx, "bad"); got != nil || err != nil {
		t.Fatalf("unreadable: %v %v", got, err)
	}
	err = s.SaveState(ctx, "big", map[string]any{"s": strings.Repeat("x", runstate.MaxState)})
	var big *runstate.StateTooLargeError
	if !errors.As(err, &big) || big.Size != runstate.MaxState+8 {
		t.Fatalf("got %v", err)
	}
	if _, err := mem.Get(ctx, "run/big/state"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a state too large was kept: %v", err)
	}
}

// TestStoreUnavailable: every failure of the KV but not-found is the
// recoverable 503 STORE_UNAVAILABLE, its cause the store's error.
func TestStoreUnavailable(t *testing.T) {
	ctx := context.Background()
	s := runstate.New(downKV{}, 0, 0, nil)
	_, peek := s.PeekPause(ctx, "p")
	_, take := s.TakePause(ctx, "p")
	_, call := s.PauseOfCall(ctx, "c")
	_, state := s.PlanState(ctx, "r")
	for _, err := range []error{s.SavePause(ctx, &runstate.Record{ID: "p"}), peek, take, call, state, s.SaveState(ctx, "r", map[string]any{"n": 1})} {
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.CodeStoreUnavailable || e.Status != 503 || !e.Recoverable ||
			e.Message != "the gateway's store is unavailable: it could not read or keep the run's data" || !errors.Is(err, errDown) {
			t.Errorf("got %+v", err)
		}
	}
}

// TestDeps: runstate links no store driver, nor the runner it serves.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/runstate",
		deptest.Module+"/agent/runner",
		deptest.Module+"/store/sqlitestore",
		deptest.Module+"/store/pgstore",
		"github.com/jackc/pgx/v5/...",
		"modernc.org/sqlite/...")
}
