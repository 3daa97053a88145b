package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/schedule"
)

// API serves /schedules over a store and a scheduler.
type API struct {
	Store     *schedule.Store
	Scheduler *schedule.Scheduler
	// WebhookAllow are the URL prefixes a schedule's webhook may name.
	WebhookAllow []string
}

// decodeDef reads a schedule of a POST or PATCH body strictly: the keys
// of a schedule in a file (agent.ScheduleDef), in JSON.
func decodeDef(body []byte, into *agent.ScheduleDef) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return agent.Errorf(agent.CodeBadRequest, "the body is not a schedule: %v", err).
			Suggest(`send {"name", "every"|"cron"|"once", "agent", "command"?, "prompt"?, …} (README "Schedules")`)
	}
	return nil
}

// schedule is the schedule d makes.
func (api *API) schedule(d *agent.ScheduleDef) (schedule.Schedule, error) {
	sc, err := FromDef(d, "")
	if err != nil {
		return schedule.Schedule{}, agent.Errorf(agent.CodeBadRequest, "schedule %q: %v", d.Name, err)
	}
	if d.Webhook != "" && !Allowed(d.Webhook, api.WebhookAllow) {
		return schedule.Schedule{}, agent.Errorf(agent.CodeBadRequest, "webhook %q is not under scheduler.webhookAllow", d.Webhook).
			Suggest("ask the operator to allow its URL prefix in the gateway config (scheduler.webhookAllow)")
	}
	return sc, nil
}

// Error is the protocol error of a store or scheduler error about id.
func Error(id string, err error) error {
	var e *agent.Error
	var ve *schedule.ValidationError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &ve):
		return agent.Errorf(agent.CodeBadRequest, "%v", err)
	case errors.Is(err, schedule.ErrNotFound):
		return agent.Errorf(agent.CodeNotFound, "no schedule %q", id).Suggest("GET /schedules lists them")
	case errors.Is(err, schedule.ErrExists):
		return agent.Errorf(agent.CodeConflict, "a schedule %q exists already", id).Suggest("pick another name, or PATCH the one there")
	case errors.Is(err, schedule.ErrStatic):
		return agent.Errorf(agent.CodeConflict, "schedule %q is defined in a file: at run time it can only be enabled or disabled", id).
			Suggest("change it in its file (the gateway config or the agent's)")
	case errors.Is(err, schedule.ErrRunning):
		return agent.Errorf(agent.CodeConflict, "a run of schedule %q is in progress", id)
	}
	return agent.New(agent.CodeStoreUnavailable, "the gateway's store is unavailable: it could not read or keep the schedule").
		Wrap(fmt.Errorf("schedule %s: %w", id, err))
}

// List lists the schedules.
func (api *API) List(ctx context.Context) ([]schedule.Schedule, error) {
	l, err := api.Store.List(ctx)
	if err != nil {
		return nil, Error("", err)
	}
	return l, nil
}

// Get returns a schedule with its last runs.
func (api *API) Get(ctx context.Context, id string) (schedule.Schedule, error) {
	sc, err := api.Store.Get(ctx, id)
	if err != nil {
		return sc, Error(id, err)
	}
	return sc, nil
}

// Create makes a schedule from body.
func (api *API) Create(ctx context.Context, body []byte) (schedule.Schedule, error) {
	var d agent.ScheduleDef
	if err := decodeDef(body, &d); err != nil {
		return schedule.Schedule{}, err
	}
	sc, err := api.schedule(&d)
	if err != nil {
		return sc, err
	}
	sc, err = api.Store.Create(ctx, sc)
	if err != nil {
		return sc, Error(d.Name, err)
	}
	return sc, nil
}

// Patch changes schedule id: body is {"enabled": bool} alone, or a whole
// Def that replaces the definition (run-time schedules only).
func (api *API) Patch(ctx context.Context, id string, body []byte) (schedule.Schedule, error) {
	var only struct {
		Enabled *bool `json:"enabled"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if dec.Decode(&only) == nil && only.Enabled != nil {
		sc, err := api.Store.Update(ctx, id, func(sc *schedule.Schedule) error { sc.Enabled = *only.Enabled; return nil })
		if err != nil {
			return sc, Error(id, err)
		}
		return sc, nil
	}
	var d agent.ScheduleDef
	if err := decodeDef(body, &d); err != nil {
		return schedule.Schedule{}, err
	}
	next, err := api.schedule(&d)
	if err != nil {
		return next, err
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

// Delete deletes a run-time schedule.
func (api *API) Delete(ctx context.Context, id string) error {
	if err := api.Store.Delete(ctx, id); err != nil {
		return Error(id, err)
	}
	return nil
}

// RunNow starts a run of schedule id now. A disabled schedule never runs,
// not even by hand: enable it first.
func (api *API) RunNow(ctx context.Context, id string) (schedule.Run, error) {
	sc, err := api.Store.Get(ctx, id)
	if err != nil {
		return schedule.Run{}, Error(id, err)
	}
	if !sc.Enabled {
		return schedule.Run{}, agent.Errorf(agent.CodeConflict, "schedule %q is disabled: a disabled schedule never runs", sc.Name).
			Suggest(`enable it first: PATCH /schedules/{id} {"enabled": true}`)
	}
	r, err := api.Scheduler.RunNow(ctx, id)
	if err != nil {
		return r, Error(id, err)
	}
	return r, nil
}
