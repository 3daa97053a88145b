package chat

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// addGo is the Go file of the test workspace; selecting 4:1-6:2 selects
// the function.
const addGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a + b
}
`

// workspace is a git repository made for a test.
type workspace struct {
	Dir       string // the worktree root
	GoFile    string // absolute path of calc/add.go
	RemoteURL string // origin's file:// URL
}

// newWorkspace isolates git from the developer's configuration (HOME,
// XDG_CONFIG_HOME and USER point at temporary values) and makes a repository
// on branch "feature" tracking origin/main, with user.name and user.email in
// its config and five package manager files.
func newWorkspace(t *testing.T) workspace {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("USER", "nobody")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))

	dir := t.TempDir()
	remote := filepath.Join(t.TempDir(), "origin.git")
	if _, err := git.PlainInit(remote, true); err != nil {
		t.Fatal(err)
	}
	ws := workspace{Dir: dir, RemoteURL: "file://" + filepath.ToSlash(remote)}
	ws.GoFile = writeFile(t, dir, "calc/add.go", addGo)
	writeFile(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n")
	writeFile(t, dir, "package.json", `{"name": "calc-web", "version": "0.1.0"}`+"\n")
	writeFile(t, dir, "web/package.json", `{"name": "web"}`+"\n")
	writeFile(t, dir, "tools/Cargo.toml", "[package]\nname = \"tools\"\n")
	writeFile(t, dir, "a/b/requirements.txt", "requests==2.0\n")
	writeFile(t, dir, "node_modules/x/package.json", "{}\n") // skipped

	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	commitAll(t, repo)
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{ws.RemoteURL}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := repo.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.User.Name, cfg.User.Email = "Ada Lovelace", "ada@example.com"
	cfg.Branches["feature"] = &config.Branch{Name: "feature", Remote: "origin", Merge: plumbing.NewBranchReferenceName("main")}
	if err := repo.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return ws
}

func commitAll(t *testing.T, repo *git.Repository) {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	if _, err := wt.Commit("initial", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
}

// writeFile writes data to name under dir and returns its path.
func writeFile(t testing.TB, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
