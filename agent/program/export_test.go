package program

import (
	"testing"

	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/internal/golden"
)

// TestExportGolden exports every embedded example agent in the platform's
// JSON shape and compares it with testdata/export/<name>.json.
func TestExportGolden(t *testing.T) {
	agents, diags := loadFSAll(configs.FS, configs.AgentsDir)
	if diags.Errors() > 0 || len(agents) < 3 {
		t.Fatalf("examples do not load:\n%s", diags)
	}
	for _, a := range agents {
		t.Run(a.Name(), func(t *testing.T) {
			data, err := a.ExportJSON("https://gw.example.com")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/export/"+a.Name()+".json", data)
		})
	}
}

func TestExamplesLintClean(t *testing.T) {
	_, diags := loadFSAll(configs.FS, configs.AgentsDir)
	if len(diags) > 0 {
		t.Fatalf("the example agents should lint clean:\n%s", diags)
	}
}
