package gitrepo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestJSONGolden pins the JSON agents and templates see.
func TestJSONGolden(t *testing.T) {
	r, _ := pathRepo(t)
	ctx := context.Background()
	tree, err := r.Tree(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	show, err := r.Show(ctx, "v1.0", "pkg/util.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	log, err := r.Log(ctx, "feature", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := r.Diff(ctx, "main", "feature", DiffOptions{MergeBase: true})
	if err != nil {
		t.Fatal(err)
	}
	status, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"tree": tree, "show": show, "log": log, "diff": diff, "status": status} {
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden.Check(t, "testdata/golden/"+name+".json", got)
	}
}
