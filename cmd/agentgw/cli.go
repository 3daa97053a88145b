package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitCode is what a command's RunE returns once the command has run and
// said what it had to say: run exits with it (0 is returned as nil). Any
// other error a command, its flags or its arguments return is a usage
// error, exit code 2, which run prints.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit code %d", int(e)) }

// exit turns a command's exit code into RunE's error.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// cliEnv is what a command reads and writes instead of the process's
// environment, standard input and outputs.
type cliEnv struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

const rootLong = `agentgw — an IDE copilot agent gateway.

It serves agents to IDE plugins (serve), writes a starting agent with its
tests (init), checks a gateway config (check), checks, tests and exports
agent definitions (lint, test, export), prints the JSON Schemas of its files
(schema), indexes and searches knowledge bases (kb), and talks to a gateway
the way a plugin does (chat, schedules, healthcheck).

Flags may come before or after the arguments; "--" ends the flags.`

// newRootCmd builds the command tree, fresh for each run: every command
// writes to e's outputs and reads e's environment.
func newRootCmd(e cliEnv) *cobra.Command {
	root := &cobra.Command{
		Use:           "agentgw",
		Short:         "an IDE copilot agent gateway",
		Long:          rootLong,
		Version:       versionString(),
		SilenceErrors: true, // run prints them, and exits 2
		SilenceUsage:  true,
		// Bare agentgw is a usage error, as before: the help on stderr,
		// exit 2. Arguments that name no command fail in cobra's
		// argument check (unknown command) before this runs.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(e.stderr)
			if err := cmd.Help(); err != nil {
				return fmt.Errorf("printing the help: %w", err)
			}
			return exitCode(2)
		},
	}
	root.SetVersionTemplate("agentgw {{.Version}}\n")
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.AddCommand(
		newServeCmd(e),
		newInitCmd(e),
		newCheckCmd(e),
		newLintCmd(e),
		newTestCmd(e),
		newExportCmd(e),
		newSchemaCmd(e),
		newChatCmd(e),
		newKBCmd(e),
		newKeysCmd(e),
		newSchedulesCmd(e),
		newUsageCmd(e),
		newHealthcheckCmd(e),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cobra.NoArgs,
			Run:   func(*cobra.Command, []string) { fmt.Fprintln(e.stdout, "agentgw", versionString()) },
		},
	)
	root.SetHelpCommand(newHelpCmd(root))
	// cobra's completion command, for bash, zsh, fish and powershell
	// (the scripts ask agentgw __complete for the candidates); without a
	// shell, or with another, it is a usage error like kb's.
	root.InitDefaultCompletionCmd()
	if c := subcommand(root, "completion"); c != nil {
		c.Args = cobra.NoArgs
		c.RunE = func(*cobra.Command, []string) error {
			return errors.New("missing shell: bash, zsh, fish or powershell")
		}
	}
	return root
}

// run runs the command line args and returns the exit code: 0 when the
// command succeeded, 1 when it failed, 2 for a usage error (an unknown
// command or flag, a wrong number of arguments, an invalid config).
func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(cliEnv{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr})
	// A nil args would make cobra read os.Args.
	root.SetArgs(append([]string{}, normalizeArgs(root, args)...))
	cmd, err := root.ExecuteC()
	if code, ok := errors.AsType[exitCode](err); ok {
		return int(code)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), strings.TrimRight(err.Error(), "\n"))
		if cmd.HasParent() {
			fmt.Fprintf(stderr, "Usage: %s\n", cmd.UseLine())
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return 2
	}
	return 0
}

// normalizeArgs keeps the spellings of Go's flag package, which agentgw
// used before cobra, working: it rewrites a single-dash long flag
// (-config FILE, -config=FILE) to pflag's double-dash form (--config) when
// its name, longer than one letter, is a long flag of the command the
// arguments name; pflag would read -config as the shorthands c, o, n, ….
// A flag's separate value is left alone, and so is everything after "--".
func normalizeArgs(root *cobra.Command, args []string) []string {
	cmd, i := root, 0
	for ; i < len(args); i++ {
		sub := subcommand(cmd, args[i])
		if sub == nil {
			break
		}
		cmd = sub
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	flags := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	flags.AddFlagSet(cmd.Flags())
	flags.AddFlagSet(cmd.InheritedFlags())
	out := slices.Clone(args[:i])
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags.Lookup(name)
		switch {
		case f == nil || len(name) < 2 || !strings.HasPrefix(a, "-"):
		case !strings.HasPrefix(a, "--"):
			a = "-" + a
			fallthrough
		default:
			if !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
				// The flag's value is the next argument: keep it as it is.
				out = append(out, a)
				i++
				a = args[i]
			}
		}
		out = append(out, a)
	}
	return out
}

// newHelpCmd is agentgw help [COMMAND]...: it stands for cobra's, which
// exits the process when writing the help fails and exits 0 for an unknown
// topic; here an unknown topic is a usage error (exit 2) and a failed
// write an error.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help about any command: agentgw help CMD is agentgw CMD -h.",
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() && strings.HasPrefix(c.Name(), prefix) {
					names = append(names, cobra.CompletionWithDesc(c.Name(), c.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return fmt.Errorf("unknown help topic %q", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			if err := cmd.Help(); err != nil {
				return exitCode(1)
			}
			return nil
		},
	}
}

// exactArgs checks that a command has exactly the arguments names.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return fmt.Errorf("want %s, got %d arguments", strings.Join(names, " "), len(args))
		}
		return nil
	}
}

// minArgs checks that a command has the arguments names at least.
func minArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < len(names) {
			return fmt.Errorf("want %s, got %d arguments", strings.Join(names, " "), len(args))
		}
		return nil
	}
}

// subcommand is cmd's sub-command called name (or one of its aliases), or
// nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}
