package index

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentgw/agentgw/internal/pathglob"
)

// glob is a compiled path glob: "/"-separated path.Match segments, where a
// "**" segment matches any number of segments, including none. A glob
// without a "/" matches a file's base name, in any directory ("*.md").
type glob struct {
	segs     []string
	baseOnly bool
}

func compileGlob(raw string) (glob, error) {
	if raw == "" {
		return glob{}, fmt.Errorf("path glob is empty")
	}
	g := glob{baseOnly: !strings.Contains(raw, "/")}
	for _, s := range strings.Split(strings.TrimPrefix(raw, "/"), "/") {
		if s == "**" {
			if n := len(g.segs); n > 0 && g.segs[n-1] == "**" {
				continue
			}
		} else if _, err := path.Match(s, ""); err != nil {
			return glob{}, fmt.Errorf("path glob %q: segment %q: %w", raw, s, err)
		}
		g.segs = append(g.segs, s)
	}
	return g, nil
}

func (g glob) match(name string) bool {
	if g.baseOnly {
		return pathglob.MatchSegments(g.segs, []string{path.Base(name)})
	}
	return pathglob.MatchSegments(g.segs, strings.Split(strings.TrimPrefix(name, "/"), "/"))
}

// globs are the path globs of a query: a file passes when it matches any;
// none lets every file pass.
type globs []glob

func compileGlobs(raw []string) (globs, error) {
	var gs globs
	for _, r := range raw {
		g, err := compileGlob(r)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

func (gs globs) match(name string) bool {
	if len(gs) == 0 {
		return true
	}
	for _, g := range gs {
		if g.match(name) {
			return true
		}
	}
	return false
}

// checkGlobBounds refuses the path globs of a query beyond the index's
// bounds, before any is compiled: more than Options.MaxGlobs of them, or
// one longer than Options.MaxGlobLen bytes. With both bounded, matching a
// file name costs at most MaxGlobs × MaxGlobLen × len(name) steps:
// path.Match commits each chunk after a "*" to its first match (no
// backtracking across stars), and pathglob.MatchSegments is a dynamic
// program over the segments.
func (ix *Index) checkGlobBounds(raw []string) error {
	if len(raw) > ix.opts.MaxGlobs {
		return fmt.Errorf("%d path globs, over the limit of %d (knowledge.maxGlobs)", len(raw), ix.opts.MaxGlobs)
	}
	for i, r := range raw {
		if len(r) > ix.opts.MaxGlobLen {
			return fmt.Errorf("path glob %d is %d bytes, over the limit of %d (knowledge.maxGlobLength)", i, len(r), ix.opts.MaxGlobLen)
		}
	}
	return nil
}

// CheckGlobs reports the first path glob of raw that does not compile.
func CheckGlobs(raw []string) error {
	_, err := compileGlobs(raw)
	return err
}

// MatchAny reports whether name matches any of the path globs patterns
// (every name, with none), as a query's PathGlobs match: "/"-separated
// path.Match segments, "**" for any number of directories, a glob without
// "/" matching base names. A glob that does not compile matches nothing
// (CheckGlobs says why).
func MatchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if g, err := compileGlob(p); err == nil && g.match(name) {
			return true
		}
	}
	return false
}
