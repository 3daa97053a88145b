package agenttest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/tools"
)

// stubbedRuntimes are the tool runtimes of m whose calls the stubs answer:
// every registered runtime but frontend, which the test answers the way the
// IDE would, with the stub's result as the tool result. A runtime
// registered later (after RegisterRuntimes) is not stubbed.
func stubbedRuntimes(m *tools.Manager) []string {
	var names []string
	for _, n := range m.RuntimeNames() {
		if n != "frontend" {
			names = append(names, n)
		}
	}
	return names
}

// Stubs stand in for the tool runtimes and the gateway's step kinds while
// tests run: a Loader registers them (RegisterRuntimes, WrapKind) when it is
// given them. They answer with the stubs of the test that runs (tests of a
// file run one after the other) and record the calls.
type Stubs struct {
	mu    sync.Mutex
	test  *Test
	calls []madeCall
	// ran are the stubbed steps that ran.
	ran []madeCall
	// missing are the tools called that the test has no stub for.
	missing []string
	// order gives a tool call id's place among the model's calls.
	order func(id string) int
}

// madeCall is a tool call the run made, or a stubbed step that ran.
type madeCall struct {
	Name string
	Args map[string]any
	// Order is the call's place in the model's answers (0: not a model's
	// call, such as a tool step's), seq the order it was made in.
	Order, seq int
}

// begin makes the stubs answer for t.
func (s *Stubs) begin(t *Test, order func(string) int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.test, s.calls, s.ran, s.missing, s.order = t, nil, nil, nil, order
}

// takeCalls returns and forgets the calls made since the last take, in
// the order the model asked for them.
func (s *Stubs) takeCalls() []madeCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	calls := s.calls
	s.calls = nil
	sortCalls(calls)
	return calls
}

// takeSteps returns and forgets the stubbed steps that ran since the last
// take.
func (s *Stubs) takeSteps() []madeCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	ran := s.ran
	s.ran = nil
	return ran
}

// ranStep records a stubbed step that ran.
func (s *Stubs) ranStep(id string, with map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ran = append(s.ran, madeCall{Name: id, Args: with, seq: len(s.ran)})
}

// missingStubs are the tools the test called without stubbing them.
func (s *Stubs) missingStubs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(s.missing)))
}

// record keeps a call.
func (s *Stubs) record(name, id string, args map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := 0
	if s.order != nil && id != "" {
		o = s.order(id)
	}
	s.calls = append(s.calls, madeCall{Name: name, Args: args, Order: o, seq: len(s.calls)})
}

// tool returns the stub of the tool name, recording a missing one.
func (s *Stubs) tool(name string) (*Stub, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.test == nil {
		return nil, false
	}
	st, ok := s.test.tools[name]
	if !ok {
		s.missing = append(s.missing, name)
	}
	return st, ok
}

// step returns the stub of the plan step id.
func (s *Stubs) step(id string) (*Stub, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.test == nil {
		return nil, false
	}
	st, ok := s.test.steps[id]
	return st, ok
}

// sortCalls orders calls as the model asked for them; calls that are not
// a model's keep the order they were made in, after the model's calls made
// before them.
func sortCalls(calls []madeCall) {
	// Insertion sort keyed by Order where both have one: stable and small.
	for i := 1; i < len(calls); i++ {
		for j := i; j > 0 && calls[j].Order != 0 && calls[j-1].Order != 0 && calls[j].Order < calls[j-1].Order; j-- {
			calls[j], calls[j-1] = calls[j-1], calls[j]
		}
	}
}

// RegisterRuntimes replaces the runtimes of m that run something
// (stubbedRuntimes) with the stubs. Their load-time checks are not made:
// the Runner loads the agents once without stubs for that.
func (s *Stubs) RegisterRuntimes(m *tools.Manager) {
	for _, name := range stubbedRuntimes(m) {
		m.Register(stubRuntime{name: name, s: s})
	}
}

// stubRuntime answers every call of one runtime with the test's stub.
type stubRuntime struct {
	name string
	s    *Stubs
}

// Name implements tools.Runtime.
func (r stubRuntime) Name() string { return r.name }

// Check implements tools.Runtime: it accepts every tool.
func (stubRuntime) Check(*tools.Tool) ([]string, error) { return nil, nil }

// Run implements tools.Runtime: the stub's result or error.
func (r stubRuntime) Run(_ context.Context, t *tools.Tool, call tools.Call) (any, error) {
	r.s.record(t.Name, call.ID, call.Parameters)
	st, ok := r.s.tool(t.Name)
	if !ok {
		return nil, &toolspec.ResultError{Code: toolspec.CodeToolFailed, Message: fmt.Sprintf("agenttest: the test has no stub for tool %q (add it under tools:)", t.Name)}
	}
	if st.Error != nil {
		return nil, &toolspec.ResultError{Code: cmp.Or(st.Error.Code, st.Error.ErrorCode, toolspec.CodeToolFailed), Message: st.Error.Message}
	}
	return st.Result.Interface(), nil
}

// WrapKind returns k with its steps answered by the test's step stubs (by
// step id); a step without a stub runs as k runs it. Compiling is k's own,
// so the problems found are the same.
func (s *Stubs) WrapKind(k stepkind.Kind) stepkind.Kind { return stubKind{Kind: k, s: s} }

// stubKind is a step kind whose steps the stubs may answer.
type stubKind struct {
	stepkind.Kind
	s *Stubs
}

// Compile implements stepkind.Kind.
func (k stubKind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	inner := k.Kind.Compile(c, config)
	if inner == nil {
		return nil
	}
	return &stubStep{inner: inner, s: k.s, kind: k.Spec().Name}
}

// stubStep runs a step's stub, or the step.
type stubStep struct {
	inner stepkind.Step
	s     *Stubs
	kind  string
}

var (
	_ stepkind.Reader = (*stubStep)(nil)
	_ stepkind.Waiter = (*stubStep)(nil)
)

// Run implements stepkind.Step.
func (st *stubStep) Run(ctx context.Context, r stepkind.Run) (any, error) {
	stub, ok := st.s.step(r.StepID())
	if !ok {
		return st.inner.Run(ctx, r)
	}
	st.s.ranStep(r.StepID(), r.With())
	if stub.Error != nil {
		return nil, apierr.New(cmp.Or(stub.Error.ErrorCode, stub.Error.Code, apierr.CodeStepFailed), stub.Error.Message)
	}
	return stub.Result.Interface(), nil
}

// Reads implements stepkind.Reader, as the step does.
func (st *stubStep) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	if r, ok := st.inner.(stepkind.Reader); ok {
		return r.Reads()
	}
	return nil, nil
}

// Waits implements stepkind.Waiter, as the step does.
func (st *stubStep) Waits() bool {
	w, ok := st.inner.(stepkind.Waiter)
	return ok && w.Waits()
}
