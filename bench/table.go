package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Path names, as in the table's columns.
const (
	pathDirect  = "direct"
	pathProxy   = "proxy"
	pathGateway = "agentgw"
	pathGwInfo  = "agentgw-info"
)

// row is one table row: the figure, the direct, proxy and agentgw cells,
// the budget and whether it is met.
type row [6]string

// writeTable prints the results as one markdown table.
func writeTable(w io.Writer, r *results) {
	rows := []row{{"figure", "direct", "bare proxy", "agentgw", "budget", "met?"}, {"---", "---:", "---:", "---:", "---", "---"}}
	if r.Latency != nil {
		rows = append(rows, latencyRows(r.Latency)...)
	}
	if r.Saturation != nil {
		rows = append(rows, saturationRows(r.Saturation, r.Params.Concurrency)...)
	}
	if r.Idle != nil {
		rows = append(rows, idleRows(r.Idle, r.Params.IdleStreams)...)
	}
	rows = append(rows, errorRow(r))
	for _, rw := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(rw[:], " | "))
	}
}

// latencyRows are the raw and added first-byte and per-chunk latencies.
func latencyRows(l map[string]*latencyResult) []row {
	d, p, g := l[pathDirect], l[pathProxy], l[pathGateway]
	var rows []row
	for _, f := range []struct {
		name string
		get  func(*latencyResult) quantiles
	}{
		{"time to first byte", func(r *latencyResult) quantiles { return r.TTFB }},
		{"per-chunk latency", func(r *latencyResult) quantiles { return r.Chunk }},
	} {
		dq, pq, gq := f.get(d), f.get(p), f.get(g)
		rows = append(rows,
			row{f.name + " p50", fmtDur(dq.P50), fmtDur(pq.P50), fmtDur(gq.P50), "", ""},
			row{f.name + " p99", fmtDur(dq.P99), fmtDur(pq.P99), fmtDur(gq.P99), "", ""})
		pa, ga := pq.minus(dq), gq.minus(dq)
		rows = append(rows,
			row{"added " + f.name + " p50", "—", fmtAdded(pa.P50), fmtAdded(ga.P50), "≤ bare proxy", yesNo(ga.P50 <= pa.P50)},
			row{"added " + f.name + " p99", "—", fmtAdded(pa.P99), fmtAdded(ga.P99), "≤ bare proxy", yesNo(ga.P99 <= pa.P99)})
	}
	if p.InProcess != nil && g.InProcess != nil {
		rows = append(rows, inProcessRows(p.InProcess, g.InProcess)...)
	}
	return rows
}

// inProcessRows are the middle processes' own times from -perf-trace.
func inProcessRows(p, g *inProcess) []row {
	return []row{
		{"in the process (perf trace): request read → upstream request write p50", "—", fmtDur(p.Request.P50), fmtDur(g.Request.P50), "", ""},
		{"in the process: upstream response's first read → client write p50", "—", fmtDur(p.FirstChunk.P50), fmtDur(g.FirstChunk.P50), "", ""},
		{"in the process: upstream chunk read → client write p50", "—", fmtDur(p.Chunk.P50), fmtDur(g.Chunk.P50), "", ""},
	}
}

// saturationRows are the throughput, its ratio and the CPU cost.
func saturationRows(s map[string]*satResult, conc int) []row {
	d, p, g := s[pathDirect], s[pathProxy], s[pathGateway]
	ratio := g.PerSec / p.PerSec
	rows := []row{
		{fmt.Sprintf("streams/s at saturation (%d concurrent, 22 events, no gap)", conc),
			fmtRate(d.PerSec), fmtRate(p.PerSec), fmtRate(g.PerSec), "", ""},
		{"saturation throughput vs bare proxy", "—", "1.00×", fmt.Sprintf("%.2f×", ratio), "≥ 0.90×", yesNo(ratio >= 0.9)},
	}
	if rs := pairedRatios(g.Rounds, p.Rounds); len(rs) > 1 {
		// Information only: the budget is judged on the ratio above.
		rows = append(rows, row{"the same, round by round (median, min–max of agentgw/proxy in each round)", "—", "—",
			fmt.Sprintf("%.2f× (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs)), "—", "—"})
	}
	if gi, ok := s[pathGwInfo]; ok {
		rows = append(rows, row{"streams/s at saturation, agentgw with info-level access logs (the default)", "—", "—",
			fmt.Sprintf("%s (%.2f×)", fmtRate(gi.PerSec), gi.PerSec/p.PerSec), "—", "—"})
	}
	return append(rows, row{"CPU ms per 1,000 relayed chunks (direct: the mock's)",
		fmt.Sprintf("%.2f", d.CPUPer1K), fmt.Sprintf("%.2f", p.CPUPer1K), fmt.Sprintf("%.2f", g.CPUPer1K), "—", "—"})
}

// idleRows are the memory and goroutines of the held streams.
func idleRows(idle map[string]*idleResult, n int) []row {
	p, g := idle[pathProxy], idle[pathGateway]
	cell := func(r *idleResult, f func(*idleResult) string) string {
		if r == nil {
			return "—"
		}
		return f(r)
	}
	held := func(r *idleResult) bool { return r != nil && r.Opened == r.Streams && r.Errors == 0 }
	heap := func(r *idleResult) string { in, _ := r.perStream(); return fmtKiB(in) }
	rss := func(r *idleResult) string { _, rss := r.perStream(); return fmtKiB(rss) }
	mem := func(r *idleResult) string {
		return fmt.Sprintf("%.1f / %.1f / %.1f", mib(r.Before.inUse()), mib(r.With.inUse()), mib(r.After.inUse()))
	}
	gor := func(r *idleResult) string { return goroutineCell(r) }
	budget := fmt.Sprintf("%d held, bounded", n)
	return []row{
		{fmt.Sprintf("heap+stack per idle open stream (%d open)", n), "—", cell(p, heap), cell(g, heap), budget, yesNo(held(g))},
		{fmt.Sprintf("RSS per idle open stream (%d open)", n), "—", cell(p, rss), cell(g, rss), budget, yesNo(held(g))},
		{"heap+stack MiB before / with streams / after", "—", cell(p, mem), cell(g, mem), "—", "—"},
		{"goroutines before / with streams / after", "—", cell(p, gor), cell(g, gor), "no growth after", yesNo(g != nil && g.Settled)},
	}
}

// goroutineCell is "before / with / after", the after marked with the idle
// upstream connections still pooled and whether it came back in time.
func goroutineCell(r *idleResult) string {
	after := fmt.Sprint(r.After.Goroutines)
	if extra := r.After.PoolGoroutines - r.Before.PoolGoroutines; extra > 0 {
		after += fmt.Sprintf(" (%d of them pooled upstream conns)", r.After.PoolGoroutines)
	}
	if r.Settled {
		after += fmt.Sprintf(", back in %.1f s", r.Settle.Seconds())
	} else {
		after += fmt.Sprintf(", NOT back after %.0f s", r.Settle.Seconds())
	}
	return fmt.Sprintf("%d / %d / %s", r.Before.Goroutines, r.With.Goroutines, after)
}

// errorRow counts the streams that failed anywhere.
func errorRow(r *results) row {
	count := func(path string) int64 {
		var n int64
		if l := r.Latency[path]; l != nil {
			n += int64(l.Errors)
		}
		if s := r.Saturation[path]; s != nil {
			n += s.Errors
		}
		if i := r.Idle[path]; i != nil {
			n += int64(i.Streams - i.Opened)
		}
		return n
	}
	d, p, g := count(pathDirect), count(pathProxy), count(pathGateway)+count(pathGwInfo)
	return row{"failed streams (all scenarios)", fmt.Sprint(d), fmt.Sprint(p), fmt.Sprint(g), "0", yesNo(g == 0)}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// fmtDur prints a latency in microseconds.
func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

// fmtAdded prints a latency difference with its sign.
func fmtAdded(d time.Duration) string {
	return fmt.Sprintf("%+.1f µs", float64(d)/float64(time.Microsecond))
}

func fmtRate(perSec float64) string { return fmt.Sprintf("%.0f", perSec) }

func fmtKiB(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

func mib(b int64) float64 { return float64(b) / (1 << 20) }
