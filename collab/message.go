package collab

import (
	"time"

	"github.com/agentgw/agentgw/actions"
)

// Type is a collaboration message's type (the seed's MessageType).
type Type string

// The message types, lower case as the seed writes them.
const (
	// TypeRequest asks another agent for its help.
	TypeRequest Type = "request"
	// TypeResponse is the other agent's answer.
	TypeResponse Type = "response"
	// TypeProgress is a part of the answer on its way.
	TypeProgress Type = "progress"
	// TypeCancel withdraws a request.
	TypeCancel Type = "cancel"
)

// Message is one collaboration message (the seed's CollaborationMessage).
// Content is one of RequestContent, ProgressContent, ResponseContent and
// CancelContent for the messages an Asker makes; Metadata is never nil.
// Every message but the request names the request it belongs to in
// Metadata["request_id"].
type Message struct {
	ID        string         `json:"id"`
	Type      Type           `json:"type"`
	FromAgent string         `json:"from_agent"`
	ToAgent   string         `json:"to_agent"`
	Content   any            `json:"content"`
	Metadata  map[string]any `json:"metadata"`
	Timestamp time.Time      `json:"timestamp"`
}

// Response statuses, as the seed's handler answers.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Cancel reasons.
const (
	// ReasonTimeout: the request's timeout, or the caller's own deadline,
	// passed before the answer.
	ReasonTimeout = "timeout"
	// ReasonCanceled: the caller went away (the user disconnected).
	ReasonCanceled = "cancelled"
)

// RequestContent is what a request asks: the question, given to the other
// agent's command as the user's input.
type RequestContent struct {
	Command  string `json:"command"`
	Question string `json:"question"`
}

// ProgressContent is a line of the answer as it comes.
type ProgressContent struct {
	Text string `json:"text"`
}

// ResponseContent is the answer: with StatusSuccess, Result is the other
// agent's whole text; with StatusError, Error says what failed and Result
// holds what text came before. Actions are the confirm and tree actions
// the other agent's command sent.
type ResponseContent struct {
	Status  string            `json:"status"`
	Result  string            `json:"result"`
	Error   *ErrorContent     `json:"error,omitempty"`
	Actions []*actions.Action `json:"actions,omitempty"`
}

// ErrorContent is the error of a response: the protocol's error code and
// its message.
type ErrorContent struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// CancelContent says why a request was withdrawn.
type CancelContent struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Text is the message's text: a request's question, a progress line, a
// response's result or a cancel's message.
func (m Message) Text() string {
	switch c := m.Content.(type) {
	case RequestContent:
		return c.Question
	case ProgressContent:
		return c.Text
	case ResponseContent:
		return c.Result
	case CancelContent:
		return c.Message
	}
	return ""
}

// Response is the message's content as a response, false when it is none.
func (m Message) Response() (ResponseContent, bool) {
	c, ok := m.Content.(ResponseContent)
	return c, ok && m.Type == TypeResponse
}
