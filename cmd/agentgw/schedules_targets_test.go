package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
)

// TestScheduleUnknownTargets: POST /schedules, and a whole definition by
// PATCH, naming an agent, command or tool the gateway does not have is a
// 400 BAD_REQUEST naming the field (docs/schedules.md: 400 for an invalid
// target), not a 201 whose runs all fail; nothing is stored or changed.
func TestScheduleUnknownTargets(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)

	type refusal struct {
		Content struct {
			ErrorCode string `json:"errorCode"`
			Message   string `json:"message"`
			Details   struct {
				Violations []apierr.Violation `json:"violations"`
			} `json:"details"`
		} `json:"content"`
	}
	tests := []struct {
		body, message string
		violation     apierr.Violation
	}{
		{`{"name":"x","every":"1h","agent":"tickr"}`, `schedule "x": agent: no agent "tickr"; did you mean "ticker"?`,
			apierr.Violation{Pointer: "/agent", Message: `no agent "tickr"; did you mean "ticker"?`}},
		{`{"name":"x","every":"1h","agent":"ticker","command":"review"}`, `schedule "x": command: agent "ticker" has no command "review"`,
			apierr.Violation{Pointer: "/command", Message: `agent "ticker" has no command "review"`}},
		{`{"name":"x","every":"1h","agent":"ticker","tool":"git.log"}`, `schedule "x": tool: agent "ticker" has no tool "git.log"`,
			apierr.Violation{Pointer: "/tool", Message: `agent "ticker" has no tool "git.log"`}},
	}
	var made scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"x","every":"1h","agent":"ticker","prompt":"p"}`, &made); code != http.StatusCreated {
		t.Fatalf("POST a valid schedule = %d", code)
	}
	for _, tt := range tests {
		for _, call := range []struct{ method, path, body string }{
			{"POST", "/schedules", `{"name":"y"` + tt.body[len(`{"name":"x"`):]},
			{"PATCH", "/schedules/" + made.ID, tt.body},
		} {
			var r refusal
			code := jsonCall(t, call.method, base+call.path, call.body, &r)
			msg := tt.message
			if call.method == "POST" {
				msg = `schedule "y"` + tt.message[len(`schedule "x"`):]
			}
			if code != http.StatusBadRequest || r.Content.ErrorCode != apierr.CodeBadRequest || r.Content.Message != msg ||
				len(r.Content.Details.Violations) != 1 || r.Content.Details.Violations[0] != tt.violation {
				t.Errorf("%s %s %s = %d %+v, want 400 BAD_REQUEST %q at %s", call.method, call.path, call.body, code, r.Content, msg, tt.violation.Pointer)
			}
		}
	}
	var list struct{ Schedules []json.RawMessage }
	jsonCall(t, "GET", base+"/schedules", "", &list)
	var got struct {
		Name   string
		Target map[string]any
	}
	for _, raw := range list.Schedules {
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Name == "y" {
			t.Errorf("a refused schedule was stored: %s", raw)
		}
		if got.Name == "x" && (got.Target["agent"] != "ticker" || got.Target["command"] != nil || got.Target["tool"] != nil) {
			t.Errorf("the schedule after refused PATCHes: %s", raw)
		}
	}
}

// TestScheduleOnceDisabled: a once schedule that ran is stored disabled,
// and GET /schedules/{id} says so (it used to stay enabled).
func TestScheduleOnceDisabled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	base := startGateway(t, cfg, nil)

	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	var made scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"remind","once":"`+at+`","agent":"ticker","prompt":"now"}`, &made); code != http.StatusCreated || !made.Enabled {
		t.Fatalf("POST = %d %+v", code, made)
	}
	sc := waitRuns(t, base, made.ID, 1)
	if sc.Enabled || sc.NextRun != nil || sc.Runs[0].Status != "SUCCESS" || sc.Runs[0].Result.Text != "tick: now for " {
		t.Errorf("the once schedule after its run: enabled %v, next %v, runs %+v; want disabled, no next run, one SUCCESS", sc.Enabled, sc.NextRun, sc.Runs)
	}
}

// TestExampleSchedules: the embedded config's example schedule
// (nightly-review) comes only with the embedded config and example agents.
// With the operator's config file its schedules are the file's alone (it
// used to get nightly-review too, undeletable: 409), and with the
// operator's agents there is none; a database that kept nightly-review
// loses it at the next start with the operator's config.
func TestExampleSchedules(t *testing.T) {
	dir := t.TempDir()
	own := writeFile(t, dir, "own.yaml", "log: {level: warn}\n")
	mine := writeFile(t, dir, "mine.yaml", "schedules:\n  - {name: mine, every: 1h, agent: hello, enabled: false}\n")
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	names := func(cfg *Config) []string {
		var out []string
		for _, d := range cfg.Schedules {
			out = append(out, d.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"embedded config", nil, nil, []string{"nightly-review"}},
		{"--config without schedules", nil, []string{"--config", own}, nil},
		{"AGENTGW_CONFIG without schedules", map[string]string{"AGENTGW_CONFIG": own}, nil, nil},
		{"--config with schedules", nil, []string{"--config", mine}, []string{"mine"}},
		{"--agents", nil, []string{"--agents", filepath.Join(dir, "agents")}, nil},
		{"AGENTGW_AGENTS", map[string]string{"AGENTGW_AGENTS": filepath.Join(dir, "agents")}, nil, nil},
	} {
		cfg, err := loadConfig(t, tc.env, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := names(cfg); !slices.Equal(got, tc.want) {
			t.Errorf("%s: config schedules %q, want %q", tc.name, got, tc.want)
		}
	}

	data := t.TempDir()
	listed := func(t *testing.T, cfg *Config) (map[string]scheduleView, string) {
		cfg.Addr, cfg.Data = "127.0.0.1:0", data
		cfg.Server.ShutdownGrace = Duration(5 * time.Second)
		base := startGateway(t, cfg, nil)
		var list struct{ Schedules []scheduleView }
		jsonCall(t, "GET", base+"/schedules", "", &list)
		out := map[string]scheduleView{}
		for _, sc := range list.Schedules {
			out[sc.Name] = sc
		}
		return out, base
	}
	t.Run("embedded", func(t *testing.T) {
		cfg, err := loadConfig(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, base := listed(t, cfg)
		nr, ok := got["nightly-review"]
		if len(got) != 1 || !ok || nr.Source != "config" || nr.Enabled {
			t.Fatalf("the embedded config's schedules: %+v", got)
		}
		if code := jsonCall(t, "DELETE", base+"/schedules/"+nr.ID, "", nil); code != http.StatusConflict {
			t.Errorf("DELETE nightly-review = %d, want 409 (the config's)", code)
		}
	})
	t.Run("own config", func(t *testing.T) {
		cfg, err := loadConfig(t, nil, "--config", own)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := listed(t, cfg); len(got) != 0 {
			t.Errorf("with the operator's config: %+v, want none (nightly-review deleted)", got)
		}
	})
}

// TestLintConfigSchedules: agentgw lint --config reports each schedule the
// config file gets wrong at its file:line:col, the value itself (a cron's
// wrong field), as agent files' problems are (it used to say only
// schedules[0]); exit 2, as for any invalid configuration.
func TestLintConfigSchedules(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"lint", "--config", "testdata/lint/bad_schedules.yaml"}, envOf(nil), nil, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 {
		t.Errorf("lint = %d, stdout %q; want 2 and nothing", code, stdout.String())
	}
	golden.Check(t, "testdata/lint/bad_schedules.golden", stderr.Bytes())
}
