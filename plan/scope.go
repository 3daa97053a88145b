package plan

// Scope is what references and conditions see when they are resolved.
type Scope struct {
	// State is the plan's state (the "state" root). nil reads as empty.
	State *State
	// Steps holds the step records by id (the "steps" and "dependencies" roots). A record has the keys
	// "id", "status" (a status name as a plain string), "result" (the value, nil until COMPLETED), "error"
	// (nil, or {"message": text}) and "attempts" (an int), and once it is terminal, "finished" (when, RFC 3339 in UTC). The engine never modifies a record map after
	// publishing it.
	Steps map[string]map[string]any
	// Context holds the request's context variables by name (the "context" root).
	Context map[string]any
	// Input is the request (the "input" root), e.g. input.action.node on action feedback.
	Input map[string]any
	// Handoff is the hand-off message the command received (the "handoff" root), nil without one.
	Handoff map[string]any
}

// root returns the shared value of a root; callers must not modify it.
func (sc *Scope) root(name string) any {
	if sc == nil {
		return nil
	}
	switch name {
	case RootState:
		if sc.State == nil {
			return nil
		}
		return sc.State.tree()
	case RootSteps, RootDependencies:
		return sc.Steps
	case RootContext:
		return sc.Context
	case RootInput:
		return sc.Input
	case RootHandoff:
		return sc.Handoff
	}
	return nil
}

// lookupShared is Lookup without the copy; the value must not be modified.
func (sc *Scope) lookupShared(p Path) (any, bool) {
	if len(p) == 0 || !isRoot(p[0]) {
		return nil, false
	}
	r := sc.root(p[0])
	if r == nil || isNilMap(r) {
		return nil, false
	}
	return walk(r, p[1:])
}

// isNilMap reports whether r is one of the scope's root maps and nil.
func isNilMap(r any) bool {
	switch t := r.(type) {
	case map[string]any:
		return t == nil
	case map[string]map[string]any:
		return t == nil
	}
	return false
}

// Lookup returns the value at p, a path starting with its root, and whether it exists. dependencies.*
// and steps.* both read Steps. The value is a deep copy (see State) that the caller may modify. A nil
// root (no Context, say) has no keys.
func (sc *Scope) Lookup(p Path) (any, bool) {
	v, ok := sc.lookupShared(p)
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}
