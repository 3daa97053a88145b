package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentgw/agentgw/mcp"
)

// TestMCPEndpoint: tools marked export in a shared tool file are offered on
// /mcp to MCP clients; others are not, nor an exported tool that needs the
// user's consent (an MCP client has no user to ask): calling it runs
// nothing.
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
- name: consent
  description: Needs the user's consent
  runtime: native
  entry: touch
  command: `+filepath.Join(dir, "consented")+`
  export: true
  permissionLevel: USER_CONSENT
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
	if names := toolNamesAt(t, base+"/mcp"); !slices.Equal(names, []string{"shout"}) {
		t.Fatalf("tools %v, want shout only", names)
	}
	got, err := c.Call(context.Background(), "shout", map[string]any{"name": "ann"})
	if err != nil || !strings.Contains(got.(string), "hello --name=ann") {
		t.Fatalf("call: %v, %v", got, err)
	}
	if got, err := c.Call(context.Background(), "consent", map[string]any{}); err == nil {
		t.Errorf("calling the consent tool over MCP: %v, want an error", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "consented")); !os.IsNotExist(err) {
		t.Errorf("the consent tool ran for an MCP client: %v", err)
	}
}

// toolNamesAt lists the tools the MCP server at url offers.
func toolNamesAt(t *testing.T, url string) []string {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	session, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var names []string
	for tool, err := range session.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}
