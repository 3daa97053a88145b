package program

import (
	"slices"
	"sync/atomic"

	"github.com/agentgw/agentgw/agent"
)

// Registry holds the loaded agents and the problems found loading them.
// Readers never lock: a reload builds a new snapshot and swaps it in
// atomically, so requests in flight keep the agents they started with.
type Registry struct {
	cur atomic.Pointer[snapshot]
}

type snapshot struct {
	byName   map[string]*Agent
	names    []string
	problems agent.Diagnostics
}

// NewRegistry returns a registry holding agents.
func NewRegistry(agents []*Agent) *Registry {
	r := &Registry{}
	r.Swap(agents)
	return r
}

// Swap replaces all agents at once; there are no load problems after it.
func (r *Registry) Swap(agents []*Agent) { r.SwapLoaded(agents, nil) }

// SwapLoaded replaces all agents and the problems found loading them at
// once. Of two agents with one name, the first is kept.
func (r *Registry) SwapLoaded(agents []*Agent, problems agent.Diagnostics) {
	s := &snapshot{byName: make(map[string]*Agent, len(agents)), problems: slices.Clone(problems)}
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

// Problems returns the problems found loading the agents held, in the
// order they were given.
func (r *Registry) Problems() agent.Diagnostics {
	return slices.Clone(r.cur.Load().problems)
}
