package stepkind

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/agentgw/agentgw/agent"
)

// Registry holds the step kinds definitions may use. It is filled before
// loading and read-only after.
type Registry struct {
	kinds []Kind
	names []string
}

var _ agent.KindSpecs = (*Registry)(nil)

// NewRegistry returns a registry with kinds registered in order.
func NewRegistry(kinds ...Kind) (*Registry, error) {
	r := &Registry{}
	for _, k := range kinds {
		if err := r.Register(k); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds a kind. Its name must be new, and its Config a pointer.
func (r *Registry) Register(k Kind) error {
	s := k.Spec()
	if s.Name == "" {
		return fmt.Errorf("registering step kind %T: no name", k)
	}
	if slices.Contains(r.names, s.Name) {
		return fmt.Errorf("registering step kind %q: already registered", s.Name)
	}
	if t := reflect.TypeOf(s.Config); t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("registering step kind %q: Config must point to the configuration's zero value, not %T", s.Name, s.Config)
	}
	r.kinds = append(r.kinds, k)
	r.names = append(r.names, s.Name)
	return nil
}

// Kind returns the kind named name.
func (r *Registry) Kind(name string) (Kind, bool) {
	if i := slices.Index(r.names, name); i >= 0 {
		return r.kinds[i], true
	}
	return nil, false
}

// KindSpec implements agent.KindSpecs.
func (r *Registry) KindSpec(name string) (agent.KindSpec, bool) {
	k, ok := r.Kind(name)
	if !ok {
		return agent.KindSpec{}, false
	}
	return k.Spec(), true
}

// KindNames implements agent.KindSpecs: the kinds in registration order.
func (r *Registry) KindNames() []string { return r.names }
