package tools

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
)

// allowPrefix is one parsed Config.HTTPAllow entry.
type allowPrefix struct {
	scheme, host, path string // host with its port, path ending in "/" or a whole segment
}

// parseAllow parses the allow-list, logging and skipping bad entries.
func (m *Manager) parseAllow(list []string) []allowPrefix {
	var out []allowPrefix
	for _, s := range list {
		p, err := parseAllowPrefix(s)
		if err != nil {
			m.log.Warn("ignoring HTTP allow-list entry", slog.String("entry", s), slog.Any("err", err))
			continue
		}
		out = append(out, p)
	}
	return out
}

// parseAllowPrefix parses scheme://host[:port]/path-prefix.
func parseAllowPrefix(s string) (allowPrefix, error) {
	u, err := url.Parse(s)
	if err != nil {
		return allowPrefix{}, fmt.Errorf("parsing: %w", err)
	}
	host, ok := canonicalHost(u)
	if !ok {
		return allowPrefix{}, fmt.Errorf("want scheme://host[:port]/path-prefix with scheme http or https")
	}
	if hasDotSegment(u.Path) {
		return allowPrefix{}, fmt.Errorf("path %q has . or .. segments", u.Path)
	}
	return allowPrefix{scheme: strings.ToLower(u.Scheme), host: host, path: or(u.Path, "/")}, nil
}

// canonicalHost returns u's lower-case host with an explicit port, for
// http and https URLs only.
func canonicalHost(u *url.URL) (string, bool) {
	port := u.Port()
	switch strings.ToLower(u.Scheme) {
	case "http":
		port = or(port, "80")
	case "https":
		port = or(port, "443")
	default:
		return "", false
	}
	if u.Hostname() == "" || u.Opaque != "" {
		return "", false
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// hasDotSegment reports whether a path has a "." or ".." segment.
func hasDotSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// httpAllowed reports whether u lies under an allow-list prefix: same
// scheme, host and port, and a path equal to the prefix or below it.
func (m *Manager) httpAllowed(u *url.URL) bool {
	host, ok := canonicalHost(u)
	if !ok || hasDotSegment(u.Path) {
		return false
	}
	p := or(u.Path, "/")
	for _, a := range m.allow {
		if a.scheme != strings.ToLower(u.Scheme) || a.host != host {
			continue
		}
		if strings.HasSuffix(a.path, "/") && strings.HasPrefix(p, a.path) ||
			p == a.path || strings.HasPrefix(p, a.path+"/") {
			return true
		}
	}
	return false
}
