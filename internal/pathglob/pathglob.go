// Package pathglob matches "/"-separated globs segment by segment: each
// segment a path.Match pattern, a "**" segment matching any number of
// segments, including none. gitrepo's allow patterns and knowledge/index's
// path globs use it.
package pathglob

import "path"

// MatchSegments reports whether the glob segments pat match the path
// segments segs. It works by dynamic programming, so that many "**" cannot
// make it exponential: cur[j] tells whether the pattern segments seen so
// far match segs[:j]. A malformed segment matches nothing; callers check
// their patterns when they compile them (path.Match(seg, "")).
func MatchSegments(pat, segs []string) bool {
	cur := make([]bool, len(segs)+1)
	cur[0] = true
	for _, p := range pat {
		next := make([]bool, len(segs)+1)
		if p == "**" {
			seen := false
			for j := range next {
				seen = seen || cur[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(segs); j++ {
				if cur[j-1] {
					next[j], _ = path.Match(p, segs[j-1])
				}
			}
		}
		cur = next
	}
	return cur[len(segs)]
}
