package plan

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestOutputWrite(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		in      string
		result  any
		failure error
		status  Status
		want    map[string]any
	}{
		{name: "single success", in: "state.a", result: map[string]any{"x": 1}, status: Completed,
			want: map[string]any{"a": map[string]any{"x": 1}}},
		{name: "single failure writes nothing", in: "state.a", failure: boom, status: Failed, want: map[string]any{}},
		{name: "nested creates maps", in: "$state.data.user.verified", result: true, status: Completed,
			want: map[string]any{"data": map[string]any{"user": map[string]any{"verified": true}}}},
		{name: "branch success", in: "†state.data.user.verified || †state.data.user.failed", result: "ok", status: Completed,
			want: map[string]any{"data": map[string]any{"user": map[string]any{"verified": "ok"}}}},
		{name: "branch failure", in: "state.ok||state.failed", failure: boom, status: Failed,
			want: map[string]any{"failed": map[string]any{"status": "FAILED", "message": "boom"}}},
		{name: "branch timeout", in: "state.ok || state.failed", failure: errors.New("timed out after 1s"), status: Timeout,
			want: map[string]any{"failed": map[string]any{"status": "TIMEOUT", "message": "timed out after 1s"}}},
		{name: "branch failure without error", in: "state.ok || state.failed", status: Failed,
			want: map[string]any{"failed": map[string]any{"status": "FAILED", "message": ""}}},
		{name: "branch skipped writes nothing", in: "state.ok || state.failed", status: Skipped, want: map[string]any{}},
		{name: "fan-out", in: "state.user.summary && state.audit.summary && state.last", result: "sum", status: Completed,
			want: map[string]any{"user": map[string]any{"summary": "sum"}, "audit": map[string]any{"summary": "sum"}, "last": "sum"}},
		{name: "fan-out failure writes nothing", in: "state.a && state.b", failure: boom, status: Failed, want: map[string]any{}},
		{name: "nil result is written", in: "state.a", status: Completed, want: map[string]any{"a": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ParseOutput(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			st := NewState(nil)
			if err := o.Write(st, tt.result, tt.failure, tt.status); err != nil {
				t.Fatal(err)
			}
			if got := st.Snapshot(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("state = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestOutputWriteCopiesResult(t *testing.T) {
	o, _ := ParseOutput("state.a && state.b")
	st := NewState(nil)
	res := map[string]any{"n": 1}
	if err := o.Write(st, res, nil, Completed); err != nil {
		t.Fatal(err)
	}
	res["n"] = 2
	if err := st.Set(Path{"state", "a", "n"}, 3); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Get(Path{"b", "n"}); v != 1 {
		t.Errorf("state.b.n = %v, want 1 (fan-out targets and the caller's value must not share maps)", v)
	}
}

func TestOutputWriteConflict(t *testing.T) {
	o, _ := ParseOutput("state.a.x && state.b")
	st := NewState(map[string]any{"a": "text"})
	err := o.Write(st, 1, nil, Completed)
	if err == nil || !strings.Contains(err.Error(), "state.a is a string, not a map") {
		t.Fatalf("error = %v", err)
	}
	if v, ok := st.Get(Path{"b"}); !ok || v != 1 {
		t.Errorf("the other fan-out path was not written: %v %v", v, ok)
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		in      string
		paths   []string
		branch  bool
		wantErr string
	}{
		{in: "state.a", paths: []string{"state.a"}},
		{in: " $state.a || †state.b ", paths: []string{"state.a", "state.b"}, branch: true},
		{in: "state.a&&state.b&&state.c", paths: []string{"state.a", "state.b", "state.c"}},
		{in: "", wantErr: "empty output path"},
		{in: "state.a || state.b && state.c", wantErr: "mixes || and &&"},
		{in: "state.a || state.b || state.c", wantErr: "|| takes exactly two paths (success || failure), got 3"},
		{in: "steps.a.result", wantErr: `"steps.a.result" is not under state`},
		{in: "context.x", wantErr: "is not under state"},
		{in: "state", wantErr: "names the whole state"},
		{in: "a.b", wantErr: `root "a"`},
		{in: "state.a &&", wantErr: "path 2: empty path"},
		{in: "state.a b", wantErr: "neither an identifier"},
	}
	for _, tt := range tests {
		o, err := ParseOutput(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseOutput(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseOutput(%q): %v", tt.in, err)
			continue
		}
		var paths []string
		for _, p := range o.Paths() {
			paths = append(paths, p.String())
		}
		if !reflect.DeepEqual(paths, tt.paths) || o.Branch() != tt.branch {
			t.Errorf("ParseOutput(%q) = %q branch=%v, want %q %v", tt.in, paths, o.Branch(), tt.paths, tt.branch)
		}
	}
}
