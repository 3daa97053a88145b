package tools

import "context"

// fakeRuntime stands for a runtime registered from outside (mcp).
type fakeRuntime struct {
	name    string
	checked int
}

func (f *fakeRuntime) Name() string { return f.name }

func (f *fakeRuntime) Check(*Tool) ([]string, error) {
	f.checked++
	return nil, nil
}

func (f *fakeRuntime) Run(_ context.Context, t *Tool, c Call) (any, error) {
	return map[string]any{"remote": t.Remote, "params": c.Parameters}, nil
}
