package agentrun

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/schedule"
)

// notifiedAgent takes NOTIFICATIONs with its command take.
const notifiedAgent = `name: notified
handoffs: [{type: NOTIFICATION, command: take}]
commands: [{name: default, reply: d}, {name: take, reply: t}]
`

// scopeSender records the scope each hand-off of a run was sent with.
type scopeSender struct {
	mu     sync.Mutex
	scopes [][]string
}

func (s *scopeSender) Send(ctx context.Context, msg *handoff.Message, _ handoffstep.Origin) (*handoffstep.Sent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var agents []string
	if who, ok := access.FromContext(ctx); ok && who.Scope != nil {
		agents = who.Scope.Agents
	}
	s.scopes = append(s.scopes, agents)
	return &handoffstep.Sent{MessageID: "m", Status: "PENDING", Recipients: msg.Metadata.RecipientID}, nil
}

// TestScopedKeySchedules (issue 31 follow-up): a key limited to some
// agents makes, changes and runs schedules whose target its scope admits:
// the agent's command (the default one when none is named), the whole
// agent for a tool, the command of handoffTo that takes the NOTIFICATION.
// Anything else is FORBIDDEN and nothing is stored or run, also for a
// schedule of the same user made with a wider key. The schedule keeps the
// key's agents, and its runs hand off within them.
func TestScopedKeySchedules(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		extra, diags := program.ParseWith(program.LoadOptions{Parts: []program.Part{accept.Part{}}}, "notified.yaml", []byte(notifiedAgent))
		if diags.Errors() > 0 {
			t.Fatal(diags)
		}
		f.reg.Swap(append(f.load(t, true), extra...))
		narrow := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k1",
			Scope: &access.Scope{Agents: []string{"tooled/default", "notified/take"}}}
		wide := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k2", Scope: &access.Scope{Agents: []string{"*"}}}

		for _, tc := range []struct{ body, want string }{
			{`{"name":"a","every":"1h","agent":"notified"}`, `this key may not schedule command "default" of agent "notified"`},
			{`{"name":"b","every":"1h","agent":"notified","command":"default"}`, `this key may not schedule command "default" of agent "notified"`},
			{`{"name":"c","every":"1h","agent":"tooled","tool":"ok"}`, `this key may not schedule tool "ok" of agent "tooled": a tool needs a key with the whole agent`},
			{`{"name":"d","every":"1h","agent":"tooled","handoffTo":"tooled"}`, `this key may not hand a schedule's result to agent "tooled"`},
		} {
			_, err := f.api.Create(ctx, narrow, []byte(tc.body))
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.CodeForbidden || e.Message != tc.want {
				t.Errorf("Create(%s) = %v, want FORBIDDEN %q", tc.body, err, tc.want)
			}
		}
		if l, _ := f.api.List(ctx, access.Caller{Admin: true}); len(l) != 0 {
			t.Fatalf("refused schedules were stored: %d", len(l))
		}

		mine, err := f.api.Create(ctx, narrow, []byte(`{"name":"mine","every":"1h","agent":"tooled","handoffTo":"notified"}`))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"agent":"tooled","handoffTo":"notified","scope":["tooled/default","notified/take"],"keyId":"k1"}`
		if string(mine.Target) != want {
			t.Errorf("the stored target: %s, want %s", mine.Target, want)
		}
		_, err = f.api.Patch(ctx, narrow, mine.ID, []byte(`{"name":"mine","every":"1h","agent":"notified"}`))
		if code(err) != apierr.CodeForbidden {
			t.Errorf("PATCH out of scope: %v", err)
		}
		if got, _ := f.api.Get(ctx, narrow, mine.ID); string(got.Target) != want {
			t.Errorf("the target after a refused PATCH: %s", got.Target)
		}

		// Its run hands off held to the key's agents.
		sender := &scopeSender{}
		f.runs.Handoffs = sender
		if run, _ := f.runNow(t, narrow, mine.ID); run.Error != "" {
			t.Fatalf("run: %+v", run)
		}
		if len(sender.scopes) != 1 || !slices.Equal(sender.scopes[0], []string{"tooled/default", "notified/take"}) {
			t.Errorf("the run's hand-off was sent with the scopes %q", sender.scopes)
		}

		// The same user's schedule made with a wider key: the narrow key
		// sees it, but does not run or change it.
		wider, err := f.api.Create(ctx, wide, []byte(`{"name":"wider","every":"1h","agent":"tooled","tool":"ok"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.api.Get(ctx, narrow, wider.ID); err != nil {
			t.Errorf("Get: %v", err)
		}
		if _, err := f.api.RunNow(ctx, narrow, wider.ID); code(err) != apierr.CodeForbidden {
			t.Errorf("RunNow out of scope: %v", err)
		}
		if _, err := f.api.Patch(ctx, narrow, wider.ID, []byte(`{"enabled":false}`)); code(err) != apierr.CodeForbidden {
			t.Errorf("PATCH enabled out of scope: %v", err)
		}
		if f.calls.Load() != 0 {
			t.Errorf("the tool ran %d times", f.calls.Load())
		}
		// Unscoped callers are as before.
		if _, err := f.api.RunNow(ctx, wide, wider.ID); err != nil {
			t.Errorf("RunNow by the wide key: %v", err)
		}
	})
}

// TestScheduleKey: a schedule made with a stored key keeps its id; each
// run first checks it is live. Revoked, the run runs nothing (the tool is
// not called), is FAILED saying why, and the schedule is disabled with
// that reason; an admin's static token enabling it does not rebind it (the
// next run fails the same); the owner's other key enabling it binds it to
// that key and it runs. A key that cannot be checked (the store's error,
// or a gateway without keys) fails the run and leaves the schedule
// enabled. A schedule made without a key is never checked.
func TestScheduleKey(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		k1 := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k1", Scope: &access.Scope{Agents: []string{"tooled"}}}
		k2 := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k2", Scope: &access.Scope{Agents: []string{"*"}}}
		admin := access.Caller{Owner: "token:admin", Admin: true}
		sc, err := f.api.Create(ctx, k1, []byte(`{"name":"tick","every":"1h","agent":"tooled","tool":"ok"}`))
		if err != nil {
			t.Fatal(err)
		}
		ops, err := f.api.Create(ctx, admin, []byte(`{"name":"ops","every":"1h","agent":"tooled","tool":"ok"}`))
		if err != nil || strings.Contains(string(ops.Target), "keyId") {
			t.Fatalf("the admin's schedule: %s, %v", ops.Target, err)
		}
		if run, _ := f.runNow(t, k1, sc.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 1 {
			t.Fatalf("the run with a live key: %+v, %d calls", run, f.calls.Load())
		}

		f.keysMu.Lock()
		f.revoked["k1"] = true
		f.keysMu.Unlock()
		why := `the key k1 this schedule was made with is revoked: nothing ran, and the schedule is disabled. ` +
			`Enable it again with a live key of its owner (PATCH /schedules/` + sc.ID + ` {"enabled": true}), which becomes its key`
		run, _ := f.runNow(t, admin, sc.ID)
		stored, err := f.api.Store.Run(ctx, run.ID)
		if err != nil || stored.Status != schedule.StatusFailed || stored.Error != why || len(stored.Result) != 0 || f.calls.Load() != 1 {
			t.Errorf("the stored run of the revoked key: %+v (%v), %d calls", stored, err, f.calls.Load())
		}
		got, _ := f.api.Get(ctx, admin, sc.ID)
		if got.Enabled || got.DisabledReason != why {
			t.Errorf("the schedule: enabled %v, reason %q", got.Enabled, got.DisabledReason)
		}
		// The admin's token enables it: still k1's, and refused again.
		if _, err := f.api.Patch(ctx, admin, sc.ID, []byte(`{"enabled":true}`)); err != nil {
			t.Fatal(err)
		}
		if run, _ := f.runNow(t, admin, sc.ID); run.Error != why || f.calls.Load() != 1 {
			t.Errorf("the run after the admin enabled it: %+v", run)
		}
		// The owner's other key enables it: k2's now, and it runs.
		again, err := f.api.Patch(ctx, k2, sc.ID, []byte(`{"enabled":true}`))
		if err != nil || !strings.Contains(string(again.Target), `"scope":["*"],"keyId":"k2"`) || again.DisabledReason != "" {
			t.Fatalf("enabled by k2: %s %q, %v", again.Target, again.DisabledReason, err)
		}
		if run, _ := f.runNow(t, k2, sc.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 2 {
			t.Errorf("the run with k2: %+v", run)
		}

		// Not checkable: the run fails, the schedule stays enabled.
		f.runs.Keys = func(context.Context, string) (bool, error) { return false, errors.New("the database is gone") }
		if run, _ := f.runNow(t, k2, sc.ID); run.Status != schedule.StatusFailed || run.Error != "schedule tick: checking its key k2: the database is gone" {
			t.Errorf("the run whose key cannot be read: %+v", run)
		}
		f.runs.Keys = nil
		if run, _ := f.runNow(t, k2, sc.ID); run.Status != schedule.StatusFailed ||
			run.Error != "schedule tick was made with the stored key k2, and this gateway reads no keys (server.keys is off): nothing ran" {
			t.Errorf("the run without keys: %+v", run)
		}
		if got, _ := f.api.Get(ctx, admin, sc.ID); !got.Enabled || got.DisabledReason != "" || f.calls.Load() != 2 {
			t.Errorf("after runs that could not check the key: enabled %v, reason %q, %d calls", got.Enabled, got.DisabledReason, f.calls.Load())
		}
		// Made without a key: never checked.
		if run, _ := f.runNow(t, admin, ops.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 3 {
			t.Errorf("the admin's schedule: %+v", run)
		}
	})
}
