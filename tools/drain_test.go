package tools

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDrainKeepsOutputOfStarvedCopies: the process has exited and its
// output sits in the pipes, but the goroutines copying it have not run yet
// when the drain's grace ends (a starved CPU: soak finding F12). The drain
// must not close the pipes under output still buffered in them; before,
// it did, and the tool's call reported success with an empty result.
func TestDrainKeepsOutputOfStarvedCopies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unread (FIONREAD) is asked on Linux only; elsewhere the pipes are closed after the grace")
	}
	for _, tc := range []struct {
		name string
		out  string
	}{
		{"a line", "hello from the tool\n"},
		{"a pipe's worth", strings.Repeat("0123456789abcdef", 4000)}, // 64,000 bytes: under Linux's 64 KiB pipe

	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := openPipes()
			if err != nil {
				t.Fatal(err)
			}
			// The child wrote its output and exited: all of it is in the
			// pipe (a child cannot exit while blocked writing to a full one),
			// and its ends are closed.
			if _, err := p.outW.Write([]byte(tc.out)); err != nil {
				t.Fatal(err)
			}
			_ = p.outW.Close()
			_ = p.errW.Close()
			_ = p.inR.Close()
			var stdout, stderr bytes.Buffer
			gate := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-gate // not scheduled until well after the grace
				_, _ = io.Copy(&stdout, p.outR)
			})
			wg.Go(func() {
				<-gate
				_, _ = io.Copy(&stderr, p.errR)
			})
			go func() {
				time.Sleep(50 * time.Millisecond)
				close(gate)
			}()
			drain(context.Background(), &wg, p, time.Millisecond)
			if stdout.String() != tc.out {
				t.Errorf("stdout: %d bytes kept, want the %d the process wrote", stdout.Len(), len(tc.out))
			}
		})
	}
}

// TestDrainClosesPipesHeldOpen: a process that left the group and holds
// the output pipe open (writing nothing) does not hold the call: after the
// grace the pipes are closed under the copies.
func TestDrainClosesPipesHeldOpen(t *testing.T) {
	p, err := openPipes()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(p.outW)
	_ = p.errW.Close()
	_ = p.inR.Close()
	if _, err := p.outW.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(&stdout, p.outR) })
	wg.Go(func() { _, _ = io.Copy(&stderr, p.errR) })
	done := make(chan struct{})
	go func() {
		drain(context.Background(), &wg, p, 10*time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the drain waited for a pipe held open by another process")
	}
	if got := stdout.String(); got != "partial" {
		t.Errorf("stdout %q, want what was written before the grace ended", got)
	}
}

// TestDrainEndsWithItsContext: output that keeps coming (a process that
// left the group writing without end) holds the drain only until the
// call's context ends.
func TestDrainEndsWithItsContext(t *testing.T) {
	p, err := openPipes()
	if err != nil {
		t.Fatal(err)
	}
	_ = p.errW.Close()
	_ = p.inR.Close()
	stop := make(chan struct{})
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		defer closeFiles(p.outW)
		chunk := bytes.Repeat([]byte("x"), 512)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := p.outW.Write(chunk); err != nil {
				return
			}
		}
	}()
	defer func() { close(stop); <-writer }()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(io.Discard, p.outR) })
	wg.Go(func() { _, _ = io.Copy(io.Discard, p.errR) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		drain(ctx, &wg, p, time.Millisecond)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the drain outlived its context")
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
