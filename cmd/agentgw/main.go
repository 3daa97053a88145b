// Command agentgw is the IDE copilot agent gateway: it serves agents to IDE
// plugins (serve), writes a starting agent with its tests (init), checks and
// exports agent definitions (lint, export), and talks to a gateway the way a
// plugin does (chat).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/agentgw/agentgw/chat"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

const usage = `agentgw — an IDE copilot agent gateway

Usage:
  agentgw serve   [--addr :18080] [--agents DIR]... [--upstream URL] [--config FILE] [--data DIR]
  agentgw chat    [--url http://localhost:18080] [--agent NAME] [--command NAME] [--file F --selection L1:C1-L2:C2]
                  [--dir D] [--interactive|--once] [--allow-tools] [--context ID] [PROMPT]
  agentgw chat    --task ID
  agentgw init    [--name NAME] [DIR]     writes an agent and its tests that pass agentgw test
  agentgw check   --config FILE [--print] checks a gateway config: exit 0 (FILE: ok) or 2;
                  --print shows the effective config with every default
  agentgw lint    [DIR|FILE]...
  agentgw test    [--update] [--run REGEXP] [-v] [DIR|FILE]...
  agentgw export  [--agents DIR]... [--endpoint URL] NAME
  agentgw schema  agent|config|test
  agentgw kb      index [ID]... | search [--top N] ID QUERY
  agentgw schedules [--url http://localhost:18080]
  agentgw healthcheck [--addr :18080]
  agentgw version

Run "agentgw <command> -h" for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a sub-command and returns the exit code.
func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	rest := args[1:]
	switch args[0] {
	case "serve":
		return cmdServe(rest, getenv, stderr)
	case "init":
		return cmdInit(rest, stdout, stderr)
	case "check":
		return cmdCheck(rest, getenv, stdout, stderr)
	case "lint":
		return cmdLint(rest, getenv, stdout, stderr)
	case "test":
		return cmdTest(rest, getenv, stdout, stderr)
	case "export":
		return cmdExport(rest, getenv, stdout, stderr)
	case "schema":
		return cmdSchema(rest, stdout, stderr)
	case "chat":
		return chat.Main(rest, getenv, stdin, stdout, stderr)
	case "healthcheck":
		return cmdHealthcheck(rest, getenv, stderr)
	case "kb":
		return cmdKB(rest, getenv, stdout, stderr)
	case "schedules":
		return cmdSchedules(rest, getenv, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "agentgw", versionString())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "agentgw: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// versionString is the build's version: the -X flag, the module version,
// or the VCS revision.
func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}
