package gitrepo

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentgw/agentgw/internal/pathglob"
)

// pattern is a compiled allow pattern: "/"-separated path.Match globs, where a
// "**" segment matches any number of segments, including none.
type pattern struct {
	raw  string
	segs []string
}

// compilePattern normalises an allow pattern like a URL (so that
// "https://github.com/org/*.git" and "github.com/org/*" are the same pattern)
// and checks its globs.
func compilePattern(raw string) (pattern, error) {
	n, err := normalize(raw, true)
	if err != nil {
		return pattern{}, fmt.Errorf("allow pattern %q: %w", raw, err)
	}
	var segs []string
	for _, s := range strings.Split(n, "/") {
		if s == "**" {
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue
			}
		} else if _, err := path.Match(s, ""); err != nil {
			return pattern{}, fmt.Errorf("allow pattern %q: segment %q: %w", raw, s, err)
		}
		segs = append(segs, s)
	}
	return pattern{raw: raw, segs: segs}, nil
}

// literalPattern is the pattern matching exactly the normalised URL n.
func literalPattern(n string) pattern {
	segs := strings.Split(n, "/")
	for i, s := range segs {
		segs[i] = escapeGlob(s)
	}
	return pattern{raw: n, segs: segs}
}

// escapeGlob escapes the characters path.Match treats specially.
func escapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// match reports whether the normalised URL n matches the pattern.
func (p pattern) match(n string) bool {
	return pathglob.MatchSegments(p.segs, strings.Split(n, "/"))
}
