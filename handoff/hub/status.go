package hub

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/agentgw/agentgw/handoff/queue"
)

// Status is a message as GET /handoffs/{id} shows it: where it is, what
// its delivery produced, and the message itself.
type Status struct {
	MessageID     string          `json:"message_id"`
	TaskID        string          `json:"task_id,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Status        queue.Status    `json:"status"`
	Recipients    []string        `json:"recipients"`
	Result        json.RawMessage `json:"result,omitempty"`
	Error         string          `json:"error,omitempty"`
	// Code is why the message is DEAD before it ran: HANDOFF_LIMIT, a
	// bound of its task (handoffs.maxHops, handoffs.maxMessagesPerTask).
	Code string `json:"code,omitempty"`
	// Hops is the message's place in its chain of messages caused by one
	// another (1: none caused it).
	Hops          int       `json:"hops,omitempty"`
	Attempts      int       `json:"attempts"`
	Failures      int       `json:"failures"`
	EscalatedFrom string    `json:"escalated_from,omitempty"`
	EscalatedTo   string    `json:"escalated_to,omitempty"`
	FallbackRan   bool      `json:"fallback_ran,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// StartedAt is when the message's last run started (the queue took
	// it): started_at − created_at is its time from queued to started.
	StartedAt  time.Time       `json:"started_at,omitzero"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	Message    json.RawMessage `json:"message,omitempty"`
}

// TaskStatus is a task as GET /tasks/{id} shows it: its messages in the
// order they were queued.
type TaskStatus struct {
	TaskID   string    `json:"task_id"`
	Messages []*Status `json:"messages"`
}

// newStatus is the status of a queue record.
func newStatus(rec queue.Record) *Status {
	s := &Status{MessageID: rec.ID, TaskID: rec.TaskID, CorrelationID: rec.CorrelationID, Status: rec.Status,
		Recipients: strings.Split(rec.Recipient, ","), Result: rec.Result, Error: rec.Error, Code: rec.Code, Hops: rec.Hops,
		Attempts: rec.Attempts, Failures: rec.Failures, EscalatedFrom: rec.EscalatedFrom, EscalatedTo: rec.EscalatedTo,
		FallbackRan: rec.FallbackRan, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt}
	var p payload
	if json.Unmarshal(rec.Payload, &p) == nil {
		s.Message = p.Message
	}
	return s
}
