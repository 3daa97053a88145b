package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// helperDBEnv, set, makes TestDeliveryThroughKill the process to kill: it
// opens the queue on the database the variable names (a SQLite path or a
// postgres:// URL), starts it, and its handler writes the file that
// helperMarkEnv names and then hangs, ignoring its context, until the
// process is killed.
const (
	helperDBEnv   = "AGENTGW_QUEUE_HELPER_DB"
	helperMarkEnv = "AGENTGW_QUEUE_HELPER_MARK"
)

// killConfig makes an interrupted run's lease (its heartbeat) and River's
// rescue short: the test waits a second, not the default 15 s, for the run
// to be taken back.
func killConfig(h Handler) Config {
	return Config{Handler: h, Heartbeat: testHeartbeat, RunTimeout: time.Second, RescueAfter: 2 * time.Second}
}

// TestDeliveryThroughKill: a message is queued; a second process (this
// test binary again) starts a queue on the same database and is killed
// (SIGKILL) while its handler runs the message; a queue opened again on
// the database runs it to completion, once: it counts one interrupted run
// and no failure. Taking the run back waits for the killed process's
// lease to pass (three heartbeats).
func TestDeliveryThroughKill(t *testing.T) {
	if db := os.Getenv(helperDBEnv); db != "" {
		processToKill(t, db, os.Getenv(helperMarkEnv))
		return
	}
	if testing.Short() {
		t.Skip("starts and kills a second process, then waits for River's rescuer")
	}
	eachBackend(t, deliveryThroughKill)
}

func deliveryThroughKill(t *testing.T, db string) {
	ctx := context.Background()
	var c calls
	handler := func(ctx context.Context, env Envelope) (json.RawMessage, error) {
		return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
	}
	q := openQueue(t, db, killConfig(handler)) // not started until the kill
	enqueue(t, q, Envelope{ID: "survivor", TaskID: "t", Payload: json.RawMessage(`{"n":1}`)})

	mark := filepath.Join(t.TempDir(), "running")
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeliveryThroughKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperDBEnv+"="+db, helperMarkEnv+"="+mark)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if !waitForFile(mark, exited) {
		t.Fatalf("the second process ended before its handler ran: %v\n%s", <-exited, out.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	rec, err := q.Get(ctx, "survivor")
	if err != nil || rec.Status != StatusRunning || rec.Attempts != 1 {
		t.Fatalf("after the kill: %+v, %v", rec, err)
	}

	start(t, q)
	rec = waitFinal(t, q, "survivor")
	if rec.Status != StatusCompleted || string(rec.Result) != "1" || rec.Attempts != 2 || rec.Interruptions != 1 || rec.Failures != 0 {
		t.Errorf("after the restart: %+v", rec)
	}
	if n := c.count("survivor"); n != 1 {
		t.Errorf("the restarted queue ran it %d times", n)
	}
}

// processToKill is the second process.
func processToKill(t *testing.T, db, mark string) {
	var once sync.Once
	q := openQueue(t, db, killConfig(func(ctx context.Context, env Envelope) (json.RawMessage, error) {
		once.Do(func() {
			if err := os.WriteFile(mark, []byte(env.ID), 0o600); err != nil {
				t.Error(err)
			}
		})
		select {} // hang, as a stuck handler or a dying process does, until killed
	}))
	start(t, q)
	select {}
}

// waitForFile polls until path exists; false if the process exits first
// or after a minute (a hang, not a timing assertion).
func waitForFile(path string, exited chan error) bool {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case err := <-exited:
			exited <- err
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return false
}
