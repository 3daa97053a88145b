package handoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Message is one hand-off message.
type Message struct {
	Metadata     Metadata     `json:"metadata"`
	Context      Context      `json:"context"`
	Payload      Payload      `json:"payload"`
	Instructions Instructions `json:"instructions"`
}

// Metadata is about the message itself and its way through the system.
type Metadata struct {
	// MessageID is a UUID, unique per message: the key for de-duplication.
	MessageID string `json:"message_id"`
	// Timestamp is when the message was created.
	Timestamp time.Time `json:"timestamp"`
	// ProtocolVersion is the protocol version the sender speaks.
	ProtocolVersion string `json:"protocol_version"`
	// SenderID is the sending agent.
	SenderID string `json:"sender_id"`
	// RecipientID is one agent (or a named pool), or a list forming a pool.
	RecipientID Recipients `json:"recipient_id"`
	// CorrelationID links the messages of one business flow (optional).
	CorrelationID string `json:"correlation_id,omitempty"`
	// TaskID is the task the message belongs to.
	TaskID string `json:"task_id"`
	// Priority orders processing.
	Priority Priority `json:"priority"`
	// ExpirationTime, when set, is when the message stops being processed.
	ExpirationTime *time.Time `json:"expiration_time,omitempty"`
}

// Expired reports whether the message has an expiration time and now is
// past it.
func (m *Metadata) Expired(now time.Time) bool {
	return m.ExpirationTime != nil && now.After(*m.ExpirationTime)
}

// Context is the task's background and state, so that the receiver
// understands it quickly.
type Context struct {
	// WorkflowState is where the task stands, e.g. "AWAITING_APPROVAL".
	WorkflowState string `json:"workflow_state"`
	// PreviousActions are the key steps the sender took before handing off.
	// It is always encoded, as [] when empty.
	PreviousActions []PreviousAction `json:"previous_actions"`
	// HistoricalDataSummary sums up earlier data instead of sending it all.
	HistoricalDataSummary string `json:"historical_data_summary,omitempty"`
	// UserInteractionHistory holds the key exchanges with the user.
	UserInteractionHistory []UserInteraction `json:"user_interaction_history,omitempty"`
}

// MarshalJSON encodes c with previous_actions as [] when it is nil: the
// protocol requires the field.
func (c Context) MarshalJSON() ([]byte, error) {
	type plain Context
	if c.PreviousActions == nil {
		c.PreviousActions = []PreviousAction{}
	}
	return json.Marshal(plain(c))
}

// Payload is the hand-off's type and its data.
type Payload struct {
	// Type is payload.handoff_type.
	Type Type `json:"handoff_type"`
	// Data is payload.data, a JSON object shaped by Type's data schema.
	// Decode sets it to the data as validated: compact, members sorted.
	Data json.RawMessage `json:"data"`
}

// DataMap decodes Data into a map, numbers as json.Number so that none
// loses precision.
func (p *Payload) DataMap() (map[string]any, error) {
	var m map[string]any
	if err := p.DecodeData(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeData decodes Data into v, a pointer such as a struct of the
// type's data fields; numbers that land in an interface are json.Number.
func (p *Payload) DecodeData(v any) error {
	dec := json.NewDecoder(bytes.NewReader(p.Data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding the %s data: %w", p.Type, err)
	}
	return nil
}

// Instructions say what the receiver should do and what is expected.
type Instructions struct {
	// NextStepsSuggestion is the sender's suggestion of what to do next.
	NextStepsSuggestion string `json:"next_steps_suggestion,omitempty"`
	// RequiredActions must be carried out by the receiver.
	RequiredActions []string `json:"required_actions,omitempty"`
	// Constraints limit the receiver's work: a JSON object such as
	// {"time_limit": "PT2H"}, kept as written.
	Constraints json.RawMessage `json:"constraints,omitempty"`
	// SuccessCriteria say when the receiver's part is done.
	SuccessCriteria string `json:"success_criteria,omitempty"`
	// FailureHandling says what happens when the receiver cannot complete.
	FailureHandling *FailureHandlingStrategy `json:"failure_handling_strategy,omitempty"`
}
