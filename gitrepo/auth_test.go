package gitrepo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

func TestAuthMethod(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "tok123", "GIT_USER": "ann", "GIT_PASS": "pw456"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		url  string
		auth *Auth
		want transport.AuthMethod
	}{
		{"none", "https://github.com/acme/app.git", nil, nil},
		{"token", "https://github.com/acme/app.git", &Auth{TokenEnv: "GH_TOKEN"},
			&githttp.BasicAuth{Username: "x-access-token", Password: "tok123"}},
		{"token with user", "https://gitlab.com/acme/app.git", &Auth{TokenEnv: "GH_TOKEN", UsernameEnv: "GIT_USER"},
			&githttp.BasicAuth{Username: "ann", Password: "tok123"}},
		{"user and password", "http://git.local:8080/app.git", &Auth{UsernameEnv: "GIT_USER", PasswordEnv: "GIT_PASS"},
			&githttp.BasicAuth{Username: "ann", Password: "pw456"}},
		{"ssh password, url user", "ssh://deploy@git.local/app.git", &Auth{PasswordEnv: "GIT_PASS"},
			&gitssh.Password{User: "deploy", Password: "pw456"}},
		{"ssh password, env user", "git@github.com:acme/app.git", &Auth{PasswordEnv: "GIT_PASS", UsernameEnv: "GIT_USER"},
			&gitssh.Password{User: "ann", Password: "pw456"}},
		{"ssh password, default user", "ssh://git.local/app.git", &Auth{PasswordEnv: "GIT_PASS"},
			&gitssh.Password{User: "git", Password: "pw456"}},
	}
	for _, tt := range tests {
		ep, err := transport.NewEndpoint(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := authMethod(tt.auth, ep, getenv)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v; want %#v", tt.name, got, tt.want)
		}
	}
}

func TestAuthMethodErrors(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "tok123", "GIT_PASS": "pw456"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name, url string
		auth      *Auth
		want      string
	}{
		{"unset variable", "https://h/app", &Auth{TokenEnv: "MISSING"}, "environment variable MISSING is empty or unset"},
		{"password without user", "https://h/app", &Auth{PasswordEnv: "GIT_PASS"}, "passwordEnv needs usernameEnv"},
		{"token and password", "https://h/app", &Auth{TokenEnv: "GH_TOKEN", PasswordEnv: "GIT_PASS"}, "not both"},
		{"nothing set", "https://h/app", &Auth{}, "set tokenEnv"},
		{"ssh token", "git@h:app.git", &Auth{TokenEnv: "GH_TOKEN"}, "tokenEnv needs an http(s) URL"},
		{"ssh without password", "ssh://h/app", &Auth{}, "needs passwordEnv"},
		{"file", "file:///srv/app", &Auth{TokenEnv: "GH_TOKEN"}, "only http(s) and ssh"},
	}
	for _, tt := range tests {
		ep, err := transport.NewEndpoint(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = authMethod(tt.auth, ep, getenv)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v; want %q", tt.name, err, tt.want)
			continue
		}
		for _, secret := range env {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error %q holds a credential", tt.name, err)
			}
		}
	}
}
