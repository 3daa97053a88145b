package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestPerfToPprof converts a perf script sample and reads the result back
// with go tool pprof, the reader the profile is for: the stacks, the sample
// values (20 kHz: 50 µs each), the duration and the comment.
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
