package server

import (
	"testing"
	"time"
)

// FuzzParseSince: GET /usage's since, a client's string, is a time, a
// date, a duration back from now, or a BAD_REQUEST; never a panic, never
// a time after now for a duration.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"", "24h", "2026-11-01", "2026-11-29T13:00:00Z", "-1h", "yesterday", "9999999999h", "2026-13-01"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err != nil {
			return
		}
		if d, derr := time.ParseDuration(s); derr == nil && d >= 0 && got.After(now) {
			t.Errorf("parseSince(%q) = %v, after now", s, got)
		}
	})
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"24h":                  now.Add(-24 * time.Hour),
		"2026-11-20":           time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		"2026-11-29T12:00:00Z": now.Add(-time.Hour),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1h", "yesterday", "2026-13-01"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) passes", bad)
		}
	}
}
