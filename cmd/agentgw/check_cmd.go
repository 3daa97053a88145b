package main

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/store"
)

// newCheckCmd is agentgw check.
func newCheckCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check --config FILE",
		Short: "Check a gateway config",
		Long: `Check a gateway config file (--config, or AGENTGW_CONFIG) as serve loads it:
defaults, the file, the environment. It prints "FILE: ok" and exits 0 when
the config is valid; otherwise it prints each problem at its FILE:LINE:COL
with the key's path and exits 2. --print shows the effective config with
every default instead.`,
		Example: `  agentgw check --config agentgw.yaml
  agentgw check --config agentgw.yaml --print`,
		Args: cobra.NoArgs,
	}
	config := cmd.Flags().String("config", "", "gateway config `FILE` to check (env AGENTGW_CONFIG)")
	print := cmd.Flags().Bool("print", false, "print the effective config, with every default, as YAML (passwords in URLs redacted), each value the file or the environment set marked # file or # env")
	cmd.RunE = func(*cobra.Command, []string) error {
		path := firstNonEmpty(*config, e.getenv("AGENTGW_CONFIG"))
		if path == "" {
			return errors.New("no config to check: give --config FILE (or set AGENTGW_CONFIG)")
		}
		return exit(cmdCheck(path, *print, e.getenv, e.stdout, e.stderr))
	}
	return cmd
}

// cmdCheck loads a gateway config file as serve does (defaults, the file,
// the environment) and reports its problems, each at its file:line:col
// with the key's path. It exits 0 when the config is valid, 2 when not.
func cmdCheck(path string, print bool, getenv func(string) string, stdout, stderr io.Writer) int {
	g := &gatewayFlags{config: path, fs: pflag.NewFlagSet("check", pflag.ContinueOnError)}
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if print {
		st, err := loadStages(path, getenv)
		if err == nil {
			err = printConfig(stdout, cfg, st)
		}
		if err != nil {
			fmt.Fprintln(stderr, "agentgw check:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s: ok\n", path)
	return 0
}

// printConfig writes cfg as YAML, with the passwords of the URLs it holds
// redacted (store.RedactURL); with st, each value the file or the
// environment set says so in a comment (# file, # env).
func printConfig(w io.Writer, cfg *Config, st *configStages) error {
	c := *cfg
	c.Upstream.URL = redactURL(c.Upstream.URL)
	c.Store.URL = redactURL(c.Store.URL)
	c.Git.Repositories = slices.Clone(c.Git.Repositories)
	for i := range c.Git.Repositories {
		c.Git.Repositories[i].URL = redactURL(c.Git.Repositories[i].URL)
	}
	c.KnowledgeBases = slices.Clone(c.KnowledgeBases)
	for i := range c.KnowledgeBases {
		if e := c.KnowledgeBases[i].Embeddings; e != nil {
			ec := *e
			ec.URL = redactURL(ec.URL)
			c.KnowledgeBases[i].Embeddings = &ec
		}
		if r := c.KnowledgeBases[i].Rerank; r != nil {
			rc := *r
			rc.URL = redactURL(rc.URL)
			c.KnowledgeBases[i].Rerank = &rc
		}
	}
	var doc yaml.Node
	if err := doc.Encode(&c); err != nil {
		return fmt.Errorf("writing the config as YAML: %w", err)
	}
	if st != nil {
		if err := st.annotate(&doc); err != nil {
			return err
		}
		doc.HeadComment = "The effective config: # file and # env mark the values the file and the environment set;\nthe others are the defaults."
	}
	data, err := yaml.Marshal(&doc)
	if err != nil {
		return fmt.Errorf("writing the config as YAML: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// redactURL is u with its password replaced, or "" when u is.
func redactURL(u string) string {
	if u == "" || !strings.Contains(u, "@") && !strings.Contains(strings.ToLower(u), "password") {
		return u
	}
	return store.RedactURL(u)
}

// unknownKeys reports each key of the config file file (contents data)
// that no field of Config takes, at its file:line:col with the key's path
// and the nearest known key. It reports nothing when data does not parse
// as YAML: decoding reports that.
func unknownKeys(file string, data []byte) error {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var errs []error
	walkKeys(file, doc.Content[0], reflect.TypeFor[Config](), "", &errs)
	return errors.Join(errs...)
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// walkKeys checks n, the YAML value at path, against t, the Go type it
// decodes into.
func walkKeys(file string, n *yaml.Node, t reflect.Type, path string, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return // decodes itself
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := map[string]reflect.Type{}
		var names []string // in the struct's order, so that hints are stable
		yamlFields(t, fields, &names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue // merge key
			}
			kp := joinKey(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok {
				pos := agent.Position{File: file, Line: k.Line, Column: k.Column}
				*errs = append(*errs, fmt.Errorf("%s: %s: unknown key%s", pos, kp, suggest.DidYouMean(k.Value, names)))
				continue
			}
			walkKeys(file, v, ft, kp, errs)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			walkKeys(file, item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkKeys(file, n.Content[i+1], t.Elem(), joinKey(path, n.Content[i].Value), errs)
		}
	}
}

// yamlFields adds the YAML keys of struct t, with their types, to fields,
// and the keys in order to names, following inlined structs as the
// decoder does.
func yamlFields(t reflect.Type, fields map[string]reflect.Type, names *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				yamlFields(ft, fields, names)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
		*names = append(*names, name)
	}
}

// joinKey is the dotted path of key under path.
func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
