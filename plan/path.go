package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/internal/runes"
)

// Roots of paths in references, output paths and conditions.
const (
	RootState        = "state"        // the plan's state (State)
	RootSteps        = "steps"        // the steps' records: steps.<id>.status|result|error|attempts|id
	RootDependencies = "dependencies" // the seed's name for RootSteps; both read the same records
	RootContext      = "context"      // the request's context variables by name
	RootInput        = "input"        // the request itself
	RootHandoff      = "handoff"      // the hand-off message a command received, if any
)

// Path is a parsed dotted path: the root first, then the keys. "state.user.name" is
// ["state","user","name"]. List elements are addressed by decimal keys: "state.items.0.name".
type Path []string

// isRoot reports whether name is one of the path roots.
func isRoot(name string) bool {
	switch name {
	case RootState, RootSteps, RootDependencies, RootContext, RootInput, RootHandoff:
		return true
	}
	return false
}

// ParsePath parses a dotted path. Each segment is an identifier ([A-Za-z_][A-Za-z0-9_-]*) or a decimal
// index ([0-9]+); the first segment must be one of the roots (state, steps, dependencies, context,
// input, handoff). A bare root ("input") is a valid path naming the whole root.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, errors.New("empty path")
	}
	segs := strings.Split(s, ".")
	for i, seg := range segs {
		if err := checkSegment(seg); err != nil {
			return nil, fmt.Errorf("path %q, segment %d: %w", s, i+1, err)
		}
	}
	if !isRoot(segs[0]) {
		return nil, fmt.Errorf("path %q: root %q is not one of state, steps, dependencies, context, input, handoff", s, segs[0])
	}
	return Path(segs), nil
}

// checkSegment validates one path segment.
func checkSegment(seg string) error {
	if seg == "" {
		return errors.New("empty segment (two dots, or a dot at an end)")
	}
	if runes.IsDecimal(seg) {
		return nil
	}
	for i, r := range seg {
		if !isIdentRune(r, i == 0) {
			return fmt.Errorf("%q is neither an identifier ([A-Za-z_][A-Za-z0-9_-]*) nor a decimal index", seg)
		}
	}
	return nil
}

// isIdentRune reports whether r may appear in a path identifier (at its start when first).
func isIdentRune(r rune, first bool) bool {
	switch {
	case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		return true
	case '0' <= r && r <= '9', r == '-':
		return !first
	}
	return false
}

// String renders the path in its dotted form.
func (p Path) String() string { return strings.Join(p, ".") }

// stepID returns the step id a path names under steps./dependencies., if any.
func (p Path) stepID() (string, bool) {
	if len(p) >= 2 && (p[0] == RootSteps || p[0] == RootDependencies) {
		return p[1], true
	}
	return "", false
}
