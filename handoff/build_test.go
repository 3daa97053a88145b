package handoff

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
)

// at is a fixed clock reading, off UTC and finer than a millisecond.
var at = time.Date(2023, 10, 27, 12, 30, 0, 123456789, time.FixedZone("CEST", 2*3600))

func TestNew(t *testing.T) {
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(at, "reviewer", Recipients{"security"}, Escalation,
		json.RawMessage(escalationData("HIGH", `{}`)), Origin{TaskID: "task-1", CorrelationID: "flow-1"})
	if err != nil {
		t.Fatal(err)
	}
	md := m.Metadata
	if _, err := uuid.Parse(md.MessageID); err != nil {
		t.Errorf("message_id %q: %v", md.MessageID, err)
	}
	if md.ProtocolVersion != ProtocolVersion || md.Priority != Medium || md.TaskID != "task-1" ||
		md.CorrelationID != "flow-1" || md.SenderID != "reviewer" {
		t.Errorf("metadata %+v", md)
	}
	m.Context.WorkflowState = "REVIEW_DONE"
	raw, err := v.Encode(m)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.Contains(raw, []byte(`"timestamp":"2023-10-27T10:30:00.123Z"`)) ||
		!bytes.Contains(raw, []byte(`"recipient_id":"security"`)) || !bytes.Contains(raw, []byte(`"previous_actions":[]`)) {
		t.Errorf("encoded %s", raw)
	}

	// Without an origin the message starts a task; data may be any value.
	n, err := New(at, "a", Recipients{"b", "c"}, StatusUpdate, map[string]any{"status": "DONE"}, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uuid.Parse(n.Metadata.TaskID); err != nil || n.Metadata.CorrelationID != "" || n.Metadata.MessageID == md.MessageID {
		t.Errorf("metadata %+v", n.Metadata)
	}
	if _, err := v.Encode(n); err != nil {
		t.Errorf("Encode: %v", err)
	}
	if _, err := New(at, "a", Recipients{"b"}, StatusUpdate, func() {}, Origin{}); err == nil {
		t.Error("New with data that is not JSON: no error")
	}
	// Encode refuses an invalid message.
	n.Metadata.Priority = "URGENT"
	if _, err := v.Encode(n); err == nil {
		t.Error("Encode of an invalid message: no error")
	}
}

func TestFillKeeps(t *testing.T) {
	exp := at.Add(time.Hour)
	m := &Message{Metadata: Metadata{MessageID: "6f1c2a4e-8b9d-4e3f-a1b2-c3d4e5f60718", Timestamp: at,
		ProtocolVersion: "1.2.0", Priority: Critical, TaskID: "t", ExpirationTime: &exp},
		Payload: Payload{Data: json.RawMessage(`{"a":1}`)}}
	want := *m
	m.Fill(at.Add(time.Minute))
	if !reflect.DeepEqual(m.Metadata, want.Metadata) || string(m.Payload.Data) != `{"a":1}` {
		t.Errorf("Fill changed %+v to %+v", want.Metadata, m.Metadata)
	}
	if m.Metadata.Expired(exp) || !m.Metadata.Expired(exp.Add(time.Nanosecond)) || (&Metadata{}).Expired(exp) {
		t.Error("Expired: wrong at the expiration time")
	}
}

func TestReply(t *testing.T) {
	req, err := New(at, "analyst", Recipients{"profiles"}, RequestInformation,
		json.RawMessage(`{"requested_info_keys": ["plan"]}`), Origin{TaskID: "task-9"})
	if err != nil {
		t.Fatal(err)
	}
	req.Metadata.Priority = High
	req.Context.WorkflowState = "PENDING_DATA"
	r, err := req.Reply(at, "profiles", ProvideInformation, map[string]any{"provided_info": map[string]string{"plan": "gold"}})
	if err != nil {
		t.Fatal(err)
	}
	md := r.Metadata
	if md.SenderID != "profiles" || len(md.RecipientID) != 1 || md.RecipientID[0] != "analyst" || md.TaskID != "task-9" ||
		md.CorrelationID != req.Metadata.MessageID || md.Priority != High || md.MessageID == req.Metadata.MessageID {
		t.Errorf("reply metadata %+v", md)
	}
	if _, err := Decode(mustEncode(t, r)); err != nil {
		t.Errorf("the reply is invalid: %v", err)
	}
	// A correlation id of the request is kept.
	req.Metadata.CorrelationID = "flow-2"
	if r, _ := req.Reply(at, "profiles", StatusUpdate, nil); r.Metadata.CorrelationID != "flow-2" {
		t.Errorf("correlation %q, want flow-2", r.Metadata.CorrelationID)
	}
}

// TestRoundTrip: decoding the seed's example and encoding it again gives
// a message that decodes to the same encoding; extra members survive.
func TestRoundTrip(t *testing.T) {
	raw, err := os.ReadFile("testdata/seed_example.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range [][]byte{raw, message(Escalation, escalationData("LOW", `{"x": [1e400]}`))} {
		m, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		once := mustEncode(t, m)
		m2, err := Decode(once)
		if err != nil {
			t.Fatalf("re-encoded message: %v\n%s", err, once)
		}
		if twice := mustEncode(t, m2); !bytes.Equal(once, twice) {
			t.Errorf("encodings differ:\n%s\n%s", once, twice)
		}
	}
	m, err := Decode(message(Notification, `{"event_type": "E", "message": "m"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(m.Context.PreviousActions[0].Extra["tool"]); got != `"git"` {
		t.Errorf("extra member tool = %s", got)
	}
	if !bytes.Contains(mustEncode(t, m), []byte(`"tool":"git"`)) {
		t.Error("the extra member is lost on encoding")
	}
}

// mustEncode encodes m.
func mustEncode(t *testing.T, m *Message) []byte {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
