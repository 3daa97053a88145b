package main

import (
	"bufio"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestReadEventsRecord(t *testing.T) {
	stream := "data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"t=0000000000000001000;xx\"}}]}\n\n" +
		": ping\n\n" +
		"data:{\"choices\":[{\"delta\":{\"content\":\"t=0000000000000002000;\"}}]}\r\n\r\n" +
		"data: {\"choices\":[],\"usage\":{}}\n\n" +
		"data: [DONE]\n\n"
	start := time.Unix(0, 0)
	var res streamResult
	err := readEvents(bufio.NewReader(strings.NewReader(stream)), func(data []byte, at time.Time) bool {
		res.record(data, time.Unix(0, 5000), start)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.content != 2 || !res.done || res.ttfb != 5000 {
		t.Fatalf("content %d, done %v, ttfb %v", res.content, res.done, res.ttfb)
	}
	if res.lat[0] != 4000 || res.lat[1] != 3000 {
		t.Errorf("latencies %v, want [4µs 3µs]", res.lat)
	}
}

func TestReadEventsError(t *testing.T) {
	stream := "event: copilot_error\ndata: {\"errorCode\":\"UPSTREAM_ERROR\"}\n\n"
	err := readEvents(bufio.NewReader(strings.NewReader(stream)), func([]byte, time.Time) bool { return true })
	if !errors.Is(err, errInStream) || !strings.Contains(err.Error(), "UPSTREAM_ERROR") {
		t.Errorf("err = %v, want errInStream naming the code", err)
	}
}

func TestParseStamp(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1712345678901234567;xxx", 1712345678901234567, true},
		{"0000000000000000042;", 42, true},
		{";", 0, false},
		{"12x;", 0, false},
		{"123", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseStamp([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseStamp(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseProfiles(t *testing.T) {
	gor := "goroutine profile: total 7\n" +
		"3 @ 0x1 0x2\n#\t0x1\tnet/http.(*persistConn).readLoop+0x1\tx.go:1\n\n" +
		"2 @ 0x1 0x3\n#\t0x1\tnet/http.(*http2ClientConn).readLoop+0x1\tx.go:2\n\n" +
		"2 @ 0x4\n#\t0x4\tmain.main+0x1\tm.go:1\n"
	total, pool, err := parseGoroutines([]byte(gor))
	if err != nil || total != 7 || pool != 5 {
		t.Errorf("parseGoroutines = %d, %d, %v; want 7, 5", total, pool, err)
	}
	heap := "heap profile: 1: 2 [3: 4] @ heap/1048576\n\n# runtime.MemStats\n# HeapInuse = 704512\n# Stack = 393216 / 393216\n"
	if n, err := memStat([]byte(heap), "HeapInuse"); err != nil || n != 704512 {
		t.Errorf("HeapInuse = %d, %v", n, err)
	}
	if n, err := memStat([]byte(heap), "Stack"); err != nil || n != 393216 {
		t.Errorf("Stack = %d, %v", n, err)
	}
	if _, err := memStat([]byte(heap), "Missing"); err == nil {
		t.Error("memStat found a missing line")
	}
}

// TestParseMemStats reads the runtime.MemStats of a debug=1 heap profile
// as Go 1.26 prints them.
func TestParseMemStats(t *testing.T) {
	heap := "heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1\n\n" +
		"# runtime.MemStats\n# Alloc = 3300000\n# TotalAlloc = 900000000\n# Sys = 27000000\n# Lookups = 0\n" +
		"# Mallocs = 10\n# Frees = 5\n# HeapAlloc = 3300000\n# HeapSys = 19000000\n# HeapIdle = 13500000\n" +
		"# HeapInuse = 5500000\n# HeapReleased = 12000000\n# HeapObjects = 20000\n" +
		"# Stack = 1400000 / 1500000\n# MSpan = 300000 / 400000\n# MCache = 9000 / 15000\n" +
		"# BuckHashSys = 7000\n# GCSys = 4000000\n# OtherSys = 1500000\n# NextGC = 8000000\n" +
		"# LastGC = 1764460000000000000\n# PauseNs = [1 2 3]\n# PauseEnd = [4 5 6]\n# NumGC = 90\n" +
		"# NumForcedGC = 0\n# GCCPUFraction = 0.01\n# DebugGC = false\n# MaxRSS = 70000000\n"
	g, err := parseMemStats([]byte(heap))
	if err != nil {
		t.Fatal(err)
	}
	want := goMemory{HeapInuse: 5500000, HeapAlloc: 3300000, HeapFree: 1500000, HeapReleased: 12000000,
		Stacks: 1500000, Metadata: 400000 + 15000 + 7000 + 4000000 + 1500000, Sys: 27000000, NextGC: 8000000, NumGC: 90}
	if g != want {
		t.Errorf("parseMemStats = %+v, want %+v", g, want)
	}
	if _, err := parseMemStats([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n")); err == nil {
		t.Error("no MemStats: no error")
	}
	if _, err := parseMemStats([]byte("\n# runtime.MemStats\n# Sys = 1\n")); err == nil || !strings.Contains(err.Error(), "HeapInuse") {
		t.Errorf("missing lines: err = %v", err)
	}
}
