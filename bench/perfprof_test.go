package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

func TestParsePerfFrame(t *testing.T) {
	tests := []struct {
		in   string
		want perfFrame
	}{
		{"97184 runtime.mallocgc (/tmp/bin/agentgw)", perfFrame{0x97184, "runtime.mallocgc", "/tmp/bin/agentgw"}},
		{`58b2a5 pkg.f[go.shape.struct { A string "json:\"a\"" }] (/bin/x)`, perfFrame{0x58b2a5, `pkg.f[go.shape.struct { A string "json:\"a\"" }]`, "/bin/x"}},
		{"ffffffff813a2293 __schedule ([kernel.kallsyms])", perfFrame{0xffffffff813a2293, "__schedule", "[kernel.kallsyms]"}},
		{"140f [unknown] ([vdso])", perfFrame{0x140f, "0x140f", "[vdso]"}},
		{"140f ([vdso])", perfFrame{0x140f, "0x140f", "[vdso]"}},
		{"140f main.f", perfFrame{0x140f, "main.f", "[unknown]"}},
	}
	for _, tt := range tests {
		got, err := parsePerfFrame(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parsePerfFrame(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := parsePerfFrame("xyz main.f (/bin/x)"); err == nil {
		t.Error("a frame without a hexadecimal address parsed")
	}
}

func TestPerfStacksErrors(t *testing.T) {
	if _, _, err := perfStacks(strings.NewReader("\t97184 main.f (/bin/x)\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a frame before any header: err = %v", err)
	}
	if _, _, err := perfStacks(strings.NewReader("x 1\n\tzz main.f (/bin/x)\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad frame: err = %v", err)
	}
}

// TestPerfToPprof converts a perf script sample, reads the result back with
// profile.Parse (every field the converter sets: the sample and period types,
// 20 kHz as 50 µs per sample, the duration, the comment, the mappings marked
// symbolized, each stack frame by frame with its address, symbol and dso),
// and renders it with go tool pprof, the reader the profile is for.
func TestPerfToPprof(t *testing.T) {
	in, err := os.ReadFile("testdata/perf-script.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := perfToPprof(bytes.NewReader(in), &out, perfProfile{hz: 20000, duration: 2 * time.Second, comments: []string{"12 streams per path"}})
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d samples, want 4", n)
	}

	p, err := profile.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Errorf("CheckValid: %v", err)
	}
	valueType := func(v *profile.ValueType) string {
		if v == nil {
			return "<nil>"
		}
		return v.Type + "/" + v.Unit
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, valueType(st))
	}
	if got, want := strings.Join(types, " "), "samples/count cpu/nanoseconds"; got != want {
		t.Errorf("sample types %q, want %q", got, want)
	}
	if got, want := valueType(p.PeriodType), "cpu/nanoseconds"; got != want {
		t.Errorf("period type %q, want %q", got, want)
	}
	if p.Period != 50000 || p.DurationNanos != int64(2*time.Second) {
		t.Errorf("period %d ns, duration %d ns; want 50000, %d", p.Period, p.DurationNanos, int64(2*time.Second))
	}
	if !slices.Equal(p.Comments, []string{"12 streams per path"}) {
		t.Errorf("comments %q", p.Comments)
	}
	var mappings []string
	for _, m := range p.Mapping {
		mappings = append(mappings, fmt.Sprintf("%d %s functions=%v", m.ID, m.File, m.HasFunctions))
	}
	wantMappings := []string{"1 /tmp/bin/agentgw functions=true", "2 [kernel.kallsyms] functions=true", "3 [vdso] functions=true"}
	if !slices.Equal(mappings, wantMappings) {
		t.Errorf("mappings:\n%s\nwant:\n%s", strings.Join(mappings, "\n"), strings.Join(wantMappings, "\n"))
	}
	var samples []string
	for _, s := range p.Sample {
		frames := []string{fmt.Sprint(s.Value)}
		for _, loc := range s.Location {
			var names []string
			for _, l := range loc.Line {
				names = append(names, l.Function.Name+"|"+l.Function.SystemName)
			}
			frames = append(frames, fmt.Sprintf("%d %#x %s (%s)", loc.ID, loc.Address, strings.Join(names, ","), loc.Mapping.File))
		}
		samples = append(samples, strings.Join(frames, "\n  "))
	}
	decode := `github.com/agentgw/agentgw/contextvars.decodeSlice[go.shape.struct { Content string "json:\"content\""; StartLine int "json:\"startLine\"" }]`
	wantSamples := []string{
		"[2 100000]" +
			"\n  1 0x97184 runtime.memclrNoHeapPointers|runtime.memclrNoHeapPointers (/tmp/bin/agentgw)" +
			"\n  2 0x8c6a5 runtime.mallocgc|runtime.mallocgc (/tmp/bin/agentgw)" +
			"\n  3 0x32afd4 net/http.(*conn).serve|net/http.(*conn).serve (/tmp/bin/agentgw)" +
			"\n  4 0x96a61 runtime.goexit.abi0|runtime.goexit.abi0 (/tmp/bin/agentgw)",
		"[1 50000]" +
			"\n  5 0x58b2a5 " + decode + "|" + decode + " (/tmp/bin/agentgw)" +
			"\n  3 0x32afd4 net/http.(*conn).serve|net/http.(*conn).serve (/tmp/bin/agentgw)" +
			"\n  4 0x96a61 runtime.goexit.abi0|runtime.goexit.abi0 (/tmp/bin/agentgw)",
		"[1 50000]" +
			"\n  6 0xffffffff813a2293 finish_task_switch.isra.0|finish_task_switch.isra.0 ([kernel.kallsyms])" +
			"\n  7 0xffffffff821f53d4 __schedule|__schedule ([kernel.kallsyms])" +
			"\n  8 0x140f 0x140f|0x140f ([vdso])" +
			"\n  4 0x96a61 runtime.goexit.abi0|runtime.goexit.abi0 (/tmp/bin/agentgw)",
	}
	if !slices.Equal(samples, wantSamples) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(samples, "\n"), strings.Join(wantSamples, "\n"))
	}

	path := filepath.Join(t.TempDir(), "p.pprof")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pprof := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", append([]string{"tool", "pprof"}, append(args, path)...)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	checkGolden(t, "testdata/perf-script.traces", []byte(pprof("-traces")))
	checkGolden(t, "testdata/perf-script.top", []byte(pprof("-top", "-cum")))
}

func TestPerfHzNeedsProfile(t *testing.T) {
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-perf-hz", "5000"}, &stderr); err == nil || !strings.Contains(err.Error(), "-profile") {
		t.Errorf("-perf-hz without -profile: err = %v", err)
	}
	if !strings.Contains(stderr.String(), "-perf-hz needs -profile") {
		t.Errorf("stderr = %q, want the error", stderr.String())
	}
}
