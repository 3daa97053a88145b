package sse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while a Writer writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond until it holds; it fails the test after a generous
// deadline (a hang, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestKeepAlivePingsAfterSilenceAndStopsAtEnd(t *testing.T) {
	out := &syncBuffer{}
	w := NewWriter(out, goldenOptions)
	if err := w.Text("a"); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.KeepAlive(context.Background(), 5*time.Millisecond)
	}()
	waitFor(t, "a ping", func() bool { return strings.Contains(out.String(), ": ping\n\n") })
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	<-stopped // KeepAlive returns once End is called
	ended := out.String()
	time.Sleep(20 * time.Millisecond)
	if got := out.String(); got != ended || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("output after End: %q", got[len(ended)-len("data: [DONE]\n\n"):])
	}
}

func TestKeepAliveStopsWithContext(t *testing.T) {
	w := NewWriter(&syncBuffer{}, goldenOptions)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.KeepAlive(ctx, time.Hour)
	}()
	cancel()
	<-stopped
}

func TestKeepAliveStopsOnWriteError(t *testing.T) {
	w := NewWriter(&failWriter{}, goldenOptions)
	w.KeepAlive(context.Background(), time.Millisecond) // returns after the failed ping
	if w.Err() == nil {
		t.Error("no sticky error after a failed ping")
	}
}

func TestKeepAliveDisabled(t *testing.T) {
	w := NewWriter(&syncBuffer{}, goldenOptions)
	w.KeepAlive(context.Background(), 0) // must return at once
}

// TestConcurrentWrites writes every frame kind from many goroutines while
// KeepAlive pings; run with -race. Every frame must arrive whole.
func TestConcurrentWrites(t *testing.T) {
	out := &syncBuffer{}
	w := NewWriter(out, goldenOptions)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.KeepAlive(ctx, time.Microsecond)
	const workers, perWorker = 8, 50
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range perWorker {
				var err error
				switch i % 3 {
				case 0:
					err = w.Text(fmt.Sprintf("t%d-%d", g, i))
				case 1:
					err = w.Chunk([]byte(upstreamChunk))
				case 2:
					err = w.Event("copilot_action", []byte(`{"n":1}`))
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	events := readAll(t, strings.NewReader(out.String()))
	if want := workers*perWorker + 2; len(events) != want {
		t.Fatalf("read %d events, want %d", len(events), want)
	}
	for _, ev := range events[:len(events)-1] {
		if !json.Valid(ev.Data) {
			t.Fatalf("torn frame: %q", ev.Data)
		}
	}
}
