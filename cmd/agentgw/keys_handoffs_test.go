package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// keyHandoff is a NOTIFICATION to to, in task task, saying text, with the
// failure_handling_strategy strategy (JSON).
func keyHandoff(id, task, to, text, strategy string) string {
	return fmt.Sprintf(`{"metadata":{"message_id":%q,"timestamp":"2026-01-02T03:04:05Z","protocol_version":"1.0.0","sender_id":"ci",`+
		`"recipient_id":%q,"task_id":%q,"priority":"LOW"},"context":{"workflow_state":"CI","previous_actions":[]},`+
		`"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":%q}},`+
		`"instructions":{"failure_handling_strategy":%s}}`, id, to, task, text, strategy)
}

// refusedView is what GET /handoffs/{id} says of a message's end.
type refusedView struct {
	Status      string `json:"status"`
	Code        string `json:"code"`
	Error       string `json:"error"`
	Attempts    int    `json:"attempts"`
	Failures    int    `json:"failures"`
	FallbackRan bool   `json:"fallback_ran"`
	EscalatedTo string `json:"escalated_to"`
	Result      struct{ Agent, Text string }
}

// TestHandoffKeyRevoked (the attack): hand-offs queued with a stored key
// whose delivery is held back (the one worker busy with an admin's
// hand-off whose model waits at a gate) are not run once the key is
// revoked: the one POSTed (with retries and a fallback to vault), the one
// a run of a request with the key sent (a handoff step), and the one a
// schedule made with the key sent (handoffTo) all end DEAD, code
// FORBIDDEN, "FORBIDDEN: the key that sent this hand-off was revoked",
// after one attempt and no failure, neither retried nor run by their
// fallback; vault's model gets no request for them. Another key's message,
// queued before that key is rotated, is delivered (rotation keeps the id);
// a message sent with the static admin token is delivered. On SQLite and on
// PostgreSQL.
func TestHandoffKeyRevoked(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) { testHandoffKeyRevoked(t, backend) })
	}
}

func testHandoffKeyRevoked(t *testing.T, backend string) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/gate.yaml", "name: gate\nhandoffs: [{type: NOTIFICATION}]\n"+
		"commands: [{name: default, messageTemplates: [{role: system, template: You hold the gate.}]}]\n")
	writeFile(t, dir, "agents/vault.yaml", "name: vault\nhandoffs: [{type: NOTIFICATION}]\n"+
		"commands: [{name: default, messageTemplates: [{role: system, template: You are the vault.}]}]\n")
	writeFile(t, dir, "agents/sender.yaml", "name: sender\ncommands:\n  - name: default\n    steps:\n      - id: tell\n"+
		"        handoff: {to: vault, type: NOTIFICATION, retryCount: 0}\n        with: {event_type: x, message: from-a-run}\n")
	writeFile(t, dir, "agents/clock.yaml", "name: clock\ncommands: [{name: default, reply: from-a-schedule}]\n")

	gate := llmtest.NewGate()
	t.Cleanup(gate.Release)
	var mu sync.Mutex
	var vaultGot []string // the data.message of each request vault's model got
	marker := regexp.MustCompile(`"message":"([^"]+)"`)
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch r.Messages[0].Content {
		case "You hold the gate.":
			reply := llmtest.Text("opened")
			reply.Before = []llmtest.Event{llmtest.Wait(gate)}
			return reply
		case "You are the vault.":
			m := marker.FindStringSubmatch(r.LastMessage().Content)
			mu.Lock()
			if m != nil {
				vaultGot = append(vaultGot, m[1])
			} else {
				vaultGot = append(vaultGot, r.LastMessage().Content)
			}
			mu.Unlock()
			return llmtest.Text("the secret is 42")
		}
		return llmtest.Text("?")
	}))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Server.Keys = true
	cfg.Handoffs.Workers = 1 // the gate's run holds it: what is queued after waits
	if backend == "postgres" {
		cfg.Store.URL = pgtest.Schema(t)
	}
	base := startGateway(t, cfg, map[string]string{"AGENTGW_ADMIN_TOKENS": "admin-token"})
	admin := []string{"Authorization", "Bearer admin-token"}
	mkKey := func(body string) keyJSON {
		t.Helper()
		var k keyJSON
		if code := jsonCall(t, "POST", base+"/keys", body, &k, admin...); code != http.StatusCreated {
			t.Fatalf("POST /keys %s: %d", body, code)
		}
		return k
	}
	mallory := mkKey(`{"user":"mallory","agents":["gate","vault","sender","clock"]}`)
	bob := mkKey(`{"user":"bob","agents":["vault"]}`)
	post := func(body string, cred ...string) string {
		t.Helper()
		var st handoffStatus
		if code := jsonCall(t, "POST", base+"/handoffs", body, &st, cred...); code != http.StatusAccepted || st.Status != "QUEUED" {
			t.Fatalf("POST /handoffs: %d %+v", code, st)
		}
		return st.MessageID
	}
	id := func(n int) string { return fmt.Sprintf("7f1f0a52-9a5e-4b8e-8f00-0000000e%04d", n) }

	// The admin's hand-off to gate takes the one worker and holds it.
	held := post(keyHandoff(id(1), "task-gate", "gate", "hold", `{"retry_count":0}`), admin...)
	select {
	case <-gate.Reached():
	case <-time.After(20 * time.Second):
		t.Fatal("the gate's run never reached its model")
	}

	// Queued with mallory's key, three ways.
	posted := post(keyHandoff(id(2), "task-posted", "vault", "posted", `{"retry_count":2,"fallback_action":"vault"}`),
		"Authorization", "Bearer "+mallory.Secret)
	code, body := keyCall(t, "POST", base+"/agents/sender", mallory.Secret, `{"contextVariables":[{"name":"userInputPrompt","value":"go"}]}`)
	m := regexp.MustCompile(`message ([0-9a-f-]{36})`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("the request with a handoff step: %d %s", code, body)
	}
	fromRun := m[1]
	var sc scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"tell","every":"1h","agent":"clock","handoffTo":"vault"}`, &sc,
		"Authorization", "Bearer "+mallory.Secret); code != http.StatusCreated {
		t.Fatalf("POST /schedules: %d", code)
	}
	if code := jsonCall(t, "POST", base+"/schedules/"+sc.ID+"/run", "", nil, "Authorization", "Bearer "+mallory.Secret); code >= 300 {
		t.Fatalf("POST /schedules/%s/run: %d", sc.ID, code)
	}
	var fromSchedule string
	for deadline := time.Now().Add(20 * time.Second); fromSchedule == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var got struct {
			Runs []struct {
				Status string
				Result struct{ HandoffID string }
			}
		}
		jsonCall(t, "GET", base+"/schedules/"+sc.ID, "", &got, admin...)
		if len(got.Runs) > 0 && got.Runs[0].Status == "SUCCESS" {
			fromSchedule = got.Runs[0].Result.HandoffID
		}
	}
	if fromSchedule == "" {
		t.Fatal("the schedule's run handed nothing off")
	}
	// Queued with bob's key, which is then rotated; and with the token.
	rotated := post(keyHandoff(id(3), "task-rotated", "vault", "rotated", `{"retry_count":0}`), "Authorization", "Bearer "+bob.Secret)
	byToken := post(keyHandoff(id(4), "task-token", "vault", "by-token", `{"retry_count":0}`), admin...)

	var k keyJSON
	if code := jsonCall(t, "POST", base+"/keys/"+bob.ID+"/rotate", "", &k, admin...); code != http.StatusOK || k.ID != bob.ID {
		t.Fatalf("rotating bob's key: %d %+v", code, k)
	}
	if code := jsonCall(t, "DELETE", base+"/keys/"+mallory.ID, "", nil, admin...); code != http.StatusOK {
		t.Fatalf("revoking mallory's key: %d", code)
	}
	// Nothing of them ran yet: the worker is the gate's.
	for _, id := range []string{posted, fromRun, fromSchedule, rotated, byToken} {
		var st refusedView
		if jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, admin...); st.Status != "QUEUED" || st.Attempts != 0 {
			t.Fatalf("hand-off %s before the gate opened: %+v", id, st)
		}
	}
	gate.Release()

	wait := func(id string) refusedView {
		t.Helper()
		var st refusedView
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			st = refusedView{}
			jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, admin...)
			if st.Status != "QUEUED" && st.Status != "RUNNING" && st.Status != "" {
				return st
			}
		}
		t.Fatalf("hand-off %s did not end: %+v", id, st)
		return st
	}
	want := refusedView{Status: "DEAD", Code: "FORBIDDEN", Error: "FORBIDDEN: the key that sent this hand-off was revoked", Attempts: 1}
	for name, id := range map[string]string{"posted": posted, "from a run": fromRun, "from a schedule": fromSchedule} {
		if got := wait(id); got != want {
			t.Errorf("the hand-off %s with the revoked key: %+v\nwant %+v", name, got, want)
		}
	}
	for name, id := range map[string]string{"held": held, "rotated": rotated, "by token": byToken} {
		if got := wait(id); got.Status != "COMPLETED" || got.Code != "" || got.Error != "" || got.Attempts != 1 {
			t.Errorf("the hand-off %s: %+v, want COMPLETED", name, got)
		}
	}
	// The status as GET /handoffs/{id} answers it, byte for byte (its
	// times aside): the message as posted, nothing of the key.
	_, raw := keyCall(t, "GET", base+"/handoffs/"+posted, "admin-token", "")
	raw = regexp.MustCompile(`"(created|updated|started|finished)_at":"[^"]+"`).ReplaceAllString(raw, `"${1}_at":"T"`)
	wantRaw := `{"message_id":"` + posted + `","task_id":"task-posted","status":"DEAD","recipients":["vault"],` +
		`"error":"FORBIDDEN: the key that sent this hand-off was revoked","code":"FORBIDDEN","hops":1,"attempts":1,"failures":0,` +
		`"created_at":"T","updated_at":"T","started_at":"T","finished_at":"T",` +
		`"message":` + keyHandoff(id(2), "task-posted", "vault", "posted", `{"retry_count":2,"fallback_action":"vault"}`) + "}"
	if strings.TrimSpace(raw) != wantRaw {
		t.Errorf("GET /handoffs/%s:\n%s\nwant\n%s", posted, raw, wantRaw)
	}
	// The task of the posted one holds it alone: no escalation, no retry.
	var task struct{ Messages []refusedView }
	if jsonCall(t, "GET", base+"/tasks/task-posted", "", &task, admin...); len(task.Messages) != 1 || task.Messages[0] != want {
		t.Errorf("GET /tasks/task-posted: %+v", task.Messages)
	}
	mu.Lock()
	got := slices.Sorted(slices.Values(vaultGot))
	mu.Unlock()
	if strings.Join(got, ",") != "by-token,rotated" {
		t.Errorf("vault's model got requests for %q, want only the token's and the rotated key's", got)
	}
}
