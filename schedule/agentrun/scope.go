package agentrun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/schedule"
)

// A caller with a stored key's scope (access.Scope) makes, changes and
// runs only schedules whose target the scope admits (checkScope), and a
// schedule it makes keeps the key's agents (Target.Scope): its runs go
// with them in their context (access.NewContext), so that what they hand
// off (handoffTo, a handoff step) is held to them by the hub, and what
// they ask or call by collab and the runner. It also keeps the key's id
// (Target.KeyID): a run of a schedule whose key is revoked runs nothing
// and disables it (Runs.checkKey).

// checkScope refuses, FORBIDDEN, a target who's scope does not admit: the
// command it runs (the default one when none is named), the whole agent
// for a tool (a tool is no command), and handoffTo's command for a
// NOTIFICATION (the whole agent when it takes none here, or is remote).
func checkScope(reg *program.Registry, who access.Caller, t *Target) *apierr.Error {
	if who.Scope == nil {
		return nil
	}
	if t.Tool != "" {
		if !who.MayCallAll(t.Agent) {
			return apierr.Errorf(apierr.CodeForbidden, "this key may not schedule tool %q of agent %q: a tool needs a key with the whole agent", t.Tool, t.Agent).
				Suggest("ask an admin for a key whose agents include \"" + t.Agent + "\"")
		}
	} else if cmd := firstNonEmpty(t.Command, program.DefaultCommand); !who.MayCall(t.Agent, cmd) {
		return apierr.Errorf(apierr.CodeForbidden, "this key may not schedule command %q of agent %q", cmd, t.Agent).
			Suggest("GET /agents lists what this key may call")
	}
	if t.HandoffTo != "" && !mayNotify(reg, who, t.HandoffTo) {
		return apierr.Errorf(apierr.CodeForbidden, "this key may not hand a schedule's result to agent %q", t.HandoffTo).
			Suggest("GET /agents lists what this key may call, with the hand-off types each agent takes")
	}
	return nil
}

// mayNotify reports whether who may call the command of agent to that
// takes a NOTIFICATION; the whole agent when none does here.
func mayNotify(reg *program.Registry, who access.Caller, to string) bool {
	if reg != nil {
		if a, ok := reg.Get(to); ok {
			if acc, ok := accept.Accepts(a, handoff.Notification); ok {
				if _, remote := a.RemoteEndpoint(); !remote {
					return who.MayCall(to, acc.Command)
				}
			}
		}
	}
	return who.MayCallAll(to)
}

// scoped is sc, made by who, checked against who's scope and with the
// key's agents (and, for a stored key, its id: bind) kept in its target.
func (api *API) scoped(who access.Caller, sc schedule.Schedule) (schedule.Schedule, error) {
	if who.Scope == nil && who.KeyID == "" {
		return sc, nil
	}
	var t Target
	if err := json.Unmarshal(sc.Target, &t); err != nil {
		return sc, apierr.Internal(fmt.Errorf("schedule %q: reading its target: %w", sc.Name, err))
	}
	if err := checkScope(api.Registry, who, &t); err != nil {
		return sc, err
	}
	bind(who, &t)
	raw, err := json.Marshal(t)
	if err != nil {
		return sc, apierr.Internal(fmt.Errorf("schedule %q: %w", sc.Name, err))
	}
	sc.Target = raw
	return sc, nil
}

// bind makes t the target of a schedule made (or last enabled) by who: its
// runs hold to who's scope, and, when who sent a stored key, run only
// while that key is live (KeyID).
func bind(who access.Caller, t *Target) {
	t.Scope = nil
	if who.Scope != nil {
		t.Scope = append([]string{}, who.Scope.Agents...)
	}
	t.KeyID = who.KeyID
}

// rebound is sc's target bound to who (bind), for a schedule who enables:
// a schedule disabled because its key was revoked runs again with the key
// that enabled it. A static schedule, or a caller without a stored key (a
// static admin token), leaves the target as it is.
func rebound(who access.Caller, sc schedule.Schedule) (json.RawMessage, error) {
	if who.KeyID == "" || sc.Source != "" {
		return sc.Target, nil
	}
	var t Target
	if err := json.Unmarshal(sc.Target, &t); err != nil {
		return nil, apierr.Internal(fmt.Errorf("schedule %q: reading its target: %w", sc.Name, err))
	}
	bind(who, &t)
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, apierr.Internal(fmt.Errorf("schedule %q: %w", sc.Name, err))
	}
	return raw, nil
}

// mayTouch refuses, FORBIDDEN, a stored schedule whose target who's scope
// does not admit (one the user made with a wider key): who sees it, but
// neither runs nor changes it.
func (api *API) mayTouch(who access.Caller, sc schedule.Schedule) error {
	if who.Scope == nil {
		return nil
	}
	var t Target
	if err := json.Unmarshal(sc.Target, &t); err != nil {
		return apierr.Internal(fmt.Errorf("schedule %q: reading its target: %w", sc.Name, err))
	}
	if err := checkScope(api.Registry, who, &t); err != nil {
		return err
	}
	return nil
}

// withScope is ctx of a run of t: with t's scope, when the key that made
// it had one, and the key's id, so that what the run hands off is
// delivered only while the key lives (the hub checks it).
func withScope(ctx context.Context, sc schedule.Schedule, t *Target) context.Context {
	if t.Scope == nil && t.KeyID == "" {
		return ctx
	}
	var scope *access.Scope
	if t.Scope != nil {
		scope = &access.Scope{Agents: t.Scope}
	}
	return access.NewContext(ctx, access.Caller{Owner: runOwner(sc, t), Scope: scope, KeyID: t.KeyID})
}
