package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// summary drops the patches, to compare the rest of a diff.
func summary(d *Diff) []FileDiff {
	out := []FileDiff{}
	for _, fd := range d.Files {
		fd.Patch = ""
		out = append(out, fd)
	}
	return out
}

func TestDiff(t *testing.T) {
	bothRepos(t, func(t *testing.T, r *Repo, f *fixture) {
		ctx := context.Background()
		branch := []FileDiff{
			{Path: "docs/guide/start.md", OldPath: "docs/guide/intro.md", Status: "renamed"},
			{Path: "feature.txt", Status: "added", Additions: 1},
			{Path: "main.go", Status: "modified", Additions: 1, Deletions: 1},
			{Path: "old.txt", Status: "deleted", Deletions: 1},
			{Path: "pkg/util.go", Status: "modified", Additions: 1, Deletions: 1},
		}
		d, err := r.Diff(ctx, "main", "feature", DiffOptions{MergeBase: true})
		if err != nil {
			t.Fatal(err)
		}
		if d.From != f.hashes["c3"] || d.To != f.hashes["f2"] || d.Base != f.hashes["c2"] {
			t.Errorf("from %s to %s base %s; want c3, f2, c2", d.From, d.To, d.Base)
		}
		if got := summary(d); !reflect.DeepEqual(got, branch) {
			t.Errorf("merge-base diff files =\n%+v\nwant\n%+v", got, branch)
		}
		if d.Additions != 3 || d.Deletions != 3 || d.Truncated {
			t.Errorf("additions %d, deletions %d, truncated %v; want 3, 3, false", d.Additions, d.Deletions, d.Truncated)
		}
		wantPatch := "diff --git a/main.go b/main.go\n"
		if p := d.Files[2].Patch; !strings.HasPrefix(p, wantPatch) || !strings.Contains(p, "-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n") {
			t.Errorf("main.go patch =\n%s", p)
		}

		d, err = r.Diff(ctx, "main", "feature", DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		readme := FileDiff{Path: "README.md", Status: "modified", Additions: 1, Deletions: 1}
		if got, want := summary(d), append([]FileDiff{readme}, branch...); d.Base != "" || !reflect.DeepEqual(got, want) {
			t.Errorf("plain diff: base %q, files =\n%+v\nwant\n%+v", d.Base, got, want)
		}

		d, err = r.Diff(ctx, "main", "feature", DiffOptions{MergeBase: true, Paths: []string{"pkg", "docs/guide/intro.md"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := summary(d), []FileDiff{branch[0], branch[4]}; !reflect.DeepEqual(got, want) {
			t.Errorf("paths filter: files =\n%+v\nwant\n%+v", got, want)
		}
	})
}

func TestDiffPatchCap(t *testing.T) {
	r, _ := pathRepo(t)
	d, err := r.Diff(context.Background(), "main", "feature", DiffOptions{MaxPatchBytes: 40})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Truncated {
		t.Error("Truncated = false; want true")
	}
	for _, fd := range d.Files {
		if len(fd.Patch) > 40 || !fd.Truncated || !strings.HasPrefix(fd.Patch, "diff --git ") {
			t.Errorf("%s: patch of %d bytes, truncated %v: %q", fd.Path, len(fd.Patch), fd.Truncated, fd.Patch)
		}
	}
}

func TestDiffTotalCapAndBinary(t *testing.T) {
	f := newRepoFixture(t)
	f.write("README.md", "x\n")
	f.write("image.bin", "\x00\x01\x02")
	f.commit("c1", "first")
	var big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&big, "line %05d %s\n", i, strings.Repeat("x", 58))
	}
	f.write("a.txt", big.String())
	f.write("b.txt", big.String())
	f.write("image.bin", "\x00\x01\x03")
	f.commit("c2", "big")
	m, _, _ := newManager(t, -1, RepoConfig{Name: "big", Path: f.dir})
	r, err := m.Repo(context.Background(), "big")
	if err != nil {
		t.Fatal(err)
	}
	if r.patchBudget != 1<<20 {
		t.Errorf("patch budget = %d; want 1 MiB", r.patchBudget)
	}
	r.patchBudget = 10_000 // a.txt's patch (about 7000 bytes) fits, b.txt's does not
	d, err := r.Diff(context.Background(), "HEAD~1", "HEAD", DiffOptions{MaxPatchBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 3 || !d.Truncated || d.Additions != 200 {
		t.Fatalf("files %d, truncated %v, additions %d; want 3, true, 200", len(d.Files), d.Truncated, d.Additions)
	}
	a, b, img := d.Files[0], d.Files[1], d.Files[2]
	if a.Truncated || len(a.Patch) < len(big.String()) || a.Additions != 100 {
		t.Errorf("a.txt: truncated %v, patch %d bytes, additions %d; want the whole patch", a.Truncated, len(a.Patch), a.Additions)
	}
	if !b.Truncated || b.Patch != "" || b.Additions != 100 {
		t.Errorf("b.txt: truncated %v, patch %d bytes, additions %d; want no patch past the total cap", b.Truncated, len(b.Patch), b.Additions)
	}
	if img.Path != "image.bin" || !img.Binary || img.Truncated || !strings.Contains(img.Patch, "Binary files") {
		t.Errorf("image.bin: %+v; want a binary change within the budget", img)
	}
}

func TestDiffErrors(t *testing.T) {
	r, _ := pathRepo(t)
	ctx := context.Background()
	if _, err := r.Diff(ctx, "main", "nope", DiffOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown ref: err = %v; want ErrNotFound", err)
	}
	if _, err := r.Diff(ctx, "main", "feature", DiffOptions{Paths: []string{"../x"}}); err == nil {
		t.Error("escaping path filter: want an error")
	}
}
