package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

// addSelection is what --selection 4:1-6:2 selects in chattest.AddGo.
const addSelection = "func Add(a, b int) int {\n\treturn a + b\n}"

// TestWorkspaceIsolated guards the fixture: no global git config leaks in.
func TestWorkspaceIsolated(t *testing.T) {
	chattest.NewWorkspace(t)
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".gitconfig")); !os.IsNotExist(err) {
		t.Fatalf("HOME is not a fresh directory: %v", err)
	}
}
