package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of xs by the
// nearest-rank method: the smallest sample with at least p% of the samples
// at or below it. It is 0 for no samples. xs is not modified.
func percentile(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedPercentile(s, p)
}

// sortedPercentile is percentile over an already sorted slice.
func sortedPercentile(s []time.Duration, p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// quantiles is the p50 and p99 of a sample.
type quantiles struct {
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	N   int           `json:"n"`
}

// summarize returns the p50 and p99 of xs.
func summarize(xs []time.Duration) quantiles {
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantiles{P50: sortedPercentile(s, 50), P99: sortedPercentile(s, 99), N: len(s)}
}

// minus is q - base, quantile by quantile (p50 minus p50, p99 minus p99).
func (q quantiles) minus(base quantiles) quantiles {
	return quantiles{P50: q.P50 - base.P50, P99: q.P99 - base.P99, N: q.N}
}

// median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// pairedRatios returns num[i]/den[i] for the rounds both have, rounds that
// ran next to each other: drift in the machine's speed between rounds
// cancels out of each ratio. Rounds with no throughput are skipped.
func pairedRatios(num, den []satRound) []float64 {
	var rs []float64
	for i := range min(len(num), len(den)) {
		if den[i].PerSec > 0 {
			rs = append(rs, num[i].PerSec/den[i].PerSec)
		}
	}
	return rs
}
