package handoff

import "strings"

// ProtocolVersion is the hand-off protocol version this package speaks and
// writes into the messages it builds. The schema accepts any 1.x.y.
const ProtocolVersion = "1.0.0"

// Type is a message's payload.handoff_type: what kind of hand-off it is.
type Type string

// The hand-off types of the protocol.
const (
	// TaskTransfer hands a whole task over.
	TaskTransfer Type = "TASK_TRANSFER"
	// RequestInformation asks for specific information.
	RequestInformation Type = "REQUEST_INFORMATION"
	// ProvideInformation answers a request, or shares information unasked.
	ProvideInformation Type = "PROVIDE_INFORMATION"
	// Escalation hands a task up: the sender cannot handle it.
	Escalation Type = "ESCALATION"
	// Notification only says that an event happened.
	Notification Type = "NOTIFICATION"
	// StatusUpdate reports a task's progress or state.
	StatusUpdate Type = "STATUS_UPDATE"
	// ApprovalRequest asks for approval of an action.
	ApprovalRequest Type = "APPROVAL_REQUEST"
)

// Types returns every hand-off type, in the protocol's order.
func Types() []Type {
	return []Type{TaskTransfer, RequestInformation, ProvideInformation, Escalation,
		Notification, StatusUpdate, ApprovalRequest}
}

// Valid reports whether t is one of the protocol's types.
func (t Type) Valid() bool {
	switch t {
	case TaskTransfer, RequestInformation, ProvideInformation, Escalation,
		Notification, StatusUpdate, ApprovalRequest:
		return true
	}
	return false
}

// SchemaName is the base name of t's data schema under schemas/data:
// "escalation" for ESCALATION.
func (t Type) SchemaName() string { return strings.ToLower(string(t)) }

// Priority is a message's metadata.priority.
type Priority string

// The priorities, lowest first.
const (
	Low      Priority = "LOW"
	Medium   Priority = "MEDIUM"
	High     Priority = "HIGH"
	Critical Priority = "CRITICAL"
)

// Priorities returns every priority, lowest first.
func Priorities() []Priority { return []Priority{Low, Medium, High, Critical} }

// Rank orders priorities: 1 for LOW up to 4 for CRITICAL, so that a higher
// rank is handled first; 0 for anything else.
func (p Priority) Rank() int {
	switch p {
	case Low:
		return 1
	case Medium:
		return 2
	case High:
		return 3
	case Critical:
		return 4
	}
	return 0
}

// Valid reports whether p is one of the protocol's priorities.
func (p Priority) Valid() bool { return p.Rank() > 0 }
