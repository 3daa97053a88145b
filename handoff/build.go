package handoff

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Origin is what a new message carries over from the run that sends it.
// Both are optional.
type Origin struct {
	// TaskID is the task the run belongs to; without one the message
	// starts a new task.
	TaskID string
	// CorrelationID links the messages of one flow.
	CorrelationID string
}

// New builds a message of type t from sender to the recipients, carrying
// data as payload.data and origin's task and correlation ids, and fills it
// (see Fill). data is encoded to JSON, a json.RawMessage used as it is; nil
// is {}. Context and instructions are left for the caller to set.
func New(now time.Time, sender string, to Recipients, t Type, data any, origin Origin) (*Message, error) {
	raw, err := encodeData(data)
	if err != nil {
		return nil, fmt.Errorf("handoff: new %s message: %w", t, err)
	}
	m := &Message{
		Metadata: Metadata{SenderID: sender, RecipientID: to,
			TaskID: origin.TaskID, CorrelationID: origin.CorrelationID},
		Payload: Payload{Type: t, Data: raw},
	}
	m.Fill(now)
	return m, nil
}

// Reply builds the answer to m of type t, from the agent from to m's
// sender, in m's task, with m's priority, workflow state and correlation id
// (m's own message id when it has none, so that the two stay linked), and
// fills it.
func (m *Message) Reply(now time.Time, from string, t Type, data any) (*Message, error) {
	corr := m.Metadata.CorrelationID
	if corr == "" {
		corr = m.Metadata.MessageID
	}
	r, err := New(now, from, Recipients{m.Metadata.SenderID}, t, data,
		Origin{TaskID: m.Metadata.TaskID, CorrelationID: corr})
	if err != nil {
		return nil, err
	}
	r.Metadata.Priority = m.Metadata.Priority
	r.Context.WorkflowState = m.Context.WorkflowState
	return r, nil
}

// Fill sets, where they are empty, what a sender does not choose: the
// message_id (a random UUID), the timestamp (now in UTC, to the
// millisecond), the protocol_version (ProtocolVersion), the priority
// (MEDIUM), the task_id (a random UUID: the message starts a task),
// previous_actions ([]) and the data ({}). What is set is kept.
func (m *Message) Fill(now time.Time) {
	md := &m.Metadata
	if md.MessageID == "" {
		md.MessageID = uuid.NewString()
	}
	if md.Timestamp.IsZero() {
		md.Timestamp = now.UTC().Truncate(time.Millisecond)
	}
	if md.ProtocolVersion == "" {
		md.ProtocolVersion = ProtocolVersion
	}
	if md.Priority == "" {
		md.Priority = Medium
	}
	if md.TaskID == "" {
		md.TaskID = uuid.NewString()
	}
	if m.Context.PreviousActions == nil {
		m.Context.PreviousActions = []PreviousAction{}
	}
	if len(m.Payload.Data) == 0 {
		m.Payload.Data = json.RawMessage("{}")
	}
}

// encodeData encodes a message's data; nil is {}.
func encodeData(data any) (json.RawMessage, error) {
	switch d := data.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return d, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encoding the data: %w", err)
	}
	return raw, nil
}
