package main

import (
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
	"github.com/agentgw/agentgw/schema"
)

// schemaNames are the schemas agentgw schema prints.
var schemaNames = []string{"agent", "config", "test"}

// newSchemaCmd is agentgw schema.
func newSchemaCmd(e cliEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "schema agent|config|test",
		Short: "Print the JSON Schema of agentgw's files",
		Long: `Print the JSON Schema (draft 2020-12) of an agent definition file (agent),
of the gateway configuration file (config) or of an agent test file, a
*_test.yaml that agentgw test runs (test), for editors: YAML files name it
in a "# yaml-language-server: $schema=PATH" comment.`,
		Example:   `  agentgw schema agent > schema/agent.schema.json`,
		ValidArgs: schemaNames,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("want one of agent, config or test, got %d arguments", len(args))
			}
			if !slices.Contains(schemaNames, args[0]) {
				return fmt.Errorf("unknown schema %q: agent, config or test", args[0])
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return exit(cmdSchema(args[0], e.stdout, e.stderr))
		},
	}
}

// cmdSchema prints the JSON Schema name: of an agent definition, of the
// gateway configuration or of an agent test file.
func cmdSchema(name string, stdout, stderr io.Writer) int {
	var g schema.Generated
	var err error
	switch name {
	case "agent":
		g, err = agentSchema(schemaDocs())
	case "config":
		g, err = configSchema(schemaDocs())
	case "test":
		g, err = agentTestSchema(schemaDocs())
	}
	var out []byte
	if err == nil {
		out, err = schema.JSON(g.Schema)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentgw schema:", err)
		return 1
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintln(stderr, "agentgw schema:", err)
		return 1
	}
	return 0
}

// agentSchema is the agent definition's schema with the step kinds and the
// tool runtimes lint loads with (newLoader), so that a kind or runtime
// registered there appears in it.
func agentSchema(docs schema.Docs) (schema.Generated, error) {
	ld := newLoader(&Config{}, func(string) string { return "" }, services{}, slog.New(slog.DiscardHandler))
	var handoffTypes []string
	for _, t := range handoff.Types() {
		handoffTypes = append(handoffTypes, string(t))
	}
	return schema.Agent(schema.AgentOptions{
		Kinds: ld.kinds,
		Docs:  docs,
		Patch: map[string]func(schema.Schema){
			schema.KeyToolRuntime:    schema.Enum(ld.tools.RuntimeNames()...),
			schema.KeyToolPermission: schema.Enum(toolspec.PermissionAuto, toolspec.PermissionUserConsent),
			schema.KeyToolFallback:   schema.Enum(toolspec.FallbackAbort, toolspec.FallbackSkip, toolspec.FallbackUseAlternative),
			schema.KeyStepOnError:    schema.Enum(string(plan.OnErrorFail), string(plan.OnErrorContinue)),
			schema.KeyHandoffType:    schema.Enum(handoffTypes...),
		},
		Examples:    configs.FS,
		ExamplesDir: configs.AgentsDir,
	})
}

// agentTestSchema is the schema of an agent test file (*_test.yaml), made
// from package agenttest's types.
func agentTestSchema(docs schema.Docs) (schema.Generated, error) {
	return schema.AgentTest(schema.AgentTestOptions{Docs: docs})
}

// configSchema is the gateway configuration's schema: Config's fields as
// decodeConfig reads them (yaml.v3, known fields only), described by the
// comments of the embedded configs/gateway.yaml, its values their defaults.
func configSchema(docs schema.Docs) (schema.Generated, error) {
	r := &schema.Reflector{
		Docs:     docs,
		Untagged: strings.ToLower,
		Types: map[reflect.Type]schema.Schema{
			reflect.TypeFor[Duration]():      schema.Duration(true),
			reflect.TypeFor[time.Duration](): schema.Duration(true),
		},
		Patch: configPatches(),
	}
	t := reflect.TypeFor[Config]()
	root := r.Reflect(t)
	file, err := configs.FS.ReadFile(configs.GatewayFile)
	if err != nil {
		return schema.Generated{}, fmt.Errorf("reading the embedded gateway config: %w", err)
	}
	if err := schema.DescribeFromYAML(r, t, file); err != nil {
		return schema.Generated{}, err
	}
	return schema.Document(r, root, "agentgw gateway configuration",
		"The gateway configuration file (agentgw serve --config FILE); every key may be omitted."), nil
}

// configPatches are the constraints Config.validate checks, keyed like
// the docs by the package path of Config's types (the full import path,
// not "main": a key of another prefix matches nothing).
func configPatches() map[string]func(schema.Schema) {
	pkg := reflect.TypeFor[Config]().PkgPath() + "."
	return map[string]func(schema.Schema){
		pkg + "UpstreamConfig.Auth": schema.Enum("forward", "key"),
		pkg + "UpstreamConfig.Retries": func(s schema.Schema) {
			s["minimum"], s["maximum"] = 0, llm.MaxRetries
		},
		pkg + "ServerConfig.Terminator": schema.Enum("[DONE]", "[Done]"),
		pkg + "ServerConfig.BodyLimit":  func(s schema.Schema) { s["minimum"] = 0 },
		pkg + "LogConfig.Format":        schema.Enum("auto", "text", "json"),
		pkg + "StoreConfig.URL": func(s schema.Schema) {
			s["pattern"] = "^$|^postgres(ql)?://"
		},
		pkg + "HandoffsConfig.MaxHops":             func(s schema.Schema) { s["minimum"] = 0 },
		pkg + "HandoffsConfig.MaxMessagesPerTask":  func(s schema.Schema) { s["minimum"] = 0 },
		pkg + "HandoffsConfig.Workers":             func(s schema.Schema) { s["minimum"], s["maximum"] = 0, maxHandoffWorkers },
		pkg + "HandoffsConfig.MaxExternalPriority": schema.Enum("LOW", "MEDIUM", "HIGH", "CRITICAL"),
	}
}
