package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// builtinRuntime runs Go functions the gateway registers in Config.Builtins.
type builtinRuntime struct {
	fns map[string]BuiltinFunc
}

// Name implements Runtime.
func (builtinRuntime) Name() string { return "builtin" }

// Check requires a registered builtin of the entry's name.
func (r builtinRuntime) Check(t *Tool) ([]string, error) {
	if r.fns[t.Entry] != nil {
		return nil, nil
	}
	names := slices.Sorted(maps.Keys(r.fns))
	if s, ok := closest(t.Entry, names); ok {
		return nil, fmt.Errorf("entry %q: no such builtin; did you mean %q?", t.Entry, s)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("entry %q: no such builtin; none are registered", t.Entry)
	}
	return nil, fmt.Errorf("entry %q: no such builtin; one of %s", t.Entry, strings.Join(names, ", "))
}

// Run implements Runtime.
func (r builtinRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	fn := r.fns[t.Entry]
	if fn == nil {
		return nil, errorf(toolspec.CodeUnavailable, "builtin %q is not registered", t.Entry)
	}
	return fn(ctx, call.Parameters)
}

// frontendRuntime stands for tools the IDE runs: the gateway forwards their
// calls and never runs them itself.
type frontendRuntime struct{}

// Name implements Runtime.
func (frontendRuntime) Name() string { return "frontend" }

// Check accepts every frontend tool.
func (frontendRuntime) Check(*Tool) ([]string, error) { return nil, nil }

// Run refuses: frontend tools run in the IDE.
func (frontendRuntime) Run(_ context.Context, t *Tool, _ Call) (any, error) {
	return nil, errorf(toolspec.CodeUnavailable, "frontend tool %s runs in the IDE, not on the gateway", t.Name)
}
