// Package store keeps short-lived server-side data by key: the state of a
// plan that emitted actions, or of an agent run paused on a tool call, so
// that the feedback on those actions can use it without it travelling in the
// (small, signed) action state. Memory keeps it in one process; the drivers
// in subpackages keep it in a database: sqlitestore in a SQLite file that
// the replicas of one host can share, pgstore in a PostgreSQL database that
// replicas on any hosts share. This package links no database driver, so
// that the packages that only use a Store (server, agent/runner,
// conversation) do not either; cmd/agentgw picks the driver.
package store

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNotFound is returned for a key that is missing or expired.
var ErrNotFound = errors.New("store: not found or expired")

// Store keeps values by key for a time.
type Store interface {
	// Put stores value under key until ttl has passed.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value of key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Take returns the value of key and deletes it, atomically: of several
	// callers taking one key, even on different replicas sharing the
	// store, exactly one gets the value and the others ErrNotFound.
	Take(ctx context.Context, key string) ([]byte, error)
	// Claim returns the value of key and marks it claimed by token, in one
	// statement: of several callers claiming one key, even on different
	// replicas sharing the store, exactly one gets the value and the
	// others ErrNotFound. A claimed key is not there for Get, Take, Claim
	// and Count until Release gives it back; Finish deletes it. Unlike
	// Take, a claim whose answer was lost (the connection dropped after
	// the statement ran) loses nothing: its caller releases it.
	Claim(ctx context.Context, key, token string) ([]byte, error)
	// Release gives a key claimed by token back, as it was before the
	// claim; a no-op when token holds no claim on key (the claim never
	// ran, or it was released or finished already).
	Release(ctx context.Context, key, token string) error
	// Finish deletes a key claimed by token; a no-op when token holds no
	// claim on key.
	Finish(ctx context.Context, key, token string) error
}

// Swapper is implemented by every backend of this package: a
// compare-and-swap on one key, what optimistic concurrency (a versioned
// record several replicas write) needs on top of Put and Get.
type Swapper interface {
	// Swap stores value under key until ttl has passed if, atomically, the
	// key's live value is old byte for byte, or, with old nil, the key
	// holds no live value (missing or expired). It reports whether it
	// stored: of several callers swapping one key from one old value, even
	// on different replicas sharing the store, exactly one gets true.
	Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error)
}

// Memory is a Store in this process's memory. Replicas do not share it.
type Memory struct {
	mu    sync.Mutex
	items map[string]item
	now   func() time.Time
	puts  int
}

type item struct {
	value   []byte
	expires time.Time
	claim   string // the token of the claim on it, "" for none
}

var (
	_ Store   = (*Memory)(nil)
	_ Swapper = (*Memory)(nil)
)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{items: map[string]item{}, now: time.Now}
}

// SweepEvery is the number of puts between two sweeps of expired items, in
// every backend.
const SweepEvery = 64

// Put implements Store. Every SweepEvery-th Put sweeps expired items.
func (m *Memory) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.items[key] = item{value: append([]byte(nil), value...), expires: now.Add(ttl)}
	if m.puts++; m.puts%SweepEvery == 0 {
		m.sweep(now)
	}
	return nil
}

// sweep deletes the expired items; m.mu is held.
func (m *Memory) sweep(now time.Time) {
	for k, it := range m.items {
		if !now.Before(it.expires) {
			delete(m.items, k)
		}
	}
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[key]
	if !ok || !m.now().Before(it.expires) {
		delete(m.items, key)
		return nil, ErrNotFound
	}
	if it.claim != "" {
		return nil, ErrNotFound
	}
	return append([]byte(nil), it.value...), nil
}

// Take implements Store.
func (m *Memory) Take(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[key]
	if ok && it.claim != "" {
		return nil, ErrNotFound
	}
	delete(m.items, key)
	if !ok || !m.now().Before(it.expires) {
		return nil, ErrNotFound
	}
	return it.value, nil // a copy made by Put, no longer held
}

// Claim implements Store.
func (m *Memory) Claim(_ context.Context, key, token string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[key]
	if !ok || it.claim != "" || !m.now().Before(it.expires) {
		return nil, ErrNotFound
	}
	it.claim = token
	m.items[key] = it
	return append([]byte(nil), it.value...), nil
}

// Release implements Store.
func (m *Memory) Release(_ context.Context, key, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if it, ok := m.items[key]; ok && it.claim == token {
		it.claim = ""
		m.items[key] = it
	}
	return nil
}

// Finish implements Store.
func (m *Memory) Finish(_ context.Context, key, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if it, ok := m.items[key]; ok && it.claim == token {
		delete(m.items, key)
	}
	return nil
}

// Swap implements Swapper. A stored swap counts as a Put for sweeping.
func (m *Memory) Swap(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	it, ok := m.items[key]
	live := ok && now.Before(it.expires)
	if live && it.claim != "" {
		return false, nil // claimed: not there, and not to be replaced
	}
	if old == nil && live || old != nil && (!live || !bytes.Equal(it.value, old)) {
		return false, nil
	}
	m.items[key] = item{value: append([]byte{}, value...), expires: now.Add(ttl)}
	if m.puts++; m.puts%SweepEvery == 0 {
		m.sweep(now)
	}
	return true, nil
}

// Len counts the items held, expired ones included until swept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}
