package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/schema"
)

// initLong is the description of agentgw init.
const initLong = `Write a working agent and its tests into DIR (default: the current
directory), so that "agentgw test DIR/agents" passes at once and
"agentgw serve --config DIR/agentgw.yaml" serves it:

  DIR/agents/NAME.yaml        the agent: a reply template and a model command
  DIR/agents/NAME_test.yaml   its tests (offline: the model's answers are recorded)
  DIR/agentgw.yaml            a gateway config serving DIR/agents
  DIR/schema/*.schema.json    the JSON Schemas the files name, for editor completion

NAME is lower-case letters, digits and inner hyphens (default my-agent). No file
is overwritten: when one of them exists, nothing is written and the exit code is 1.`

// agentNameRE is the names init accepts: lower-case letters, digits and
// single inner hyphens, starting with a letter.
var agentNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// maxAgentNameLen bounds the name init accepts (it becomes a file name and
// a URL path segment).
const maxAgentNameLen = 63

// newInitCmd is agentgw init.
func newInitCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a starting agent and its tests",
		Long:  initLong,
		Example: `  agentgw init
  agentgw init my-project --name greeter`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("one DIR at most, got %d arguments", len(args))
			}
			return nil
		},
	}
	name := cmd.Flags().String("name", "my-agent", "the agent's `NAME`: lower-case letters, digits and hyphens")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		dir := "."
		if len(args) == 1 {
			dir = args[0]
		}
		return exit(cmdInit(dir, *name, e.stdout, e.stderr))
	}
	return cmd
}

// cmdInit is agentgw init: it writes the agent name into dir and says
// what to run next.
func cmdInit(dir, name string, stdout, stderr io.Writer) int {
	written, err := initProject(dir, name)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw init:", err)
		return 1
	}
	for _, f := range written {
		fmt.Fprintln(stdout, "wrote", f)
	}
	agents, config := filepath.Join(dir, "agents"), filepath.Join(dir, "agentgw.yaml")
	fmt.Fprintln(stdout, "\nNext:")
	next := [][2]string{
		{"agentgw test " + agents, "run the agent's tests, offline"},
		{"agentgw lint " + agents, "check the definitions"},
		{"agentgw serve --config " + config, "serve it (no upstream: the built-in echo model answers)"},
		{"agentgw chat --agent " + name + " hello", "talk to it, from another terminal"},
	}
	width := 0
	for _, n := range next {
		width = max(width, len(n[0]))
	}
	for _, n := range next {
		fmt.Fprintf(stdout, "  %-*s  # %s\n", width, n[0], n[1])
	}
	return 0
}

// initFile is one file init writes: its path under DIR and its content.
type initFile struct {
	path string
	data []byte
}

// initProject writes the agent name, its tests, a gateway config and the
// schemas into dir (created when missing), and returns the paths written.
// It writes nothing when the name is invalid or one of the files exists.
func initProject(dir, name string) ([]string, error) {
	if err := validAgentName(name); err != nil {
		return nil, err
	}
	files, err := initFiles(name)
	if err != nil {
		return nil, err
	}
	var exist []string
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("checking %s: %w", p, err)
		}
	}
	if len(exist) > 0 {
		return nil, fmt.Errorf("not overwriting %s: nothing written (choose another DIR or --name, or remove them)", strings.Join(exist, ", "))
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if err := writeNew(p, f.data); err != nil {
			for _, w := range written {
				_ = os.Remove(w)
			}
			return nil, err
		}
		written = append(written, p)
	}
	return written, nil
}

// validAgentName says why name cannot be an agent's name written by init.
func validAgentName(name string) error {
	switch {
	case name == "":
		return errors.New("the agent's name is empty")
	case len(name) > maxAgentNameLen:
		return fmt.Errorf("agent name %q is longer than %d characters", name, maxAgentNameLen)
	case !agentNameRE.MatchString(name):
		return fmt.Errorf("invalid agent name %q: lower-case letters, digits and single inner hyphens, starting with a letter (e.g. my-agent)", name)
	}
	return nil
}

// writeNew creates the file p (and its directory) with data; it fails when
// p exists, so that a file created since the check is not overwritten.
func writeNew(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("creating %s: %w", p, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(p)
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(p)
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// initFiles are the files init writes for the agent name, in the order
// they are written.
func initFiles(name string) ([]initFile, error) {
	docs := schemaDocs()
	var files []initFile
	for _, s := range []struct {
		file string
		gen  func(schema.Docs) (schema.Generated, error)
	}{
		{"agent.schema.json", agentSchema},
		{"agent-test.schema.json", agentTestSchema},
		{"config.schema.json", configSchema},
	} {
		g, err := s.gen(docs)
		var data []byte
		if err == nil {
			data, err = schema.JSON(g.Schema)
		}
		if err != nil {
			return nil, fmt.Errorf("generating %s: %w", s.file, err)
		}
		files = append(files, initFile{filepath.Join("schema", s.file), data})
	}
	r := strings.NewReplacer("NAME", name)
	return append([]initFile{
		{"agentgw.yaml", []byte(initConfigYAML)},
		{filepath.Join("agents", name+".yaml"), []byte(r.Replace(initAgentYAML))},
		{filepath.Join("agents", name+"_test.yaml"), []byte(r.Replace(initTestYAML))},
	}, files...), nil
}

// initConfigYAML is the gateway config init writes.
const initConfigYAML = `# yaml-language-server: $schema=schema/config.schema.json
# The gateway's config, written by agentgw init: agentgw serve --config agentgw.yaml
# Every key, its meaning and its default: agentgw schema config, or configs/gateway.yaml
# in agentgw's source. Relative paths are relative to this file.
agents:
  - agents
# With no upstream, the model inside the binary (builtin:echo) answers, offline.
# upstream:
#   url: https://api.openai.com/v1
#   auth: key              # send $OPENAI_API_KEY; forward (the default) passes the plugin's
#   defaultModel: gpt-4o-mini
`

// initAgentYAML is the agent init writes; NAME is the agent's name.
const initAgentYAML = `# yaml-language-server: $schema=../schema/agent.schema.json
# Agent NAME, written by agentgw init. Its tests are in NAME_test.yaml: after a change,
# run agentgw test and agentgw lint on this folder.
name: NAME
version: 0.1.0
description: Greets you, and passes your question to the model.
commands:
  - name: default
    description: Say hello (no model needed).
    reply: |-
      Hello, {{ .userInfo.nickname | default "there" }}! I am NAME.
    actions:
      - action: confirm
        data:
          title: Ask the model
          message: Sends your question to the model
          command: ask
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInfo
  - name: ask
    description: Ask the model (with no upstream configured, the built-in echo model answers).
    messageTemplates:
      - role: system
        template: You are NAME, a helpful assistant. Answer briefly.
      - role: user
        template: '{{ .userInputPrompt | default "Say hello." }}'
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
`

// initTestYAML is the agent's tests init writes; NAME is the agent's name.
const initTestYAML = `# yaml-language-server: $schema=../schema/agent-test.schema.json
# Tests of NAME.yaml: agentgw test runs them offline, the model's answers are the ones written here.
tests:
  - name: greets the user by nickname and offers to ask the model
    request:
      contextVariables:
        - name: userInfo
          value: {id: u1, name: Ann Lee, nickname: Ann}
    expect:
      text: {equals: "Hello, Ann! I am NAME."}
      actions:
        - {action: confirm, title: Ask the model, command: ask}
      prompts: []                   # no model call

  - name: passes the question to the model
    request:
      command: ask
      contextVariables:
        - name: userInputPrompt
          value: What is a goroutine?
    model:
      - text: A function running concurrently with others.
    expect:
      text: {equals: A function running concurrently with others.}
      prompt:
        messages:
          - {role: system, contains: You are NAME}
          - {role: user, equals: 'What is a goroutine?'}

  - name: the button asks the model
    request: {}
    model:
      - text: Hello!
    then:
      - action: {title: Ask the model}
        expect:
          text: {equals: Hello!}
`
