package handoff

import (
	"encoding/json"
	"fmt"
	"time"
)

// textTime decodes a JSON string holding an RFC 3339 time, escapes and
// all: time.Time's own JSON decoding does not unescape (go.dev/issue/47353),
// so "10\u003a30" would be refused though the schema accepts it.
type textTime time.Time

// UnmarshalJSON implements json.Unmarshaler.
func (t *textTime) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	return (*time.Time)(t).UnmarshalText([]byte(s))
}

// UnmarshalJSON decodes metadata, its times as textTime.
func (m *Metadata) UnmarshalJSON(raw []byte) error {
	type plain Metadata
	var aux struct {
		plain
		Timestamp      textTime  `json:"timestamp"`
		ExpirationTime *textTime `json:"expiration_time"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	*m = Metadata(aux.plain)
	m.Timestamp = time.Time(aux.Timestamp)
	if aux.ExpirationTime != nil {
		t := time.Time(*aux.ExpirationTime)
		m.ExpirationTime = &t
	}
	return nil
}
