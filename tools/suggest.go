package tools

import (
	"strings"
	"unicode/utf8"
)

// closest returns the candidate most likely meant by name: the first equal
// ignoring case, else the nearest within an edit distance of a third of the
// candidate's length (at least 1).
func closest(name string, candidates []string) (string, bool) {
	for _, c := range candidates {
		if strings.EqualFold(name, c) {
			return c, true
		}
	}
	lower := []rune(strings.ToLower(name))
	best, bestDist := "", -1
	for _, c := range candidates {
		limit := max(utf8.RuneCountInString(c)/3, 1)
		d := distance(lower, []rune(strings.ToLower(c)))
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best, bestDist >= 0
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent runes.
func distance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
