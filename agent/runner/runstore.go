package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/jsonnum"
	"github.com/agentgw/agentgw/store"
)

// runStore is where runs keep what outlives one request, said in the
// language of runs: paused runs, found by their id or by a frontend call
// they wait for, and the plan state an action's handler restores. It is
// the one place that knows their keys, encodings and lifetimes in the
// gateway's store (conversations have their own repository, package
// contexts). Every failure of the store is STORE_UNAVAILABLE (its store is
// a checkedStore); a record that expired or never was is store.ErrNotFound.
// Without a store it keeps nothing and finds nothing.
type runStore struct {
	st       store.Store
	pauseTTL time.Duration // 0: DefaultPauseTTL
	stateTTL time.Duration
}

// Keys of the records.
func pauseKey(id string) string      { return "pause/" + id }
func clientCallKey(id string) string { return "call/" + id }
func stateKey(runID string) string   { return "run/" + runID + "/state" }

// keeps reports whether there is a store to keep runs in.
func (s runStore) keeps() bool { return s.st != nil }

// savePause keeps a paused run, and the ids its frontend calls come back
// with, for as long as it waits.
func (s runStore) savePause(ctx context.Context, rec *pauseRecord) error {
	if s.st == nil {
		return noPauseStore("the run waits")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return apierr.Internal(fmt.Errorf("encoding a paused run: %w", err))
	}
	ttl := s.pauseTTL
	if ttl <= 0 {
		ttl = DefaultPauseTTL
	}
	if err := s.st.Put(ctx, pauseKey(rec.ID), data, ttl); err != nil {
		return err
	}
	for _, w := range rec.Waiting {
		if w.Frontend {
			if err := s.st.Put(ctx, clientCallKey(w.ClientID), []byte(rec.ID), ttl); err != nil {
				return err
			}
		}
	}
	return nil
}

// pauseOfCall is the id of the paused run that waits for the frontend call
// the IDE knows as callID.
func (s runStore) pauseOfCall(ctx context.Context, callID string) (string, error) {
	if s.st == nil {
		return "", store.ErrNotFound
	}
	id, err := s.st.Get(ctx, clientCallKey(callID))
	return string(id), err
}

// peekPause loads a paused run and leaves it waiting.
func (s runStore) peekPause(ctx context.Context, id string) (*pauseRecord, error) {
	if s.st == nil {
		return nil, store.ErrNotFound
	}
	data, err := s.st.Get(ctx, pauseKey(id))
	if err != nil {
		return nil, err
	}
	return decodePause(data)
}

// takePause loads a paused run and removes it, so that it resumes once:
// of several callers, even on replicas sharing the store, one gets it.
func (s runStore) takePause(ctx context.Context, id string) (*pauseRecord, error) {
	if s.st == nil {
		return nil, store.ErrNotFound
	}
	data, err := s.st.Take(ctx, pauseKey(id))
	if err != nil {
		return nil, err
	}
	return decodePause(data)
}

// maxSavedState caps the plan state kept for handlers.
const maxSavedState = 1 << 20

// stateTooLarge is saveState's error for a state over maxSavedState.
type stateTooLarge struct{ size int }

func (e *stateTooLarge) Error() string {
	return fmt.Sprintf("plan state of %d bytes is over %d", e.size, maxSavedState)
}

// saveState keeps a plan's state under its run's id for the handlers of
// the actions the run sent. Without a store it keeps nothing.
func (s runStore) saveState(ctx context.Context, runID string, state map[string]any) error {
	if s.st == nil {
		return nil
	}
	data, err := json.Marshal(state)
	if err != nil {
		return apierr.Internal(fmt.Errorf("encoding plan state: %w", err))
	}
	if len(data) > maxSavedState {
		return &stateTooLarge{len(data)}
	}
	return s.st.Put(ctx, stateKey(runID), data, s.stateTTL)
}

// planState is the state the run runID saved, nil when it saved none (or
// it expired, or cannot be read back), with its numbers as they were.
func (s runStore) planState(ctx context.Context, runID string) (map[string]any, error) {
	if s.st == nil || runID == "" {
		return nil, nil
	}
	data, err := s.st.Get(ctx, stateKey(runID))
	if errors.Is(err, store.ErrNotFound) {
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
