// Command stdioserver serves the testserver tools over stdio. When the
// environment has MCPTEST_SPAWNLOG, it first appends its pid to that file, so
// a test can count how many times it was started.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stdioserver:", err)
		os.Exit(1)
	}
}

// run logs the start and serves until stdin closes.
func run() error {
	if path := os.Getenv("MCPTEST_SPAWNLOG"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("opening spawn log: %w", err)
		}
		_, err = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing spawn log: %w", err)
		}
	}
	if os.Getenv("MCPTEST_FAIL") != "" {
		return fmt.Errorf("asked to fail: %s", os.Getenv("MCPTEST_FAIL"))
	}
	return testserver.New(testserver.Hooks{}).Run(context.Background(), &sdk.StdioTransport{})
}
