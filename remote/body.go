package remote

import (
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// agentKey is inserted when a body names no agent.
const agentKey = `"agent":`

// SetAgent returns the agent request body with its top-level "agent"
// member set to name, without decoding or re-encoding anything else: the
// value of every top-level "agent" member (a repeated key included, in any
// spelling of its escapes) is replaced in place, and a body without one
// gets `"agent":<name>` as its first member. Every other byte is kept as
// the plugin sent it. body must be a JSON object.
func SetAgent(body []byte, name string) ([]byte, error) {
	value, err := json.Marshal(name)
	if err != nil {
		return nil, fmt.Errorf("encoding agent name: %w", err)
	}
	s := jsonscan.Scanner{Data: body, AcceptInvalidUTF8: true}
	if err := s.OpenObject(); err != nil {
		return nil, fmt.Errorf("setting the agent of the request body: %w", err)
	}
	open := s.Pos
	out := make([]byte, 0, len(body)+len(agentKey)+len(value)+1)
	copied, found, members := 0, false, false
	for first := true; ; first = false {
		m, ok, err := s.NextMember(first)
		if err != nil {
			return nil, fmt.Errorf("setting the agent of the request body: %w", err)
		}
		if !ok {
			break
		}
		members = true
		if isKey(body[m.KeyStart:m.KeyEnd], "agent") {
			out = append(append(out, body[copied:m.ValueStart]...), value...)
			copied, found = m.ValueEnd, true
		}
	}
	if err := s.End(); err != nil {
		return nil, fmt.Errorf("setting the agent of the request body: %w", err)
	}
	if found {
		return append(out, body[copied:]...), nil
	}
	out = append(append(append(out, body[:open]...), agentKey...), value...)
	if members {
		out = append(out, ',')
	}
	return append(out, body[open:]...), nil
}

// isKey reports whether the JSON string key (quotes included) decodes to
// name.
func isKey(key []byte, name string) bool {
	if string(key[1:len(key)-1]) == name {
		return true
	}
	var tmp [32]byte
	decoded, ok := jsonscan.AppendUnquoted(tmp[:0], key)
	return ok && string(decoded) == name
}
