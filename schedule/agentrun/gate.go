package agentrun

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/schedule"
)

// Defaults of Limits.
const (
	// DefaultMaxPerOwner is how many schedules one owner may make over the
	// API (scheduler.maxPerOwner).
	DefaultMaxPerOwner = 20
	// DefaultMinInterval is the shortest time between two runs of a
	// schedule made over the API (scheduler.minInterval).
	DefaultMinInterval = time.Minute
)

// Limits bound the schedules made over the API; the operator's files are
// not bound by them. Zero values are the defaults.
type Limits struct {
	// MaxPerOwner is how many schedules one owner may have (default
	// DefaultMaxPerOwner).
	MaxPerOwner int
	// MinInterval is the shortest time between two runs: an every shorter,
	// or a cron whose runs come closer, is refused (default
	// DefaultMinInterval).
	MinInterval time.Duration
}

func (l Limits) maxPerOwner() int {
	if l.MaxPerOwner <= 0 {
		return DefaultMaxPerOwner
	}
	return l.MaxPerOwner
}

func (l Limits) minInterval() time.Duration {
	if l.MinInterval <= 0 {
		return DefaultMinInterval
	}
	return l.MinInterval
}

// checkInterval refuses a spec that runs more often than min.
func checkInterval(spec schedule.Spec, min time.Duration, now time.Time) error {
	gap, ok := spec.Interval(now)
	if !ok || gap >= min {
		return nil
	}
	return apierr.Errorf(apierr.CodeScheduleTooFrequent, "%s runs every %s at the closest; a schedule made over the API runs at most every %s (scheduler.minInterval)",
		spec, gap, min)
}

// unattendedTool is tool toolName of agent agentName (its own or a shared
// one) when a schedule made over the API may call it: the operator's
// definition says unattended: true, and it is exported (an API caller may
// call it over /mcp), AUTO (never USER_CONSENT: no one is there to agree)
// and not a frontend tool (there is no IDE). Otherwise it is
// AGENT_NOT_FOUND or TOOL_NOT_UNATTENDED, naming the tool and why.
func unattendedTool(reg *program.Registry, agentName, toolName string) (stepkind.Tool, *apierr.Error) {
	if reg == nil {
		return nil, apierr.Errorf(apierr.CodeToolNotUnattended, "tool %q: this gateway runs no tools from schedules made over the API", toolName)
	}
	a, ok := reg.Get(agentName)
	if !ok {
		return nil, apierr.Errorf(apierr.CodeAgentNotFound, "no agent %q", agentName).Suggest("GET /agents lists them")
	}
	for _, t := range a.Tools() {
		spec := t.ToolSpec()
		if spec.Name != toolName {
			continue
		}
		why := ""
		switch {
		case t.NeedsConsent():
			why = "it needs the user's consent (permissionLevel USER_CONSENT)"
		case spec.Runtime == "frontend":
			why = "it is a frontend tool: it runs in the IDE"
		case !spec.Export:
			why = "it is not exported (export: true)"
		case !spec.Unattended:
			why = "its definition does not say unattended: true"
		default:
			return t, nil
		}
		return nil, apierr.Errorf(apierr.CodeToolNotUnattended, "tool %q of agent %q may not run from a schedule made over the API: %s", toolName, agentName, why)
	}
	return nil, apierr.Errorf(apierr.CodeToolNotUnattended, "agent %q has no tool %q", agentName, toolName)
}

// checkTarget refuses a schedule made over the API whose target names what
// this gateway does not have: an agent not loaded, a command the agent does
// not define (a remote agent's commands are the remote's: not checked
// here), a tool the agent (with the shared tools) does not have. Each is a
// 400 BAD_REQUEST naming the field, as for any invalid target, rather than
// a schedule that fails at every run. With no registry nothing is checked.
func checkTarget(reg *program.Registry, d *agent.ScheduleDef) *apierr.Error {
	if reg == nil {
		return nil
	}
	a, ok := reg.Get(d.Agent)
	if !ok {
		return targetError(d, "agent", fmt.Sprintf("no agent %q%s", d.Agent, suggest.DidYouMean(d.Agent, reg.Names())), "GET /agents lists them")
	}
	if d.Tool != "" {
		names := make([]string, 0, len(a.Tools()))
		for _, t := range a.Tools() {
			if t.ToolSpec().Name == d.Tool {
				return nil
			}
			names = append(names, t.ToolSpec().Name)
		}
		return targetError(d, "tool", fmt.Sprintf("agent %q has no tool %q%s", d.Agent, d.Tool, suggest.DidYouMean(d.Tool, names)),
			fmt.Sprintf("GET /agents/%s lists its tools", d.Agent))
	}
	if _, remote := a.RemoteEndpoint(); remote {
		return nil
	}
	cmd := firstNonEmpty(d.Command, program.DefaultCommand)
	if !slices.Contains(a.CommandNames(), cmd) {
		return targetError(d, "command", fmt.Sprintf("agent %q has no command %q%s", d.Agent, cmd, suggest.DidYouMean(cmd, a.CommandNames())),
			fmt.Sprintf("GET /agents/%s lists its commands", d.Agent))
	}
	return nil
}

// targetError is the 400 of a schedule whose target field names what is
// not there: the message and the violation name the field.
func targetError(d *agent.ScheduleDef, field, msg, suggest string) *apierr.Error {
	e := apierr.Errorf(apierr.CodeBadRequest, "schedule %q: %s: %s", d.Name, field, msg).Suggest(suggest)
	e.Violations = []apierr.Violation{{Pointer: "/" + field, Message: msg}}
	return e
}

// paramsValidator is a tool that validates parameters against its
// declared schema before any call, as *tools.Tool does.
type paramsValidator interface {
	Validate(params map[string]any) error
}

// checkParams validates params against tool's declared schema, when the
// tool can say (the tools of package tools can).
func checkParams(tool stepkind.Tool, params map[string]any) error {
	v, ok := tool.(paramsValidator)
	if !ok {
		return nil
	}
	if err := v.Validate(params); err != nil {
		return apierr.Errorf(apierr.CodeInvalidParameters, "tool %q: %v", tool.ToolSpec().Name, err)
	}
	return nil
}

// runOwner is who a run of sc acts as, for its conversation (contextId)
// and its hand-offs: the identity of the inbound token that created sc,
// whatever user sc names (user is then userInfo.id only, as in a request
// with that token). A schedule of the operator's files, or one made with
// inbound auth off (every caller is then the operator), acts as the user
// it names, as a request naming that user does.
func runOwner(sc schedule.Schedule, t *Target) string {
	if sc.Source == "" && access.Authenticated(sc.Owner) {
		return sc.Owner
	}
	return conversation.UserOwner(t.User)
}

// toolError is err's message as a run's result keeps it.
func toolError(err *apierr.Error) *ErrorInfo {
	return &ErrorInfo{Code: err.Code, Message: err.Message}
}
