package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
)

// fakeKeys is a KeyCheck over keys' states, counting its reads by id.
type fakeKeys struct {
	mu    sync.Mutex
	state map[string]string // "live", "revoked", or "down" (once, then live)
	reads map[string]int
}

func (f *fakeKeys) check(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[id]++
	switch f.state[id] {
	case "live":
		return true, nil
	case "down":
		f.state[id] = "live"
		return false, errors.New("the keys' store is down")
	}
	return false, nil
}

func (f *fakeKeys) set(id, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state[id] = state
}

func (f *fakeKeys) read(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[id]
}

// queuedKey is the key id the queued payload of message id carries.
func queuedKey(t *testing.T, h *Hub, id string) string {
	t.Helper()
	rec, err := h.queue.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var p payload
	if err := json.Unmarshal(rec.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p.KeyID
}

// TestHandoffKeyChecked: a message submitted with a stored key carries
// the key's id in its queued payload, and so does the message its run
// sends on (relay's); each delivery reads the key first. Revoked, the
// message is DEAD, code FORBIDDEN, nothing ran. A key that cannot be read
// leaves the message to be tried again, not counted (retry_count 0): it
// completes once the key is read. A message without a key is never
// checked; a gateway that reads no keys fails a keyed message's run.
func TestHandoffKeyChecked(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		keys := &fakeKeys{state: map[string]string{"k1": "live", "k2": "down"}, reads: map[string]int{}}
		h := newHubWith(t, db, scopeAgents, Config{Keys: keys.check}, queue.Config{})
		ctx := t.Context()
		carol := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k1", Scope: &access.Scope{Agents: []string{"relay", "a1/take"}}}
		dan := access.Caller{Owner: access.MemberOwner("dan"), KeyID: "k2", Scope: &access.Scope{Agents: []string{"*"}}}

		// Live: through relay to a1, the key's id carried along.
		st, _, err := h.Submit(ctx, carol, scopedMessage(t, "relay", "live", "a1", nil))
		if err != nil {
			t.Fatal(err)
		}
		chain := waitTask(t, h, "live", 2)
		for _, m := range chain.Messages {
			if m.Status != queue.StatusCompleted || queuedKey(t, h, m.MessageID) != "k1" {
				t.Errorf("message %s of the live key's chain: %s, key %q", m.MessageID, m.Status, queuedKey(t, h, m.MessageID))
			}
		}
		if n := keys.read("k1"); n != 2 {
			t.Errorf("the key was read %d times for 2 deliveries", n)
		}

		// Revoked: refused before anything runs.
		keys.set("k1", "revoked")
		st, _, err = h.Submit(ctx, carol, scopedMessage(t, "relay", "revoked", "a1", nil))
		if err != nil {
			t.Fatal(err)
		}
		got := wait(t, h, st.MessageID)
		if s := fmt.Sprintf("%s %s %q %d/%d", got.Status, got.Code, got.Error, got.Attempts, got.Failures); s !=
			`DEAD FORBIDDEN "FORBIDDEN: the key that sent this hand-off was revoked" 1/0` || got.Result != nil {
			t.Errorf("the revoked key's message: %s, result %s", s, got.Result)
		}
		if task := waitTask(t, h, "revoked", 1); len(task.Messages) != 1 {
			t.Errorf("relay ran for a revoked key: %+v", task.Messages)
		}

		// Not readable: tried again, and delivered.
		st, _, err = h.Submit(ctx, dan, scopedMessage(t, "a2", "down", "hi", nil))
		if err != nil {
			t.Fatal(err)
		}
		got = wait(t, h, st.MessageID)
		if got.Status != queue.StatusCompleted || got.Failures != 0 || got.Attempts != 2 || resultText(t, got) != "a2: a2 got hi" || keys.read("k2") != 2 {
			t.Errorf("the message whose key could not be read at first: %+v, %d reads", got, keys.read("k2"))
		}

		// No key: not checked.
		st, _, err = h.Submit(ctx, alice, scopedMessage(t, "a2", "token", "hi", nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := wait(t, h, st.MessageID); got.Status != queue.StatusCompleted || queuedKey(t, h, st.MessageID) != "" || keys.read("") != 0 {
			t.Errorf("the token's message: %+v", got)
		}
	})
}

// TestHandoffKeyWithoutKeys: a gateway that reads no keys (Config.Keys
// nil) fails the run of a message sent with a key: nothing runs.
func TestHandoffKeyWithoutKeys(t *testing.T) {
	h := newHubWith(t, "", scopeAgents, Config{}, queue.Config{})
	carol := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k1", Scope: &access.Scope{Agents: []string{"a2"}}}
	st, _, err := h.Submit(t.Context(), carol, scopedMessage(t, "a2", "nokeys", "hi", nil))
	if err != nil {
		t.Fatal(err)
	}
	got := wait(t, h, st.MessageID)
	want := "hand-off " + st.MessageID + " was sent with the stored key k1, and this gateway reads no keys (server.keys is off): nothing ran"
	if got.Status != queue.StatusDead || got.Error != want || got.Code != "" || got.Result != nil {
		t.Errorf("%s %q %q, want DEAD %q", got.Status, got.Code, got.Error, want)
	}
}
