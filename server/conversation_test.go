package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/contexts"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
)

// withConversations keeps conversations in a memory store on clock, for
// the runner and the /contexts API alike.
func withConversations(clock *testclock.Clock) option {
	repo := contexts.NewStoreRepo(store.NewMemory(), contexts.Config{Now: clock.Now})
	return func(s *setup) {
		s.srv.Contexts = repo
		s.run.Contexts = repo
	}
}

// chatTurn is an agent request of user on a conversation.
func chatTurn(ctx, user, prompt string, extra ...string) string {
	vars := `{"name":"userInputPrompt","value":` + string(quote(prompt)) + `}`
	if user != "" {
		vars += `,{"name":"userInfo","value":{"id":"` + user + `"}}`
	}
	body := `{"contextVariables":[` + vars + `]`
	if ctx != "" {
		body += `,"contextId":"` + ctx + `"`
	}
	return body + strings.Join(extra, "") + `}`
}

// TestConversationTurns: a conversation continued turn by turn: each
// upstream request carries the stored turns in PROTOCOL.md section 8
// order, the context holds exactly the turns, a request's own messages
// win, and another caller, a deleted context, a malformed id and a stale
// If-Match are refused before the stream.
func TestConversationTurns(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withConversations(clock), withUpstream(replay(t, "normal.sse")))
	const answer = `{"role":"assistant","content":"Hello, \"world\"\n"}`
	const system = `{"role":"system","content":"You are a test assistant."}`
	turns := []struct {
		body, want string
		header     []string
	}{
		{chatTurn("conv-1", "alice", "hi"), `[` + system + `,{"role":"user","content":"hi"}]`, nil},
		{chatTurn("conv-1", "alice", "more"), `[` + system + `,{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"more"}]`, []string{"If-Match", "2"}},
		// The request's own messages win over the stored ones.
		{chatTurn("conv-1", "alice", "again", `,"messages":[{"role":"user","content":"mine"}]`), `[` + system + `,{"role":"user","content":"mine"},{"role":"user","content":"again"}]`, nil},
		// A plugin that only sends variables names the context as one.
		{`{"contextVariables":[{"name":"userInputPrompt","value":"v"},{"name":"userInfo","value":{"id":"alice"}},{"name":"context","value":"conv-1"}]}`,
			`[` + system + `,{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"more"},` + answer + `,{"role":"user","content":"again"},` + answer + `,{"role":"user","content":"v"}]`, nil},
	}
	for i, turn := range turns {
		r := post(t, gw.URL+"/agents/chat", turn.body, turn.header...)
		if s := readStream(t, r, "[DONE]"); s.text() != "Hello, \"world\"\n" {
			t.Fatalf("turn %d: text %q", i, s.text())
		}
		got := decodeUpstream(t, gw.up.requests[i]).fields["messages"]
		if string(got) != turn.want {
			t.Fatalf("turn %d: upstream messages\n%s\nwant\n%s", i, got, turn.want)
		}
	}
	status, body := call(t, gw, "GET", "/contexts/conv-1", "", server.HeaderUser, "alice")
	want := `{"contextId":"conv-1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":5,"owner":"user:alice","messages":[` +
		`{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"more"},` + answer + `,{"role":"user","content":"again"},` + answer +
		`,{"role":"user","content":"v"},` + answer + `],"state":{},"metadata":{}}` + "\n"
	if status != 200 || body != want {
		t.Fatalf("GET = %d\n%s\nwant\n%s", status, body, want)
	}
	refused := []struct {
		name, body string
		header     []string
		status     int
		want       string
	}{
		{"another user", chatTurn("conv-1", "bob", "x"), nil, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, notFoundHint)},
		{"anonymous", chatTurn("conv-1", "", "x"), nil, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, notFoundHint)},
		{"malformed", chatTurn("conv 1", "alice", "x"), nil, 400,
			errBody("BAD_REQUEST", `context id \"conv 1\" is malformed`, "client", false, "use a UUID or 1 to 128 characters of A-Z a-z 0-9 . _ : -")},
		{"stale version", chatTurn("conv-1", "alice", "x"), []string{"If-Match", "4"}, 409,
			errBody("CONTEXT_CONFLICT", `context \"conv-1\" has changed since that version`, "client", true, conflictHint)},
	}
	for _, tc := range refused {
		status, body := call(t, gw, "POST", "/agents/chat", tc.body, tc.header...)
		if status != tc.status || body != tc.want {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, status, body, tc.status, tc.want)
		}
	}
	if status, _ := call(t, gw, "DELETE", "/contexts/conv-1", "", server.HeaderUser, "alice"); status != 204 {
		t.Fatalf("DELETE = %d", status)
	}
	status, body = call(t, gw, "POST", "/agents/chat", chatTurn("conv-1", "alice", "x"))
	if want := errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, notFoundHint); status != 404 || body != want {
		t.Fatalf("deleted: %d %s", status, body)
	}
	if n := gw.up.count(); n != len(turns) {
		t.Fatalf("the upstream got %d requests, want %d: a refused request reached it", n, len(turns))
	}
}

// TestConversationHugeID: a megabyte of context id, as the field or as the
// context variable, is a 400 naming it clipped, before any store access or
// upstream call.
func TestConversationHugeID(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withConversations(clock), withUpstream(replay(t, "normal.sse")))
	huge := strings.Repeat("x", 1<<20)
	for _, body := range []string{
		chatTurn(huge, "alice", "hi"),
		`{"contextVariables":[{"name":"userInputPrompt","value":"hi"},{"name":"context","value":"` + huge + `"}]}`,
	} {
		status, got := call(t, gw, "POST", "/agents/chat", body)
		want := errBody("BAD_REQUEST", `context id \"`+strings.Repeat("x", 256)+`…(1048576 bytes)\" is malformed`, "client", false,
			"use a UUID or 1 to 128 characters of A-Z a-z 0-9 . _ : -")
		if status != 400 || got != want {
			t.Fatalf("= %d %.400s", status, got)
		}
	}
	if n := gw.up.count(); n != 0 {
		t.Fatalf("the upstream got %d requests", n)
	}
}
