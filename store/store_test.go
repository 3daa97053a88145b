package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestMemory(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	now := time.Unix(1000, 0)
	m.now = func() time.Time { return now }
	if err := m.Put(ctx, "a", []byte("1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	v, err := m.Get(ctx, "a")
	if err != nil || string(v) != "1" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	v[0] = 'x' // the caller's copy
	if v, _ := m.Get(ctx, "a"); string(v) != "1" {
		t.Fatal("Get returned the stored slice itself")
	}
	if _, err := m.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}
	now = now.Add(time.Minute)
	if _, err := m.Get(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired key: %v", err)
	}
	for i := range 64 {
		_ = m.Put(ctx, fmt.Sprint(i), nil, time.Second)
	}
	now = now.Add(2 * time.Second)
	_ = m.Put(ctx, "fresh", nil, time.Minute)
	for i := range 63 {
		_ = m.Put(ctx, fmt.Sprint("n", i), nil, time.Minute)
	}
	if m.Len() != 64 {
		t.Errorf("the sweep left %d items, want the 64 fresh ones", m.Len())
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				key := fmt.Sprint(i, "-", j)
				_ = m.Put(context.Background(), key, []byte(key), time.Minute)
				if v, err := m.Get(context.Background(), key); err != nil || string(v) != key {
					t.Errorf("Get(%s) = %q, %v", key, v, err)
				}
			}
		})
	}
	wg.Wait()
}

// TestSwapSweeps: a Memory written only by Swap (contexts) still sweeps
// its expired items every SweepEvery stored writes.
func TestSwapSweeps(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	m := NewMemory()
	m.now = func() time.Time { return now }
	for i := range 10 {
		if ok, err := m.Swap(ctx, fmt.Sprint("old", i), nil, nil, time.Second); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	now = now.Add(time.Second)
	for i := range SweepEvery - 10 {
		if ok, err := m.Swap(ctx, fmt.Sprint("new", i), nil, nil, time.Minute); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if n := m.Len(); n != SweepEvery-10 {
		t.Errorf("%d items after %d swaps, want the %d live ones", n, SweepEvery, SweepEvery-10)
	}
}
