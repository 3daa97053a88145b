package hub

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
)

// TestQueuedChecked (issue 28 item 3): a message is checked against the
// schemas once, when it is sent: the queued payload carries the mark
// (the exact row), and its delivery decodes it without checking again.
// A payload without the mark (queued by an older gateway) is checked at
// delivery as before: one that breaks the schemas fails its run.
func TestQueuedChecked(t *testing.T) {
	h := newHub(t)
	q, err := h.ready()
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	raw := rawMessage(t, id, "t", handoff.Medium, "hello")
	if _, _, err := h.Submit(t.Context(), alice, raw); err != nil {
		t.Fatal(err)
	}
	rec, err := q.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"message":` + string(raw) + `,"checked":true}`; string(rec.Payload) != want {
		t.Errorf("queued payload\n%s\nwant\n%s", rec.Payload, want)
	}
	if st := wait(t, h, id); st.Status != queue.StatusCompleted || resultText(t, st) != "a1: a1 got hello" {
		t.Errorf("status %s, error %q, result %s", st.Status, st.Error, st.Result)
	}

	// Unmarked and invalid (no metadata.timestamp): checked, refused.
	bad := strings.Replace(string(rawMessage(t, uuid.NewString(), "t", handoff.Medium, "bad")), `"timestamp"`, `"time"`, 1)
	var m struct {
		Metadata struct {
			ID string `json:"message_id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(bad), &m); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]json.RawMessage{"message": json.RawMessage(bad)})
	if _, _, err := q.Enqueue(t.Context(), queue.Envelope{ID: m.Metadata.ID, Recipient: "a1", Payload: body}); err != nil {
		t.Fatal(err)
	}
	st := wait(t, h, m.Metadata.ID)
	if st.Status != queue.StatusDead || !strings.Contains(st.Error, "timestamp") {
		t.Errorf("an unmarked invalid message: status %s, error %q; want DEAD for its missing timestamp", st.Status, st.Error)
	}
}
