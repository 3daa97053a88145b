package openaiapi

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/apierr"
)

// FuzzAgentRequest: the agent request built from a chat completion
// request (agentRequest) is the one request.Decode makes of its agent
// body (agentBody), field for field, or the same error; so building it
// directly keeps every check of the agent protocol. The built request has
// no body unless it took the decode: the handler gives a remote agent's
// request agentBody's.
func FuzzAgentRequest(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s), "bench", "")
		f.Add([]byte(s), "a\"gent", "fix")
	}
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"system","content":"be\u2028 brief"},{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":"again <&>"},{"role":"system","content":"last"}],"temperature":0.5,"a":null,"z":{"b":[1,"\ud800"]}}`,
		`{"messages":[{"ROLE":"user","Content":"x","role":"user"},{"role":"user","content":null}],"top_p":1,"top_p":2}`,
		`{"messages":[{"role":"assistant","content":"only"}]}`,
		`{"messages":[{"role":"developer","content":"d"},{"role":"user","content":"\u0000\u001f"}],"user":"u"}`,
	} {
		f.Add([]byte(s), "bench", "")
	}
	f.Fuzz(func(t *testing.T, body []byte, agentName, command string) {
		top, err := decodeTop(body)
		if err != nil {
			return
		}
		cr, err := decodeRequest(top)
		if err != nil {
			return
		}
		got, gerr := agentRequest(cr, agentName, command)
		var want *request.Request
		ab, werr := agentBody(cr, agentName, command)
		if werr == nil {
			want, werr = request.Decode(ab)
		}
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: agentRequest error %v, decode error %v", body, gerr, werr)
		}
		if werr != nil {
			var ge, we *apierr.Error
			if !errors.As(gerr, &ge) || !errors.As(werr, &we) || ge.Code != we.Code || ge.Message != we.Message {
				t.Fatalf("%q: agentRequest error %v, decode error %v", body, gerr, werr)
			}
			return
		}
		if got.Body == nil {
			got.Body = ab
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n built   %#v\n decoded %#v\n context %#v\n vs      %#v", body, got, want, got.Context, want.Context)
		}
	})
}
