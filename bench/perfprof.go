package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// This file turns `perf script` output into a pprof CPU profile, so that the
// latency scenario can be profiled at kilohertz rates (Go's own profiler
// samples at 100 Hz, and Linux fires its CPU-time timers at the tick rate
// at most): one stream at a time, a process is busy only a few percent of
// the time, and 60 s at 100 Hz is about 130 samples. The protobuf encoding is written here because the module graph
// pins github.com/google/pprof at a version the module proxy does not serve.

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
	period := int64(time.Second) / int64(p.hz)
	var b pbWriter
	strs := map[string]int64{"": 0}
	table := []string{""}
	str := func(s string) int64 {
		if i, ok := strs[s]; ok {
			return i
		}
		strs[s] = int64(len(table))
		table = append(table, s)
		return strs[s]
	}
	valueType := func(field int, typ, unit string) {
		b.message(field, func(m *pbWriter) {
			m.int64(1, str(typ))
			m.int64(2, str(unit))
		})
	}
	valueType(1, "samples", "count")
	valueType(1, "cpu", "nanoseconds")

	mappings := map[string]uint64{}
	functions := map[[2]string]uint64{}
	type locKey struct {
		ip  uint64
		dso string
	}
	locations := map[locKey]uint64{}
	var locs, funcs, maps pbWriter
	var total int64
	for i, st := range stacks {
		ids := make([]uint64, len(st))
		for j, f := range st {
			lk := locKey{f.ip, f.dso}
			id, ok := locations[lk]
			if !ok {
				mid, ok := mappings[f.dso]
				if !ok {
					mid = uint64(len(mappings) + 1)
					mappings[f.dso] = mid
					maps.message(3, func(m *pbWriter) {
						m.uint64(1, mid)
						m.int64(5, str(f.dso))
						m.uint64(7, 1) // has_functions: nothing to symbolize
					})
				}
				fid, ok := functions[[2]string{f.sym, f.dso}]
				if !ok {
					fid = uint64(len(functions) + 1)
					functions[[2]string{f.sym, f.dso}] = fid
					funcs.message(5, func(m *pbWriter) {
						m.uint64(1, fid)
						m.int64(2, str(f.sym))
						m.int64(3, str(f.sym))
					})
				}
				id = uint64(len(locations) + 1)
				locations[lk] = id
				locs.message(4, func(m *pbWriter) {
					m.uint64(1, id)
					m.uint64(2, mid)
					m.uint64(3, f.ip)
					m.message(4, func(l *pbWriter) { l.uint64(1, fid) })
				})
			}
			ids[j] = id
		}
		n := counts[i]
		total += n
		b.message(2, func(m *pbWriter) {
			m.packed(1, ids)
			m.packed(2, []uint64{uint64(n), uint64(n * period)})
		})
	}
	b.raw(maps.b)
	b.raw(locs.b)
	b.raw(funcs.b)
	comments := make([]uint64, len(p.comments))
	for i, c := range p.comments {
		comments[i] = uint64(str(c))
	}
	for _, s := range table {
		b.bytes(6, []byte(s))
	}
	b.int64(10, int64(p.duration))
	valueType(11, "cpu", "nanoseconds")
	b.int64(12, period)
	b.packed(13, comments)

	zw := gzip.NewWriter(w)
	if _, err := zw.Write(b.b); err != nil {
		return 0, fmt.Errorf("writing the profile: %w", err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("writing the profile: %w", err)
	}
	return total, nil
}

// pbWriter appends protocol buffer fields, as much of the encoding as
// profile.proto needs: varints, packed varints and length-delimited fields.
type pbWriter struct{ b []byte }

func (w *pbWriter) varint(x uint64) {
	for x >= 0x80 {
		w.b = append(w.b, byte(x)|0x80)
		x >>= 7
	}
	w.b = append(w.b, byte(x))
}

func (w *pbWriter) key(field, wireType int) { w.varint(uint64(field)<<3 | uint64(wireType)) }

// uint64 writes a varint field; zero, the default, is left out.
func (w *pbWriter) uint64(field int, x uint64) {
	if x != 0 {
		w.key(field, 0)
		w.varint(x)
	}
}

func (w *pbWriter) int64(field int, x int64) { w.uint64(field, uint64(x)) }

func (w *pbWriter) bytes(field int, b []byte) {
	w.key(field, 2)
	w.varint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *pbWriter) packed(field int, xs []uint64) {
	if len(xs) == 0 {
		return
	}
	var p pbWriter
	for _, x := range xs {
		p.varint(x)
	}
	w.bytes(field, p.b)
}

func (w *pbWriter) message(field int, build func(*pbWriter)) {
	var m pbWriter
	build(&m)
	w.bytes(field, m.b)
}

func (w *pbWriter) raw(b []byte) { w.b = append(w.b, b...) }
