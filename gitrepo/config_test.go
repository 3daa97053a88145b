package gitrepo

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNewValidation(t *testing.T) {
	f := newRepoFixture(t)
	notRepo := t.TempDir()
	url := "https://github.com/acme/app.git"
	tests := []struct {
		name  string
		repos []RepoConfig
		want  string
	}{
		{"missing name", []RepoConfig{{URL: url}}, `repository 1 (""): name must be non-empty`},
		{"bad name", []RepoConfig{{Name: "a/b", URL: url}}, `repository 1 ("a/b"): name must be`},
		{"duplicate", []RepoConfig{{Name: "a", URL: url}, {Name: "a", URL: url}}, `repository 2 ("a"): the name is used twice`},
		{"url and path", []RepoConfig{{Name: "a", URL: url, Path: f.dir}}, `("a"): set exactly one of url and path`},
		{"neither", []RepoConfig{{Name: "a"}}, "set exactly one of url and path"},
		{"bad scheme", []RepoConfig{{Name: "a", URL: "ftp://h/x"}}, `url: unsupported URL scheme "ftp"`},
		{"git protocol", []RepoConfig{{Name: "a", URL: "git://h/x"}}, `unsupported protocol "git"`},
		{"bad pattern", []RepoConfig{{Name: "a", URL: url, Allow: []string{"github.com/["}}}, `allow pattern "github.com/["`},
		{"missing path", []RepoConfig{{Name: "a", Path: filepath.Join(notRepo, "nope")}}, "is not a git repository"},
		{"not a repository", []RepoConfig{{Name: "a", Path: notRepo}}, "is not a git repository"},
		{"auth on path", []RepoConfig{{Name: "a", Path: f.dir, Auth: &Auth{TokenEnv: "T"}}}, "auth is only for url repositories"},
		{"token on ssh", []RepoConfig{{Name: "a", URL: "git@h:x.git", Auth: &Auth{TokenEnv: "T"}}}, "tokenEnv needs an http(s) URL"},
		{"password alone", []RepoConfig{{Name: "a", URL: url, Auth: &Auth{PasswordEnv: "P"}}}, "passwordEnv needs usernameEnv"},
		{"auth on file", []RepoConfig{{Name: "a", URL: f.url(), Auth: &Auth{TokenEnv: "T"}}}, "only http(s) and ssh"},
		{"bad default ref", []RepoConfig{{Name: "a", URL: url, DefaultRef: "a..b"}}, "defaultRef: invalid ref"},
	}
	for _, tt := range tests {
		_, err := New(Config{CacheDir: t.TempDir(), Repositories: tt.repos}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v; want %q", tt.name, err, tt.want)
		}
	}
}

func TestNewValid(t *testing.T) {
	f := newRepoFixture(t)
	m, err := New(Config{Repositories: []RepoConfig{
		{Name: "web", URL: "https://github.com/acme/web.git", Auth: &Auth{TokenEnv: "GH_TOKEN"}},
		{Name: "local.copy_1", Path: f.dir},
		{Name: "api", URL: "git@github.com:acme/api.git", DefaultRef: "develop"},
	}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Names(), []string{"web", "local.copy_1", "api"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	if m.interval != defaultFetchInterval {
		t.Errorf("interval = %v; want %v", m.interval, defaultFetchInterval)
	}
	if !strings.HasSuffix(filepath.ToSlash(m.cacheDir), "agentgw/git") {
		t.Errorf("cacheDir = %q; want .../agentgw/git", m.cacheDir)
	}
	if _, err := New(Config{}, nil, nil); err != nil {
		t.Errorf("an empty configuration: %v", err)
	}
}
