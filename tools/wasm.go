package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/agentgw/agentgw/agent/toolspec"
)

const (
	// maxMemoryMiB is the most a wasm32 module can address: 65536 pages.
	maxMemoryMiB = 4096
	// pagesPerMiB is how many 64 KiB wasm pages make a MiB.
	pagesPerMiB = 16
)

// wasmMagic starts every WebAssembly binary.
var wasmMagic = []byte("\x00asm")

// wasmRuntime runs WASI modules in-process with wazero: {"command",
// "parameters"} on stdin, the result as JSON (or text) on stdout.
type wasmRuntime struct {
	m *Manager
}

// Name implements Runtime.
func (wasmRuntime) Name() string { return "wasm" }

// Check resolves the mounts and compiles the module now, so a module that
// cannot load is a load error. A missing module is a warning (compiled at
// its first call); a mount outside the roots is an error.
func (r wasmRuntime) Check(t *Tool) ([]string, error) {
	mounts, err := t.parseMounts()
	if err != nil {
		return nil, err
	}
	t.mounts = mounts
	t.wasm = &wasmModule{}
	p, ok := t.entryPath(nil)
	t.entry = p
	if !ok {
		return []string{fmt.Sprintf("entry %s: no such file", p)}, nil
	}
	head := make([]byte, len(wasmMagic))
	f, err := os.Open(p)
	if err != nil {
		return []string{fmt.Sprintf("entry %s: %v", p, err)}, nil
	}
	defer func() { _ = f.Close() }()
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, wasmMagic) {
		return nil, fmt.Errorf("entry %s: not a WebAssembly module", p)
	}
	if _, _, err := t.wasm.get(t, r.m); err != nil {
		return nil, fmt.Errorf("entry %s: %w", p, err)
	}
	return nil, nil
}

// Run implements Runtime: one fresh module instance per call.
func (r wasmRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	rt, compiled, err := t.wasm.get(t, r.m)
	if err != nil {
		return nil, err
	}
	in, err := json.Marshal(stdinMessage{Command: t.Command, Parameters: call.Parameters})
	if err != nil {
		return nil, errorf(toolspec.CodeInvalidParameters, "encoding parameters: %v", err)
	}
	roots, err := t.openMounts()
	if err != nil {
		return nil, errorf(toolspec.CodeUnavailable, "%v", err)
	}
	defer closeRoots(roots)
	stdout := &headBuffer{max: t.MaxOutputBytes}
	stderr := newStderrBuffer(stderrKeep)
	cfg := t.moduleConfig(bytes.NewReader(in), stdout, stderr, roots)
	mod, err := rt.InstantiateModule(ctx, compiled, cfg)
	if mod != nil {
		_ = mod.Close(context.Background())
	}
	if err != nil {
		return nil, wasmError(ctx, err, strings.TrimSpace(stderr.String()))
	}
	out, cut := stdout.bytes()
	return jsonResult(out, cut, t.MaxOutputBytes)
}

// moduleConfig is a call's module configuration: args [Name, Args...], the
// env allow-list, real clocks and randomness, and only the granted mounts,
// roots[i] being t.mounts[i] opened (openMounts).
func (t *Tool) moduleConfig(stdin io.Reader, stdout, stderr io.Writer, roots []*os.Root) wazero.ModuleConfig {
	cfg := wazero.NewModuleConfig().WithName("").
		WithArgs(append([]string{t.Name}, t.Args...)...).
		WithStdin(stdin).WithStdout(stdout).WithStderr(stderr).
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().
		WithRandSource(rand.Reader)
	for _, kv := range t.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		cfg = cfg.WithEnv(k, v)
	}
	if len(roots) > 0 {
		fs := wazero.NewFSConfig()
		for i, r := range roots {
			// Read-only as WithReadOnlyDirMount is (the same errors for
			// writes), but over the open os.Root instead of a path.
			ro := &sysfs.ReadFS{FS: &sysfs.AdaptFS{FS: r.FS()}}
			fs = fs.(sysfs.FSConfig).WithSysFSMount(ro, t.mounts[i].guest)
		}
		cfg = cfg.WithFSConfig(fs)
	}
	return cfg
}

// openMounts opens each mount's directory through its root for one call.
// The module reads through the returned os.Roots, so it sees what is
// inside each directory and nothing else: neither a symlink swapped in for
// the directory since the tool was loaded nor a symlink inside it can lead
// out. The caller closes them (closeRoots) once the module ended.
func (t *Tool) openMounts() ([]*os.Root, error) {
	roots := make([]*os.Root, 0, len(t.mounts))
	for _, m := range t.mounts {
		r, err := m.host.openRoot()
		if err != nil {
			closeRoots(roots)
			return nil, fmt.Errorf("mount %s: %w", m.guest, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// closeRoots closes the roots, ignoring errors.
func closeRoots(roots []*os.Root) {
	for _, r := range roots {
		_ = r.Close()
	}
}

// wasmError describes a failed module run with the end of its stderr.
func wasmError(ctx context.Context, err error, stderr string) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	msg := err.Error()
	var ee *sys.ExitError
	if errors.As(err, &ee) {
		msg = fmt.Sprintf("exit code %d", ee.ExitCode())
	}
	if stderr == "" {
		return fmt.Errorf("%s (no stderr)", msg)
	}
	return fmt.Errorf("%s: %s", msg, stderr)
}
