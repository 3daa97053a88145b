package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// nameRE is what model APIs accept in a function name, up to
// maxNameLen bytes (a counted repetition, {1,64}, would compile into a
// program of 64 copies held from the process's start).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// maxNameLen is the longest function name model APIs accept.
const maxNameLen = 64

// validName reports whether s is a function name model APIs accept.
func validName(s string) bool { return len(s) <= maxNameLen && nameRE.MatchString(s) }

// envNameRE is a portable environment variable name.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Compile validates spec and returns the compiled tool with load-time
// warnings. baseDir is where the spec's relative paths start (the directory
// of the file that defined it). All problems found are reported together.
func (m *Manager) Compile(spec Spec, baseDir string) (*Tool, []string, error) {
	base, err := filepath.Abs(baseDir)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %q: base directory: %w", spec.Name, err)
	}
	t := &Tool{Spec: cloneSpec(spec), BaseDir: base, m: m}
	t.applyDefaults()
	var warns []string
	var errs []error
	for _, check := range []func() ([]string, error){
		t.checkName, t.checkRuntime, t.compileSchema, t.checkPolicy,
		t.checkLimits, t.checkEnv, t.resolveWorkdir,
	} {
		w, err := check()
		warns = append(warns, w...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if t.rt != nil {
		w, err := t.rt.Check(t)
		warns = append(warns, w...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		_ = t.Close() // what a check built (a wasm module) goes with the tool
		return nil, warns, fmt.Errorf("tool %q: %w", spec.Name, errors.Join(errs...))
	}
	if err := t.buildFunctionDef(); err != nil {
		_ = t.Close()
		return nil, warns, fmt.Errorf("tool %q: function definition: %w", spec.Name, err)
	}
	return t, warns, nil
}

// cloneSpec copies the slices of s so the tool owns them.
func cloneSpec(s Spec) Spec {
	s.Args = slices.Clone(s.Args)
	s.Env = slices.Clone(s.Env)
	s.Mounts = slices.Clone(s.Mounts)
	return s
}

// applyDefaults fills the fields whose zero value means a default.
func (t *Tool) applyDefaults() {
	t.Runtime = strings.ToLower(strings.TrimSpace(t.Runtime))
	t.PermissionLevel = strings.ToUpper(or(t.PermissionLevel, toolspec.PermissionAuto))
	t.FallbackBehavior = strings.ToUpper(t.FallbackBehavior)
	if t.Runtime == "frontend" && t.FallbackBehavior == "" {
		t.FallbackBehavior = toolspec.FallbackAbort
	}
	t.Command = or(t.Command, t.Name)
	if t.Runtime == "mcp" {
		t.Remote = or(t.Remote, t.Name)
	}
	if t.Runtime == "builtin" {
		t.Entry = or(t.Entry, t.Name)
	}
	if t.Timeout == 0 {
		t.Timeout = DefaultTimeout
	}
	if t.MaxOutputBytes == 0 {
		t.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if t.MemoryMiB == 0 {
		t.MemoryMiB = DefaultMemoryMiB
	}
}

// checkName checks the name against what model APIs accept.
func (t *Tool) checkName() ([]string, error) {
	if !validName(t.Name) {
		return nil, fmt.Errorf("name %q: must be 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	var warns []string
	if strings.TrimSpace(t.Description) == "" {
		warns = append(warns, "no description: models choose tools by their description")
	}
	return warns, nil
}

// checkRuntime resolves the runtime, suggesting the nearest known name.
func (t *Tool) checkRuntime() ([]string, error) {
	names := t.m.runtimeNames()
	if t.Runtime == "" {
		return nil, fmt.Errorf("runtime: missing; one of %s", strings.Join(names, ", "))
	}
	rt, ok := t.m.runtime(t.Runtime)
	if !ok {
		if s, ok := closest(t.Runtime, names); ok {
			return nil, fmt.Errorf("runtime %q: unknown; did you mean %q?", t.Runtime, s)
		}
		return nil, fmt.Errorf("runtime %q: unknown; one of %s", t.Runtime, strings.Join(names, ", "))
	}
	t.rt = rt
	if t.Entry == "" && t.Runtime != "frontend" {
		return nil, fmt.Errorf("entry: missing; a %s tool needs one", t.Runtime)
	}
	return nil, nil
}

// checkPolicy checks the permission level, the fallback and the export flag.
func (t *Tool) checkPolicy() ([]string, error) {
	var warns []string
	if t.PermissionLevel != toolspec.PermissionAuto && t.PermissionLevel != toolspec.PermissionUserConsent {
		return nil, fmt.Errorf("permissionLevel %q: must be %s or %s", t.PermissionLevel, toolspec.PermissionAuto, toolspec.PermissionUserConsent)
	}
	switch t.FallbackBehavior {
	case "", toolspec.FallbackAbort, toolspec.FallbackSkip, toolspec.FallbackUseAlternative:
	default:
		return nil, fmt.Errorf("fallbackBehavior %q: must be %s, %s or %s", t.FallbackBehavior, toolspec.FallbackAbort, toolspec.FallbackSkip, toolspec.FallbackUseAlternative)
	}
	if t.FallbackBehavior != "" && t.Runtime != "frontend" {
		warns = append(warns, "fallbackBehavior applies to frontend tools only; ignored")
	}
	if t.Export && t.Runtime == "frontend" {
		return warns, fmt.Errorf("export: a frontend tool runs in the IDE and cannot be offered to MCP clients")
	}
	if t.Export && t.PermissionLevel == toolspec.PermissionUserConsent {
		warns = append(warns, "export: a USER_CONSENT tool is not offered to MCP clients (there is no user to ask); ignored")
	}
	if t.Unattended && (t.PermissionLevel == toolspec.PermissionUserConsent || t.Runtime == "frontend" || !t.Export) {
		warns = append(warns, "unattended: only an exported AUTO tool that is not a frontend tool runs from a schedule made over the API; ignored")
	}
	return warns, nil
}

// checkLimits checks the timeout, output cap and memory limit.
func (t *Tool) checkLimits() ([]string, error) {
	var errs []error
	if t.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s: must not be negative", t.Timeout))
	} else if t.Timeout < time.Millisecond {
		errs = append(errs, fmt.Errorf("timeout %s: too small; write a duration such as 30s", t.Timeout))
	}
	if t.MaxOutputBytes < 0 {
		errs = append(errs, fmt.Errorf("maxOutputBytes %d: must not be negative", t.MaxOutputBytes))
	}
	if t.MemoryMiB < 0 || t.MemoryMiB > maxMemoryMiB {
		errs = append(errs, fmt.Errorf("memoryMiB %d: must be between 1 and %d", t.MemoryMiB, maxMemoryMiB))
	}
	return nil, errors.Join(errs...)
}

// checkEnv checks the environment allow-list entries.
func (t *Tool) checkEnv() ([]string, error) {
	seen := map[string]bool{}
	for _, e := range t.Env {
		name, _, _ := strings.Cut(e, "=")
		if !envNameRE.MatchString(name) {
			return nil, fmt.Errorf("env %q: want NAME or NAME=value", e)
		}
		if seen[name] {
			return nil, fmt.Errorf("env %q: %s listed twice", e, name)
		}
		seen[name] = true
	}
	return nil, nil
}
