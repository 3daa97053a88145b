package gitrepo

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	bothRepos(t, func(t *testing.T, r *Repo, f *fixture) {
		h := f.hashes
		tests := []struct{ ref, want string }{
			{"main", h["c3"]},
			{"feature", h["f2"]},
			{"refs/heads/feature", h["f2"]},
			{"v0.1", h["c1"]},
			{"v1.0", h["c2"]},
			{"refs/tags/v1.0", h["c2"]},
			{"HEAD", h["c3"]},
			{"main~1", h["c2"]},
			{"main~2", h["c1"]},
			{"HEAD^", h["c2"]},
			{"feature^", h["f1"]},
			{"feature~1^1", h["c2"]},
			{"feature^0", h["f2"]},
			{h["c1"][:7], h["c1"]},
			{h["f1"][:5], h["f1"]},
			{strings.ToUpper(h["c2"]), h["c2"]},
		}
		if r.cloned {
			tests = append(tests, struct{ ref, want string }{"origin/feature", h["f2"]},
				struct{ ref, want string }{"origin", h["c3"]})
		}
		for _, tt := range tests {
			got, err := r.Resolve(context.Background(), tt.ref)
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
			}
		}
		for _, ref := range []string{"nope", "main~5", "feature^2", h["c1"][:3] + "", "0000000", "origin/nope"} {
			if _, err := r.Resolve(context.Background(), ref); !errors.Is(err, ErrNotFound) {
				t.Errorf("Resolve(%q): err = %v; want ErrNotFound", ref, err)
			}
		}
		for _, ref := range []string{"", "a..b", "-x", "main:README.md", "a b", "x@{1}", "main~99999999999"} {
			if _, err := r.Resolve(context.Background(), ref); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Resolve(%q): err = %v; want an invalid-ref error", ref, err)
			}
		}
	})
}

func TestTree(t *testing.T) {
	bothRepos(t, func(t *testing.T, r *Repo, f *fixture) {
		ctx := context.Background()
		got, err := r.Tree(ctx, "main", "")
		if err != nil {
			t.Fatal(err)
		}
		want := []Entry{
			{Name: "docs", Path: "docs", Type: "dir"},
			{Name: "pkg", Path: "pkg", Type: "dir"},
			{Name: "README.md", Path: "README.md", Type: "file", Size: 26},
			{Name: "logo.png", Path: "logo.png", Type: "file", Size: 18},
			{Name: "main.go", Path: "main.go", Type: "file", Size: 45},
			{Name: "old.txt", Path: "old.txt", Type: "file", Size: 9},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Tree(main, root) =\n%+v\nwant\n%+v", got, want)
		}
		for _, dir := range []string{"docs/guide", "docs/guide/", "./docs//guide", "pkg/../docs/guide"} {
			got, err := r.Tree(ctx, "feature", dir)
			want := []Entry{{Name: "start.md", Path: "docs/guide/start.md", Type: "file", Size: 480}}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Tree(feature, %q) = %+v, %v; want %+v", dir, got, err, want)
			}
		}
		for _, dir := range []string{"nope", "docs/nope"} {
			if _, err := r.Tree(ctx, "main", dir); !errors.Is(err, ErrNotFound) {
				t.Errorf("Tree(main, %q): err = %v; want ErrNotFound", dir, err)
			}
		}
		if _, err := r.Tree(ctx, "nope", ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("Tree(nope): err = %v; want ErrNotFound", err)
		}
		if _, err := r.Tree(ctx, "main", "main.go"); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("Tree(main.go): err = %v; want not a directory", err)
		}
		for _, dir := range []string{"..", "../x", "docs/../../x", "/etc", "a\x00b"} {
			if _, err := r.Tree(ctx, "main", dir); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Tree(%q): err = %v; want a rejected path", dir, err)
			}
		}
	})
}

func TestShow(t *testing.T) {
	bothRepos(t, func(t *testing.T, r *Repo, f *fixture) {
		ctx := context.Background()
		got, err := r.Show(ctx, "main", "README.md", 0)
		want := &File{Path: "README.md", Ref: "main", Hash: f.hashes["c3"], Size: 26, Content: "# demo\n\nA demo, improved.\n"}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Show(README.md) = %+v, %v; want %+v", got, err, want)
		}
		got, err = r.Show(ctx, "v0.1", "./README.md", 5)
		want = &File{Path: "README.md", Ref: "v0.1", Hash: f.hashes["c1"], Size: 7, Content: "# dem", Truncated: true}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Show(README.md, 5 bytes) = %+v, %v; want %+v", got, err, want)
		}
		got, err = r.Show(ctx, "main", "logo.png", 0)
		want = &File{Path: "logo.png", Ref: "main", Hash: f.hashes["c3"], Size: 18, Binary: true}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Show(logo.png) = %+v, %v; want %+v", got, err, want)
		}
		for _, p := range []string{"nope.txt", "old.txt@feature"} {
			if _, err := r.Show(ctx, "feature", p, 0); !errors.Is(err, ErrNotFound) {
				t.Errorf("Show(%q): err = %v; want ErrNotFound", p, err)
			}
		}
		if _, err := r.Show(ctx, "feature", "old.txt", 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Show(deleted old.txt): err = %v; want ErrNotFound", err)
		}
		if _, err := r.Show(ctx, "main", "docs", 0); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("Show(docs): err = %v; want is a directory", err)
		}
		for _, p := range []string{"", ".", "../etc/passwd", "/etc/passwd", "docs/../../x"} {
			if _, err := r.Show(ctx, "main", p, 0); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Show(%q): err = %v; want a rejected path", p, err)
			}
		}
	})
}

func TestLog(t *testing.T) {
	bothRepos(t, func(t *testing.T, r *Repo, f *fixture) {
		ctx := context.Background()
		subjects := func(cs []Commit) []string {
			s := []string{}
			for _, c := range cs {
				s = append(s, c.Subject)
			}
			return s
		}
		tests := []struct {
			ref, path string
			limit     int
			want      []string
		}{
			{"main", "", 0, []string{"readme", "add util", "initial"}},
			{"feature", "", 2, []string{"tweak util", "feature work"}},
			{"feature", "pkg", 0, []string{"tweak util", "add util"}},
			{"feature", "pkg/util.go", 1, []string{"tweak util"}},
			{"feature", "docs/guide/start.md", 0, []string{"feature work"}},
			{"feature", "docs", 0, []string{"feature work", "initial"}},
			{"main", "README.md", 0, []string{"readme", "add util", "initial"}},
			{"main", "nope", 0, []string{}},
		}
		for _, tt := range tests {
			got, err := r.Log(ctx, tt.ref, tt.path, tt.limit)
			if err != nil || !reflect.DeepEqual(subjects(got), tt.want) {
				t.Errorf("Log(%q, %q, %d) = %v, %v; want %v", tt.ref, tt.path, tt.limit, subjects(got), err, tt.want)
			}
		}
		got, err := r.Log(ctx, "v0.1", "", 0)
		want := []Commit{{Hash: f.hashes["c1"], Short: f.hashes["c1"][:7], Author: "Ann Dev", Email: "ann@example.com",
			When: epoch.Add(time.Hour), Subject: "initial", Message: "initial\n\nThe first commit."}}
		if err != nil || len(got) != 1 || !got[0].When.Equal(want[0].When) {
			t.Fatalf("Log(v0.1) = %+v, %v; want %+v", got, err, want)
		}
		got[0].When = want[0].When
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Log(v0.1) = %+v; want %+v", got, want)
		}
		if _, err := r.Log(ctx, "nope", "", 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Log(nope): err = %v; want ErrNotFound", err)
		}
		if _, err := r.Log(ctx, "main", "../x", 0); err == nil {
			t.Error("Log(../x): want a rejected path")
		}
	})
}

func TestCancelledContext(t *testing.T) {
	r, _ := pathRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Log(ctx, "main", "", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Log: err = %v; want context.Canceled", err)
	}
	if _, err := r.Diff(ctx, "main", "feature", DiffOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Diff: err = %v; want context.Canceled", err)
	}
}
