package server_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/conversation/binding"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
)

// withConversations keeps conversations in a memory store on clock, for
// the runner and the /contexts API alike.
func withConversations(clock *testclock.Clock) option {
	repo := conversation.NewStoreRepo(store.NewMemory(), conversation.Config{Now: clock.Now})
	return func(s *setup) {
		s.srv.Contexts = repo
		s.run.Conversations = binding.New(repo)
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
// upstream request carries the stored turns in docs/protocol.md §9
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
		got := decodeUpstream(t, gw.up.Requests()[i]).fields["messages"]
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
	if n := gw.up.Count(); n != len(turns) {
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
	if n := gw.up.Count(); n != 0 {
		t.Fatalf("the upstream got %d requests", n)
	}
}

// TestConversationSeedShape: a conversation's messages keep the seed's
// messageId, type and timestamp, made when first written (or the
// client's id), and GET ?format=seed answers the seed's shape (seed 000
// section 8.1) while the project's shape, and the prompt the model gets
// from the stored turns, stay byte for byte what they were.
func TestConversationSeedShape(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var n int
	repo := conversation.NewStoreRepo(store.NewMemory(), conversation.Config{Now: clock.Now,
		NewID: func() string { n++; return "msg_" + strconv.Itoa(n) }})
	gw := newGateway(t, func(s *setup) { s.srv.Contexts, s.run.Conversations = repo, binding.New(repo) }, withUpstream(replay(t, "normal.sse")))
	const answer = `{"role":"assistant","content":"Hello, \"world\"\n"}`
	const system = `{"role":"system","content":"You are a test assistant."}`
	user := []string{server.HeaderUser, "alice"}

	if s := readStream(t, post(t, gw.URL+"/agents/chat", chatTurn("conv-s", "alice", "hi")), "[DONE]"); s.text() != "Hello, \"world\"\n" {
		t.Fatalf("turn 1: %q", s.text())
	}
	clock.Advance(time.Minute)
	status, body := call(t, gw, "PATCH", "/contexts/conv-s", `{"type":"CONTEXT_UPDATE","content":{"operation":"ADD_MESSAGE","message":`+
		`{"messageId":"msg_plugin","type":"USER_INPUT","content":{"text":"你好"}}}}`, user...)
	if want := `{"contextId":"conv-s","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:05:05Z","version":3,"owner":"user:alice","messages":[` +
		`{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"你好"}],"state":{},"metadata":{}}` + "\n"; status != 200 || body != want {
		t.Fatalf("PATCH = %d\n%s\nwant\n%s", status, body, want)
	}
	if s := readStream(t, post(t, gw.URL+"/agents/chat", chatTurn("conv-s", "alice", "more")), "[DONE]"); s.text() != "Hello, \"world\"\n" {
		t.Fatalf("turn 2: %q", s.text())
	}
	got := decodeUpstream(t, gw.up.Requests()[1]).fields["messages"]
	if want := `[` + system + `,{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"你好"},{"role":"user","content":"more"}]`; string(got) != want {
		t.Fatalf("turn 2 upstream messages\n%s\nwant\n%s", got, want)
	}

	resp := send(t, "GET", gw.URL+"/contexts/conv-s?format=seed", "", nil, user...)
	want := `{"contextId":"conv-s","creationTime":"2026-01-02T03:04:05Z","lastUpdateTime":"2026-01-02T03:05:05Z","version":4,"owner":"user:alice","messages":[` +
		`{"messageId":"msg_1","type":"USER_INPUT","timestamp":"2026-01-02T03:04:05Z","content":{"text":"hi"}},` +
		`{"messageId":"msg_2","type":"MODEL_RESPONSE","timestamp":"2026-01-02T03:04:05Z","content":{"text":"Hello, \"world\"\n"}},` +
		`{"messageId":"msg_plugin","type":"USER_INPUT","timestamp":"2026-01-02T03:05:05Z","content":{"text":"你好"}},` +
		`{"messageId":"msg_3","type":"USER_INPUT","timestamp":"2026-01-02T03:05:05Z","content":{"text":"more"}},` +
		`{"messageId":"msg_4","type":"MODEL_RESPONSE","timestamp":"2026-01-02T03:05:05Z","content":{"text":"Hello, \"world\"\n"}}],"state":{},"metadata":{}}` + "\n"
	if resp.status != 200 || string(resp.body) != want {
		t.Fatalf("GET ?format=seed = %d\n%s\nwant\n%s", resp.status, resp.body, want)
	}
	status, body = call(t, gw, "GET", "/contexts/conv-s", "", user...)
	if want := `{"contextId":"conv-s","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:05:05Z","version":4,"owner":"user:alice","messages":[` +
		`{"role":"user","content":"hi"},` + answer + `,{"role":"user","content":"你好"},{"role":"user","content":"more"},` + answer + `],"state":{},"metadata":{}}` + "\n"; status != 200 || body != want {
		t.Fatalf("GET = %d\n%s\nwant\n%s", status, body, want)
	}
	// Trimming by time: the seed's CLEAR_HISTORY before the plugin's message.
	status, body = call(t, gw, "PATCH", "/contexts/conv-s?format=seed", `{"operation":"CLEAR_HISTORY","filter":{"beforeTimestamp":"2026-01-02T03:05:00Z"},"version":4}`, user...)
	if want := `{"contextId":"conv-s","creationTime":"2026-01-02T03:04:05Z","lastUpdateTime":"2026-01-02T03:05:05Z","version":5,"owner":"user:alice","messages":[` +
		`{"messageId":"msg_plugin","type":"USER_INPUT","timestamp":"T","content":{"text":"你好"}},` +
		`{"messageId":"msg_3","type":"USER_INPUT","timestamp":"T","content":{"text":"more"}},` +
		`{"messageId":"msg_4","type":"MODEL_RESPONSE","timestamp":"T","content":{"text":"Hello, \"world\"\n"}}],"state":{},"metadata":{}}` + "\n"; status != 200 || body != want {
		t.Fatalf("PATCH ?format=seed = %d\n%s\nwant\n%s", status, body, want)
	}
	status, body = call(t, gw, "GET", "/contexts/conv-s?format=xml", "", user...)
	if want := errBody("BAD_REQUEST", `format=\"xml\" is not a context format`, "client", false,
		"leave format out for the project's shape, or send format=seed for the seed's (seed 000 section 8.1)"); status != 400 || body != want {
		t.Fatalf("format=xml: %d %s", status, body)
	}
}
