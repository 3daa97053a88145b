package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// This file turns `perf script` output into a pprof CPU profile, so that the
// latency scenario can be profiled at kilohertz rates (Go's own profiler
// samples at 100 Hz, and Linux fires its CPU-time timers at the tick rate
// at most): one stream at a time, a process is busy only a few percent of
// the time, and 60 s at 100 Hz is about 130 samples. The profile is built
// and encoded with github.com/google/pprof/profile, the package go tool pprof
// reads it with.

// perfScriptFields is the -F list perfToPprof reads: a header line per
// sample (comm and tid), then one indented line per frame, leaf first:
// "<hex ip> <symbol> (<dso>)".
const perfScriptFields = "comm,tid,ip,sym,dso"

// perfFrame is one frame of a perf sample.
type perfFrame struct {
	ip       uint64
	sym, dso string
}

// perfStacks reads the samples of `perf script -F comm,tid,ip,sym,dso -g`
// output, leaf first, and counts identical stacks.
func perfStacks(r io.Reader) (stacks [][]perfFrame, counts []int64, err error) {
	index := map[string]int{}
	var cur []perfFrame
	var key strings.Builder
	inSample := false
	end := func() {
		if !inSample {
			return
		}
		inSample = false
		if len(cur) == 0 {
			return
		}
		k := key.String()
		if i, ok := index[k]; ok {
			counts[i]++
		} else {
			index[k] = len(stacks)
			stacks = append(stacks, cur)
			counts = append(counts, 1)
		}
		cur, key = nil, strings.Builder{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			end()
		case line[0] != ' ' && line[0] != '\t':
			end() // the next sample's header
			inSample = true
		case !inSample:
			return nil, nil, fmt.Errorf("perf script line %d: a frame before any sample header", n)
		default:
			f, err := parsePerfFrame(strings.TrimSpace(line))
			if err != nil {
				return nil, nil, fmt.Errorf("perf script line %d: %w", n, err)
			}
			cur = append(cur, f)
			fmt.Fprintf(&key, "%x %s\x00", f.ip, f.dso)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading perf script output: %w", err)
	}
	end()
	return stacks, counts, nil
}

// parsePerfFrame parses "<hex ip> <symbol> (<dso>)"; a symbol may contain
// spaces (Go's generic shapes do), a dso may not be known.
func parsePerfFrame(s string) (perfFrame, error) {
	hex, rest, _ := strings.Cut(s, " ")
	ip, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return perfFrame{}, fmt.Errorf("frame %q: the address is not hexadecimal", s)
	}
	f := perfFrame{ip: ip, sym: strings.TrimSpace(rest), dso: "[unknown]"}
	if strings.HasSuffix(f.sym, ")") {
		if i := strings.LastIndex(f.sym, " ("); i >= 0 {
			f.sym, f.dso = f.sym[:i], f.sym[i+2:len(f.sym)-1]
		} else if strings.HasPrefix(f.sym, "(") {
			f.sym, f.dso = "", f.sym[1:len(f.sym)-1]
		}
	}
	if f.sym == "" || f.sym == "[unknown]" {
		f.sym = fmt.Sprintf("%#x", ip)
	}
	return f, nil
}

// perfProfile is what perfToPprof writes besides the samples.
type perfProfile struct {
	hz       int           // perf record's -F
	duration time.Duration // how long perf recorded
	comments []string      // shown by go tool pprof -comments
}

// perfToPprof converts `perf script` output (perfScriptFields, with call
// chains) into a gzipped pprof CPU profile, each sample worth 1/hz seconds.
// It returns the number of samples.
func perfToPprof(r io.Reader, w io.Writer, p perfProfile) (int64, error) {
	if p.hz <= 0 {
		return 0, fmt.Errorf("converting a perf profile: sampling frequency %d", p.hz)
	}
	stacks, counts, err := perfStacks(r)
	if err != nil {
		return 0, err
	}
	prof := buildPerfProfile(stacks, counts, p)
	if err := prof.CheckValid(); err != nil {
		return 0, fmt.Errorf("converting a perf profile: %w", err)
	}
	if err := prof.Write(w); err != nil {
		return 0, fmt.Errorf("writing the profile: %w", err)
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	return total, nil
}

// buildPerfProfile makes the profile of counted stacks (leaf first): one
// mapping per dso, marked as symbolized (there is nothing left for pprof to
// look up), one function per symbol and dso, one location per address and
// dso, IDs in the order first seen.
func buildPerfProfile(stacks [][]perfFrame, counts []int64, p perfProfile) *profile.Profile {
	period := int64(time.Second) / int64(p.hz)
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
		},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		DurationNanos: int64(p.duration),
		Comments:      p.comments,
	}
	mappings := map[string]*profile.Mapping{}
	functions := map[[2]string]*profile.Function{}
	type locKey struct {
		ip  uint64
		dso string
	}
	locations := map[locKey]*profile.Location{}
	for i, st := range stacks {
		locs := make([]*profile.Location, len(st))
		for j, f := range st {
			lk := locKey{f.ip, f.dso}
			loc, ok := locations[lk]
			if !ok {
				m, ok := mappings[f.dso]
				if !ok {
					m = &profile.Mapping{ID: uint64(len(prof.Mapping) + 1), File: f.dso, HasFunctions: true}
					mappings[f.dso] = m
					prof.Mapping = append(prof.Mapping, m)
				}
				fn, ok := functions[[2]string{f.sym, f.dso}]
				if !ok {
					fn = &profile.Function{ID: uint64(len(prof.Function) + 1), Name: f.sym, SystemName: f.sym}
					functions[[2]string{f.sym, f.dso}] = fn
					prof.Function = append(prof.Function, fn)
				}
				loc = &profile.Location{
					ID:      uint64(len(prof.Location) + 1),
					Mapping: m,
					Address: f.ip,
					Line:    []profile.Line{{Function: fn}},
				}
				locations[lk] = loc
				prof.Location = append(prof.Location, loc)
			}
			locs[j] = loc
		}
		n := counts[i]
		prof.Sample = append(prof.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * period}})
	}
	return prof
}
