package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/mcp"
)

// TestMCPEndpoint: tools marked export in a shared tool file are offered on
// /mcp to MCP clients; others are not.
func TestMCPEndpoint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(file, []byte(`
- name: shout
  description: Says hello through echo
  runtime: native
  entry: echo
  command: hello
  export: true
  parameters: {type: object, properties: {name: {type: string}}, required: [name]}
- name: private
  description: Not offered
  runtime: native
  entry: echo
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "")
	cfg.Tools.Files = []string{file}
	base := startGateway(t, cfg, nil)
	c, err := mcp.Dial(context.Background(), base+"/mcp", nil, versionString(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	infos, err := c.Tools(context.Background())
	if err != nil || len(infos) != 1 || infos[0].Name != "shout" {
		t.Fatalf("tools %+v, %v", infos, err)
	}
	got, err := c.Call(context.Background(), "shout", map[string]any{"name": "ann"})
	if err != nil || !strings.Contains(got.(string), "hello --name ann") {
		t.Fatalf("call: %v, %v", got, err)
	}
}
