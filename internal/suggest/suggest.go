// Package suggest finds the name a user most likely meant, for "did you
// mean" hints in error messages. It imports nothing of the project, so
// every package may use it.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate most likely meant by name: the first that
// equals it ignoring case, else the nearest (ignoring case) within an edit
// distance of a third of the candidate's length, at least 1.
// It returns "" when none is close, or when the nearest shares nothing with
// name (as far from it as name is long).
func Closest(name string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(name, c) {
			return c
		}
	}
	lname := strings.ToLower(name)
	n := utf8.RuneCountInString(name)
	best, bestD := "", -1
	for _, c := range candidates {
		cn := utf8.RuneCountInString(c)
		limit := max(1, cn/3)
		if abs(n-cn) > limit {
			continue // the distance is at least the difference in length
		}
		d := Distance(lname, strings.ToLower(c))
		if d <= limit && d < n && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of adjacent runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// DidYouMean renders a "; did you mean X?" suffix for the candidate closest
// to name, or "" when none is close.
func DidYouMean(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}
