package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// storedSchedule is a schedule as GET /schedules/{id} answers it, its
// target and runs raw.
type storedSchedule struct {
	ID             string
	Enabled        bool
	DisabledReason string
	Target         struct{ KeyID, Agent string }
	Runs           []json.RawMessage
}

// runTimes are the parts of a run's JSON that vary between runs of the
// test: its times and replica.
var runTimes = regexp.MustCompile(`"(due|start|end)":"[^"]+"|"replica":"[^"]+"`)

// TestScheduleKeyRevoked: a schedule made with a stored key runs while the
// key lives, rotation included (the key keeps its id). Once the key is
// revoked, its next due run runs nothing (the agent's model gets no
// request), is recorded FAILED saying why, and the schedule is disabled
// with that reason, as listed; an admin's static token enabling it again
// does not revive it (the key is still revoked); the owner's new key
// enabling it binds it to that key, and it runs again. A schedule made
// with the static admin token is not bound to a key and keeps running.
func TestScheduleKeyRevoked(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/worker.yaml", "name: worker\ncommands:\n  - name: default\n    messageTemplates:\n      - {role: system, template: You work.}\n")
	writeFile(t, dir, "agents/clock.yaml", "name: clock\ncommands: [{name: default, reply: tick}]\n")
	up := newFakeUpstream(t, "done")
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Server.Keys = true
	cfg.Scheduler.MinInterval = Duration(time.Second)
	base := startGateway(t, cfg, map[string]string{"AGENTGW_ADMIN_TOKENS": "admin-token"})
	admin := []string{"Authorization", "Bearer admin-token"}
	mkKey := func() keyJSON {
		t.Helper()
		var k keyJSON
		if code := jsonCall(t, "POST", base+"/keys", `{"user":"alice","agents":["worker"]}`, &k, admin...); code != http.StatusCreated {
			t.Fatalf("POST /keys: %d", code)
		}
		return k
	}
	key := mkKey()
	alice := func(k keyJSON) []string { return []string{"Authorization", "Bearer " + k.Secret} }
	get := func(id string) storedSchedule {
		t.Helper()
		var sc storedSchedule
		if code := jsonCall(t, "GET", base+"/schedules/"+id, "", &sc, admin...); code != http.StatusOK {
			t.Fatalf("GET /schedules/%s: %d", id, code)
		}
		return sc
	}
	// until polls schedule id until ok says its state is reached.
	until := func(id, what string, ok func(storedSchedule) bool) storedSchedule {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if sc := get(id); ok(sc) {
				return sc
			}
		}
		last := get(id)
		t.Fatalf("schedule %s: %s never happened: enabled %v, reason %q, %d runs", id, what, last.Enabled, last.DisabledReason, len(last.Runs))
		return storedSchedule{}
	}
	status := func(raw json.RawMessage) string {
		var r struct{ Status string }
		_ = json.Unmarshal(raw, &r)
		return r.Status
	}
	// succeeded is the number of SUCCESS runs.
	succeeded := func(sc storedSchedule) int {
		n := 0
		for _, r := range sc.Runs {
			if status(r) == "SUCCESS" {
				n++
			}
		}
		return n
	}
	settled := func(sc storedSchedule) bool {
		for _, r := range sc.Runs {
			if status(r) == "RUNNING" {
				return false
			}
		}
		return true
	}

	var made storedSchedule
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"work","every":"1s","agent":"worker","prompt":"go"}`, &made, alice(key)...); code != http.StatusCreated {
		t.Fatalf("POST /schedules: %d", code)
	}
	if made.Target.KeyID != key.ID {
		t.Fatalf("the schedule's target keeps the key %q, want %q", made.Target.KeyID, key.ID)
	}
	var ops storedSchedule
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"ops","every":"1s","agent":"clock"}`, &ops, admin...); code != http.StatusCreated || ops.Target.KeyID != "" {
		t.Fatalf("POST /schedules with the admin token: %d, key %q", code, ops.Target.KeyID)
	}
	until(made.ID, "a run", func(sc storedSchedule) bool { return succeeded(sc) >= 1 })

	// Rotated: same id, the schedule runs on.
	var rotated keyJSON
	if code := jsonCall(t, "POST", base+"/keys/"+key.ID+"/rotate", "", &rotated, admin...); code != http.StatusOK || rotated.ID != key.ID {
		t.Fatalf("rotate: %d %+v", code, rotated)
	}
	before := succeeded(get(made.ID))
	until(made.ID, "a run after the rotation", func(sc storedSchedule) bool { return succeeded(sc) > before })

	// Stopped, settled, then the key revoked and the schedule enabled
	// again by the admin's static token (which binds it to no key).
	if code := jsonCall(t, "PATCH", base+"/schedules/"+made.ID, `{"enabled":false}`, nil, alice(rotated)...); code != http.StatusOK {
		t.Fatalf("disabling: %d", code)
	}
	until(made.ID, "no run in progress", settled)
	asked := up.Count()
	if code := jsonCall(t, "DELETE", base+"/keys/"+key.ID, "", nil, admin...); code != http.StatusOK {
		t.Fatalf("revoking: %d", code)
	}
	if code := jsonCall(t, "PATCH", base+"/schedules/"+made.ID, `{"enabled":true}`, nil, admin...); code != http.StatusOK {
		t.Fatalf("enabling with the admin token: %d", code)
	}
	why := "the key " + key.ID + ` this schedule was made with is revoked: nothing ran, and the schedule is disabled. ` +
		`Enable it again with a live key of its owner (PATCH /schedules/` + made.ID + ` {"enabled": true}), which becomes its key`
	sc := until(made.ID, "the schedule disabled", func(sc storedSchedule) bool { return !sc.Enabled })
	if sc.DisabledReason != why {
		t.Errorf("disabledReason %q\nwant %q", sc.DisabledReason, why)
	}
	var first struct{ ID string }
	_ = json.Unmarshal(sc.Runs[0], &first)
	wantRun := `{"id":"` + first.ID + `","scheduleId":"` + made.ID + `",DUE,"status":"FAILED",START,END,"error":` + quote(why) + `,REPLICA}`
	got := runTimes.ReplaceAllStringFunc(string(sc.Runs[0]), func(s string) string {
		name, _, _ := strings.Cut(strings.Trim(s, `"`), `"`)
		return strings.ToUpper(name)
	})
	if got != wantRun {
		t.Errorf("the stored run:\n%s\nwant\n%s", got, wantRun)
	}
	if n := up.Count(); n != asked {
		t.Errorf("the revoked key's run reached the model: %d requests, %d before", n, asked)
	}
	var list struct{ Schedules []json.RawMessage }
	if code := jsonCall(t, "GET", base+"/schedules", "", &list, admin...); code != http.StatusOK {
		t.Fatalf("GET /schedules: %d", code)
	}
	listed := false
	for _, raw := range list.Schedules {
		if strings.Contains(string(raw), `"name":"work"`) {
			listed = strings.Contains(string(raw), `"enabled":false,"disabledReason":`+quote(why))
		}
	}
	if !listed {
		t.Errorf("the list does not say why the schedule is disabled: %s", list.Schedules)
	}
	// Disabled, it stays so: no further run.
	time.Sleep(1500 * time.Millisecond)
	if again := get(made.ID); len(again.Runs) != len(sc.Runs) || again.Enabled {
		t.Errorf("the disabled schedule ran again: %d runs, enabled %v", len(again.Runs), again.Enabled)
	}

	// The owner's new key enables it: bound to that key, it runs.
	fresh := mkKey()
	var enabled storedSchedule
	if code := jsonCall(t, "PATCH", base+"/schedules/"+made.ID, `{"enabled":true}`, &enabled, alice(fresh)...); code != http.StatusOK ||
		enabled.Target.KeyID != fresh.ID || enabled.DisabledReason != "" {
		t.Fatalf("enabling with a live key: %d %+v", code, enabled)
	}
	before = succeeded(get(made.ID))
	until(made.ID, "a run with the new key", func(sc storedSchedule) bool { return succeeded(sc) > before })
	if up.Count() == asked {
		t.Error("the schedule enabled by a live key did not reach the model")
	}
	// The admin's schedule ran throughout.
	if n := succeeded(get(ops.ID)); n < 2 {
		t.Errorf("the admin's schedule ran %d times", n)
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
