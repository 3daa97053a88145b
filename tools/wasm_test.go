package tools

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/internal/syncbuf"
)

// wasmEnv shares one manager, and so one compilation cache, among the wasm
// tests: compiling the Go-built module is the slow part. logs has the
// manager's log, debug lines included.
var wasmEnv struct {
	once sync.Once
	m    *Manager
	logs syncbuf.Buffer
}

// wasmManager returns the shared manager; its roots are the system temp
// dir, and its environment has TOOLS_WASM_ALLOWED and TOOLS_WASM_SECRET
// (the tests run in parallel, so they cannot t.Setenv).
func wasmManager() *Manager {
	wasmEnv.once.Do(func() {
		env := map[string]string{"TOOLS_WASM_ALLOWED": "ok", "TOOLS_WASM_SECRET": "leak"}
		wasmEnv.m = NewManager(Config{
			WorkRoots: []string{os.TempDir()},
			Logger:    slog.New(slog.NewTextHandler(&wasmEnv.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Getenv: func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			},
		})
	})
	return wasmEnv.m
}

// wasmSpec is a wasm tool running the test module with command cmd.
func wasmSpec(t testing.TB, cmd string) Spec {
	return Spec{Name: "w_" + cmd, Description: "test module", Runtime: "wasm", Entry: wasmTool(t), Command: cmd, Parameters: declare("x", "mb", "n", "path", "ms")}
}

func TestWasmResults(t *testing.T) {
	t.Parallel()
	spec := wasmSpec(t, "echo")
	spec.Args = []string{"a1"}
	spec.Env = []string{"TOOLS_WASM_ALLOWED", "FIXED=v"}
	tool := mustCompile(t, wasmManager(), spec, t.TempDir())
	res := call(tool, map[string]any{"x": 1.0})
	wantSuccess(t, res)
	want := map[string]any{"stdin": map[string]any{"command": "echo", "parameters": map[string]any{"x": 1.0}},
		"args": []any{"w_echo", "a1"}, "env": []any{"FIXED=v", "TOOLS_WASM_ALLOWED=ok"}}
	if !reflect.DeepEqual(res.Result, want) {
		t.Errorf("result %#v, want %#v", res.Result, want)
	}
	res = call(mustCompile(t, wasmManager(), wasmSpec(t, "text"), t.TempDir()), nil)
	wantSuccess(t, res)
	if res.Result != "plain text from wasm" {
		t.Errorf("text result %q", res.Result)
	}
	res = call(mustCompile(t, wasmManager(), wasmSpec(t, "fail"), t.TempDir()), nil)
	wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "exit code 3", "wasm broke")
}

func TestWasmMemoryLimit(t *testing.T) {
	t.Parallel()
	// The same allocation fits under 128 MiB and fails under 16 MiB.
	tests := []struct {
		mib int
		ok  bool
	}{{128, true}, {16, false}}
	for _, tc := range tests {
		spec := wasmSpec(t, "alloc")
		spec.MemoryMiB = tc.mib
		tool := mustCompile(t, wasmManager(), spec, t.TempDir())
		res := call(tool, map[string]any{"mb": 20})
		if tc.ok {
			wantSuccess(t, res)
			continue
		}
		wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "exit code 2", "out of memory")
	}
}

func TestWasmTimeout(t *testing.T) {
	t.Parallel()
	spec := wasmSpec(t, "loop")
	spec.Timeout = 500 * time.Millisecond
	tool := mustCompile(t, wasmManager(), spec, t.TempDir())
	wantError(t, call(tool, nil), toolspec.StatusTimeout, toolspec.CodeTimeout, "timed out")
}

func TestWasmOutputTooLarge(t *testing.T) {
	t.Parallel()
	spec := wasmSpec(t, "big")
	spec.MaxOutputBytes = 10
	tool := mustCompile(t, wasmManager(), spec, t.TempDir())
	wantError(t, call(tool, map[string]any{"n": 11}), toolspec.StatusError, toolspec.CodeOutputTooLarge, "10 bytes")
	res := call(tool, map[string]any{"n": 10})
	wantSuccess(t, res)
	if res.Result != "xxxxxxxxxx" {
		t.Errorf("result %q at the cap", res.Result)
	}
}

func TestWasmMounts(t *testing.T) {
	t.Parallel()
	hostDir := t.TempDir()
	secret := filepath.Join(hostDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mounts []string
		path   string
		want   string // "" means the read fails
	}{
		{"no mounts", nil, secret, ""},
		{"same path", []string{hostDir}, secret, "granted"},
		{"guest path", []string{hostDir + ":/data"}, "/data/secret.txt", "granted"},
		{"other path not granted", []string{hostDir + ":/data"}, secret, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := wasmSpec(t, "read")
			spec.Mounts = tc.mounts
			tool := mustCompile(t, wasmManager(), spec, hostDir)
			res := call(tool, map[string]any{"path": tc.path})
			if tc.want == "" {
				wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "reading")
				return
			}
			wantSuccess(t, res)
			if got := res.Result.(map[string]any)["content"]; got != tc.want {
				t.Errorf("content %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWasmCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "fake.wasm")
	if err := os.WriteFile(notWasm, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{WorkRoots: []string{dir}})
	_, _, err := m.Compile(Spec{Name: "f", Runtime: "wasm", Entry: "fake.wasm"}, dir)
	if err == nil || !strings.Contains(err.Error(), "not a WebAssembly module") {
		t.Errorf("Compile of a non-wasm file: %v", err)
	}
	_, _, err = m.Compile(Spec{Name: "f", Runtime: "wasm", Entry: "fake.wasm", Mounts: []string{"/"}}, dir)
	if err == nil || !strings.Contains(err.Error(), "outside the allowed roots") {
		t.Errorf("Compile with a mount outside the roots: %v", err)
	}
	_, _, err = m.Compile(Spec{Name: "f", Runtime: "wasm", Entry: "fake.wasm", Mounts: []string{".:rel"}}, dir)
	if err == nil || !strings.Contains(err.Error(), "must be absolute") {
		t.Errorf("Compile with a relative guest path: %v", err)
	}
}

// TestWasmCloseWaitsForCalls: Close under a call in flight leaves the
// runtime to that call, which completes, and the call's end releases it;
// a call after Close compiles again and releases at its end too.
func TestWasmCloseWaitsForCalls(t *testing.T) {
	t.Parallel()
	tool := mustCompile(t, wasmManager(), wasmSpec(t, "sleep"), t.TempDir())
	if !tool.wasm.loaded() {
		t.Fatal("Compile did not load the module")
	}
	done := make(chan toolspec.Result, 1)
	go func() { done <- call(tool, map[string]any{"ms": 1000}) }()
	for deadline := time.Now().Add(10 * time.Second); tool.inFlight() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call did not start")
		}
	}
	if err := tool.Close(); err != nil {
		t.Fatal(err)
	}
	if !tool.wasm.loaded() {
		t.Fatal("Close released the runtime under a call in flight")
	}
	res := <-done
	wantSuccess(t, res)
	if res.Result != "slept" {
		t.Errorf("result %v", res.Result)
	}
	if tool.wasm.loaded() {
		t.Fatal("the runtime outlived the last call after Close")
	}
	wantSuccess(t, call(tool, map[string]any{"ms": 1}))
	if tool.wasm.loaded() {
		t.Fatal("a call after Close kept the runtime")
	}
	if err := tool.Close(); err != nil {
		t.Fatalf("closing again: %v", err)
	}
}

// TestCompileErrorReleasesModule: a wasm tool that fails another check
// does not keep the module its runtime check compiled.
func TestCompileErrorReleasesModule(t *testing.T) {
	t.Parallel()
	spec := wasmSpec(t, "echo")
	spec.Name, spec.Timeout = "w_bad_timeout", -time.Second
	if _, _, err := wasmManager().Compile(spec, t.TempDir()); err == nil {
		t.Fatal("a negative timeout compiled")
	}
	if !strings.Contains(wasmEnv.logs.String(), `msg="tool closed" tool=w_bad_timeout`) {
		t.Errorf("the failed tool was not closed; log:\n%s", wasmEnv.logs.String())
	}
}

// inFlight is the number of t's calls in flight.
func (t *Tool) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

// loaded reports whether w holds a runtime.
func (w *wasmModule) loaded() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rt != nil
}

// swapManager is a manager whose only root is root, sharing the wasm
// tests' compilation cache.
func swapManager(root string) *Manager {
	m := NewManager(Config{WorkRoots: []string{root}})
	m.wasmCache = wasmManager().wasmCache
	return m
}

// TestWasmMountSwappedAfterLoad is the race between resolving a mount (at
// load) and the module reading through it: the host directory is swapped
// for a symlink between the two. The call opens the resolved directory
// through its root and mounts the open directory, so the module reads
// inside the root or not at all (on the check-then-use code it read the
// outside directory).
func TestWasmMountSwappedAfterLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range swaps {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, outside := swapRoots(t)
			for dir, content := range map[string]string{
				filepath.Join(root, "wd"): "wd", filepath.Join(root, "other"): "other", outside: "outside",
			} {
				if err := os.WriteFile(filepath.Join(dir, "which.txt"), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			spec := wasmSpec(t, "read")
			spec.Mounts = []string{"wd:/data"}
			tool := mustCompile(t, swapManager(root), spec, root)
			swapDir(t, filepath.Join(root, "wd"), tc.swap(root, outside))
			if tc.name == "recreated" {
				if err := os.WriteFile(filepath.Join(root, "wd", "which.txt"), []byte("wd"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := call(tool, map[string]any{"path": "/data/which.txt"})
			if res.Status == toolspec.StatusSuccess && res.Result.(map[string]any)["content"] == "outside" {
				t.Fatal("the module read outside the root")
			}
			if tc.want == "" {
				wantError(t, res, toolspec.StatusError, toolspec.CodeUnavailable, tc.substr)
				return
			}
			wantSuccess(t, res)
			if got := res.Result.(map[string]any)["content"]; got != tc.want {
				t.Errorf("the module read %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWasmMountSymlinks: a mount grants its directory and nothing else,
// not even through a symlink inside it (wazero's directory mounts follow
// any symlink; the mount is now an os.Root).
func TestWasmMountSymlinks(t *testing.T) {
	t.Parallel()
	root, outside := swapRoots(t)
	data := filepath.Join(root, "wd")
	for dir, content := range map[string]string{data: "granted", filepath.Join(root, "other"): "other", outside: "outside"} {
		if err := os.WriteFile(filepath.Join(dir, "which.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in":           "which.txt",
		"abs-out":      filepath.Join(outside, "which.txt"),
		"rel-out":      "../../" + filepath.Base(outside) + "/which.txt",
		"sibling":      "../other/which.txt",
		"abs-in-mount": filepath.Join(data, "which.txt"),
	}
	if filepath.Dir(outside) != filepath.Dir(root) {
		t.Skip("the temp dirs do not share a parent")
	}
	links["rel-out"] = "../../" + filepath.Base(outside) + "/which.txt"
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(data, name)); err != nil {
			t.Fatal(err)
		}
	}
	spec := wasmSpec(t, "read")
	spec.Mounts = []string{"wd:/data"}
	tool := mustCompile(t, swapManager(root), spec, root)
	tests := []struct {
		link string
		want string // "" means the read fails
	}{
		{"in", "granted"},
		{"abs-out", ""},
		{"rel-out", ""},
		{"sibling", ""},
		{"abs-in-mount", ""},
	}
	for _, tc := range tests {
		t.Run(tc.link, func(t *testing.T) {
			res := call(tool, map[string]any{"path": "/data/" + tc.link})
			if tc.want == "" {
				wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "reading")
				return
			}
			wantSuccess(t, res)
			if got := res.Result.(map[string]any)["content"]; got != tc.want {
				t.Errorf("content %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWasmMountView: what a module sees of a mount, its listing, stats and
// the errors of writes, is the same through the os.Root mount as it was
// through wazero's read-only directory mount.
func TestWasmMountView(t *testing.T) {
	t.Parallel()
	root, _ := swapRoots(t)
	data := filepath.Join(root, "wd")
	if err := os.WriteFile(filepath.Join(data, "secret.txt"), []byte("granted"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(data, "sub"), 0o750); err != nil {
		t.Fatal(err)
	}
	spec := wasmSpec(t, "probe")
	spec.Mounts = []string{"wd:/data"}
	tool := mustCompile(t, swapManager(root), spec, root)
	res := call(tool, map[string]any{"path": "/data"})
	wantSuccess(t, res)
	golden.Check(t, "testdata/wasm_mount_view.txt", []byte(res.Result.(string)))
}
