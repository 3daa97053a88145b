package agent

import (
	"slices"
	"sync/atomic"
)

// Registry holds the loaded agents. Readers never lock: a reload builds a
// new snapshot and swaps it in atomically, so requests in flight keep the
// agents they started with.
type Registry struct {
	cur atomic.Pointer[snapshot]
}

type snapshot struct {
	byName map[string]*Agent
	names  []string
}

// NewRegistry returns a registry holding agents.
func NewRegistry(agents []*Agent) *Registry {
	r := &Registry{}
	r.Swap(agents)
	return r
}

// Swap replaces all agents at once.
func (r *Registry) Swap(agents []*Agent) {
	s := &snapshot{byName: make(map[string]*Agent, len(agents))}
	for _, a := range agents {
		if _, dup := s.byName[a.Name()]; dup {
			continue
		}
		s.byName[a.Name()] = a
		s.names = append(s.names, a.Name())
	}
	slices.Sort(s.names)
	r.cur.Store(s)
}

// Get returns the agent named name.
func (r *Registry) Get(name string) (*Agent, bool) {
	a, ok := r.cur.Load().byName[name]
	return a, ok
}

// Names lists the agent names, sorted.
func (r *Registry) Names() []string {
	return slices.Clone(r.cur.Load().names)
}

// List returns the agents sorted by name.
func (r *Registry) List() []*Agent {
	s := r.cur.Load()
	out := make([]*Agent, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.byName[n])
	}
	return out
}
