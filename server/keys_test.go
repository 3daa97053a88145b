package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/keys"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// withKeys serves the stored keys of a fresh SQLite database, logging to
// log, with the static admin token "admin-tok"; it returns the store, for
// the tests to make keys as `agentgw keys` would.
func withKeys(t *testing.T, log *slog.Logger) (option, *keys.Store) {
	t.Helper()
	db, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	st, err := keys.NewSQLite(context.Background(), db.DB(), keys.Options{ReadDB: db.ReadDB()})
	if err != nil {
		t.Fatal(err)
	}
	return withServer(func(c *server.Config) {
		c.Keys = keys.API{Store: st}
		c.AdminTokens = []string{"admin-tok"}
		c.Logger = log
		c.Handoffs = struct{ server.Handoffs }{}
		c.Schedules = struct{ server.Schedules }{}
	}), st
}

// sendKey sends a request with a bearer credential (none when cred is "").
func sendKey(t *testing.T, method, url, cred, body string) response {
	t.Helper()
	var req *http.Request
	var err error
	if body != "" {
		req, err = http.NewRequest(method, url, strings.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
	} else {
		req, err = http.NewRequest(method, url, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	return do(t, req)
}

// createdKey is the answer of POST /keys and of a rotation.
type createdKey struct {
	ID     string   `json:"id"`
	Hint   string   `json:"hint"`
	Secret string   `json:"secret"`
	Owner  string   `json:"owner"`
	Agents []string `json:"agents"`
}

func createKey(t *testing.T, gw *gateway, cred, body string) createdKey {
	t.Helper()
	r := sendKey(t, http.MethodPost, gw.URL+"/keys", cred, body)
	if r.status != http.StatusCreated || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("POST /keys: %d (Cache-Control %q) %s", r.status, r.header.Get("Cache-Control"), r.body)
	}
	var k createdKey
	if err := json.Unmarshal(r.body, &k); err != nil || !keys.LooksLikeSecret(k.Secret) {
		t.Fatalf("POST /keys answered %s (%v)", r.body, err)
	}
	return k
}

// TestKeyAttacks: what a stored key may not do. A key calls only the
// agents and commands of its scope (FORBIDDEN, nothing sent upstream), a
// key without the admin flag gets FORBIDDEN on /keys, a key limited to
// some agents cannot go around its scope through /mcp (hand-offs and
// schedules check their targets: TestScopedKeyRoutes), a revoked or rotated-away secret is UNAUTHORIZED on its next
// request, and no secret is ever in a log line, a listing or an upstream
// request.
func TestKeyAttacks(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	opt, _ := withKeys(t, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	gw := newGateway(t, opt, withUpstream(replay(t, "normal.sse")))

	alice := createKey(t, gw, "admin-tok", `{"user":"alice","agents":["greeter","chat/greet"],"name":"alice's laptop"}`)
	root := createKey(t, gw, "admin-tok", `{"team":"ops","agents":["*"],"models":["*"],"admin":true}`)
	secrets := []string{alice.Secret, root.Secret}
	if alice.Owner != "member:alice" || root.Owner != "team:ops" || alice.Hint != alice.Secret[:8] {
		t.Errorf("keys: %+v %+v", alice, root)
	}

	// In scope: the agent and the one command of the other.
	readStream(t, sendKey(t, http.MethodPost, gw.URL+"/agents/greeter", alice.Secret, `{}`), "[DONE]")
	readStream(t, sendKey(t, http.MethodPost, gw.URL+"/agents/chat", alice.Secret, `{"command":"greet"}`), "[DONE]")
	calls := gw.up.Count()
	if calls != 2 {
		t.Fatalf("%d upstream calls, want 2", calls)
	}
	for _, rec := range gw.up.Requests() {
		for name, vs := range rec.Header {
			for _, v := range vs {
				if strings.Contains(v, alice.Secret[len(keys.Prefix):]) {
					t.Errorf("the upstream saw the key in %s", name)
				}
			}
		}
	}
	// Out of scope: FORBIDDEN in the protocol's shape, nothing upstream.
	for _, tc := range []struct{ path, body string }{
		{"/agents/chat", `{}`},
		{"/agents/chat", `{"command":"templated"}`},
		{"/agent", `{"agent":"hello"}`},
		{"/agents/chat/prompt", `{}`},
	} {
		e := errorResponse(t, sendKey(t, http.MethodPost, gw.URL+tc.path, alice.Secret, tc.body), 403, apierr.CodeForbidden)
		if !strings.Contains(e.Message, "may not call") {
			t.Errorf("%s %s: %q", tc.path, tc.body, e.Message)
		}
	}
	errorResponse(t, sendKey(t, http.MethodGet, gw.URL+"/agents/hello", alice.Secret, ""), 403, apierr.CodeForbidden)
	if gw.up.Count() != calls {
		t.Errorf("a call out of the key's scope reached the upstream")
	}
	var list server.AgentList
	r := sendKey(t, http.MethodGet, gw.URL+"/agents", alice.Secret, "")
	if json.Unmarshal(r.body, &list) != nil || len(list.Agents) != 2 || list.Agents[0].Name != "chat" ||
		len(list.Agents[0].Commands) != 1 || list.Agents[0].Commands[0].Name != "greet" || list.Agents[1].Name != "greeter" {
		t.Errorf("GET /agents with alice's key, want chat (greet only) and greeter: %s", r.body)
	}

	// The admin API and the routes around a scope.
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/keys", ""}, {"POST", "/keys", `{"user":"alice","agents":["*"],"admin":true}`},
		{"GET", "/keys/" + alice.ID, ""}, {"POST", "/keys/" + root.ID + "/rotate", ""}, {"DELETE", "/keys/" + root.ID, ""},
	} {
		errorResponse(t, sendKey(t, r.method, gw.URL+r.path, alice.Secret, r.body), 403, apierr.CodeForbidden)
	}

	// The admin key lists the keys; no secret in the listing.
	r = sendKey(t, http.MethodGet, gw.URL+"/keys", root.Secret, "")
	var listed struct{ Keys []createdKey }
	if r.status != 200 || json.Unmarshal(r.body, &listed) != nil || len(listed.Keys) != 2 || listed.Keys[0].ID != alice.ID {
		t.Fatalf("GET /keys: %d %s", r.status, r.body)
	}
	if strings.Contains(string(r.body), `"secret"`) {
		t.Errorf("GET /keys shows a secret: %s", r.body)
	}

	// Rotation: the old secret is refused at once, the new one works.
	rot := sendKey(t, http.MethodPost, gw.URL+"/keys/"+alice.ID+"/rotate", root.Secret, "")
	var rotated createdKey
	if rot.status != 200 || json.Unmarshal(rot.body, &rotated) != nil || rotated.ID != alice.ID || rotated.Secret == alice.Secret {
		t.Fatalf("rotate: %d %s", rot.status, rot.body)
	}
	secrets = append(secrets, rotated.Secret)
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/agents/greeter", alice.Secret, `{}`), 401, apierr.CodeUnauthorized)
	readStream(t, sendKey(t, http.MethodPost, gw.URL+"/agents/greeter", rotated.Secret, `{}`), "[DONE]")

	// Revocation: refused on the next request; the key stays listed.
	if r := sendKey(t, http.MethodDelete, gw.URL+"/keys/"+alice.ID, "admin-tok", ""); r.status != 200 || !strings.Contains(string(r.body), `"revokedAt"`) {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/agents/greeter", rotated.Secret, `{}`), 401, apierr.CodeUnauthorized)
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/keys/"+alice.ID+"/rotate", root.Secret, ""), 409, apierr.CodeConflict)
	errorResponse(t, sendKey(t, http.MethodDelete, gw.URL+"/keys/nope", root.Secret, ""), 404, apierr.CodeNotFound)
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/keys", root.Secret, `{"agents":["*"]}`), 400, apierr.CodeBadRequest)
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/keys", root.Secret, `{"user":"a","agnets":["*"]}`), 400, apierr.CodeBadRequest)
	// A made-up secret of the right shape, and the static tokens as before.
	errorResponse(t, sendKey(t, http.MethodGet, gw.URL+"/agents", keys.Prefix+strings.Repeat("A", 43), ""), 401, apierr.CodeUnauthorized)
	if r := sendKey(t, http.MethodGet, gw.URL+"/keys", "admin-tok", ""); r.status != 200 {
		t.Errorf("the static admin token on /keys: %d", r.status)
	}

	if logs.String() == "" {
		t.Fatal("nothing logged: the test shows nothing about the logs")
	}
	for _, s := range secrets {
		if strings.Contains(logs.String(), s[len(keys.Prefix):]) {
			t.Errorf("a key's secret is in the log:\n%s", logs.String())
		}
	}
}

// TestKeyOwnership: what a key creates belongs to its user (or team), not
// to the key: another key of the same user sees it, a rotated key keeps
// it, another user's key does not see it.
func TestKeyOwnership(t *testing.T) {
	t.Parallel()
	opt, st := withKeys(t, nil)
	gw := newGateway(t, opt, withContexts(testclock.New(time.Now())))
	ctx := context.Background()
	mk := func(k keys.Key) (keys.Key, string) {
		k.Agents = []string{"*"}
		key, secret, err := st.Create(ctx, k, "operator")
		if err != nil {
			t.Fatal(err)
		}
		return key, secret
	}
	a1, s1 := mk(keys.Key{User: "alice", Team: "platform"})
	_, s2 := mk(keys.Key{User: "alice"})
	_, bob := mk(keys.Key{User: "bob", Team: "platform"})
	_, team := mk(keys.Key{Team: "platform"})

	r := sendKey(t, http.MethodPost, gw.URL+"/contexts", s1, `{"contextId":"c1"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("POST /contexts: %d %s", r.status, r.body)
	}
	if r := sendKey(t, http.MethodGet, gw.URL+"/contexts/c1", s2, ""); r.status != 200 {
		t.Errorf("alice's other key: %d %s", r.status, r.body)
	}
	_, s1b, err := st.Rotate(ctx, a1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r := sendKey(t, http.MethodGet, gw.URL+"/contexts/c1", s1b, ""); r.status != 200 {
		t.Errorf("alice's rotated key: %d %s", r.status, r.body)
	}
	for _, other := range []string{bob, team} {
		if r := sendKey(t, http.MethodGet, gw.URL+"/contexts/c1", other, ""); r.status != http.StatusNotFound {
			t.Errorf("another identity's key sees alice's context: %d %s", r.status, r.body)
		}
	}
	// A team key owns what it makes for the team.
	if r := sendKey(t, http.MethodPost, gw.URL+"/contexts", team, `{"contextId":"c2"}`); r.status != http.StatusCreated {
		t.Fatalf("POST /contexts: %d %s", r.status, r.body)
	}
	if r := sendKey(t, http.MethodGet, gw.URL+"/contexts/c2", bob, ""); r.status != http.StatusNotFound {
		t.Errorf("a member's key sees the team key's context: %d", r.status)
	}
}

// BenchmarkAuth is what a request's credential costs, GET /agents through
// the whole handler: no inbound auth, a static token (compared in memory),
// a stored key on SQLite (one read of the store).
func BenchmarkAuth(b *testing.B) {
	for _, tc := range []struct {
		name string
		keys bool
	}{{"none", false}, {"token", false}, {"key", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var opts []option
			cred := ""
			switch tc.name {
			case "token":
				opts, cred = append(opts, withAuthTokens("gw-token")), "gw-token"
			case "key":
				db, err := sqlitestore.Open(filepath.Join(b.TempDir(), "keys.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				st, err := keys.NewSQLite(context.Background(), db.DB(), keys.Options{ReadDB: db.ReadDB()})
				if err != nil {
					b.Fatal(err)
				}
				_, cred, err = st.Create(context.Background(), keys.Key{User: "alice", Agents: []string{"*"}}, "operator")
				if err != nil {
					b.Fatal(err)
				}
				opts = append(opts, withServer(func(c *server.Config) { c.Keys = keys.API{Store: st} }))
			}
			h, _ := newHandler(b, opts...)
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "/agents", nil)
				if cred != "" {
					req.Header.Set("Authorization", "Bearer "+cred)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
