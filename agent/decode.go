package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// IsDefinitionFile reports whether a file name has one of the extensions
// definition files use: .yaml, .yml or .json. The agents' tests
// (*_test.yaml, *_test.yml; package agenttest) are not definitions.
func IsDefinitionFile(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".yaml", ".yml":
		return !strings.HasSuffix(strings.ToLower(strings.TrimSuffix(name, path.Ext(name))), "_test")
	case ".json":
		return true
	}
	return false
}

// DefinitionFiles lists the definition files under root in fsys, named with
// prefix joined in front (the OS path) when prefix is set.
func DefinitionFiles(fsys fs.FS, root, prefix string) ([]string, error) {
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

// Document is one agent definition decoded from a file, with the problems
// found while decoding it.
type Document struct {
	Def   *Definition
	Diags Diagnostics
}

// DecodeFile decodes the agent definitions in one file (several YAML
// documents may hold several agents), keeping positions; kinds are the step
// kinds steps may use. A syntax error ends the file; it is in the returned
// diagnostics, beside the documents decoded before it.
func DecodeFile(kinds KindSpecs, file string, data []byte) ([]Document, Diagnostics) {
	var diags Diagnostics
	var docs []Document
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			diags.Add(SeverityError, YAMLErrorPos(file, data, err), YAMLErrorMessage(err))
			break
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue
		}
		var local Diagnostics
		def := &Definition{}
		nd := &NodeDecoder{File: file, Diags: &local, Kinds: kinds}
		nd.decode(&doc, reflect.ValueOf(def).Elem(), "agent")
		docs = append(docs, Document{Def: def, Diags: local})
	}
	return docs, diags
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// YAMLErrorPos is the position in data, read from file, of the YAML
// syntax error err (yamlSyntaxPos).
func YAMLErrorPos(file string, data []byte, err error) Position {
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return yamlSyntaxPos(file, data, line, strings.TrimPrefix(YAMLErrorMessage(err), "syntax error: "))
}

// YAMLErrorMessage is the YAML syntax error err as lint prints it.
func YAMLErrorMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = yamlLine.ReplaceAllString(msg, "")
	msg = strings.TrimLeft(msg, ": ")
	return "syntax error: " + msg
}
