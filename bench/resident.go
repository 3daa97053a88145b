package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// The idle scenario's processes (HTTP/2 cleartext upstream), in the
// resident memory figures.
const (
	idleProxy   = "proxy-h2c"
	idleGateway = "agentgw-h2c"
)

// residentResult is the resident memory of the bare proxy and agentgw
// (its defaults) when they are up and warm and after the load, and of the
// idle scenario's proxy and agentgw after their streams closed (issue 29
// item 2: 20 MiB idle, 24 MiB after the load).
type residentResult struct {
	// Warm is the streams each process was sent before its start reading.
	Warm int `json:"warm_streams"`
	// Settle is how long after the last scenario the last reading was
	// taken; Readings is how many were taken over it, evenly spaced.
	Settle   time.Duration `json:"settle_ns"`
	Readings int           `json:"readings"`
	// Procs are by path: proxy, agentgw, proxy-h2c and agentgw-h2c.
	Procs map[string]*residentProc `json:"processes"`
}

// residentProc is one process's readings.
type residentProc struct {
	Start memReading `json:"start"`
	// After are the readings after the load; the last is the figure.
	After []memReading `json:"after"`
}

// last is the process's last reading after the load, if any.
func (p *residentProc) last() (memReading, bool) {
	if p == nil || len(p.After) == 0 {
		return memReading{}, false
	}
	return p.After[len(p.After)-1], true
}

// memReading is one reading of a process's memory: the kernel's account,
// then the Go runtime's (no collection forced).
type memReading struct {
	// At is the time since the load ended (0 for the start reading).
	At time.Duration `json:"at_ns"`
	harness.Memory
	Go goMemory `json:"go"`
}

// goMemory is the Go runtime's account of its memory, from the
// runtime.MemStats that a debug=1 heap profile ends with, in the terms of
// runtime/metrics' /memory/classes: the heap's spans in use (objects and
// their unused room), free spans still resident, spans released to the OS
// (not resident), goroutine stacks, and the runtime's metadata (span
// structures, GC bitmaps, per-P caches, profiling buckets, the rest).
type goMemory struct {
	HeapInuse    int64 `json:"heap_inuse"`
	HeapAlloc    int64 `json:"heap_alloc"`
	HeapFree     int64 `json:"heap_free"` // HeapIdle less HeapReleased
	HeapReleased int64 `json:"heap_released"`
	Stacks       int64 `json:"stacks"`   // StackSys
	Metadata     int64 `json:"metadata"` // MSpanSys + MCacheSys + GCSys + BuckHashSys + OtherSys
	Sys          int64 `json:"sys"`
	// NextGC is the heap goal: the scavenger keeps about 10 % over it.
	NextGC int64 `json:"next_gc"`
	NumGC  int64 `json:"num_gc"`
}

// mapped is what the Go runtime holds and has not released: at most the
// anonymous memory it accounts for (a page never touched is not resident).
func (g goMemory) mapped() int64 { return g.Sys - g.HeapReleased }

// residentProbe is a process to read, and how to warm it.
type residentProbe struct {
	name string
	pid  int
	dbg  *debugClient
	warm *target
}

// readResident reads p's memory: /proc first, then the runtime's account
// (whose profile allocates a little in the process).
func (p residentProbe) read(ctx context.Context, at time.Duration) (memReading, error) {
	r := memReading{At: at}
	var err error
	if r.Memory, err = harness.ReadMemory(p.pid); err != nil {
		return r, fmt.Errorf("%s: %w", p.name, err)
	}
	if r.Go, err = p.dbg.goMemory(ctx); err != nil {
		return r, fmt.Errorf("%s: %w", p.name, err)
	}
	return r, nil
}

// residentStart warms each process with n latency streams (one at a time)
// and reads its memory, before any scenario runs.
func residentStart(ctx context.Context, probes []residentProbe, n int, log io.Writer) (*residentResult, error) {
	res := &residentResult{Warm: n, Procs: map[string]*residentProc{}}
	for _, p := range probes {
		for range n {
			if _, err := p.warm.stream(ctx, latencyStream(), nil); err != nil {
				return nil, fmt.Errorf("warming %s: %w", p.name, err)
			}
		}
		p.warm.client.CloseIdleConnections()
	}
	// Let the warm-up's connections and goroutines wind down.
	if err := sleep(ctx, time.Second); err != nil {
		return nil, err
	}
	for _, p := range probes {
		r, err := p.read(ctx, 0)
		if err != nil {
			return nil, err
		}
		res.Procs[p.name] = &residentProc{Start: r}
		fmt.Fprintf(log, "resident memory at start, %s: %.1f MiB\n", p.name, mib(r.RSS))
	}
	return res, nil
}

// residentAfter reads each process's memory readings times over settle
// after the load ended, evenly spaced, the last at settle.
func residentAfter(ctx context.Context, res *residentResult, probes []residentProbe, settle time.Duration, readings int, log io.Writer) error {
	res.Settle, res.Readings = settle, readings
	fmt.Fprintf(log, "resident memory after the load: %d readings over %s\n", readings, settle)
	start := time.Now()
	for i := 1; i <= readings; i++ {
		at := settle * time.Duration(i) / time.Duration(readings)
		if err := sleep(ctx, time.Until(start.Add(at))); err != nil {
			return err
		}
		for _, p := range probes {
			r, err := p.read(ctx, time.Since(start))
			if err != nil {
				return err
			}
			rp := res.Procs[p.name]
			if rp == nil {
				rp = &residentProc{}
				res.Procs[p.name] = rp
			}
			rp.After = append(rp.After, r)
		}
	}
	for _, p := range probes {
		if r, ok := res.Procs[p.name].last(); ok {
			fmt.Fprintf(log, "resident memory after the load, %s: %.1f MiB\n", p.name, mib(r.RSS))
		}
	}
	return nil
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// goMemory reads the runtime.MemStats at the end of a debug=1 heap
// profile, without forcing a collection.
func (d *debugClient) goMemory(ctx context.Context) (goMemory, error) {
	body, err := d.get(ctx, "/debug/pprof/heap?debug=1")
	if err != nil {
		return goMemory{}, err
	}
	return parseMemStats(body)
}

// parseMemStats reads the runtime.MemStats lines of a debug=1 heap
// profile ("# HeapIdle = N", "# Stack = inuse / sys").
func parseMemStats(profile []byte) (goMemory, error) {
	stats := map[string][]int64{}
	_, tail, ok := strings.Cut(string(profile), "\n# runtime.MemStats\n")
	if !ok {
		return goMemory{}, fmt.Errorf("no runtime.MemStats in the heap profile")
	}
	for line := range strings.Lines(tail) {
		name, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "# "), " = ")
		if !ok {
			continue
		}
		var nums []int64
		for f := range strings.SplitSeq(v, "/") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				break // PauseNs and the like: lists, not wanted
			}
			nums = append(nums, n)
		}
		stats[name] = nums
	}
	var missing []string
	get := func(name string, i int) int64 {
		if v := stats[name]; i < len(v) {
			return v[i]
		}
		missing = append(missing, name)
		return 0
	}
	g := goMemory{
		HeapInuse: get("HeapInuse", 0), HeapAlloc: get("HeapAlloc", 0),
		HeapFree:     get("HeapIdle", 0) - get("HeapReleased", 0),
		HeapReleased: get("HeapReleased", 0),
		Stacks:       get("Stack", 1),
		Metadata:     get("MSpan", 1) + get("MCache", 1) + get("GCSys", 0) + get("BuckHashSys", 0) + get("OtherSys", 0),
		Sys:          get("Sys", 0),
		NextGC:       get("NextGC", 0),
		NumGC:        get("NumGC", 0),
	}
	if missing != nil {
		return g, fmt.Errorf("the heap profile's runtime.MemStats lack %s", strings.Join(missing, ", "))
	}
	return g, nil
}

// residentRows are the resident memory rows: at start and after the load
// for the bare proxy and agentgw, after the idle scenario for its two.
func residentRows(r *residentResult, idleStreams int) []row {
	settle := fmtSecs(r.Settle)
	mem := func(m harness.Memory) string {
		return fmt.Sprintf("%.1f MiB (%.1f + %.1f)", mib(m.RSS), mib(m.File), mib(m.Anon))
	}
	cell := func(name string, f func(*residentProc) string) string {
		p := r.Procs[name]
		if p == nil {
			return "—"
		}
		return f(p)
	}
	start := func(p *residentProc) string { return mem(p.Start.Memory) }
	after := func(p *residentProc) string {
		l, ok := p.last()
		if !ok {
			return "—"
		}
		return mem(l.Memory)
	}
	series := func(p *residentProc) string {
		parts := []string{fmt.Sprintf("%.1f", mib(p.Start.RSS))}
		for _, a := range p.After {
			parts = append(parts, fmt.Sprintf("%.1f", mib(a.RSS)))
		}
		l, _ := p.last()
		return strings.Join(parts, " → ") + fmt.Sprintf("; peak %.1f", mib(l.Peak))
	}
	goCell := func(p *residentProc) string {
		l, ok := p.last()
		if !ok {
			return "—"
		}
		g := l.Go
		return fmt.Sprintf("%.1f / %.1f / %.1f; %.1f; %.1f; %.1f", mib(g.HeapInuse), mib(g.HeapFree), mib(g.HeapReleased),
			mib(g.Stacks), mib(g.Metadata), mib(l.Anon-g.mapped()))
	}
	met := func(name string, limit int64, get func(*residentProc) (harness.Memory, bool)) string {
		p := r.Procs[name]
		if p == nil {
			return "—"
		}
		m, ok := get(p)
		if !ok {
			return "—"
		}
		return yesNo(m.RSS <= limit)
	}
	startOf := func(p *residentProc) (harness.Memory, bool) { return p.Start.Memory, true }
	lastOf := func(p *residentProc) (harness.Memory, bool) { l, ok := p.last(); return l.Memory, ok }
	times := make([]string, 0, r.Readings)
	for i := 1; i <= r.Readings; i++ {
		times = append(times, fmtSecs(r.Settle*time.Duration(i)/time.Duration(r.Readings)))
	}
	seriesName := "VmRSS MiB at start → " + strings.Join(times, " / ") + " after; the peak (VmHWM)"
	goName := "Go heap in use / free / released, stacks, runtime metadata, RssAnon − (Sys − HeapReleased): the anonymous memory outside the Go runtime (SQLite's C heap), less the runtime's untouched reservations, MiB, at the last reading"
	rows := []row{
		{fmt.Sprintf("resident memory at start, warmed by %d streams: VmRSS (RssFile + RssAnon)", r.Warm), "—",
			cell(pathProxy, start), cell(pathGateway, start), "—", "≤ 20 MiB", met(pathGateway, 20<<20, startOf)},
		{fmt.Sprintf("resident memory after the load (all scenarios), %s later: VmRSS (RssFile + RssAnon)", settle), "—",
			cell(pathProxy, after), cell(pathGateway, after), "—", "≤ 24 MiB", met(pathGateway, 24<<20, lastOf)},
		{"the same: " + seriesName, "—", cell(pathProxy, series), cell(pathGateway, series), "—", "—", "—"},
		{"the same: " + goName, "—", cell(pathProxy, goCell), cell(pathGateway, goCell), "—", "—", "—"},
	}
	if r.Procs[idleGateway] != nil || r.Procs[idleProxy] != nil {
		rows = append(rows,
			row{fmt.Sprintf("resident memory of the idle scenario's processes (h2c upstream), %s after their %d streams closed: VmRSS (RssFile + RssAnon)", settle, idleStreams), "—",
				cell(idleProxy, after), cell(idleGateway, after), "—", "≤ 24 MiB", met(idleGateway, 24<<20, lastOf)},
			row{"the same: " + seriesName, "—", cell(idleProxy, series), cell(idleGateway, series), "—", "—", "—"},
			row{"the same: " + goName, "—", cell(idleProxy, goCell), cell(idleGateway, goCell), "—", "—", "—"})
	}
	return rows
}

// fmtSecs prints a duration in whole seconds, or tenths under 10 s.
func fmtSecs(d time.Duration) string {
	if d < 10*time.Second && d%time.Second != 0 {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}
