package sse

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/syncbuf"
)

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
	out := &syncbuf.Buffer{}
	w := NewWriter(out, goldenOptions)
	if err := w.Text("a"); err != nil {
		t.Fatal(err)
	}
	stop := w.StartKeepAlive(5 * time.Millisecond)
	defer stop()
	waitFor(t, "a ping", func() bool { return strings.Count(out.String(), ": ping\n\n") >= 2 })
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	ended := out.String()
	time.Sleep(20 * time.Millisecond)
	if got := out.String(); got != ended || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("output after End: %q", got[len(ended)-len("data: [DONE]\n\n"):])
	}
}

func TestKeepAliveStop(t *testing.T) {
	out := &syncbuf.Buffer{}
	w := NewWriter(out, goldenOptions)
	stop := w.StartKeepAlive(2 * time.Millisecond)
	stop()
	time.Sleep(20 * time.Millisecond)
	if strings.Contains(out.String(), "ping") {
		t.Errorf("pinged after stop: %q", out.String())
	}
}

func TestKeepAliveStopsOnWriteError(t *testing.T) {
	w := NewWriter(&failWriter{}, goldenOptions)
	stop := w.StartKeepAlive(time.Millisecond)
	defer stop()
	waitFor(t, "the failed ping", func() bool { return w.Err() != nil })
}

func TestKeepAliveDisabled(t *testing.T) {
	w := NewWriter(&syncbuf.Buffer{}, goldenOptions)
	w.StartKeepAlive(0)() // nothing to stop
}

// TestConcurrentWrites writes every frame kind from many goroutines while
// KeepAlive pings; run with -race. Every frame must arrive whole.
func TestConcurrentWrites(t *testing.T) {
	out := &syncbuf.Buffer{}
	w := NewWriter(out, goldenOptions)
	defer w.StartKeepAlive(time.Microsecond)()
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
