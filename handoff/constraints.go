package handoff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeLimit is instructions.constraints.time_limit as a duration: an ISO
// 8601 duration as the seed writes it ("PT2H", "P1DT30M", "PT0.5S"), or a
// Go duration ("90s"). ok is false when the message sets none; err says why
// one that is set is not a positive duration.
func (i Instructions) TimeLimit() (d time.Duration, ok bool, err error) {
	if len(i.Constraints) == 0 {
		return 0, false, nil
	}
	var c struct {
		TimeLimit *string `json:"time_limit"`
	}
	if err := json.Unmarshal(i.Constraints, &c); err != nil {
		return 0, false, fmt.Errorf("instructions.constraints.time_limit: %w", err)
	}
	if c.TimeLimit == nil {
		return 0, false, nil
	}
	d, err = ParseDuration(*c.TimeLimit)
	if err != nil {
		return 0, false, fmt.Errorf("instructions.constraints.time_limit: %w", err)
	}
	return d, true, nil
}

// ParseDuration parses a positive duration: ISO 8601 (PnDTnHnMnS, weeks
// PnW; fractions on the last number; no years or months, whose length
// varies) or Go's form ("1h30m").
func ParseDuration(s string) (time.Duration, error) {
	if !strings.HasPrefix(s, "P") {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%q is not a positive duration such as PT2H or 90s", s)
		}
		return d, nil
	}
	bad := fmt.Errorf("%q is not an ISO 8601 duration such as PT2H (days, hours, minutes, seconds)", s)
	rest, inTime, total, seen := s[1:], false, 0.0, false
	for rest != "" {
		if rest[0] == 'T' {
			if inTime {
				return 0, bad
			}
			inTime, rest = true, rest[1:]
			continue
		}
		n := strings.IndexAny(rest, "WDHMS")
		if n <= 0 {
			return 0, bad
		}
		v, err := strconv.ParseFloat(rest[:n], 64)
		if err != nil || v < 0 || strings.ContainsAny(rest[:n], "+-eE") {
			return 0, bad
		}
		unit := map[bool]map[byte]float64{
			false: {'W': 7 * 24 * 3600, 'D': 24 * 3600},
			true:  {'H': 3600, 'M': 60, 'S': 1},
		}[inTime][rest[n]]
		if unit == 0 {
			return 0, bad
		}
		total += v * unit
		seen, rest = true, rest[n+1:]
	}
	if !seen || total <= 0 || total > float64(1<<62)/float64(time.Second) {
		return 0, bad
	}
	return time.Duration(total * float64(time.Second)), nil
}
