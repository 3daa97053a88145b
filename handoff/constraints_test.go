package handoff

import (
	"encoding/json"
	"testing"
	"time"
)

// TestParseDuration: the seed's ISO 8601 durations and Go's, positive.
func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"PT2H", 2 * time.Hour}, {"P1DT30M", 24*time.Hour + 30*time.Minute}, {"PT0.5S", 500 * time.Millisecond},
		{"P1W", 7 * 24 * time.Hour}, {"PT1H2M3S", time.Hour + 2*time.Minute + 3*time.Second}, {"90s", 90 * time.Second},
		{"P", 0}, {"PT", 0}, {"PT0S", 0}, {"P1M", 0}, {"P1Y", 0}, {"PT1D", 0}, {"PTT1H", 0}, {"PT-1H", 0}, {"PT1e3S", 0},
		{"-5s", 0}, {"", 0}, {"2h", 2 * time.Hour}, {"PT99999999999999H", 0},
	} {
		got, err := ParseDuration(tc.in)
		if got != tc.want || (err == nil) != (tc.want > 0) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestTimeLimit reads constraints.time_limit.
func TestTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		constraints string
		want        time.Duration
		ok, err     bool
	}{
		{"", 0, false, false}, {`{}`, 0, false, false}, {`{"resource_limit":"x"}`, 0, false, false},
		{`{"time_limit":"PT2H"}`, 2 * time.Hour, true, false}, {`{"time_limit":"soon"}`, 0, false, true},
		{`{"time_limit":7}`, 0, false, true},
	} {
		d, ok, err := Instructions{Constraints: json.RawMessage(tc.constraints)}.TimeLimit()
		if d != tc.want || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%s: %v %v %v", tc.constraints, d, ok, err)
		}
	}
}

// FuzzParseDuration: no input panics, and what parses is positive.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT2H", "P1DT0.5S", "90s", "P", "PT1.5.5S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDuration(s); err == nil && d <= 0 {
			t.Fatalf("%q parsed to %v", s, d)
		}
	})
}
