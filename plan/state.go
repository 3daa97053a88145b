package plan

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// State is a plan's state: a tree of nested map[string]any (JSON-like values: maps, []any, strings,
// numbers, bools, nil). It is safe for concurrent use.
//
// The tree is copy-on-write: Set copies the maps along the path it changes and never modifies a map or
// list a reader may hold, so reads take no lock. Set stores a deep copy of its value and Get and Snapshot
// return deep copies, so neither side can change the other's data. Deep copies cover map[string]any and
// []any; values of other types (a []string, a struct) are shared.
type State struct {
	mu   sync.Mutex // serialises writers
	root atomic.Pointer[map[string]any]
}

// NewState returns a state holding a deep copy of init (which may be nil).
func NewState(init map[string]any) *State {
	s := &State{}
	m := copyMap(init)
	if m == nil {
		m = map[string]any{}
	}
	s.root.Store(&m)
	return s
}

// tree returns the current root, shared: callers must not modify it.
func (s *State) tree() map[string]any {
	if p := s.root.Load(); p != nil {
		return *p
	}
	return nil
}

// keys drops the optional "state" root. A top-level key that is itself named "state" must therefore be
// written with the root: ["state","state",...].
func keys(p Path) []string {
	if len(p) > 0 && p[0] == RootState {
		return p[1:]
	}
	return p
}

// Get returns a deep copy of the value at p and whether it exists (a stored nil exists). p may start with
// the "state" root or not: ["state","user","name"] and ["user","name"] are the same path. An empty path
// (or the bare root) returns the whole tree.
func (s *State) Get(p Path) (any, bool) {
	v, ok := walk(s.tree(), keys(p))
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}

// Set stores a deep copy of v at p (with or without the "state" root), creating intermediate maps for
// missing keys. An existing []any on the way is indexed by a decimal key in range. It fails when the path
// is empty or when a value that is neither a map[string]any nor such a list is in the way.
func (s *State) Set(p Path, v any) error {
	ks := keys(p)
	if len(ks) == 0 {
		return errors.New("setting state: empty path")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	root, err := setIn(s.tree(), ks, 0, deepCopy(v))
	if err != nil {
		return fmt.Errorf("setting state.%s: %w", Path(ks), err)
	}
	m := root.(map[string]any)
	s.root.Store(&m)
	return nil
}

// setIn returns a copy of node (the value at ks[:at]) with v stored under ks[at:], copying only the
// containers on the path.
func setIn(node any, ks []string, at int, v any) (any, error) {
	if at == len(ks) {
		return v, nil
	}
	k := ks[at]
	switch t := node.(type) {
	case nil:
		c, err := setIn(nil, ks, at+1, v)
		if err != nil {
			return nil, err
		}
		return map[string]any{k: c}, nil
	case map[string]any:
		c, err := setIn(t[k], ks, at+1, v)
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(t)+1)
		for key, e := range t {
			m[key] = e
		}
		m[k] = c
		return m, nil
	case []any:
		i, ok := index(k, len(t))
		if !ok {
			return nil, fmt.Errorf("state.%s is a list of %d, %q is not an index in it", Path(ks[:at]), len(t), k)
		}
		c, err := setIn(t[i], ks, at+1, v)
		if err != nil {
			return nil, err
		}
		l := append([]any(nil), t...)
		l[i] = c
		return l, nil
	}
	return nil, fmt.Errorf("state.%s is a %T, not a map", Path(ks[:at]), node)
}

// Snapshot returns a deep copy of the whole tree.
func (s *State) Snapshot() map[string]any {
	m := copyMap(s.tree())
	if m == nil {
		m = map[string]any{}
	}
	return m
}
