package conversation

import (
	"encoding/json"
	"time"
)

// SeedMessage is a stored message in the seed's shape (seed 000 sections
// 2.2, 3 and 8.1).
type SeedMessage struct {
	MessageID string      `json:"messageId"`
	Type      string      `json:"type"`
	Timestamp *time.Time  `json:"timestamp,omitempty"`
	Content   SeedContent `json:"content"`
}

// SeedContent is a seed message's content.
type SeedContent struct {
	Text       string          `json:"text"`
	ToolCalls  json.RawMessage `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
}

// SeedContext is a context in the seed's shape (seed 000 section 8.1),
// with the project's version and owner.
type SeedContext struct {
	ID             string         `json:"contextId"`
	CreationTime   time.Time      `json:"creationTime"`
	LastUpdateTime time.Time      `json:"lastUpdateTime"`
	Version        int64          `json:"version"`
	Owner          string         `json:"owner"`
	Messages       []SeedMessage  `json:"messages"`
	State          map[string]any `json:"state"`
	Metadata       map[string]any `json:"metadata"`
}

// Seed is c in the seed's shape.
func Seed(c *Context) *SeedContext {
	out := &SeedContext{ID: c.ID, CreationTime: c.CreatedAt, LastUpdateTime: c.UpdatedAt, Version: c.Version,
		Owner: c.Owner, Messages: make([]SeedMessage, 0, len(c.Messages)), State: c.State, Metadata: c.Metadata}
	for _, m := range c.Messages {
		sm := SeedMessage{MessageID: m.ID, Type: firstNonEmpty(m.Type, TypeOf(m.Role)),
			Content: SeedContent{Text: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}}
		if !m.Time.IsZero() {
			t := m.Time
			sm.Timestamp = &t
		}
		out.Messages = append(out.Messages, sm)
	}
	return out
}
