package handoff

import (
	"bytes"
	"encoding/json"
	"fmt"
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
