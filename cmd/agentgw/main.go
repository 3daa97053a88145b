// Command agentgw is the IDE copilot agent gateway: it serves agents to IDE
// plugins (serve), writes a starting agent with its tests (init), checks and
// exports agent definitions (lint, export), and talks to a gateway the way a
// plugin does (chat).
package main

import (
	"os"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
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
