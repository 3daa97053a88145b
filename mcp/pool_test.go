package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
)

// newPool returns a Pool closed when the test ends.
func newPool(t *testing.T) *Pool {
	t.Helper()
	p := NewPool("test", quiet)
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Pool.Close: %v", err)
		}
	})
	return p
}

// spawnEnv returns an env that makes the stdio server log its starts to a
// file, and a function reading the pids logged so far.
func spawnEnv(t *testing.T) ([]string, func() []string) {
	path := filepath.Join(t.TempDir(), "spawns")
	return []string{"MCPTEST_SPAWNLOG=" + path}, func() []string {
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
}

// kill kills the process whose pid is the decimal string pid.
func kill(t *testing.T, pid string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	proc, err := os.FindProcess(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatalf("killing %d: %v", n, err)
	}
}

func TestPoolSharesOneConnection(t *testing.T) {
	url, _ := httpTestServer(t, testserver.Hooks{})
	p := newPool(t)
	env, spawns := spawnEnv(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for i := range 4 {
				text := fmt.Sprintf("%d-%d", g, i)
				for _, entry := range []string{stdioEntry(), url} {
					got, err := p.Call(t.Context(), entry, env, "echo", map[string]any{"text": text})
					if err != nil || got != text {
						errs <- fmt.Errorf("%s: Call = %v, %v; want %s", entry, got, err, text)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := spawns(); len(got) != 1 {
		t.Fatalf("stdio server started %d times (%v), want once", len(got), got)
	}
	if n := len(p.slots); n != 2 {
		t.Fatalf("pool holds %d clients, want 2", n)
	}
}

func TestPoolRedialsAfterServerDied(t *testing.T) {
	p := newPool(t)
	env, spawns := spawnEnv(t)
	first, err := p.Call(t.Context(), stdioEntry(), env, "pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	kill(t, first.(string))
	second, err := p.Call(t.Context(), stdioEntry(), env, "pid", nil)
	if err != nil {
		t.Fatalf("Call after the server died: %v", err)
	}
	if second == first {
		t.Fatalf("pid %v answered after it was killed", second)
	}
	if got := spawns(); !slices.Equal(got, []string{first.(string), second.(string)}) {
		t.Fatalf("spawns = %v, want [%v %v]", got, first, second)
	}
}

func TestPoolRetriesCallBrokenInFlight(t *testing.T) {
	p := newPool(t)
	env, spawns := spawnEnv(t)
	marker := filepath.Join(t.TempDir(), "marker")
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := p.Call(context.Background(), stdioEntry(), env, "hang", map[string]any{"marker": marker})
		done <- result{v, err}
	}()
	pid := waitForFile(t, marker, done)
	kill(t, pid)
	r := <-done
	got := spawns()
	if r.err != nil || len(got) != 2 || r.v != "again "+got[1] {
		t.Fatalf("Call = %v, %v with spawns %v; want the answer of a second server", r.v, r.err, got)
	}
}

// waitForFile returns the contents of path once it is written, failing if
// done delivers first.
func waitForFile[T any](t *testing.T, path string, done <-chan T) string {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
		select {
		case r := <-done:
			t.Fatalf("finished before writing %s: %+v", path, r)
		default:
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPoolRedialsLostHTTPSession(t *testing.T) {
	url, reset := httpTestServer(t, testserver.Hooks{})
	p := newPool(t)
	if _, err := p.Call(t.Context(), url, nil, "echo", nil); err != nil {
		t.Fatal(err)
	}
	first := p.slots[url].client
	reset() // the server forgets the session: 404 on the next request
	if got, err := p.Call(t.Context(), url, nil, "echo", map[string]any{"text": "x"}); err != nil || got != "x" {
		t.Fatalf("Call after the session was lost = %v, %v", got, err)
	}
	if p.slots[url].client == first {
		t.Fatal("the client was not replaced")
	}
}

func TestPoolRedialsOnEnvChange(t *testing.T) {
	p := newPool(t)
	for _, env := range [][]string{{"A=1"}, {"A=1"}, {"A=2"}} {
		got, err := p.Call(t.Context(), stdioEntry(), env, "env", nil)
		if err != nil || got != env[0] {
			t.Fatalf("env = %v, %v; want %s", got, err, env[0])
		}
	}
}

func TestPoolTools(t *testing.T) {
	p := newPool(t)
	c, err := p.client(t.Context(), stdioEntry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools := listTools(t, c); len(tools) != 9 {
		t.Fatalf("the pool's client lists %d tools, want 9", len(tools))
	}
}

func TestPoolDialFailure(t *testing.T) {
	p := newPool(t)
	env, spawns := spawnEnv(t)
	bad := append(slices.Clone(env), "MCPTEST_FAIL=boom")
	for range 2 { // a failed dial is not cached
		_, err := p.Call(t.Context(), stdioEntry(), bad, "echo", nil)
		if err == nil || !strings.Contains(err.Error(), "asked to fail: boom") {
			t.Fatalf("err = %v, want the server's stderr in it", err)
		}
	}
	if _, err := p.Call(t.Context(), stdioEntry(), env, "echo", nil); err != nil {
		t.Fatalf("after failures: %v", err)
	}
	if got := spawns(); len(got) != 3 {
		t.Fatalf("spawns = %v, want 3", got)
	}
}

func TestPoolCallerContextDoesNotFailTheDial(t *testing.T) {
	p := newPool(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Call(ctx, stdioEntry(), nil, "echo", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if got, err := p.Call(t.Context(), stdioEntry(), nil, "echo", map[string]any{"text": "ok"}); err != nil || got != "ok" {
		t.Fatalf("Call = %v, %v", got, err)
	}
}

func TestPoolClosed(t *testing.T) {
	p := NewPool("test", quiet)
	env, _ := spawnEnv(t)
	if _, err := p.Call(t.Context(), stdioEntry(), env, "pid", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := p.Call(t.Context(), stdioEntry(), env, "pid", nil); !errors.Is(err, ErrPoolClosed) {
		t.Fatalf("err = %v, want ErrPoolClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
