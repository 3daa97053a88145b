package tools

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/agentgw/agentgw/internal/urlallow"
)

// Runtime executes the tools of one kind.
type Runtime interface {
	// Name is the runtime's name as written in Spec.Runtime.
	Name() string
	// Check validates a tool at load time: warnings (an interpreter or entry
	// that is missing now) and errors (a spec that can never work).
	Check(t *Tool) (warnings []string, err error)
	// Run executes one call; ctx carries the tool's timeout. It returns the
	// result value or an error (a *ResultError chooses the code); the Tool
	// shapes the Result.
	Run(ctx context.Context, t *Tool, call Call) (any, error)
}

// BuiltinFunc is a tool implemented in Go by the gateway.
type BuiltinFunc func(ctx context.Context, params map[string]any) (any, error)

// Config holds the gateway-wide limits and hooks of a Manager.
type Config struct {
	// WorkRoots are the directories tools' workdirs and wasm mounts must stay
	// inside (after resolving symlinks); empty means the tool's base directory only.
	WorkRoots []string
	// HTTPAllow are URL prefixes (scheme://host[:port]/path-prefix) http tools
	// may POST to; an http tool whose entry matches none is a load error.
	HTTPAllow []string
	// Python and Node are the interpreters; "" means "python3" and "node",
	// looked up on PATH at load time.
	Python, Node string
	// Getenv reads the gateway's environment; nil means os.Getenv.
	Getenv func(string) string
	// Builtins are the builtin tools by entry name.
	Builtins map[string]BuiltinFunc
	// Logger receives call and cleanup diagnostics; nil discards them.
	Logger *slog.Logger
}

// Manager holds the runtimes and compiles tools against them.
type Manager struct {
	cfg       Config
	log       *slog.Logger
	allow     urlallow.List
	wasmCache wazero.CompilationCache
	compileMu sync.Mutex // serializes wasm compiles so the cache is hit

	mu       sync.RWMutex
	runtimes map[string]Runtime
}

// NewManager returns a manager with the runtimes python, javascript, native,
// wasm, http, builtin and frontend registered.
func NewManager(cfg Config) *Manager {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Builtins = maps.Clone(cfg.Builtins)
	maps.DeleteFunc(cfg.Builtins, func(_ string, fn BuiltinFunc) bool { return fn == nil })
	cfg.WorkRoots = slices.Clone(cfg.WorkRoots)
	m := &Manager{
		cfg:       cfg,
		log:       cfg.Logger,
		wasmCache: wazero.NewCompilationCache(),
		runtimes:  map[string]Runtime{},
	}
	m.allow = m.parseAllow(cfg.HTTPAllow)
	for _, rt := range []Runtime{
		&stdioRuntime{name: "python", interp: or(cfg.Python, "python3")},
		&stdioRuntime{name: "javascript", interp: or(cfg.Node, "node")},
		nativeRuntime{},
		wasmRuntime{m: m},
		newHTTPRuntime(m),
		builtinRuntime{fns: cfg.Builtins},
		frontendRuntime{},
	} {
		m.Register(rt)
	}
	return m
}

// Register adds a runtime, replacing one of the same name.
func (m *Manager) Register(rt Runtime) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runtimes[rt.Name()] = rt
}

// runtime returns the runtime registered under name.
func (m *Manager) runtime(name string) (Runtime, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	rt, ok := m.runtimes[name]
	return rt, ok
}

// runtimeNames lists the registered runtimes, sorted.
func (m *Manager) runtimeNames() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.runtimes))
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
