package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/tools"
)

// IsDefinitionFile reports whether a file name has one of the extensions
// definition files use: .yaml, .yml or .json.
func IsDefinitionFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// LoadOptions are what loading needs besides the files.
type LoadOptions struct {
	// Tools compiles the agents' tools; nil means a manager with default
	// settings (no HTTP tools allowed, workdirs confined to the file's
	// directory).
	Tools *tools.Manager
	// Shared are the gateway's shared tools, usable by every agent by name.
	Shared map[string]*tools.Tool
	// BaseDir is where relative tool paths of definitions not read from
	// disk (the embedded examples) resolve; "" means the working directory.
	BaseDir string
}

// manager is o.Tools, a default manager made on first use (by the first
// tool definition).
func (o *LoadOptions) manager() *tools.Manager {
	if o.Tools == nil {
		o.Tools = tools.NewManager(tools.Config{})
	}
	return o.Tools
}

// Load reads agent definitions from paths: files, or directories searched
// recursively (hidden entries skipped) for definition files. A file with
// errors is reported and skipped; the others still load.
func Load(paths ...string) ([]*Agent, Diagnostics) { return LoadWith(LoadOptions{}, paths...) }

// LoadWith is Load with options.
func LoadWith(opts LoadOptions, paths ...string) ([]*Agent, Diagnostics) {
	var files []string
	var diags Diagnostics
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			diags.add(SeverityError, Position{File: p}, fmt.Sprintf("reading agent definitions: %v", err))
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := definitionFiles(os.DirFS(p), ".", p)
		if err != nil {
			diags.add(SeverityError, Position{File: p}, err.Error())
			continue
		}
		files = append(files, found...)
	}
	return loadFiles(&opts, true, files, func(name string) ([]byte, error) { return os.ReadFile(name) }, diags)
}

// LoadFS is Load over a file system, such as the embedded example agents.
func LoadFS(fsys fs.FS, root string) ([]*Agent, Diagnostics) {
	return LoadFSWith(LoadOptions{}, fsys, root)
}

// LoadFSWith is LoadFS with options.
func LoadFSWith(opts LoadOptions, fsys fs.FS, root string) ([]*Agent, Diagnostics) {
	files, err := definitionFiles(fsys, root, "")
	if err != nil {
		return nil, Diagnostics{{Pos: Position{File: root}, Message: err.Error()}}
	}
	return loadFiles(&opts, false, files, func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) }, nil)
}

// definitionFiles lists the definition files under root in fsys, named with
// prefix joined in front (the OS path) when prefix is set.
func definitionFiles(fsys fs.FS, root, prefix string) ([]string, error) {
	st, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("reading agent definitions: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("reading agent definitions: %s is not a directory", root)
	}
	var files []string
	err = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && IsDefinitionFile(p) {
			if prefix != "" {
				p = filepath.Join(prefix, filepath.FromSlash(p))
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading agent definitions under %s: %w", root, err)
	}
	slices.Sort(files)
	return files, nil
}

func loadFiles(opts *LoadOptions, onDisk bool, files []string, read func(string) ([]byte, error), diags Diagnostics) ([]*Agent, Diagnostics) {
	var agents []*Agent
	seen := map[string]*Agent{}
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			diags.add(SeverityError, Position{File: f}, fmt.Sprintf("reading agent definition: %v", err))
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
				diags.add(SeverityError, a.Def.Pos, fmt.Sprintf("agent %q is already defined at %s; this one is skipped", a.Name(), prev.Def.Pos))
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
// are returned; every problem is in the diagnostics. Relative tool paths
// resolve against the file's directory.
func Parse(file string, data []byte) ([]*Agent, Diagnostics) {
	return parseFile(&LoadOptions{}, filepath.Dir(file), file, data)
}

func parseFile(opts *LoadOptions, baseDir, file string, data []byte) ([]*Agent, Diagnostics) {
	var diags Diagnostics
	var agents []*Agent
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			diags.add(SeverityError, yamlErrorPos(file, data, err), yamlErrorMessage(err))
			break
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue
		}
		var local Diagnostics
		def := &Definition{}
		nd := &nodeDecoder{file: file, diags: &local}
		nd.decode(&doc, reflect.ValueOf(def).Elem(), "agent")
		a := compile(def, &local, opts, baseDir)
		diags = append(diags, local...)
		if local.Errors() == 0 {
			agents = append(agents, a)
		} else {
			a.closeOwnTools(opts.Shared)
		}
	}
	if len(agents) == 0 && diags.Errors() == 0 {
		diags.add(SeverityWarning, Position{File: file, Line: 1, Column: 1}, "no agent definition in this file")
	}
	diags.Sort()
	return agents, diags
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlErrorPos is the position in data, read from file, of the YAML
// syntax error err (yamlSyntaxPos).
func yamlErrorPos(file string, data []byte, err error) Position {
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return yamlSyntaxPos(file, data, line, strings.TrimPrefix(yamlErrorMessage(err), "syntax error: "))
}

func yamlErrorMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = yamlLine.ReplaceAllString(msg, "")
	msg = strings.TrimLeft(msg, ": ")
	return "syntax error: " + msg
}
