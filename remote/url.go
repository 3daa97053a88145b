package remote

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// CheckEndpoint reports whether endpoint can be a remote agent's
// service.endpoint: an absolute http or https URL with a host and no
// fragment. The error does not repeat the URL's credentials.
func CheckEndpoint(endpoint string) error {
	_, err := parseEndpoint(endpoint)
	return err
}

func parseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		// url.Parse's error repeats the whole input, credentials included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("parsing the remote endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the remote endpoint %q is not an absolute http(s) URL", Redacted(u))
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return nil, fmt.Errorf("the remote endpoint %q has a fragment", Redacted(u))
	}
	return u, nil
}

// AgentURL is the URL an agent request for the remote agent named agent
// is POSTed to:
//
//   - an endpoint with a path (other than "/") is used as it is: the
//     operator named the exact URL (http://svc/hook,
//     http://gw2:8080/agents/security, an agentgw under a path prefix);
//   - a bare base URL (http://gw2:8080, http://localhost:18080/), which is
//     what an agentgw exports as service.endpoint and what the seed-003
//     sample server listens on (it answers on any path), gets
//     "/agents/{agent}" appended, the agentgw path form, or "/agent" when
//     agent is "" (the body names the agent).
//
// The endpoint's query is kept.
func AgentURL(endpoint, agent string) (string, error) {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return "", err
	}
	if u.Path != "" && u.Path != "/" {
		return u.String(), nil
	}
	if agent == "" {
		u.Path, u.RawPath = "/agent", ""
	} else {
		// Escaped as one segment: a name's "/" or ".." stays in the name.
		u.Path, u.RawPath = "/agents/"+agent, "/agents/"+url.PathEscape(agent)
	}
	return u.String(), nil
}

// HandoffURL is the URL a hand-off message for the agentgw at endpoint is
// POSTed to: endpoint with "/handoffs" appended, unless its path already
// ends with it. The endpoint's query is kept.
func HandoffURL(endpoint string) (string, error) {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/handoffs") {
		u = u.JoinPath("handoffs")
	}
	return u.String(), nil
}

// Redacted is u as it may appear in a message or a log line: without its
// user information, and with the value of every query parameter replaced
// by "REDACTED" (a query often carries an API key).
func Redacted(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for k, vs := range q {
			for i := range vs {
				vs[i] = "REDACTED"
			}
			q[k] = vs
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// endpointSecrets are the credentials an endpoint URL carries: its user
// name and password and its query values.
func endpointSecrets(u *url.URL) []string {
	var out []string
	if u.User != nil {
		out = append(out, u.User.Username())
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	return out
}
