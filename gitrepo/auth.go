package gitrepo

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// tokenUser is the user name sent with a token when no UsernameEnv is set;
// GitHub wants it, other hosts ignore the user name of a token.
const tokenUser = "x-access-token"

// Auth names the environment variables holding a remote's credentials. They
// are read each time the remote is contacted and never logged. For http(s)
// remotes: TokenEnv (basic auth with the user name "x-access-token", or the
// value of UsernameEnv when set), or UsernameEnv and PasswordEnv. For ssh
// remotes: PasswordEnv, with the user from UsernameEnv, else the URL's user,
// else "git"; without Auth an ssh remote uses go-git's default (ssh-agent and
// known_hosts).
type Auth struct {
	UsernameEnv string `json:"usernameEnv,omitempty" yaml:"usernameEnv,omitempty"`
	PasswordEnv string `json:"passwordEnv,omitempty" yaml:"passwordEnv,omitempty"`
	TokenEnv    string `json:"tokenEnv,omitempty" yaml:"tokenEnv,omitempty"`
}

// checkAuth reports a configuration that authMethod can never build,
// without reading the environment.
func checkAuth(a *Auth, ep *transport.Endpoint) error {
	_, err := authMethod(a, ep, func(string) string { return "set" })
	return err
}

// authMethod builds the go-git credentials for the endpoint from the
// environment; nil when a is nil.
func authMethod(a *Auth, ep *transport.Endpoint, getenv func(string) string) (transport.AuthMethod, error) {
	if a == nil {
		return nil, nil
	}
	user, err := readEnv(a.UsernameEnv, getenv)
	if err != nil {
		return nil, err
	}
	password, err := readEnv(a.PasswordEnv, getenv)
	if err != nil {
		return nil, err
	}
	token, err := readEnv(a.TokenEnv, getenv)
	if err != nil {
		return nil, err
	}
	switch ep.Protocol {
	case "http", "https":
		return httpAuth(user, password, token)
	case "ssh":
		if token != "" {
			return nil, errors.New("auth: tokenEnv needs an http(s) URL; use passwordEnv for ssh")
		}
		if password == "" {
			return nil, errors.New("auth: an ssh URL needs passwordEnv (or no auth, for ssh-agent)")
		}
		if user == "" {
			user = ep.User
		}
		if user == "" {
			user = "git"
		}
		return &gitssh.Password{User: user, Password: password}, nil
	}
	return nil, fmt.Errorf("auth: only http(s) and ssh URLs take credentials, not %s", ep.Protocol)
}

// httpAuth builds basic auth from a token or a user name and password.
func httpAuth(user, password, token string) (transport.AuthMethod, error) {
	switch {
	case token != "" && password != "":
		return nil, errors.New("auth: set tokenEnv or passwordEnv, not both")
	case token != "":
		if user == "" {
			user = tokenUser
		}
		return &githttp.BasicAuth{Username: user, Password: token}, nil
	case password != "" && user != "":
		return &githttp.BasicAuth{Username: user, Password: password}, nil
	case password != "":
		return nil, errors.New("auth: passwordEnv needs usernameEnv")
	}
	return nil, errors.New("auth: set tokenEnv, or usernameEnv and passwordEnv")
}

// readEnv reads the variable named env; "" when env is "", an error when the
// variable is empty.
func readEnv(env string, getenv func(string) string) (string, error) {
	if env == "" {
		return "", nil
	}
	v := getenv(env)
	if v == "" {
		return "", fmt.Errorf("auth: environment variable %s is empty or unset", env)
	}
	return v, nil
}
