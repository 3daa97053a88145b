package openaiapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/allocs"
)

// decodeAll is the endpoint's whole decoding of a body for an agent: the
// chat completion request, then the agent request made of it.
func decodeAll(body []byte) (*request.Request, error) {
	top, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	cr, err := decodeRequest(top)
	if err != nil {
		return nil, err
	}
	ab, err := agentBody(cr, "a", "")
	if err != nil {
		return nil, err
	}
	if !json.Valid(ab) {
		return nil, fmt.Errorf("agentBody made invalid JSON: %s", ab)
	}
	return request.Decode(ab)
}

// FuzzDecode: whatever the body, decoding never panics, fails only with
// the one client error type, and the agent request it makes is valid JSON
// the runner accepts, its userInputPrompt the last user message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"model":"a","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"a","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"x"}]}],"temperature":0.5}`,
		`{"model":"a","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[]},{"role":"user","content":"\u00e9\n"}],"n":1}`,
		`{"model":"a","messages":[{"role":"developer","content":""}]}`,
		`{"model":"a","messages":[{"role":"user","content":{}}]}`,
		`[]`, `{"model":1}`, `{"model":"a","messages":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeAll(body)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("not a client error: %v", err)
			}
			return
		}
		top, _ := decodeTop(body)
		cr, _ := decodeRequest(top)
		last := ""
		for _, m := range cr.Messages {
			if m.Role == "user" {
				last = m.Text
			}
		}
		if got := req.Context.UserInputPrompt; got != last {
			t.Fatalf("userInputPrompt %q, want %q", got, last)
		}
	})
}

// TestDecodeCostBound: bodies built to cost the most per byte allocate at
// most allocFactor bytes per byte (plus allocSlack) on their way to the
// runner's request, or to their error: the cost follows the size, whatever
// the shape. The most per byte are bodies of tiny JSON values, each
// decoded by encoding/json here and by the runner's decoder again.
func TestDecodeCostBound(t *testing.T) {
	const (
		allocFactor = 96
		allocSlack  = 64 << 10
	)
	rep := func(head, item, tail string, n int) []byte {
		return []byte(head + strings.Repeat(item+",", n-1) + item + tail)
	}
	bodies := map[string][]byte{
		"tiny messages":     rep(`{"model":"a","messages":[`, `{"role":"user"}`, `]}`, 50000),
		"tiny turns":        rep(`{"model":"a","messages":[`, `{"role":"a"}`, `,{"role":"user"}]}`, 50000),
		"system messages":   rep(`{"model":"a","messages":[`, `{"role":"system","content":""}`, `,{"role":"user"}]}`, 30000),
		"tiny parts":        rep(`{"model":"a","messages":[{"role":"user","content":[`, `{}`, `]}]}`, 100000),
		"text parts":        rep(`{"model":"a","messages":[{"role":"user","content":[`, `{"type":"text"}`, `]}]}`, 50000),
		"extra members":     rep(`{"model":"a","messages":[{"role":"user"}],`, `"x":1`, `}`, 50000),
		"distinct members":  []byte(`{"model":"a","messages":[{"role":"user"}]` + strings.Repeat(`,"k":[]`, 50000) + `}`),
		"deep extra":        []byte(`{"model":"a","messages":[{"role":"user"}],"x":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`),
		"too deep":          []byte(`{"model":"a","x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`),
		"long escapes":      rep(`{"model":"a","messages":[{"role":"user","content":"`, `\u00e9\n`, `"}]}`, 100000),
		"fields in message": rep(`{"model":"a","messages":[{"role":"user",`, `"x":1`, `}]}`, 50000),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			n := allocs.Of(func() { _, _ = decodeAll(body) })
			limit := uint64(allocFactor*len(body) + allocSlack)
			t.Logf("%d bytes allocated for %d bytes: %.1f per byte", n, len(body), float64(n)/float64(len(body)))
			if n > limit {
				t.Errorf("decoding allocated %d bytes for a %d-byte body (%.0f per byte), more than %d", n, len(body), float64(n)/float64(len(body)), limit)
			}
		})
	}
}
