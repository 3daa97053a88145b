package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// mount is a host directory granted read-only to a wasm module: opened
// through its root at each call, as an os.Root the module reads through.
type mount struct {
	host  confined
	guest string
}

// wasmModule is a wasm tool's runtime and compiled module, built at the
// first call and kept for the next ones.
type wasmModule struct {
	mu       sync.Mutex
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

// get returns the runtime and compiled module, compiling on first use.
// Compiles are serialized per manager so that a module shared by several
// tools is compiled once and then found in the manager's cache.
func (w *wasmModule) get(t *Tool, m *Manager) (wazero.Runtime, wazero.CompiledModule, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.compiled != nil {
		return w.rt, w.compiled, nil
	}
	bin, err := os.ReadFile(t.entry)
	if err != nil {
		return nil, nil, errorf(toolspec.CodeUnavailable, "reading module: %v", err)
	}
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(uint32(t.MemoryMiB * pagesPerMiB)).
		WithCloseOnContextDone(true).
		WithCompilationCache(m.wasmCache)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	m.compileMu.Lock()
	compiled, err := rt.CompileModule(ctx, bin)
	m.compileMu.Unlock()
	if err != nil {
		_ = rt.Close(ctx)
		return nil, nil, errorf(toolspec.CodeUnavailable, "compiling: %v", err)
	}
	w.rt, w.compiled = rt, compiled
	return rt, compiled, nil
}

// close releases the runtime; the next call compiles again.
func (w *wasmModule) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rt == nil {
		return nil
	}
	err := w.rt.Close(context.Background())
	w.rt, w.compiled = nil, nil
	if err != nil {
		return fmt.Errorf("closing the wasm runtime: %w", err)
	}
	return nil
}

// parseMounts resolves each "hostdir" or "hostdir:guestdir" entry: the
// host directory confined like a workdir, the guest path absolute.
func (t *Tool) parseMounts() ([]mount, error) {
	var out []mount
	for _, s := range t.Mounts {
		host, guest := s, ""
		if i := strings.LastIndex(s, ":"); i > len(filepath.VolumeName(s)) {
			host, guest = s[:i], s[i+1:]
		}
		d, err := t.confinedDir(host)
		if err != nil {
			return nil, fmt.Errorf("mount %q: %w", s, err)
		}
		if guest == "" {
			guest = host
			if !filepath.IsAbs(guest) {
				guest = filepath.Join(t.BaseDir, guest)
			}
			guest = filepath.ToSlash(guest)
		}
		if !strings.HasPrefix(guest, "/") {
			return nil, fmt.Errorf("mount %q: the guest path %q must be absolute", s, guest)
		}
		out = append(out, mount{host: d, guest: path.Clean(guest)})
	}
	return out, nil
}
