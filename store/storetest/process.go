package storetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/store"
)

// helperEnv, set, makes TestAcrossProcesses the second process: it opens
// the database named by the variable, a SQLite path or a postgres:// URL.
const helperEnv = "AGENTGW_STORE_HELPER_DB"

const processKeys = 200

// AcrossProcesses runs this test binary again as a second process on the
// same database, db(t) (a SQLite file, a Postgres schema), both opening
// it with open: it reads a key the first wrote, writes one the first
// reads, and both take the same keys at once, each key won by exactly one
// process. The caller must be the test TestAcrossProcesses, the one the
// second process runs; in that process AcrossProcesses is the second
// process's side.
func AcrossProcesses(t *testing.T, db func(t *testing.T) string, open func(t testing.TB, db string) store.Store) {
	if db := os.Getenv(helperEnv); db != "" {
		helperProcess(t, open(t, db))
		return
	}
	if testing.Short() {
		t.Skip("starts a second process")
	}
	acrossProcesses(t, db(t), open)
}

func acrossProcesses(t *testing.T, db string, open func(t testing.TB, db string) store.Store) {
	ctx := context.Background()
	s := open(t, db)
	must(t, s.Put(ctx, "from-parent", []byte("hello child"), time.Minute))
	for k := range processKeys {
		must(t, s.Put(ctx, fmt.Sprint("k", k), []byte(fmt.Sprint("v", k)), time.Minute))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	must(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Wait for the child to be ready, then race it for the keys.
	if !waitFor(s, "child-ready", exited) {
		t.Fatalf("the second process ended before it was ready: %v\n%s%s", <-exited, stdout.String(), stderr.String())
	}
	mine := takeAll(t, s, true)
	if err := <-exited; err != nil {
		t.Fatalf("second process: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if v, err := s.Get(ctx, "from-child"); err != nil || string(v) != "hello parent" {
		t.Errorf("Get(from-child) = %q, %v", v, err)
	}
	if _, err := s.Get(ctx, "from-parent"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the child's Take left from-parent: %v", err)
	}
	theirs := map[string]bool{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if key, ok := strings.CutPrefix(sc.Text(), "took "); ok {
			theirs[key] = true
		}
	}
	for k := range processKeys {
		key := fmt.Sprint("k", k)
		if mine[key] == theirs[key] {
			t.Errorf("key %s: taken by parent %v, by child %v; want exactly one", key, mine[key], theirs[key])
		}
	}
	t.Logf("parent took %d keys, child %d", len(mine), len(theirs))
}

// helperProcess is the second process: it takes from-parent, puts
// from-child, takes every key and prints the ones it won.
func helperProcess(t *testing.T, s store.Store) {
	ctx := context.Background()
	v, err := s.Take(ctx, "from-parent")
	if err != nil || string(v) != "hello child" {
		t.Fatalf("Take(from-parent) = %q, %v", v, err)
	}
	must(t, s.Put(ctx, "child-ready", nil, time.Minute))
	for key := range takeAll(t, s, false) {
		fmt.Printf("took %s\n", key)
	}
	must(t, s.Put(ctx, "from-child", []byte("hello parent"), time.Minute))
}

// takeAll takes every key with four goroutines, in reverse order when
// reverse is set, and returns the keys won.
func takeAll(t *testing.T, s store.Store, reverse bool) map[string]bool {
	ctx := context.Background()
	var mu sync.Mutex
	won := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < processKeys; i += 4 {
				k := i
				if reverse {
					k = processKeys - 1 - i
				}
				key := fmt.Sprint("k", k)
				v, err := s.Take(ctx, key)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil || string(v) != fmt.Sprint("v", k) {
					t.Errorf("Take(%s) = %q, %v", key, v, err)
					continue
				}
				mu.Lock()
				won[key] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return won
}

// waitFor polls s until key exists; it returns false if the process exits
// first, and gives up after a minute (a hang, not a timing assertion).
func waitFor(s store.Store, key string, exited chan error) bool {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := s.Get(context.Background(), key); err == nil {
			return true
		}
		select {
		case err := <-exited:
			exited <- err // for the caller's report
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return false
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
