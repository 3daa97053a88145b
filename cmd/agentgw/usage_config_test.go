package main

import (
	"fmt"
	"testing"
	"time"
)

// TestUsageRetentionConfig: usage.retention under a month is refused at
// start; 0 is the default.
func TestUsageRetentionConfig(t *testing.T) {
	for _, tc := range []struct {
		retention time.Duration
		want      string
	}{
		{0, ""},
		{744 * time.Hour, ""},
		{24 * time.Hour, "usage.retention: 24h0m0s is under 744h0m0s (31 days): the current month's records are kept"},
	} {
		err := UsageConfig{Retention: Duration(tc.retention)}.check()
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%s: %v, want %q", tc.retention, err, tc.want)
		}
	}
}
