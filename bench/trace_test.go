package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStreamGaps cuts a trace with two streams, one of whose calls is split
// over two lines by another thread's call.
func TestStreamGaps(t *testing.T) {
	f, err := os.Open("testdata/perf-trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := parsePerfTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 15 {
		t.Errorf("%d calls, want 15 (the split write once; the end of a read whose start is not there skipped)", len(evs))
	}
	if !slices.IsSortedFunc(evs, func(a, b sysEvent) int { return int(a.start - b.start) }) {
		t.Error("the calls are not in time order")
	}
	request, first, chunk := streamGaps(evs, map[int]bool{9: true}, map[int]bool{11: true})
	us := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Microsecond)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		got, want []time.Duration
	}{
		{"request", request, us(300, 200)},
		{"first chunk", first, us(80, 50)},
		{"chunk", chunk, us(17, 12)},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s gaps = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParsePerfTraceBadNumber(t *testing.T) {
	_, err := parsePerfTrace(strings.NewReader("  1.0 ( 0.010 ms): x/1 read(fd: 99999999999999999999, buf: 0x1, count: 1) = 1\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("err = %v, want one naming line 1", err)
	}
}

func TestTCPSockets(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:C351 0100007F:0050 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1
`
	type sock struct {
		local, remote int
		inode         string
	}
	var got []sock
	if err := tcpSockets(strings.NewReader(table), func(l, r int, inode string) { got = append(got, sock{l, r, inode}) }); err != nil {
		t.Fatal(err)
	}
	want := []sock{{8080, 0, "1001"}, {8080, 50000, "1002"}, {50001, 80, "1003"}}
	if !slices.Equal(got, want) {
		t.Errorf("sockets = %v, want %v", got, want)
	}
	if err := tcpSockets(strings.NewReader("header\n 0: 0100007F 0100007F:0050 01 0 0 0 0 0 1003\n"), func(int, int, string) {}); err == nil {
		t.Error("an address without a port parsed")
	}
}
