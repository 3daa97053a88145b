package store

import (
	"context"
	"testing"
	"time"
)

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pause/", "pause0"}, {"a\xff", "b"}, {"\xff\xff", ""}, {"", ""},
	} {
		if got := prefixEnd(tc.in); got != tc.want {
			t.Errorf("prefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCount: the live keys with a prefix, in every backend; expired keys
// and keys either side of the prefix's range are not counted.
func TestCount(t *testing.T) {
	ctx := context.Background()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			t.Parallel()
			c := newClock()
			s := impl.open(t, c)
			for key, ttl := range map[string]time.Duration{
				"pause/1": time.Hour, "pause/2": time.Hour, "pause/3": time.Minute, "pause0": time.Hour,
				"pause": time.Hour, "pause.": time.Hour, "call/1": time.Hour, "\xff\xff/1": time.Hour,
			} {
				if err := s.Put(ctx, key, []byte("v"), ttl); err != nil {
					t.Fatal(err)
				}
			}
			count := func(prefix string, want int64) {
				t.Helper()
				n, err := s.(Counter).Count(ctx, prefix)
				if err != nil || n != want {
					t.Errorf("Count(%q) = %d, %v; want %d", prefix, n, err, want)
				}
			}
			count("pause/", 3)
			count("\xff\xff", 1)
			count("", 8)
			c.Advance(2 * time.Minute)
			count("pause/", 2)
			count("", 7)
		})
	}
}
