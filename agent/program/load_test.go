package program

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestLintGolden loads every file under testdata/lint and compares its
// diagnostics with the .golden file beside it.
func TestLintGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/lint/*")
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			agents, diags := parseAll(filepath.ToSlash(f), data)
			var b strings.Builder
			for _, a := range agents {
				b.WriteString("loaded " + a.Name() + "\n")
			}
			b.WriteString(diags.String())
			golden.Check(t, "testdata/lint/"+filepath.Base(f)+".golden", []byte(b.String()))
		})
	}
}

func TestLoadSkipsBadFilesOnly(t *testing.T) {
	agents, diags := loadAll("testdata/lint")
	names := map[string]bool{}
	for _, a := range agents {
		names[a.Name()] = true
	}
	for _, want := range []string{"happy", "first", "second", "typos"} {
		if !names[want] && want != "typos" {
			t.Errorf("agent %s did not load; diagnostics:\n%s", want, diags)
		}
	}
	for _, bad := range []string{"nodefault", "dups", "badtpl", "badact", "syntax", "types", "typos"} {
		if names[bad] {
			t.Errorf("agent %s has errors but loaded", bad)
		}
	}
	if diags.Errors() == 0 {
		t.Fatal("expected errors")
	}
}

func TestLoadDuplicateAgentAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	def := "name: same\ncommands:\n  - name: default\n    reply: hi\n"
	for _, f := range []string{"a.yaml", "b.yml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(def), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644); err != nil {
		t.Fatal(err)
	}
	agents, diags := loadAll(dir)
	if len(agents) != 1 || diags.Errors() != 1 || !strings.Contains(diags.String(), "b.yml:1:1: agent \"same\" is already defined at") {
		t.Fatalf("agents %d, diagnostics:\n%s", len(agents), diags)
	}
}

func TestLoadMissingPath(t *testing.T) {
	_, diags := loadAll(filepath.Join(t.TempDir(), "nope"))
	if diags.Errors() != 1 {
		t.Fatalf("want one error, got:\n%s", diags)
	}
}
