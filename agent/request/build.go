package request

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// Build makes the Request that Decode makes of an agent request holding
// only agent, command (when not ""), contextVariables, messages and the
// pass-through members extra, for a caller that has these values already
// decoded (the OpenAI endpoint): body is that request's JSON, kept for a
// remote agent. messages are the raw messages, each checked as Decode
// checks them; extra must be sorted by key with no key repeated, and hold
// none of the protocol's fields.
func Build(agent, command string, vars *contextvars.Set, messages []json.RawMessage, extra []llm.Field, body []byte) (*Request, error) {
	r := &Request{Body: body, Agent: agent, Command: command, Context: vars}
	if r.Context == nil {
		r.Context = &contextvars.Set{}
	}
	r.Messages = make([]llm.Message, 0, len(messages)) // as Decode's of "messages":[]
	for i, it := range messages {
		msg, err := decodeMessage(i, it)
		if err != nil {
			return nil, err
		}
		r.Messages = append(r.Messages, msg)
	}
	for i, f := range extra {
		if i > 0 && extra[i-1].Key >= f.Key {
			return nil, fmt.Errorf("request: pass-through members not sorted: %q after %q", f.Key, extra[i-1].Key)
		}
		if slices.Contains(protocolFields, f.Key) {
			return nil, fmt.Errorf("request: the protocol's field %q passed through", f.Key)
		}
	}
	if len(extra) > 0 {
		r.Extra = extra
	}
	return r, nil
}
