package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// TestLatencyTable renders the latency rows, with and without the rows of
// -perf-trace.
func TestLatencyTable(t *testing.T) {
	us := func(p50, p99 int) quantiles {
		return quantiles{P50: time.Duration(p50) * time.Microsecond, P99: time.Duration(p99) * time.Microsecond, N: 100}
	}
	res := func(ttfb, chunk quantiles, in *inProcess) *latencyResult {
		return &latencyResult{TTFB: ttfb, Chunk: chunk, InProcess: in}
	}
	for _, tc := range []struct {
		name   string
		traced bool
	}{{"untraced", false}, {"traced", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var pin, gin *inProcess
			if tc.traced {
				pin = &inProcess{Request: us(170, 300), FirstChunk: us(97, 150), Chunk: us(10, 40)}
				gin = &inProcess{Request: us(330, 500), FirstChunk: us(81, 140), Chunk: us(14, 45)}
			}
			r := &results{Latency: map[string]*latencyResult{
				pathDirect:  res(us(290, 560), us(49, 207), nil),
				pathProxy:   res(us(683, 1570), us(88, 331), pin),
				pathGateway: res(us(808, 1377), us(94, 341), gin),
			}}
			var out bytes.Buffer
			writeTable(&out, r)
			checkGolden(t, "testdata/table-"+tc.name+".md", out.Bytes())
		})
	}
}

// TestTableWithPeer renders the latency and saturation rows of a run with
// agentgw at its defaults, the warn-level agentgw without metrics beside it,
// and another gateway given by -target as a fourth column.
func TestTableWithPeer(t *testing.T) {
	us := func(p50, p99 int) quantiles {
		return quantiles{P50: time.Duration(p50) * time.Microsecond, P99: time.Duration(p99) * time.Microsecond, N: 100}
	}
	lat := func(ttfb, chunk quantiles) *latencyResult { return &latencyResult{TTFB: ttfb, Chunk: chunk} }
	sat := func(cpu float64, perSec ...float64) *satResult {
		r := &satResult{PerSec: median(perSec), CPUPer1K: cpu}
		for _, p := range perSec {
			r.Rounds = append(r.Rounds, satRound{PerSec: p, CPUPer1K: cpu})
		}
		return r
	}
	r := &results{
		Params: params{Concurrency: 50, Peer: "http://127.0.0.1:8090/v1/chat/completions"},
		Latency: map[string]*latencyResult{
			pathDirect:  lat(us(290, 560), us(49, 207)),
			pathProxy:   lat(us(683, 1570), us(88, 331)),
			pathGateway: lat(us(850, 1500), us(96, 350)),
			pathGwWarn:  lat(us(808, 1377), us(94, 341)),
			pathPeer:    lat(us(1200, 2600), us(120, 480)),
		},
		Saturation: map[string]*satResult{
			pathDirect:  sat(5.1, 9000, 9100, 9050),
			pathProxy:   sat(14.0, 4000, 4100, 4050),
			pathGateway: sat(18.2, 3500, 3600, 3550),
			pathGwWarn:  sat(16.9, 3700, 3800, 3750),
			pathPeer:    sat(0, 1700, 1800, 1750),
		},
	}
	var out bytes.Buffer
	writeTable(&out, r)
	checkGolden(t, "testdata/table-peer.md", out.Bytes())
}

// TestNewPathRows renders the rows of the gateway's newer paths: the OpenAI
// endpoint, the stateful turn and the hand-offs.
func TestNewPathRows(t *testing.T) {
	us := func(p50, p99 int) quantiles {
		return quantiles{P50: time.Duration(p50) * time.Microsecond, P99: time.Duration(p99) * time.Microsecond, N: 100}
	}
	lat := func(ttfb quantiles) *latencyResult { return &latencyResult{TTFB: ttfb, Chunk: us(90, 300)} }
	sat := func(cpu float64, perSec ...float64) *satResult {
		r := &satResult{PerSec: median(perSec), CPUPer1K: cpu}
		for _, p := range perSec {
			r.Rounds = append(r.Rounds, satRound{PerSec: p, CPUPer1K: cpu})
		}
		return r
	}
	r := &results{
		Params: params{Concurrency: 50},
		Latency: map[string]*latencyResult{
			pathDirect:   lat(us(290, 560)),
			pathProxy:    lat(us(683, 1570)),
			pathGateway:  lat(us(850, 1500)),
			pathOpenAI:   lat(us(900, 1600)),
			pathStateful: lat(us(2100, 4000)),
			pathGoverned: lat(us(1000, 1700)),
		},
		Saturation: map[string]*satResult{
			pathDirect:   sat(5.1, 9000, 9100, 9050),
			pathProxy:    sat(14.0, 4000, 4100, 4050),
			pathGateway:  sat(18.2, 3500, 3600, 3550),
			pathOpenAI:   sat(30.5, 2000, 2100, 2050),
			pathGoverned: sat(20.1, 3300, 3400, 3350),
		},
		Handoff: &handoffResult{
			Sequential: quantiles{P50: 3 * time.Millisecond, P99: 9 * time.Millisecond, N: 200},
			SeqStart:   quantiles{P50: 2 * time.Millisecond, P99: 7 * time.Millisecond, N: 200},
			Posted:     2000, Conc: 50, PerSec: 420,
			Burst:      quantiles{P50: 2 * time.Second, P99: 4 * time.Second, N: 2000},
			BurstStart: quantiles{P50: 1900 * time.Millisecond, P99: 3900 * time.Millisecond, N: 2000},
		},
	}
	var out bytes.Buffer
	writeTable(&out, r)
	checkGolden(t, "testdata/table-newpaths.md", out.Bytes())
}

// TestRecallRows renders the recall path's rows: on SQLite alone, and on
// SQLite and PostgreSQL (-pg), whose failed streams count in the last row.
func TestRecallRows(t *testing.T) {
	us := func(p50, p99 int) quantiles {
		return quantiles{P50: time.Duration(p50) * time.Microsecond, P99: time.Duration(p99) * time.Microsecond, N: 100}
	}
	lat := func(ttfb quantiles, errors int) *latencyResult {
		return &latencyResult{TTFB: ttfb, Chunk: us(90, 300), Errors: errors}
	}
	info := func(index, cpu time.Duration) *recallInfo {
		return &recallInfo{Chunks: 100000, Lines: 2501544, Index: index, IndexCPU: cpu}
	}
	for _, tc := range []struct {
		name string
		pg   bool
	}{{"sqlite", false}, {"postgres", true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := &results{
				Latency: map[string]*latencyResult{
					pathDirect:      lat(us(290, 560), 0),
					pathProxy:       lat(us(683, 1570), 0),
					pathGateway:     lat(us(850, 1500), 0),
					pathRecallPlain: lat(us(820, 1400), 0),
					pathRecall:      lat(us(15200, 36750), 0),
				},
				Recall: info(37300*time.Millisecond, 41200*time.Millisecond),
			}
			if tc.pg {
				// Over both budgets, and a failed stream.
				r.Latency[pathPGRecallPlain] = lat(us(900, 1600), 0)
				r.Latency[pathPGRecall] = lat(us(60200, 136100), 1)
				r.RecallPG = info(61*time.Second, 30500*time.Millisecond)
			}
			var out bytes.Buffer
			writeTable(&out, r)
			checkGolden(t, "testdata/table-recall-"+tc.name+".md", out.Bytes())
		})
	}
}

// TestResidentRows renders the resident memory rows: the proxy and
// agentgw at start and after the load, and the idle scenario's two after
// their streams closed, one over each budget and one within.
func TestResidentRows(t *testing.T) {
	const mb = 1 << 20
	reading := func(at time.Duration, rss, file, peak float64, g goMemory) memReading {
		return memReading{At: at, Go: g, Memory: harness.Memory{
			RSS: int64(rss * mb), File: int64(file * mb), Anon: int64((rss - file) * mb), Peak: int64(peak * mb)}}
	}
	gm := func(inuse, free, released, stacks, meta float64) goMemory {
		g := goMemory{HeapInuse: int64(inuse * mb), HeapFree: int64(free * mb), HeapReleased: int64(released * mb),
			Stacks: int64(stacks * mb), Metadata: int64(meta * mb)}
		g.Sys = g.HeapInuse + g.HeapFree + g.HeapReleased + g.Stacks + g.Metadata
		return g
	}
	proc := func(start memReading, after ...memReading) *residentProc {
		return &residentProc{Start: start, After: after}
	}
	r := &results{
		Params: params{IdleStreams: 10000},
		Resident: &residentResult{Warm: 5, Settle: 30 * time.Second, Readings: 3, Procs: map[string]*residentProc{
			pathProxy: proc(reading(0, 8.6, 7.2, 8.6, gm(1.1, 0, 6.4, 0.4, 3.7)),
				reading(10*time.Second, 15.8, 7.7, 17.8, gm(3.3, 1.8, 9.4, 1.4, 4.6)),
				reading(20*time.Second, 15.8, 7.7, 17.8, gm(3.4, 1.7, 9.4, 1.4, 4.6)),
				reading(30*time.Second, 15.9, 7.7, 17.8, gm(3.4, 1.7, 9.4, 1.5, 4.6))),
			pathGateway: proc(reading(0, 42.7, 35.0, 42.7, gm(3.9, 0.5, 7.0, 0.6, 4.5)),
				reading(10*time.Second, 58.5, 37.0, 61.7, gm(6.5, 0.7, 11.3, 1.4, 5.8)),
				reading(20*time.Second, 58.4, 37.2, 61.7, gm(5.6, 1.5, 11.6, 1.4, 5.8)),
				reading(30*time.Second, 58.5, 37.2, 61.7, gm(5.8, 1.3, 11.6, 1.4, 6.1))),
			idleProxy: proc(reading(0, 8.8, 7.3, 8.8, gm(1.2, 0, 6.4, 0.4, 3.7)),
				reading(10*time.Second, 18.6, 7.6, 94.4, gm(5.0, 0.2, 133.6, 1.2, 7.7)),
				reading(20*time.Second, 18.6, 7.6, 94.4, gm(5.0, 0.2, 133.6, 1.2, 7.7)),
				reading(30*time.Second, 18.6, 7.6, 94.4, gm(5.1, 0.2, 133.6, 1.2, 7.7))),
			idleGateway: proc(reading(0, 19.5, 15.0, 19.5, gm(3.8, 0.3, 3.3, 0.6, 4.5)),
				reading(10*time.Second, 24.5, 16.3, 184.9, gm(7.5, 0.6, 134.7, 1.3, 8.9)),
				reading(20*time.Second, 24.0, 16.3, 184.9, gm(7.5, 0.6, 134.7, 1.3, 8.9)),
				reading(30*time.Second, 23.9, 16.3, 184.9, gm(7.5, 0.5, 134.7, 1.3, 8.9))),
		}},
	}
	var out bytes.Buffer
	writeTable(&out, r)
	checkGolden(t, "testdata/table-resident.md", out.Bytes())
}
