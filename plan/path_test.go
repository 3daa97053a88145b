package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in      string
		want    Path
		wantErr string
	}{
		{in: "state.user.name", want: Path{"state", "user", "name"}},
		{in: "steps.fetch-user.result", want: Path{"steps", "fetch-user", "result"}},
		{in: "dependencies.inst_1.result.data", want: Path{"dependencies", "inst_1", "result", "data"}},
		{in: "context.items.0.name", want: Path{"context", "items", "0", "name"}},
		{in: "input", want: Path{"input"}},
		{in: "state._x.Y9", want: Path{"state", "_x", "Y9"}},
		{in: "", wantErr: "empty path"},
		{in: "state..x", wantErr: `path "state..x", segment 2: empty segment`},
		{in: "state.x.", wantErr: "segment 3: empty segment"},
		{in: "user.name", wantErr: `root "user" is not one of state, steps, dependencies, context, input`},
		{in: "state.-x", wantErr: `"-x" is neither an identifier`},
		{in: "state.a b", wantErr: `"a b" is neither`},
		{in: "state.é", wantErr: "neither"},
		{in: "0.x", wantErr: `root "0"`},
		{in: "$state.x", wantErr: `"$state" is neither`},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePath(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParsePath(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("ParsePath(%q).String() = %q", tt.in, got.String())
		}
	}
}

func TestStatusTerminal(t *testing.T) {
	want := map[Status]bool{Pending: false, Running: false, Completed: true, Failed: true, Skipped: true, Timeout: true, "": false}
	for s, terminal := range want {
		if s.Terminal() != terminal {
			t.Errorf("%q.Terminal() = %v", s, !terminal)
		}
	}
}
