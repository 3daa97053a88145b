package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// helpers are the binaries built once per test binary.
type helpers struct {
	dir string

	nativeOnce sync.Once
	native     string
	nativeErr  error

	wasmOnce sync.Once
	wasm     string
	wasmErr  error
}

var built helpers

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tools-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built.dir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// goBuild builds the package pkg into out with extra environment.
func goBuild(pkg, out string, env ...string) error {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "build", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v: %s", pkg, err, stderr.String())
	}
	return nil
}

// nativeTool returns the path of the compiled testdata/nativetool.
func nativeTool(t testing.TB) string {
	t.Helper()
	built.nativeOnce.Do(func() {
		built.native = filepath.Join(built.dir, "nativetool")
		built.nativeErr = goBuild("./testdata/nativetool", built.native, "CGO_ENABLED=0")
	})
	if built.nativeErr != nil {
		t.Fatal(built.nativeErr)
	}
	return built.native
}

// wasmTool returns the path of testdata/wasmtool compiled for wasip1.
func wasmTool(t testing.TB) string {
	t.Helper()
	built.wasmOnce.Do(func() {
		built.wasm = filepath.Join(built.dir, "wasmtool.wasm")
		built.wasmErr = goBuild("./testdata/wasmtool", built.wasm, "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	})
	if built.wasmErr != nil {
		t.Fatal(built.wasmErr)
	}
	return built.wasm
}

// mustCompile compiles spec or fails the test.
func mustCompile(t testing.TB, m *Manager, spec Spec, baseDir string) *Tool {
	t.Helper()
	tool, _, err := m.Compile(spec, baseDir)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return tool
}

// call runs tool with params under a background context.
func call(tool *Tool, params map[string]any) toolspec.Result {
	return tool.Call(context.Background(), Call{ID: "call_1", Parameters: params})
}

// wantSuccess fails the test unless res is SUCCESS.
func wantSuccess(t testing.TB, res toolspec.Result) {
	t.Helper()
	if res.Status != toolspec.StatusSuccess {
		t.Fatalf("status %s, error %+v; want SUCCESS", res.Status, res.Error)
	}
}

// wantError fails the test unless res has the status and code, with a
// message containing each of parts.
func wantError(t testing.TB, res toolspec.Result, status, code string, parts ...string) {
	t.Helper()
	if res.Status != status || res.Error == nil || res.Error.Code != code {
		t.Fatalf("got status %s error %+v; want %s %s", res.Status, res.Error, status, code)
	}
	for _, p := range parts {
		if !strings.Contains(res.Error.Message, p) {
			t.Errorf("error message %q lacks %q", res.Error.Message, p)
		}
	}
}

// scriptPath is the absolute path of a script under testdata/scripts.
func scriptPath(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// declare is a parameters schema that declares names, each of any type.
func declare(names ...string) map[string]any {
	props := map[string]any{}
	for _, n := range names {
		props[n] = map[string]any{}
	}
	return map[string]any{"type": "object", "properties": props}
}
