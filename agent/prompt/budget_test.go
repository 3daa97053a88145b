package prompt

import "testing"

func TestBudgetContextLength(t *testing.T) {
	b := Budget{DefaultContextLength: 1000, Models: map[string]int{"gpt-4o*": 128000, "gpt-4o-mini": 64000, "x?": 5}}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o-mini", 64000},
		{"gpt-4o-2024", 128000},
		{"xy", 5},
		{"other", 1000},
		{"", 1000},
	}
	for _, tc := range tests {
		if got := b.ContextLength(tc.model); got != tc.want {
			t.Errorf("ContextLength(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
	if got := (Budget{}).ContextLength("m"); got != 32768 {
		t.Errorf("default context length %d", got)
	}
}

// TestBudgetPatternTies: of two matching patterns, the longer wins, and of
// two as long, the first in alphabetical order, every time (the map's
// order is random), with the patterns ordered once or on each call.
func TestBudgetPatternTies(t *testing.T) {
	models := map[string]int{"gpt-*": 1, "*-4o": 2, "g*-4?": 3, "gpt-4o*": 4, "*": 5}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", 4}, // "gpt-4o*" is the longest that matches
		{"gpt-4x", 3}, // "g*-4?" and "gpt-*" are as long: "g*-4?" comes first
		{"abc-4o", 2}, // "*-4o", then "*"
		{"zzz", 5},    // only "*"
	}
	compiled := Budget{Models: models}.Compiled()
	for range 20 {
		for _, b := range []Budget{{Models: models}, compiled} {
			for _, tc := range tests {
				if got := b.ContextLength(tc.model); got != tc.want {
					t.Fatalf("ContextLength(%q) = %d, want %d", tc.model, got, tc.want)
				}
			}
		}
	}
}
