package plan

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRunGateWaitsForOutputs(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "render", Refs: map[string]*Ref{
			"permissions": mustRef(t, "†state.userProfile && †state.permissions"),
			"name":        mustRef(t, "$state.userProfile.name || $state.default"),
			"opt":         mustRef(t, "$input.optional"),
		}},
		{ID: "profile", Output: mustOut(t, "state.userProfile")},
		{ID: "perms", DependsOn: []string{"profile"}, Output: mustOut(t, "state.permissions")},
	}, map[string]stepFunc{
		"render": func(ctx context.Context, in Invocation) (any, error) { return in.Inputs, nil },
		"profile": func(ctx context.Context, in Invocation) (any, error) {
			return map[string]any{"name": "ann"}, nil
		},
		"perms": func(ctx context.Context, in Invocation) (any, error) { return []any{"read"}, nil },
	})
	rep, err := h.run(context.Background(), Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"start profile", "finish profile COMPLETED", "start perms", "finish perms COMPLETED", "start render", "finish render COMPLETED"}
	if !reflect.DeepEqual(h.events, want) {
		t.Errorf("events = %q", h.events)
	}
	inputs := map[string]any{"permissions": []any{"read"}, "name": "ann", "opt": nil}
	if got := rep.Results[0].Value; !reflect.DeepEqual(got, inputs) {
		t.Errorf("render's inputs = %#v, want %#v", got, inputs)
	}
}

// TestRunGateNeverSatisfiedContinue: with onError continue a step whose gate never fills ends SKIPPED
// with the missing references, and its dependents run.
func TestRunGateNeverSatisfiedContinue(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "waits", OnError: OnErrorContinue, Refs: map[string]*Ref{"p": mustRef(t, "$state.a && $state.never")}},
		{ID: "after", DependsOn: []string{"waits"}, When: mustCond(t, "dependencies.waits.status == 'SKIPPED'")},
		{ID: "a", Output: mustOut(t, "state.a")},
	}, nil)
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(rep), " "); got != "waits=SKIPPED after=COMPLETED a=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
	if e := rep.Results[0].Err; e == nil || e.Error() != "never ready: a reference never appeared: with.p needs state.never" {
		t.Errorf("waits' error = %v", e)
	}
}

// TestRunGateStuckOneAtATime: skipping one stuck step lets its dependent run, which writes what
// another gate waits for.
func TestRunGateStuckOneAtATime(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "stuck", OnError: OnErrorContinue, Refs: map[string]*Ref{"v": mustRef(t, "$state.y && $state.y")}},
		{ID: "writer", DependsOn: []string{"stuck"}, Output: mustOut(t, "state.x")},
		{ID: "reader", Refs: map[string]*Ref{"v": mustRef(t, "$state.x && $state.x")}},
	}, nil)
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(rep), " "); got != "stuck=SKIPPED writer=COMPLETED reader=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
}

// TestRunGateNeverSatisfiedFails: with onError fail (the default) a gate that never fills stops the
// plan like a failure: Run returns a *StepError for the step, SKIPPED, wrapping a *NotReadyError that
// names every missing reference, and what depends on it does not run.
func TestRunGateNeverSatisfiedFails(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "a", Output: mustOut(t, "state.a")},
		{ID: "render", Refs: map[string]*Ref{
			"p": mustRef(t, "$state.a && $state.perms"),
			"q": mustRef(t, "$state.profile && $state.a"),
		}},
		{ID: "after", DependsOn: []string{"render"}},
		{ID: "other", Refs: map[string]*Ref{"x": mustRef(t, "$state.b && $state.b")}},
	}, nil)
	rep, err := h.run(context.Background(), Options{})
	var se *StepError
	var nr *NotReadyError
	if !errors.As(err, &se) || !errors.As(err, &nr) {
		t.Fatalf("err = %v, want a *StepError wrapping a *NotReadyError", err)
	}
	if se.ID != "render" || se.Status != Skipped {
		t.Errorf("StepError = %q %s, want render SKIPPED", se.ID, se.Status)
	}
	if want := []string{"with.p needs state.perms", "with.q needs state.profile"}; !reflect.DeepEqual(nr.Missing, want) {
		t.Errorf("missing = %q, want %q", nr.Missing, want)
	}
	if got := err.Error(); got != `step "render" SKIPPED: never ready: a reference never appeared: with.p needs state.perms; with.q needs state.profile` {
		t.Errorf("err = %s", got)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=COMPLETED render=SKIPPED after=SKIPPED other=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
	if e := rep.Results[2].Err; e == nil || e.Error() != `not started: step "render" never ran` {
		t.Errorf("after's error = %v", e)
	}
}

// TestRunGateStuckWhileHeld: a gate that waits for what a held step would write is held too (the
// plan runs again once the held step may run), not failed.
func TestRunGateStuckWhileHeld(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "consent", Output: mustOut(t, "state.ok")},
		{ID: "use", Refs: map[string]*Ref{"v": mustRef(t, "$state.ok && $state.ok")}},
	}, map[string]stepFunc{
		"consent": func(ctx context.Context, in Invocation) (any, error) { return nil, ErrHold },
	})
	rep, err := h.run(context.Background(), Options{})
	var se *StepError
	if !errors.Is(err, ErrHold) || errors.As(err, &se) {
		t.Fatalf("err = %v, want the held step's", err)
	}
	if r := rep.Results[1]; r.Status != Skipped || !errors.Is(r.Err, ErrHold) {
		t.Errorf("use = %s %v, want SKIPPED and held", r.Status, r.Err)
	}
}

func TestRunSetStepVisibleLater(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "set"},
		{ID: "check", DependsOn: []string{"set"}, When: mustCond(t, "state.mode == 'fast' AND contains(state.flags, 'x')"),
			Refs: map[string]*Ref{"mode": mustRef(t, "$state.mode")}},
	}, map[string]stepFunc{
		"set": func(ctx context.Context, in Invocation) (any, error) {
			if err := in.Scope.State.Set(Path{"state", "mode"}, "fast"); err != nil {
				return nil, err
			}
			return nil, in.Scope.State.Set(Path{"flags"}, []any{"x"})
		},
		"check": func(ctx context.Context, in Invocation) (any, error) { return in.Inputs["mode"], nil },
	})
	rep, err := h.run(context.Background(), Options{Context: map[string]any{"c": 1}, Input: map[string]any{"i": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[1]; r.Status != Completed || r.Value != "fast" {
		t.Errorf("check = %s %v", r.Status, r.Value)
	}
}

func TestRunOutputWriteFails(t *testing.T) {
	h := newHarness(t, []Node{{ID: "a", Output: mustOut(t, "state.s.x")}, {ID: "b", DependsOn: []string{"a"}}}, nil)
	rep, err := h.run(context.Background(), Options{State: map[string]any{"s": "text"}})
	if err == nil || rep.Results[0].Status != Failed || rep.Results[1].Status != Skipped {
		t.Fatalf("err = %v, statuses %v", err, statuses(rep))
	}
	want := `writing output "state.s.x": setting state.s.x: state.s is a string, not a map`
	if e := rep.Results[0].Err; e == nil || e.Error() != want {
		t.Errorf("a's error = %v", e)
	}
}

func TestRunScopeSnapshot(t *testing.T) {
	h := newHarness(t, []Node{{ID: "a"}, {ID: "b", DependsOn: []string{"a"}}}, map[string]stepFunc{
		"b": func(ctx context.Context, in Invocation) (any, error) {
			sc := in.Scope
			v, ok := sc.Lookup(Path{"dependencies", "a", "result"})
			if !ok || v != "a!" || sc.Steps["b"]["status"] != "RUNNING" || sc.Context["c"] != 1 || sc.Input["i"] != 2 {
				t.Errorf("scope: a.result=%v %v, b=%v, context=%v, input=%v", v, ok, sc.Steps["b"], sc.Context, sc.Input)
			}
			return nil, nil
		},
	})
	if _, err := h.run(context.Background(), Options{Context: map[string]any{"c": 1}, Input: map[string]any{"i": 2}}); err != nil {
		t.Fatal(err)
	}
}
