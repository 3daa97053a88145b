package gitstep

import (
	"strings"
	"testing"
)

// TestSpecFields: the git kind's configuration, as lint and a schema read
// it, has every key a git step takes, each documented.
func TestSpecFields(t *testing.T) {
	spec := New(nil).Spec()
	if spec.Name != "git" || spec.Doc == "" {
		t.Fatalf("spec %+v", spec)
	}
	var names []string
	for _, f := range spec.Fields() {
		names = append(names, f.Name+":"+f.Type)
		if f.Doc == "" {
			t.Errorf("field %s has no doc", f.Name)
		}
	}
	want := "op:string repo:string ref:string from:string to:string path:string limit:integer mergeBase:boolean"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
}
