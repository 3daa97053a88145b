package handoff

import (
	"encoding/json"
	"fmt"
	"time"
)

// PreviousAction is one entry of context.previous_actions. Members beyond
// the three the protocol names are kept in Extra.
type PreviousAction struct {
	ActionType string                     `json:"action_type"`
	Details    string                     `json:"details"`
	Timestamp  time.Time                  `json:"timestamp"`
	Extra      map[string]json.RawMessage `json:"-"`
}

// MarshalJSON encodes a with its extra members.
func (a PreviousAction) MarshalJSON() ([]byte, error) {
	return joinMembers(a.Extra, map[string]any{
		"action_type": a.ActionType, "details": a.Details, "timestamp": a.Timestamp})
}

// UnmarshalJSON decodes the named members (names match exactly) and keeps
// the others in Extra.
func (a *PreviousAction) UnmarshalJSON(raw []byte) error {
	extra, err := splitMembers(raw, map[string]any{
		"action_type": &a.ActionType, "details": &a.Details, "timestamp": (*textTime)(&a.Timestamp)})
	if err != nil {
		return fmt.Errorf("previous action: %w", err)
	}
	a.Extra = extra
	return nil
}

// UserInteraction is one entry of context.user_interaction_history.
// Members beyond the four the protocol names are kept in Extra.
type UserInteraction struct {
	Type      string                     `json:"type"`
	Sender    string                     `json:"sender"`
	Content   string                     `json:"content"`
	Timestamp time.Time                  `json:"timestamp"`
	Extra     map[string]json.RawMessage `json:"-"`
}

// MarshalJSON encodes u with its extra members.
func (u UserInteraction) MarshalJSON() ([]byte, error) {
	return joinMembers(u.Extra, map[string]any{
		"type": u.Type, "sender": u.Sender, "content": u.Content, "timestamp": u.Timestamp})
}

// UnmarshalJSON decodes the named members (names match exactly) and keeps
// the others in Extra.
func (u *UserInteraction) UnmarshalJSON(raw []byte) error {
	extra, err := splitMembers(raw, map[string]any{
		"type": &u.Type, "sender": &u.Sender, "content": &u.Content, "timestamp": (*textTime)(&u.Timestamp)})
	if err != nil {
		return fmt.Errorf("user interaction: %w", err)
	}
	u.Extra = extra
	return nil
}

// splitMembers decodes the object raw: each member named in known into
// its target, the others returned as they are.
func splitMembers(raw []byte, known map[string]any) (map[string]json.RawMessage, error) {
	var members, extra map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, err
	}
	for k, v := range members {
		if target, ok := known[k]; ok {
			if err := json.Unmarshal(v, target); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			continue
		}
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[k] = v
	}
	return extra, nil
}

// joinMembers encodes one object of extra and known, known winning.
func joinMembers(extra map[string]json.RawMessage, known map[string]any) ([]byte, error) {
	all := make(map[string]any, len(extra)+len(known))
	for k, v := range extra {
		all[k] = v
	}
	for k, v := range known {
		all[k] = v
	}
	return json.Marshal(all)
}
