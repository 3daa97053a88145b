package stage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/stage"
)

// named is a stage that does nothing but have a name.
type named string

func (n named) Name() string                                { return string(n) }
func (named) Prepare(context.Context, stage.Prepared) error { return nil }

// TestRegistry: stages keep their registration order; a nil stage, a
// nameless one and a second one of a name are refused, and leave the
// registry as it was.
func TestRegistry(t *testing.T) {
	tests := []struct {
		name      string
		stages    []stage.Stage
		wantErr   string
		wantNames string
	}{
		{"in order", []stage.Stage{named("b"), named("a"), named("c")}, "", "b,a,c"},
		{"none", nil, "", ""},
		{"a clash", []stage.Stage{named("a"), named("b"), named("a")}, `registering request stage "a": already registered`, "a,b"},
		{"no name", []stage.Stage{named("a"), named("")}, `registering request stage stage_test.named: no name`, "a"},
		{"nil", []stage.Stage{named("a"), nil}, `registering a request stage: nil`, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &stage.Registry{}
			var err error
			for _, s := range tc.stages {
				if err = r.Register(s); err != nil {
					break
				}
			}
			if got := errString(err); got != tc.wantErr {
				t.Errorf("error %q, want %q", got, tc.wantErr)
			}
			if got := strings.Join(r.Names(), ","); got != tc.wantNames {
				t.Errorf("names %q, want %q", got, tc.wantNames)
			}
			if got := len(r.Stages()); got != len(r.Names()) {
				t.Errorf("%d stages, %d names", got, len(r.Names()))
			}
			_, err = stage.NewRegistry(tc.stages...)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("NewRegistry: error %q, want %q", got, tc.wantErr)
			}
		})
	}
	var none *stage.Registry
	if none.Stages() != nil || none.Names() != nil {
		t.Error("a nil registry has stages")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
