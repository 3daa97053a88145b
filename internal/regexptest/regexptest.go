// Package regexptest measures regular expressions for tests.
package regexptest

import (
	"regexp"
	"regexp/syntax"
)

// Insts is the number of instructions re compiles to. A counted repetition
// multiplies it ({0,127} copies the repeated part 128 times), and a
// package-level pattern's program is held in memory from the process's
// start to its end; a test bounds it so that a pattern stays small.
func Insts(re *regexp.Regexp) int {
	r, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return -1 // re compiled, so this does not happen
	}
	p, err := syntax.Compile(r.Simplify())
	if err != nil {
		return -1
	}
	return len(p.Inst)
}
