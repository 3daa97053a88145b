package conversation

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestParseMessage: a client's message in the project's shape or the
// seed's, as stored, and back in the seed's shape.
func TestParseMessage(t *testing.T) {
	cases := []struct {
		in, stored, seed string
		err              error
	}{
		{`{"role":"user","content":"hi"}`, `{"role":"user","content":"hi"}`,
			`{"messageId":"","type":"USER_INPUT","content":{"text":"hi"}}`, nil},
		{`{"messageId":"msg_002","type":"MODEL_RESPONSE","timestamp":"2025-12-01T10:00:00Z","sender":{"id":"m","type":"MODEL"},"content":{"text":"t","toolCalls":[{"id":"c1"}],"finishReason":"TOOL_CALLS"}}`,
			`{"role":"assistant","content":"t","toolCalls":[{"id":"c1"}]}`,
			`{"messageId":"msg_002","type":"MODEL_RESPONSE","content":{"text":"t","toolCalls":[{"id":"c1"}]}}`, nil},
		{`{"type":"TOOL_CALL_RESPONSE","content":{"results":[{"callId":"c1","status":"SUCCESS"}],"toolCallId":"c1"}}`,
			`{"role":"tool","content":"{\"results\":[{\"callId\":\"c1\",\"status\":\"SUCCESS\"}],\"toolCallId\":\"c1\"}","toolCallId":"c1"}`,
			`{"messageId":"","type":"TOOL_CALL_RESPONSE","content":{"text":"{\"results\":[{\"callId\":\"c1\",\"status\":\"SUCCESS\"}],\"toolCallId\":\"c1\"}","toolCallId":"c1"}}`, nil},
		{`{"type":"SYSTEM_MESSAGE","content":{"text":"s"}}`, `{"role":"system","content":"s"}`, `{"messageId":"","type":"SYSTEM_MESSAGE","content":{"text":"s"}}`, nil},
		{`{"type":"USER_INPUT","role":"assistant","content":{"text":"x"}}`, "", "", ErrBadOperation},
		{`{"type":"INSTRUCTION","content":{"text":"x"}}`, "", "", ErrBadOperation},
		{`{"role":"bot","content":"x"}`, "", "", ErrBadOperation},
		{`{"role":"user","content":1}`, "", "", ErrBadOperation},
		{`{"messageId":"a b","role":"user"}`, "", "", ErrBadOperation},
		{`[]`, "", "", ErrBadOperation},
	}
	for _, tc := range cases {
		m, err := ParseMessage(json.RawMessage(tc.in))
		if !errors.Is(err, tc.err) {
			t.Fatalf("%s: err %v, want %v", tc.in, err, tc.err)
		}
		if err != nil {
			continue
		}
		if got, _ := json.Marshal(m); string(got) != tc.stored {
			t.Errorf("%s: stored %s, want %s", tc.in, got, tc.stored)
		}
		if got, _ := json.Marshal(Seed(&Context{Messages: []Message{m}}).Messages[0]); string(got) != tc.seed {
			t.Errorf("%s: seed %s, want %s", tc.in, got, tc.seed)
		}
	}
}

// FuzzDecodeUpdate: any JSON body decodes to an operation Apply knows or
// is ErrBadOperation; never a panic.
func FuzzDecodeUpdate(f *testing.F) {
	for _, s := range []string{
		`{"type":"CONTEXT_UPDATE","content":{"operation":"UPDATE_STATE","path":"userPreferences.language","value":"英文"},"version":2}`,
		`{"type":"CONTEXT_UPDATE","content":{"operation":"CLEAR_HISTORY","filter":{"beforeTimestamp":"2025-12-01T09:00:00Z"}}}`,
		`{"operation":"ADD_MESSAGE","message":{"type":"USER_INPUT","content":{"text":"x"}}}`,
		`{"operation":"UPDATE_STATE","state":{"a":1}}`, `{"operation":"UPDATE_STATE","path":"a..b","value":1}`, `{}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		u, err := DecodeUpdate(body)
		if err != nil {
			if !errors.Is(err, ErrBadOperation) {
				t.Fatalf("%q: %v is not ErrBadOperation", body, err)
			}
			return
		}
		switch u.Op.Op {
		case OpUpdateState, OpClearHistory, OpAddMessage:
		default:
			t.Fatalf("%q: operation %q", body, u.Op.Op)
		}
		if u.Op.Path != "" {
			_ = SetPath(map[string]any{"a": []any{1.0}}, u.Op.Path, 1.0)
		}
	})
}
