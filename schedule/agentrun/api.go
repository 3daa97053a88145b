package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/schedule"
)

// API serves /schedules over a store and a scheduler. Every schedule made
// through it belongs to its caller (access.Caller.Owner): another caller
// gets 404 for it and does not see it in lists, an admin sees all; the
// operator's file-defined schedules belong to access.Operator. What a
// schedule made here may do is bounded: a tool target must be a tool the
// operator marked unattended (unattendedTool), its params must match the
// tool's schema, and Limits bound how many and how often.
type API struct {
	Store     *schedule.Store
	Scheduler *schedule.Scheduler
	// WebhookAllow are the URL prefixes a schedule's webhook may name.
	WebhookAllow []string
	// Registry has the agents whose tools a schedule may name (nil: a
	// schedule made over the API may name no tool).
	Registry *program.Registry
	// Limits bound the schedules one owner makes.
	Limits Limits
	// Now is the clock minInterval is checked with (default time.Now).
	Now func() time.Time
}

// decodeDef reads a schedule of a POST or PATCH body strictly: the keys
// of a schedule in a file (agent.ScheduleDef), in JSON.
func decodeDef(body []byte, into *agent.ScheduleDef) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a schedule: %v", err).
			Suggest(`send {"name", "every"|"cron"|"once", "agent", "command"?, "prompt"?, …} (docs/schedules.md)`)
	}
	return nil
}

// schedule is the schedule d makes over the API, checked against what a
// caller may schedule: its webhook allowed, its spec no more frequent than
// Limits.MinInterval, its tool (if any) one that may run unattended,
// called with parameters its schema accepts.
func (api *API) schedule(d *agent.ScheduleDef) (schedule.Schedule, error) {
	sc, err := FromDef(d, "")
	if err != nil {
		return schedule.Schedule{}, apierr.Errorf(apierr.CodeBadRequest, "schedule %q: %v", d.Name, err)
	}
	if d.Webhook != "" && !Allowed(d.Webhook, api.WebhookAllow) {
		return schedule.Schedule{}, apierr.Errorf(apierr.CodeBadRequest, "webhook %q is not under scheduler.webhookAllow", d.Webhook).
			Suggest("ask the operator to allow its URL prefix in the gateway config (scheduler.webhookAllow)")
	}
	now := time.Now
	if api.Now != nil {
		now = api.Now
	}
	if err := checkInterval(sc.Spec, api.Limits.minInterval(), now()); err != nil {
		return schedule.Schedule{}, err
	}
	if err := checkTarget(api.Registry, d); err != nil {
		return schedule.Schedule{}, err
	}
	if d.Tool != "" {
		tool, aerr := unattendedTool(api.Registry, d.Agent, d.Tool)
		if aerr != nil {
			return schedule.Schedule{}, aerr
		}
		if err := checkParams(tool, d.Params); err != nil {
			return schedule.Schedule{}, err
		}
	}
	return sc, nil
}

// Error is the protocol error of a store or scheduler error about id.
func Error(id string, err error) error {
	var e *apierr.Error
	var ve *schedule.ValidationError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &ve):
		return apierr.Errorf(apierr.CodeBadRequest, "%v", err)
	case errors.Is(err, schedule.ErrNotFound):
		return notFound(id)
	case errors.Is(err, schedule.ErrExists):
		return apierr.Errorf(apierr.CodeConflict, "a schedule %q exists already", id).Suggest("pick another name, or PATCH the one there")
	case errors.Is(err, schedule.ErrQuota):
		return apierr.Errorf(apierr.CodeScheduleQuota, "schedule %q: you have as many schedules as one caller may (scheduler.maxPerOwner)", id)
	case errors.Is(err, schedule.ErrStatic):
		return apierr.Errorf(apierr.CodeConflict, "schedule %q is defined in a file: at run time it can only be enabled or disabled", id).
			Suggest("change it in its file (the gateway config or the agent's)")
	case errors.Is(err, schedule.ErrRunning):
		return apierr.Errorf(apierr.CodeConflict, "a run of schedule %q is in progress", id)
	}
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's store is unavailable: it could not read or keep the schedule").
		Wrap(fmt.Errorf("schedule %s: %w", id, err))
}

// notFound is the answer for a schedule that is not there, or not the
// caller's: the same, so that a caller cannot tell which.
func notFound(id string) error {
	return apierr.Errorf(apierr.CodeNotFound, "no schedule %q", id).Suggest("GET /schedules lists them")
}

// owned returns schedule id if who may see it, else the same NOT_FOUND as
// for a schedule that is not there.
func (api *API) owned(ctx context.Context, who access.Caller, id string) (schedule.Schedule, error) {
	sc, err := api.Store.Get(ctx, id)
	if err != nil {
		return schedule.Schedule{}, Error(id, err)
	}
	if !who.Owns(sc.Owner) {
		return schedule.Schedule{}, notFound(id)
	}
	return sc, nil
}

// List lists the schedules who may see: its own, or all for an admin.
func (api *API) List(ctx context.Context, who access.Caller) ([]schedule.Schedule, error) {
	var l []schedule.Schedule
	var err error
	if who.Admin {
		l, err = api.Store.List(ctx)
	} else {
		l, err = api.Store.ListOwned(ctx, who.Owner)
	}
	if err != nil {
		return nil, Error("", err)
	}
	return l, nil
}

// Get returns a schedule of who's with its last runs.
func (api *API) Get(ctx context.Context, who access.Caller, id string) (schedule.Schedule, error) {
	return api.owned(ctx, who, id)
}

// Create makes a schedule from body, owned by who, within who's quota
// (Limits.MaxPerOwner: SCHEDULE_QUOTA_EXCEEDED beyond).
func (api *API) Create(ctx context.Context, who access.Caller, body []byte) (schedule.Schedule, error) {
	var d agent.ScheduleDef
	if err := decodeDef(body, &d); err != nil {
		return schedule.Schedule{}, err
	}
	sc, err := api.schedule(&d)
	if err != nil {
		return sc, err
	}
	if sc, err = api.scoped(who, sc); err != nil {
		return sc, err
	}
	sc.Owner = who.Owner
	sc, err = api.Store.CreateLimited(ctx, sc, api.Limits.maxPerOwner())
	if err != nil {
		return sc, Error(d.Name, err)
	}
	return sc, nil
}

// Patch changes schedule id of who's: body is {"enabled": bool} alone, or
// a whole Def that replaces the definition (run-time schedules only),
// checked as Create checks one. A whole Def, or enabling a disabled
// schedule, with a stored key binds the schedule to that key (its scope
// and id: bind).
func (api *API) Patch(ctx context.Context, who access.Caller, id string, body []byte) (schedule.Schedule, error) {
	cur, err := api.owned(ctx, who, id)
	if err != nil {
		return schedule.Schedule{}, err
	}
	if err := api.mayTouch(who, cur); err != nil {
		return schedule.Schedule{}, err
	}
	var only struct {
		Enabled *bool `json:"enabled"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if dec.Decode(&only) == nil && only.Enabled != nil {
		sc, err := api.Store.Update(ctx, id, func(sc *schedule.Schedule) error {
			if *only.Enabled && !sc.Enabled {
				// Enabled by a stored key: the schedule is that key's
				// now (one disabled because its key was revoked runs
				// again, as long as this key lives).
				t, err := rebound(who, *sc)
				if err != nil {
					return err
				}
				sc.Target = t
			}
			sc.Enabled = *only.Enabled
			return nil
		})
		if err != nil {
			return sc, Error(id, err)
		}
		return sc, nil
	}
	var d agent.ScheduleDef
	if err := decodeDef(body, &d); err != nil {
		return schedule.Schedule{}, err
	}
	var next schedule.Schedule
	if cur.Source != "" {
		// The operator's: the store refuses any change but enabled.
		next, err = FromDef(&d, "")
	} else if next, err = api.schedule(&d); err == nil {
		next, err = api.scoped(who, next)
	}
	if err != nil {
		return next, Error(id, err)
	}
	sc, err := api.Store.Update(ctx, id, func(sc *schedule.Schedule) error {
		sc.Name, sc.Spec, sc.Enabled, sc.Target, sc.Timeout, sc.Missed = next.Name, next.Spec, next.Enabled, next.Target, next.Timeout, next.Missed
		return nil
	})
	if err != nil {
		return sc, Error(id, err)
	}
	return sc, nil
}

// Delete deletes a run-time schedule of who's.
func (api *API) Delete(ctx context.Context, who access.Caller, id string) error {
	if _, err := api.owned(ctx, who, id); err != nil {
		return err
	}
	if err := api.Store.Delete(ctx, id); err != nil {
		return Error(id, err)
	}
	return nil
}

// RunNow starts a run of schedule id of who's now. A disabled schedule
// never runs, not even by hand: enable it first.
func (api *API) RunNow(ctx context.Context, who access.Caller, id string) (schedule.Run, error) {
	sc, err := api.owned(ctx, who, id)
	if err != nil {
		return schedule.Run{}, err
	}
	if err := api.mayTouch(who, sc); err != nil {
		return schedule.Run{}, err
	}
	if !sc.Enabled {
		return schedule.Run{}, apierr.Errorf(apierr.CodeConflict, "schedule %q is disabled: a disabled schedule never runs", sc.Name).
			Suggest(`enable it first: PATCH /schedules/{id} {"enabled": true}`)
	}
	r, err := api.Scheduler.RunNow(ctx, id)
	if err != nil {
		return r, Error(id, err)
	}
	return r, nil
}
