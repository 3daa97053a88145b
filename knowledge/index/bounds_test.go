package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"
)

// TestSearchGlobBounds: a query with more path globs than MaxGlobs, or a
// glob longer than MaxGlobLen, is ErrBadQuery naming the config key,
// before any glob is compiled or any file examined; at the bounds it runs.
func TestSearchGlobBounds(t *testing.T) {
	ix := openIndex(t, backends[0].newDB(t), Options{MaxGlobs: 4, MaxGlobLen: 32})
	mustReplace(t, ix, "kb", mkFile("a/b.go", "h", "code", [2]string{"f", "alpha beta"}))
	examined := 0
	ix.onFile = func() { examined++ }
	many := make([]string, 200000)
	for i := range many {
		many[i] = "*"
	}
	for _, tc := range []struct {
		name  string
		globs []string
		key   string
	}{
		{"too many globs", many, "knowledge.maxGlobs"},
		{"one over the count", []string{"a", "b", "c", "d", "e"}, "knowledge.maxGlobs"},
		{"a glob too long", []string{strings.Repeat("*a", 16) + "b"}, "knowledge.maxGlobLength"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ix.Search(context.Background(), Query{KB: []string{"kb"}, Text: "alpha", PathGlobs: tc.globs})
			if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.key) {
				t.Errorf("Search = %v, want ErrBadQuery naming %s", err, tc.key)
			}
			if examined != 0 {
				t.Errorf("%d files examined, want none", examined)
			}
		})
	}
	// At the bounds: 4 globs of 32 bytes, pathological ones included.
	at := []string{strings.Repeat("*a", 15) + "b", "**/**/**/**/**/**/**/**/**/x", "nothing", "a/*.go"}
	if hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "alpha", PathGlobs: at}); len(hits) != 1 {
		t.Errorf("hits at the bounds: %+v, want a/b.go", hits)
	}
}

// TestSearchStopsWhenCancelled: a search whose caller leaves stops
// matching file names at once: cancelled while the 5th of 300 files is
// examined, no 6th is, and the search returns the context's error.
func TestSearchStopsWhenCancelled(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		for i := range 300 {
			mustReplace(t, ix, "kb", mkFile(fmt.Sprintf("d/f%03d.go", i), "h", "code", [2]string{"f", "alpha"}))
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		examined := 0
		ix.onFile = func() {
			if examined++; examined == 5 {
				cancel()
			}
		}
		_, err := ix.Search(ctx, Query{KB: []string{"kb"}, Text: "alpha", PathGlobs: []string{"*a*a*a*a*b"}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Search = %v, want context.Canceled", err)
		}
		if examined != 5 {
			t.Errorf("%d files examined, want 5: the search went on after its caller left", examined)
		}
	})
}

// TestGlobMatchAllocs: matching a pathological glob allocates in
// proportion to the path's segments, not to the pattern's stars.
func TestGlobMatchAllocs(t *testing.T) {
	name := strings.Repeat("a", 200) + "/" + strings.Repeat("a", 200)
	for _, raw := range []string{
		strings.Repeat("*a", 100) + "b",
		strings.Repeat("**/", 40) + "b",
		"*/" + strings.Repeat("*a", 100) + "b",
	} {
		g, err := compileGlob(raw)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() { g.match(name) })
		if allocs > 2*float64(len(g.segs))+4 {
			t.Errorf("matching %q: %v allocations", raw, allocs)
		}
	}
}

// BenchmarkGlobPathological measures a glob of many stars against a long
// name that does not match: path.Match commits each chunk to its first
// match, so this costs len(pattern) × len(name) steps, not exponentially
// many.
func BenchmarkGlobPathological(b *testing.B) {
	g, err := compileGlob(strings.Repeat("*a", 128) + "b")
	if err != nil {
		b.Fatal(err)
	}
	name := "dir/" + strings.Repeat("a", 255)
	for b.Loop() {
		if g.match(name) {
			b.Fatal("matched")
		}
	}
}

// FuzzGlobMatch: compiling and matching any glob against any name neither
// panics nor disagrees with path.Match for base-name globs.
func FuzzGlobMatch(f *testing.F) {
	f.Add("*a*a*a*b", "aaaaaaaa")
	f.Add("**/x/*.go", "a/b/x/y.go")
	f.Add("[a-", "a")
	f.Add("\\*", "*")
	f.Fuzz(func(t *testing.T, raw, name string) {
		if len(raw) > DefaultMaxGlobLen || len(name) > 1024 {
			return
		}
		g, err := compileGlob(raw)
		if err != nil {
			return
		}
		got := g.match(name)
		if !strings.Contains(raw, "/") {
			want, err := path.Match(raw, path.Base(name))
			if err == nil && got != want {
				t.Errorf("match(%q, %q) = %v, path.Match says %v", raw, name, got, want)
			}
		}
	})
}
