package program

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/toolspec"
)

// ToolCompiler compiles the tools an agent definition defines
// (toolload.Compiler does, with a tools.Manager): an interface, so that the
// runner links no tool runtime.
type ToolCompiler interface {
	// Compile compiles spec, its relative paths resolving against
	// baseDir: the tool and its warnings, or an error that names the
	// tool. A tool that implements io.Closer is closed when its agent is
	// dropped for its errors.
	Compile(spec toolspec.Spec, baseDir string) (stepkind.Tool, []string, error)
}

// LoadOptions are what loading needs besides the files.
type LoadOptions struct {
	// Tools compiles the agents' own tools. A definition that defines
	// tools needs it: without it each of its tools is an error.
	// toolload.Default() compiles them as a manager with default settings
	// does (no HTTP tools allowed, workdirs confined to the file's
	// directory).
	Tools ToolCompiler
	// Shared are the gateway's shared tools, usable by every agent by name.
	Shared map[string]stepkind.Tool
	// Kinds are the step kinds steps may use; nil means the built-in ones
	// (NewKinds).
	Kinds *stepkind.Registry
	// Parts are the parts of definitions the gateway's features compile
	// (hand-off acceptance, for one), in order, after each agent's
	// commands; nil means none.
	Parts []Part
	// BaseDir is where relative tool paths of definitions not read from
	// disk (the embedded examples) resolve; "" means the working directory.
	BaseDir string
}

// kinds is o.Kinds, the built-in kinds (NewKinds) when unset.
func (o *LoadOptions) kinds() *stepkind.Registry {
	if o.Kinds == nil {
		o.Kinds = NewKinds()
	}
	return o.Kinds
}

// Load reads agent definitions from paths: files, or directories searched
// recursively (hidden entries skipped) for definition files. A file with
// errors is reported and skipped; the others still load. It compiles no
// tools: a definition's tools are errors (LoadWith with LoadOptions.Tools
// compiles them).
func Load(paths ...string) ([]*Agent, agent.Diagnostics) { return LoadWith(LoadOptions{}, paths...) }

// LoadWith is Load with options.
func LoadWith(opts LoadOptions, paths ...string) ([]*Agent, agent.Diagnostics) {
	var files []string
	var diags agent.Diagnostics
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			diags.Add(agent.SeverityError, agent.Position{File: p}, fmt.Sprintf("reading agent definitions: %v", err))
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := agent.DefinitionFiles(os.DirFS(p), ".", p)
		if err != nil {
			diags.Add(agent.SeverityError, agent.Position{File: p}, err.Error())
			continue
		}
		files = append(files, found...)
	}
	return loadFiles(&opts, true, files, func(name string) ([]byte, error) { return os.ReadFile(name) }, diags)
}

// LoadFS is Load over a file system, such as the embedded example agents.
// Like Load, it compiles no tools.
func LoadFS(fsys fs.FS, root string) ([]*Agent, agent.Diagnostics) {
	return LoadFSWith(LoadOptions{}, fsys, root)
}

// LoadFSWith is LoadFS with options.
func LoadFSWith(opts LoadOptions, fsys fs.FS, root string) ([]*Agent, agent.Diagnostics) {
	files, err := agent.DefinitionFiles(fsys, root, "")
	if err != nil {
		return nil, agent.Diagnostics{{Pos: agent.Position{File: root}, Message: err.Error()}}
	}
	return loadFiles(&opts, false, files, func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) }, nil)
}

func loadFiles(opts *LoadOptions, onDisk bool, files []string, read func(string) ([]byte, error), diags agent.Diagnostics) ([]*Agent, agent.Diagnostics) {
	var agents []*Agent
	seen := map[string]*Agent{}
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			diags.Add(agent.SeverityError, agent.Position{File: f}, fmt.Sprintf("reading agent definition: %v", err))
			continue
		}
		base := opts.BaseDir
		if onDisk {
			base = filepath.Dir(f)
		}
		as, ds := parseFile(opts, base, f, data)
		diags = append(diags, ds...)
		for _, a := range as {
			if prev, dup := seen[a.Name()]; dup {
				diags.Add(agent.SeverityError, a.Def.Pos, fmt.Sprintf("agent %q is already defined at %s; this one is skipped", a.Name(), prev.Def.Pos))
				continue
			}
			seen[a.Name()] = a
			agents = append(agents, a)
		}
	}
	diags.Sort()
	return agents, diags
}

// Parse reads the agent definitions in one file (several YAML documents
// may hold several agents) and compiles them. Only agents without errors
// are returned; every problem is in the diagnostics. Like Load, it
// compiles no tools; with ParseWith and LoadOptions.Tools, relative tool
// paths resolve against the file's directory.
func Parse(file string, data []byte) ([]*Agent, agent.Diagnostics) {
	return ParseWith(LoadOptions{}, file, data)
}

// ParseWith is Parse with options.
func ParseWith(opts LoadOptions, file string, data []byte) ([]*Agent, agent.Diagnostics) {
	return parseFile(&opts, filepath.Dir(file), file, data)
}

func parseFile(opts *LoadOptions, baseDir, file string, data []byte) ([]*Agent, agent.Diagnostics) {
	var agents []*Agent
	docs, diags := agent.DecodeFile(opts.kinds(), file, data)
	for _, doc := range docs {
		local := doc.Diags
		a := compile(doc.Def, &local, opts, baseDir)
		diags = append(diags, local...)
		if local.Errors() == 0 {
			agents = append(agents, a)
		} else {
			a.closeOwnTools(opts.Shared)
		}
	}
	if len(agents) == 0 && diags.Errors() == 0 {
		diags.Add(agent.SeverityWarning, agent.Position{File: file, Line: 1, Column: 1}, "no agent definition in this file")
	}
	diags.Sort()
	return agents, diags
}
