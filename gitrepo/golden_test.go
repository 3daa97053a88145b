package gitrepo

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

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
		path := filepath.Join("testdata", "golden", name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestJSONGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s JSON differs from %s:\n%s", name, path, got)
		}
	}
}
