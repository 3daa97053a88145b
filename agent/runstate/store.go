package runstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/jsonnum"
	"github.com/agentgw/agentgw/store"
)

// KV is the store runs are kept in: the part of store.Store they use, so
// that a store.Store (any of its backends) is one.
type KV interface {
	// Put stores value under key until ttl has passed.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value of key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Claim returns the value of key and marks it claimed by token,
	// atomically: of several callers claiming one key, even on replicas
	// sharing the store, exactly one gets the value and the others
	// ErrNotFound. A claimed key is not there for Get and Claim.
	Claim(ctx context.Context, key, token string) ([]byte, error)
	// Release gives back the claim token holds on key, if any.
	Release(ctx context.Context, key, token string) error
	// Finish deletes key if token holds its claim.
	Finish(ctx context.Context, key, token string) error
}

// ErrNotFound is the error of a record that expired or never was: the
// store's own (store.ErrNotFound), which a KV returns and a Store passes
// on as it is.
var ErrNotFound = store.ErrNotFound

// Store is where runs keep what outlives one request, said in the
// language of runs: paused runs, found by their id or by a frontend call
// they wait for, and the plan state an action's handler restores. Every
// failure of its KV is STORE_UNAVAILABLE; a record that expired or never
// was is ErrNotFound. The zero Store, or one over a nil KV, keeps nothing
// and finds nothing.
type Store struct {
	kv       KV
	pauseTTL time.Duration // 0: DefaultPauseTTL
	stateTTL time.Duration
	// settle finishes and releases the claims of taken pauses.
	settle *settler
}

// New returns the Store of runs over kv (nil: none), which keeps paused
// runs for pauseTTL (0 or less: DefaultPauseTTL) and plan states for
// stateTTL, and logs to log (nil: nowhere) what it cannot settle in the
// background.
func New(kv KV, pauseTTL, stateTTL time.Duration, log *slog.Logger) Store {
	s := Store{kv: checked(kv), pauseTTL: pauseTTL, stateTTL: stateTTL}
	if s.kv != nil {
		s.settle = newSettler(s.kv, log, s.ttl())
	}
	return s
}

// ttl is how long a paused run waits.
func (s Store) ttl() time.Duration {
	if s.pauseTTL <= 0 {
		return DefaultPauseTTL
	}
	return s.pauseTTL
}

// Keys of the records.
func pauseKey(id string) string      { return "pause/" + id }
func clientCallKey(id string) string { return "call/" + id }
func stateKey(runID string) string   { return "run/" + runID + "/state" }

// Keeps reports whether there is a store to keep runs in.
func (s Store) Keeps() bool { return s.kv != nil }

// SavePause keeps a paused run, and the ids its frontend calls come back
// with, for as long as it waits.
func (s Store) SavePause(ctx context.Context, rec *Record) error {
	if s.kv == nil {
		return NoStore("the run waits")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return apierr.Internal(fmt.Errorf("encoding a paused run: %w", err))
	}
	ttl := s.ttl()
	if err := s.kv.Put(ctx, pauseKey(rec.ID), data, ttl); err != nil {
		return err
	}
	for _, w := range rec.Waiting {
		if w.Frontend {
			if err := s.kv.Put(ctx, clientCallKey(w.ClientID), []byte(rec.ID), ttl); err != nil {
				return err
			}
		}
	}
	return nil
}

// PauseOfCall is the id of the paused run that waits for the frontend
// call the IDE knows as callID.
func (s Store) PauseOfCall(ctx context.Context, callID string) (string, error) {
	if s.kv == nil {
		return "", ErrNotFound
	}
	id, err := s.kv.Get(ctx, clientCallKey(callID))
	return string(id), err
}

// PeekPause loads a paused run and leaves it waiting.
func (s Store) PeekPause(ctx context.Context, id string) (*Record, error) {
	if s.kv == nil {
		return nil, ErrNotFound
	}
	if err := s.settle.resolve(ctx, pauseKey(id)); err != nil {
		return nil, err
	}
	data, err := s.kv.Get(ctx, pauseKey(id))
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// TakePause loads a paused run and removes it, so that it resumes once:
// of several callers, even on replicas sharing the store, one gets it. It
// claims the record, one statement, and deletes it in the background. A
// claim whose answer is lost (its STORE_UNAVAILABLE) is released in the
// background, or, first, when this process is asked for the run again:
// the run is still waiting once the store is back (soak F11).
func (s Store) TakePause(ctx context.Context, id string) (*Record, error) {
	if s.kv == nil {
		return nil, ErrNotFound
	}
	key := pauseKey(id)
	if err := s.settle.resolve(ctx, key); err != nil {
		return nil, err
	}
	token := uuid.NewString()
	data, err := s.kv.Claim(ctx, key, token)
	if errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if err != nil {
		s.settle.release(key, token)
		return nil, err
	}
	s.settle.finish(key, token)
	return Decode(data)
}

// MaxState caps the plan state kept for handlers, in bytes of JSON.
const MaxState = 1 << 20

// StateTooLargeError is SaveState's error for a state over MaxState.
type StateTooLargeError struct {
	// Size is the state's size in bytes of JSON.
	Size int
}

func (e *StateTooLargeError) Error() string {
	return fmt.Sprintf("plan state of %d bytes is over %d", e.Size, MaxState)
}

// SaveState keeps a plan's state under its run's id for the handlers of
// the actions the run sent. Without a store it keeps nothing.
func (s Store) SaveState(ctx context.Context, runID string, state map[string]any) error {
	if s.kv == nil {
		return nil
	}
	data, err := json.Marshal(state)
	if err != nil {
		return apierr.Internal(fmt.Errorf("encoding plan state: %w", err))
	}
	if len(data) > MaxState {
		return &StateTooLargeError{len(data)}
	}
	return s.kv.Put(ctx, stateKey(runID), data, s.stateTTL)
}

// PlanState is the state the run runID saved, nil when it saved none (or
// it expired, or cannot be read back), with its numbers as they were.
func (s Store) PlanState(ctx context.Context, runID string) (map[string]any, error) {
	if s.kv == nil || runID == "" {
		return nil, nil
	}
	data, err := s.kv.Get(ctx, stateKey(runID))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var state map[string]any
	if jsonnum.Decode(data, &state) != nil {
		return nil, nil
	}
	for k, v := range state {
		state[k] = jsonnum.Normalize(v)
	}
	return state, nil
}

// CountPaused counts the runs paused in st, waiting for a consent or a
// frontend tool's result: the live records of every replica sharing st
// (for metrics; a process's own pauses and resumes would not tell it, as a
// run paused on one replica may resume on another).
func CountPaused(ctx context.Context, st store.Counter) (int64, error) {
	return st.Count(ctx, pauseKey(""))
}
