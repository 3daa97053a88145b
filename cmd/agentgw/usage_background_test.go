package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/usage"
)

// TestBudgetBackgroundRuns (issue 31 part 2): the runs no request started
// are held to their creator's budgets. A team key (owner team:core) makes
// a schedule, posts a hand-off, and sends a request whose handoff step
// sends another; while the team's budget has room each runs, calls the
// model and is settled on the team's counter (the usage rows say so; the
// request itself, which called no model, is charged nothing more); once the budget is spent, the next schedule run and the
// next hand-off are refused before the model sees anything (the fake
// model's count does not move), the schedule run recorded FAILED with
// BUDGET_EXCEEDED in its result, the hand-off DEAD (retry_count 0) with
// BUDGET_EXCEEDED in its error. On SQLite and on PostgreSQL.
func TestBudgetBackgroundRuns(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			// Every model call uses 1000 tokens: the budget holds three runs.
			model := llmtest.New(t, llmtest.Repeat(llmtest.Answer{Text: []string{"done"},
				Usage: &llmtest.Usage{PromptTokens: 600, CompletionTokens: 400, TotalTokens: 1000}}.Reply()))
			dir := t.TempDir()
			writeFile(t, dir, "agents/worker.yaml", "name: worker\nhandoffs: [{type: NOTIFICATION}]\n"+
				"commands: [{name: default, messageTemplates: [{role: system, template: Work.}]}]\n")
			writeFile(t, dir, "agents/sender.yaml", "name: sender\ncommands:\n  - name: default\n    steps:\n      - id: tell\n"+
				"        handoff: {to: worker, type: NOTIFICATION, retryCount: 0}\n        with: {event_type: x, message: from a request}\n")
			cfg := testConfig(t, model.URL())
			cfg.Agents = []string{filepath.Join(dir, "agents")}
			cfg.Server.Keys = true
			if backend == "postgres" {
				cfg.Store.URL = pgtest.Schema(t)
			}
			cfg.Usage.ReserveOutputTokens = 100
			cfg.Usage.Budgets = []usage.Budget{{Team: "core", TokensPerDay: 3000}}
			base := startGateway(t, cfg, map[string]string{"AGENTGW_ADMIN_TOKENS": "admin-token"})
			admin := []string{"Authorization", "Bearer admin-token"}
			var key struct{ Secret, Owner string }
			if code := jsonCall(t, "POST", base+"/keys", `{"team":"core","agents":["*"]}`, &key, admin...); code != http.StatusCreated || key.Owner != "team:core" {
				t.Fatalf("POST /keys: %d %+v", code, key)
			}
			team := []string{"Authorization", "Bearer " + key.Secret}

			var sc scheduleView
			if code := jsonCall(t, "POST", base+"/schedules", `{"name":"nightly","every":"1h","agent":"worker","prompt":"sum up"}`, &sc, team...); code != http.StatusCreated {
				t.Fatalf("POST /schedules: %d %+v", code, sc)
			}
			runNow := func() budgetRunView {
				t.Helper()
				var before scheduleView
				jsonCall(t, "GET", base+"/schedules/"+sc.ID, "", &before, team...)
				if code := jsonCall(t, "POST", base+"/schedules/"+sc.ID+"/run", "", nil, team...); code >= 300 {
					t.Fatalf("POST /schedules/%s/run: %d", sc.ID, code)
				}
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					var now struct {
						RunCount int64           `json:"runCount"`
						Runs     []budgetRunView `json:"runs"`
					}
					jsonCall(t, "GET", base+"/schedules/"+sc.ID, "", &now, team...)
					if now.RunCount > before.RunCount && len(now.Runs) > 0 && now.Runs[0].Status != "RUNNING" {
						return now.Runs[0]
					}
				}
				t.Fatal("the schedule's run did not end")
				return budgetRunView{}
			}
			var waitHandoff func(id string) handoffStatus
			handoff := func(id string) handoffStatus {
				t.Helper()
				body := `{"metadata":{"message_id":"` + id + `","timestamp":"2026-01-02T03:04:05Z","protocol_version":"1.0.0","sender_id":"ci",` +
					`"recipient_id":"worker","task_id":"task-` + id + `","priority":"LOW"},"context":{"workflow_state":"CI","previous_actions":[]},` +
					`"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":"build broke"}},` +
					`"instructions":{"failure_handling_strategy":{"retry_count":0}}}`
				var st handoffStatus
				if code := jsonCall(t, "POST", base+"/handoffs", body, &st, team...); code != http.StatusAccepted {
					t.Fatalf("POST /handoffs: %d %+v", code, st)
				}
				return waitHandoff(id)
			}
			waitHandoff = func(id string) handoffStatus {
				t.Helper()
				var st handoffStatus
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, team...)
					if st.Status != "QUEUED" && st.Status != "RUNNING" {
						return st
					}
				}
				t.Fatalf("hand-off %s did not end: %+v", id, st)
				return st
			}

			// Under budget: all three run and are charged.
			if run := runNow(); run.Status != "SUCCESS" || run.Result.Text != "done" {
				t.Fatalf("the first schedule run: %+v", run)
			}
			if st := handoff("7f1f0a52-9a5e-4b8e-8f00-00000000c001"); st.Status != "COMPLETED" || st.Result.Text != "done" {
				t.Fatalf("the first hand-off: %+v", st)
			}
			code, body := keyCall(t, "POST", base+"/agents/sender", key.Secret, `{"contextVariables":[{"name":"userInputPrompt","value":"go"}]}`)
			m := regexp.MustCompile(`message ([0-9a-f-]{36})`).FindStringSubmatch(body)
			if code != http.StatusOK || m == nil {
				t.Fatalf("the request with a handoff step: %d %s", code, body)
			}
			if st := waitHandoff(m[1]); st.Status != "COMPLETED" || st.Result.Text != "done" {
				t.Fatalf("the step's hand-off: %+v", st)
			}
			if n := model.Count(); n != 3 {
				t.Fatalf("the model got %d requests, want 3", n)
			}
			// Settled on the team's counter within the recorder's flush (1s), in
			// the transaction that writes the records: the team has spent 3000,
			// and the next reservation (a few hundred tokens) does not fit.
			want := `"rows":[{"value":"core","requests":3,"tokensIn":1800,"tokensOut":1200,"estimated":0,"cost":0}]`
			var got string
			for range 100 {
				var raw json.RawMessage
				jsonCall(t, "GET", base+"/usage?by=team&since=1h", "", &raw, admin...)
				if got = string(raw); strings.Contains(got, want) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if !strings.Contains(got, want) {
				t.Fatalf("GET /usage?by=team = %s\nwant %s", got, want)
			}

			// Over budget: refused before the model.
			run := runNow()
			if run.Status != "FAILED" || run.Result.Error.Code != "BUDGET_EXCEEDED" ||
				!strings.Contains(run.Error, "BUDGET_EXCEEDED: the team core has spent its budget of 3000 tokens per day") {
				t.Errorf("the schedule run over budget: %+v", run)
			}
			st := handoff("7f1f0a52-9a5e-4b8e-8f00-00000000c002")
			if st.Status != "DEAD" || !strings.Contains(st.Error, "BUDGET_EXCEEDED: the team core has spent its budget of 3000 tokens per day") {
				t.Errorf("the hand-off over budget: %+v", st)
			}
			if n := model.Count(); n != 3 {
				t.Errorf("the model got %d requests, want still 3", n)
			}
		})
	}
}

// budgetRunView is a schedule's run as GET /schedules/{id} shows it, with
// its result's error.
type budgetRunView struct {
	Status string
	Error  string
	Result struct {
		Text  string
		Error struct{ Code, Message string }
	}
}
