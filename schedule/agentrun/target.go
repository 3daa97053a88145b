// Package agentrun is what the gateway's schedules do: run an agent's
// command through the runner (its whole output recorded as the run's
// result) or call a tool, and send the result where the schedule says: a
// conversation, a hand-off, a webhook.
//
// It also serves /schedules (API), where a schedule made over the API can
// do no more than its creator could by request: it belongs to its creator
// (others get NOT_FOUND, admins see all), its runs act as its creator
// (runOwner) for their conversation, tools and hand-offs, it may name only
// a tool the operator marked unattended (unattendedTool, checked at
// creation and again at each run) with parameters the tool's schema
// accepts, and Limits bound how many one owner makes and how often they
// run. The operator's file-defined schedules are bound by none of this.
package agentrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/internal/urlallow"
	"github.com/agentgw/agentgw/schedule"
)

// Target is what a run does and where its result goes, as a schedule's
// Target holds it.
type Target struct {
	Agent   string         `json:"agent"`
	Command string         `json:"command,omitempty"`
	Prompt  string         `json:"prompt,omitempty"`
	User    string         `json:"user,omitempty"`
	Context map[string]any `json:"context,omitempty"`
	Tool    string         `json:"tool,omitempty"`
	Params  map[string]any `json:"params,omitempty"`
	// ContextID is a conversation the run continues (owned by User).
	ContextID string `json:"contextId,omitempty"`
	// HandoffTo is an agent the result goes to as a NOTIFICATION.
	HandoffTo string `json:"handoffTo,omitempty"`
	// Webhook is a URL the result is POSTed to.
	Webhook string `json:"webhook,omitempty"`
	// Scope is the agents (access.Scope.Agents) of the stored key that
	// made the schedule: its runs, and what they hand off, are held to
	// them. Absent for a schedule made without a scoped key; never read
	// from a request's body (agent.ScheduleDef has no such key).
	Scope []string `json:"scope,omitempty"`
	// KeyID is the id of the stored key that made the schedule, or last
	// enabled or changed it (access.Caller.KeyID): each run first checks
	// that the key is live (Runs.Keys) and, when it is revoked, runs
	// nothing and disables the schedule. Absent for a schedule made
	// without a stored key; never read from a request's body.
	KeyID string `json:"keyId,omitempty"`
}

// Check reports what is wrong with t.
func (t *Target) Check() error {
	var errs []error
	if t.Agent == "" {
		errs = append(errs, errors.New("agent is required"))
	}
	if t.Tool != "" && (t.Command != "" || t.Prompt != "" || len(t.Context) > 0 || t.ContextID != "") {
		errs = append(errs, errors.New("a tool target takes params, not command, prompt, context or contextId"))
	}
	if t.Tool == "" && len(t.Params) > 0 {
		errs = append(errs, errors.New("params are a tool's: name the tool"))
	}
	if t.ContextID != "" && !conversation.ValidID(t.ContextID) {
		errs = append(errs, fmt.Errorf("contextId %q is not a context id", apierr.Clip(t.ContextID)))
	}
	if t.Webhook != "" {
		if u, err := url.Parse(t.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("webhook %q is not an http(s) URL", apierr.Clip(t.Webhook)))
		}
	}
	return errors.Join(errs...)
}

// FromDef is the schedule a definition makes; defaultAgent is the agent of
// the file it is in ("" in the gateway config). Its error says every
// problem, the spec's first.
func FromDef(d *agent.ScheduleDef, defaultAgent string) (schedule.Schedule, error) {
	spec, err := schedule.Parse(schedule.SpecText{Once: d.Once, Every: d.Every, Cron: d.Cron, Timezone: d.Timezone})
	if err != nil {
		return schedule.Schedule{}, err
	}
	t := Target{Agent: firstNonEmpty(d.Agent, defaultAgent), Command: d.Command, Prompt: d.Prompt, User: d.User,
		Context: d.Context, Tool: d.Tool, Params: d.Params, ContextID: d.ContextID, HandoffTo: d.HandoffTo, Webhook: d.Webhook}
	if err := t.Check(); err != nil {
		return schedule.Schedule{}, err
	}
	var timeout time.Duration
	if d.Timeout != "" {
		if timeout, err = time.ParseDuration(d.Timeout); err != nil || timeout < 0 {
			return schedule.Schedule{}, fmt.Errorf("timeout %q is not a duration (15m, 90s)", d.Timeout)
		}
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return schedule.Schedule{}, fmt.Errorf("schedule %q: %w", d.Name, err)
	}
	sc := schedule.Schedule{Name: d.Name, Spec: spec, Enabled: d.Enabled == nil || *d.Enabled, Target: raw,
		Timeout: timeout, Missed: schedule.MissedPolicy(d.Missed)}
	if err := sc.Validate(); err != nil {
		return schedule.Schedule{}, err
	}
	return sc, nil
}

// Allowed reports whether webhook lies under one of the allowed prefixes,
// as the gateway's one URL matcher (internal/urlallow) reads them: parsed,
// never compared as strings; entries that do not parse allow nothing.
func Allowed(webhook string, allow []string) bool {
	l, _ := urlallow.Parse(allow)
	return l.Allows(webhook)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
