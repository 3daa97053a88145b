package main

import (
	"log/slog"

	"github.com/agentgw/agentgw/tools"
)

// registerRuntimes adds the runtimes that live outside the tools package.
func registerRuntimes(tm *tools.Manager, log *slog.Logger) {}
