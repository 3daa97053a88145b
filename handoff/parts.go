package handoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Recipients is metadata.recipient_id: one agent id (or the name of a
// pool), or a list of agent ids forming a pool. One id encodes as a JSON
// string, several as a list.
type Recipients []string

// IsPool reports whether r lists more than one agent.
func (r Recipients) IsPool() bool { return len(r) > 1 }

// MarshalJSON encodes one id as a string and any other number as a list.
func (r Recipients) MarshalJSON() ([]byte, error) {
	switch len(r) {
	case 0:
		return []byte("[]"), nil
	case 1:
		return json.Marshal(r[0])
	}
	return json.Marshal([]string(r))
}

// UnmarshalJSON accepts a string or a list of strings.
func (r *Recipients) UnmarshalJSON(raw []byte) error {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		var one string
		if err := json.Unmarshal(t, &one); err != nil {
			return fmt.Errorf("recipient_id: %w", err)
		}
		*r = Recipients{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("recipient_id: want a string or a list of strings: %w", err)
	}
	*r = list
	return nil
}

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

// FailureHandlingStrategy says what happens when the receiver cannot
// complete: retry, then escalate, else fall back.
type FailureHandlingStrategy struct {
	// RetryCount is how many times to retry; nil leaves it to the gateway.
	RetryCount *int `json:"retry_count,omitempty"`
	// EscalateTo is the agent (or pool) that gets the task after the retries.
	EscalateTo string `json:"escalate_to,omitempty"`
	// FallbackAction is what to do when there is nobody to escalate to.
	FallbackAction string `json:"fallback_action,omitempty"`
}

// UnmarshalJSON decodes f, accepting retry_count written as any integral
// JSON number (3, 3.0, 3e0), as JSON Schema's "integer" does.
func (f *FailureHandlingStrategy) UnmarshalJSON(raw []byte) error {
	type plain FailureHandlingStrategy
	var aux struct {
		plain
		RetryCount *json.Number `json:"retry_count"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return fmt.Errorf("failure_handling_strategy: %w", err)
	}
	*f = FailureHandlingStrategy(aux.plain)
	if aux.RetryCount != nil {
		n, err := integer(*aux.RetryCount)
		if err != nil {
			return fmt.Errorf("failure_handling_strategy: retry_count: %w", err)
		}
		f.RetryCount = &n
	}
	return nil
}

// integer converts an integral JSON number within ±2^31 to an int.
func integer(n json.Number) (int, error) {
	if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
		return int(i), nil
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
		return 0, fmt.Errorf("%s is not an integer in range", n)
	}
	return int(x), nil
}
