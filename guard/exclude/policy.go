// Package exclude is content exclusion: path patterns whose files'
// content never reaches the model. A Policy matches paths; the Stage
// withholds the matching files of a request's context variables (the
// active editor, package files, knowledge-base references); package
// agentpart compiles an agent's own patterns (contentExclusion in its
// file); package guard withholds tool results that carry a matching file
// on their way to the model. Each withheld content is replaced by a Note, so that the
// model knows something was withheld and does not guess.
//
// # Patterns
//
// A pattern is a "/"-separated glob, each segment a path.Match pattern, a
// "**" segment any number of segments (internal/pathglob), matched
// case-insensitively against any run of a path's segments: ".env"
// matches .env in any directory, "*.pem" any .pem file, "secrets" and
// "secrets/**" every file under a directory named secrets, "config/*.key"
// a .key file right under any config directory. A leading "/" is ignored:
// the IDE sends absolute paths, and the gateway does not know the
// workspace's root, so patterns are never anchored (a pattern that
// excludes too much is the safe error). Backslashes in paths count as
// "/", and a file:// scheme is dropped.
package exclude

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/internal/pathglob"
)

// Policy is a set of patterns. The zero value and nil exclude nothing. It
// is immutable and safe for concurrent use.
type Policy struct {
	patterns []string
	// segs are the patterns' segments, lower case, between "**" segments
	// that let them match any run of a path's segments.
	segs [][]string
}

// Compile compiles patterns; an empty or malformed pattern is an error
// naming it.
func Compile(patterns []string) (*Policy, error) {
	p := &Policy{}
	for _, raw := range patterns {
		pat := strings.Trim(path.Clean("/"+strings.TrimSpace(raw)), "/")
		if pat == "" {
			return nil, fmt.Errorf("content exclusion pattern %q: empty", raw)
		}
		segs := []string{"**"}
		for s := range strings.SplitSeq(strings.ToLower(pat), "/") {
			if s == "" {
				continue
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("content exclusion pattern %q: segment %q: %w", raw, s, err)
			}
			segs = append(segs, s)
		}
		p.patterns = append(p.patterns, raw)
		p.segs = append(p.segs, append(segs, "**"))
	}
	return p, nil
}

// MustCompile is Compile for patterns fixed in code; it panics on an
// error.
func MustCompile(patterns ...string) *Policy {
	p, err := Compile(patterns)
	if err != nil {
		panic(err)
	}
	return p
}

// Empty reports whether p excludes nothing.
func (p *Policy) Empty() bool { return p == nil || len(p.segs) == 0 }

// Patterns are p's patterns as written.
func (p *Policy) Patterns() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.patterns)
}

// Join returns the policy of p's patterns and q's: an agent's own added
// to the gateway's. Either may be nil.
func (p *Policy) Join(q *Policy) *Policy {
	switch {
	case q.Empty():
		return p
	case p.Empty():
		return q
	}
	return &Policy{patterns: append(slices.Clone(p.patterns), q.patterns...), segs: append(slices.Clone(p.segs), q.segs...)}
}

// Match reports whether the file at name is excluded. An empty name
// matches nothing.
func (p *Policy) Match(name string) bool {
	if p.Empty() {
		return false
	}
	segs := Segments(name)
	if len(segs) == 0 {
		return false
	}
	for _, pat := range p.segs {
		if pathglob.MatchSegments(pat, segs) {
			return true
		}
	}
	return false
}

// Segments are the segments of a file's path as policies match them:
// lower case, a file:// scheme dropped, backslashes as slashes, empty
// segments and "." dropped, ".." resolved.
func Segments(name string) []string {
	name = strings.TrimSpace(name)
	if len(name) > 7 && strings.EqualFold(name[:7], "file://") {
		name = name[7:]
	}
	name = strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
	name = path.Clean("/" + name)
	var out []string
	for s := range strings.SplitSeq(name, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Note is what the model reads instead of the content of the file at
// name: "[agentgw: content of <name> withheld by the content exclusion
// policy]".
func Note(name string) string {
	return "[agentgw: content of " + name + " withheld by the content exclusion policy]"
}

// Policies gives each agent's policy: the gateway's patterns, and the
// agent's own (the Part's result).
type Policies struct {
	// Gateway are the gateway-wide patterns (nil: none).
	Gateway *Policy
	// Agent returns the agent's own patterns, nil when it has none or
	// there is no such agent; nil means no agent has any.
	Agent func(name string) *Policy
}

// For returns the policy of agent name: the gateway's joined with the
// agent's.
func (ps Policies) For(name string) *Policy {
	if ps.Agent == nil {
		return ps.Gateway
	}
	return ps.Gateway.Join(ps.Agent(name))
}
