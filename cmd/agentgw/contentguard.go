package main

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/guard"
	"github.com/agentgw/agentgw/guard/exclude"
	"github.com/agentgw/agentgw/guard/exclude/agentpart"
	"github.com/agentgw/agentgw/guard/redact"
	"github.com/agentgw/agentgw/observe/metrics"
)

// ContentGuardConfig is what never leaves the building (package guard):
// files whose content never reaches the model, and credentials replaced
// in every prompt before it leaves. Nothing of it is on unless configured.
type ContentGuardConfig struct {
	// Exclude are path patterns whose files' content never reaches the
	// model, for every agent (.env, secrets/**, *.pem); an agent file's
	// contentExclusion adds its own.
	Exclude []string `yaml:"exclude"`
	// Redact replaces each credential gitleaks' default rules find in a
	// model call's prompt by [REDACTED:<rule id>].
	Redact bool `yaml:"redact"`
	// RedactDisable names gitleaks rules not to apply (generic-api-key).
	RedactDisable []string `yaml:"redactDisable"`
}

// validate checks the patterns.
func (c ContentGuardConfig) validate() error {
	if _, err := exclude.Compile(c.Exclude); err != nil {
		return fmt.Errorf("contentGuard.exclude: %w", err)
	}
	return nil
}

// contentGuard is the gateway's content guard: the policies the request
// stage withholds context variables' files by, and the guard of the
// upstream client (nil when nothing is configured, the zero-cost path).
type contentGuard struct {
	policies exclude.Policies
	guard    *guard.Guard
}

// newContentGuard builds the content guard over the agents of reg. The
// upstream client's guard is made when the config asks for exclusion or
// redaction or an agent loaded now declares contentExclusion: an agent
// that declares it first on a reload has its context variables' files
// withheld at once, its tool results after a restart (the log says so).
func newContentGuard(cfg *Config, reg *program.Registry, mx *metrics.Metrics, log *slog.Logger) (contentGuard, error) {
	c := cfg.ContentGuard
	gw, err := exclude.Compile(c.Exclude)
	if err != nil {
		return contentGuard{}, fmt.Errorf("contentGuard.exclude: %w", err)
	}
	cg := contentGuard{policies: exclude.Policies{Gateway: gw, Agent: func(name string) *exclude.Policy {
		a, ok := reg.Get(name)
		if !ok {
			return nil
		}
		return agentpart.Of(a)
	}}}
	agents := slices.ContainsFunc(reg.List(), func(a *program.Agent) bool { return agentpart.Of(a) != nil })
	if gw.Empty() && !c.Redact && !agents {
		return cg, nil
	}
	gc := guard.Config{Policies: cg.policies, Logger: log}
	if c.Redact {
		if gc.Redactor, err = redact.New(redact.Options{Disable: c.RedactDisable}); err != nil {
			return contentGuard{}, err
		}
		log.Info("content guard: prompts are redacted with gitleaks' rules", "gitleaks", gc.Redactor.Version(), "rules", len(gc.Redactor.Rules()))
	}
	if mx != nil {
		gc.Registerer = mx.Registry()
	}
	if cg.guard, err = guard.New(gc); err != nil {
		return contentGuard{}, err
	}
	if !gw.Empty() || agents {
		log.Info("content guard: excluded files are withheld from the model", "patterns", gw.Patterns())
	}
	return cg, nil
}

// withheld counts a file withheld by the request stage, nil without a
// guard's metrics.
func (c contentGuard) withheld() func(string, int) {
	if c.guard == nil {
		return nil
	}
	return c.guard.Withheld
}
