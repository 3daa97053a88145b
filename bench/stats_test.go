package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(100 - i) // 100..1, unsorted
	}
	tests := []struct {
		name string
		xs   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50},
		{"p99 of 1..100", hundred, 99, 99},
		{"p100 of 1..100", hundred, 100, 100},
		{"p1 of 1..100", hundred, 1, 1},
		{"p50 of four", []time.Duration{4, 1, 3, 2}, 50, 2},
		{"p99 of four", []time.Duration{4, 1, 3, 2}, 99, 4},
		{"tiny p", []time.Duration{5, 6}, 0.001, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.xs, tt.p); got != tt.want {
				t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
	if hundred[0] != 100 {
		t.Error("percentile sorted its input in place")
	}
}

func TestSummarizeMinus(t *testing.T) {
	a := summarize([]time.Duration{10, 20, 30, 40, 50, 60, 70, 80, 90, 1000})
	b := summarize([]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 100})
	if a.P50 != 50 || a.P99 != 1000 || a.N != 10 {
		t.Fatalf("summarize = %+v", a)
	}
	if d := a.minus(b); d.P50 != 45 || d.P99 != 900 {
		t.Errorf("minus = %+v, want p50 45, p99 900", d)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func TestPairedRatios(t *testing.T) {
	num := []satRound{{PerSec: 90}, {PerSec: 50}, {PerSec: 30}}
	den := []satRound{{PerSec: 100}, {PerSec: 0}, {PerSec: 20}, {PerSec: 10}}
	got := pairedRatios(num, den)
	if len(got) != 2 || got[0] != 0.9 || got[1] != 1.5 {
		t.Errorf("pairedRatios = %v, want [0.9 1.5] (the zero round and the unpaired one skipped)", got)
	}
}
