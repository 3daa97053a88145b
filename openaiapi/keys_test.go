package openaiapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/server"
)

// fakeKeys authenticates the secrets of a map: what the server hands the
// endpoint is the access.Caller, which is what these tests are about (the
// stored keys themselves are package keys' and the server's tests).
type fakeKeys struct {
	server.Keys
	callers map[string]access.Caller
}

func (f fakeKeys) Authenticate(_ context.Context, secret string) (access.Caller, bool, error) {
	c, ok := f.callers[secret]
	return c, ok, nil
}

// TestKeyScope: a stored key reaches through /v1 only the agents and
// commands of its scope (as models "agent", "agent/command") and the
// passthrough models its models admit; anything else is 403 in OpenAI's
// shape, and the upstream gets no request. GET /v1/models lists only what
// the key may use.
func TestKeyScope(t *testing.T) {
	scoped := access.Caller{Owner: access.MemberOwner("alice"), KeyID: "k1", User: "alice",
		Scope: &access.Scope{Agents: []string{"hello/version", "coder"}, Models: []string{"gpt-4o*"}}}
	gw := start(t, setup{passthrough: true, keys: fakeKeys{callers: map[string]access.Caller{
		"alice-key": scoped, "all-key": {Owner: access.TeamOwner("ops"), Scope: &access.Scope{Agents: []string{"*"}, Models: []string{"*"}}},
	}}})
	const forbidden = `{"error":{"message":"this key may not use the model \"%s\" (GET /v1/models lists the agents this key may use; ask an admin to widen the key's agents or models)","type":"invalid_request_error","param":null,"code":"forbidden"}}` + "\n"
	for _, tc := range []struct {
		key, model string
		status     int
	}{
		{"alice-key", "hello/version", 200},
		{"alice-key", "hello", 403},
		{"alice-key", "files", 403},
		{"alice-key", "gpt-4o-mini", 200},
		{"alice-key", "gpt-5", 403},
		{"all-key", "gpt-5", 200},
		{"all-key", "hello", 200},
		{"nope", "hello", 401},
	} {
		before := gw.up.Count()
		resp, body := gw.post(t, "/v1/chat/completions", `{"model":"`+tc.model+`","messages":[{"role":"user","content":"hi"}]}`,
			"Authorization", "Bearer "+tc.key)
		if resp.StatusCode != tc.status {
			t.Errorf("%s on %s: %d %s, want %d", tc.key, tc.model, resp.StatusCode, body, tc.status)
			continue
		}
		if tc.status == 403 {
			if want := fmtForbidden(forbidden, tc.model); body != want {
				t.Errorf("%s on %s:\n%s\nwant\n%s", tc.key, tc.model, body, want)
			}
			if gw.up.Count() != before {
				t.Errorf("%s on %s: a refused request reached the upstream", tc.key, tc.model)
			}
		}
	}
	ids := func(key string) []string {
		_, body := gw.get(t, "/v1/models", "Authorization", "Bearer "+key)
		var l struct{ Data []struct{ ID string } }
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range l.Data {
			out = append(out, m.ID)
		}
		return out
	}
	if got := ids("alice-key"); !slices.Equal(got, []string{"coder", "hello/version"}) {
		t.Errorf("alice's models: %v", got)
	}
	if got := ids("all-key"); len(got) < 3 {
		t.Errorf("every model: %v", got)
	}
	if resp, _ := gw.get(t, "/v1/models/hello", "Authorization", "Bearer alice-key"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/models/hello with alice's key: %d", resp.StatusCode)
	}
	if resp, _ := gw.get(t, "/v1/models/hello/version", "Authorization", "Bearer alice-key"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/models/hello/version with alice's key: %d", resp.StatusCode)
	}
}

func fmtForbidden(format, model string) string { return fmt.Sprintf(format, model) }
