package collect

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentgw/agentgw/contextvars"
)

// newRepo creates a repository on branch main with one commit of the given
// files (slash paths), and returns its directory.
func newRepo(t *testing.T, files map[string]string) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	if files == nil {
		files = map[string]string{"README.md": "hello\n"}
	}
	writeFiles(t, dir, files)
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Test", Email: "test@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("initial", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func addRemote(t *testing.T, repo *git.Repository, name string, urls ...string) {
	t.Helper()
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: name, URLs: urls}); err != nil {
		t.Fatal(err)
	}
}

func TestCollectVCS(t *testing.T) {
	upstream := "file://" + filepath.ToSlash(t.TempDir()) + "/upstream.git"
	dir, repo := newRepo(t, map[string]string{"sub/dir/x.go": "package x\n"})
	addRemote(t, repo, "origin", upstream)
	addRemote(t, repo, "backup", "https://example.com/backup.git", upstream)
	if err := repo.CreateBranch(&config.Branch{Name: "main", Remote: "origin", Merge: plumbing.NewBranchReferenceName("main")}); err != nil {
		t.Fatal(err)
	}
	remotes := []string{upstream, "https://example.com/backup.git"}
	if remotes[0] > remotes[1] {
		remotes[0], remotes[1] = remotes[1], remotes[0]
	}
	got, err := VCS(filepath.Join(dir, "sub", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	want := &contextvars.VCS{Type: "git", BranchName: "main", UpstreamBranchName: "origin/main", RemoteURL: upstream, Remotes: remotes}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("on main:\n got %+v\nwant %+v", got, want)
	}

	wt, _ := repo.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature/a"), Create: true}); err != nil {
		t.Fatal(err)
	}
	got, err = VCS(dir)
	want = &contextvars.VCS{Type: "git", BranchName: "feature/a", RemoteURL: upstream, Remotes: remotes}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("on a branch without upstream:\n got %+v, %v\nwant %+v", got, err, want)
	}

	if err := repo.CreateBranch(&config.Branch{Name: "feature/a", Remote: "backup", Merge: plumbing.NewBranchReferenceName("dev")}); err != nil {
		t.Fatal(err)
	}
	got, err = VCS(dir)
	want = &contextvars.VCS{Type: "git", BranchName: "feature/a", UpstreamBranchName: "backup/dev", RemoteURL: "https://example.com/backup.git", Remotes: remotes}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("tracking backup:\n got %+v, %v\nwant %+v", got, err, want)
	}

	head, _ := repo.Head()
	if err := wt.Checkout(&git.CheckoutOptions{Hash: head.Hash()}); err != nil {
		t.Fatal(err)
	}
	got, err = VCS(dir)
	if err != nil || got.BranchName != head.Hash().String()[:7] || got.UpstreamBranchName != "" || got.RemoteURL != upstream {
		t.Errorf("detached: %+v, %v", got, err)
	}
}

func TestCollectVCSWithoutRemotes(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("trunk")}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := VCS(dir) // no commit yet: HEAD names an unborn branch
	want := &contextvars.VCS{Type: "git", BranchName: "trunk", Remotes: []string{}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("unborn branch:\n got %+v, %v\nwant %+v", got, err, want)
	}
	if err := repo.CreateBranch(&config.Branch{Name: "trunk", Remote: ".", Merge: plumbing.NewBranchReferenceName("base")}); err != nil {
		t.Fatal(err)
	}
	got, err = VCS(dir)
	if err != nil || got.UpstreamBranchName != "base" {
		t.Errorf("local upstream: %+v, %v", got, err)
	}
	addRemote(t, repo, "zeta", "https://z.example/z.git")
	addRemote(t, repo, "alpha", "https://a.example/a.git")
	if got, err = VCS(dir); err != nil || got.RemoteURL != "https://a.example/a.git" {
		t.Errorf("without origin, the first remote: %+v, %v", got, err)
	}
}

func TestCollectVCSNotARepository(t *testing.T) {
	_, err := VCS(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "is not inside a git repository") {
		t.Errorf("err = %v", err)
	}
}

// isolateHome points the global git config at dir/.gitconfig.
func isolateHome(t *testing.T, gitconfig string) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	if gitconfig != "" {
		writeFiles(t, home, map[string]string{".gitconfig": gitconfig})
	}
	return home
}

func TestCollectUserInfo(t *testing.T) {
	const global = "[user]\n\tname = Global Name\n\temail = global@example.com\n"
	tests := []struct {
		name      string
		global    string
		local     *config.Config
		outside   bool
		user      string
		want      *contextvars.UserInfo
		wantError bool
	}{
		{"global only", global, nil, false, "", &contextvars.UserInfo{ID: "global@example.com", Name: "Global Name", Nickname: "Global Name"}, false},
		{"local name wins, global email fills in", global, userConfig("Local Name", ""), false, "",
			&contextvars.UserInfo{ID: "global@example.com", Name: "Local Name", Nickname: "Local Name"}, false},
		{"local only", "", userConfig("L", "l@example.com"), false, "", &contextvars.UserInfo{ID: "l@example.com", Name: "L", Nickname: "L"}, false},
		{"outside a repository", global, nil, true, "", &contextvars.UserInfo{ID: "global@example.com", Name: "Global Name", Nickname: "Global Name"}, false},
		{"$USER fallback", "", nil, false, "bob", &contextvars.UserInfo{ID: "bob", Name: "bob", Nickname: "bob"}, false},
		{"email without name", "[user]\n\temail = e@example.com\n", nil, false, "bob", &contextvars.UserInfo{ID: "e@example.com", Name: "bob", Nickname: "bob"}, false},
		{"nothing at all", "", nil, true, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateHome(t, tt.global)
			t.Setenv("USER", tt.user)
			dir := t.TempDir()
			if !tt.outside {
				var repo *git.Repository
				dir, repo = newRepo(t, nil)
				if tt.local != nil {
					cfg, _ := repo.Config()
					cfg.User = tt.local.User
					if err := repo.SetConfig(cfg); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := UserInfo(dir)
			if (err != nil) != tt.wantError || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func userConfig(name, email string) *config.Config {
	c := config.NewConfig()
	c.User.Name, c.User.Email = name, email
	return c
}

func TestCollectUserInfoBrokenGlobalConfig(t *testing.T) {
	home := isolateHome(t, "")
	if err := os.Mkdir(filepath.Join(home, ".gitconfig"), 0o755); err != nil { // unreadable as a file
		t.Fatal(err)
	}
	t.Setenv("USER", "")
	dir, repo := newRepo(t, nil)
	cfg, _ := repo.Config()
	cfg.User.Name = "Local"
	if err := repo.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	got, err := UserInfo(dir)
	if want := (&contextvars.UserInfo{ID: "Local", Name: "Local", Nickname: "Local"}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}
