// Package urlallow is the one URL allow-list matcher of the gateway: every
// operator-written list of URL prefixes (tools.httpAllow,
// scheduler.webhookAllow) and every redirect followed under one is checked
// here.
//
// Entries and candidate URLs are parsed, then compared part by part, never
// as strings: the scheme (http or https), the host (ASCII, lower-cased,
// one trailing dot dropped, IP literals in canonical form), the port (the
// scheme's default made explicit) and the path, which must equal the
// entry's path or lie below it on a segment boundary. A candidate is
// refused outright when it could reach something other than what it
// appears to name: userinfo (http://allowed@other/), a non-ASCII or
// percent-encoded host, a backslash, an encoded '/' or '\' in the path, or
// a "." or ".." segment, also when encoded (%2e), double-encoded (%252e)
// or followed by ";params".
package urlallow

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrNotAllowed is the cause of a redirect CheckRedirect refuses.
var ErrNotAllowed = errors.New("not in the allow-list")

// maxRedirects bounds the redirects CheckRedirect lets a client follow.
const maxRedirects = 5

// Prefix is one parsed allow-list entry: scheme://host[:port][/path].
type Prefix struct {
	scheme, host, port string
	path               string // decoded, "/" for the root
}

// String renders the entry in canonical form.
func (p Prefix) String() string {
	return p.scheme + "://" + joinHost(p.host, p.port) + p.path
}

// List is a parsed allow-list; the zero List allows nothing.
type List struct {
	prefixes []Prefix
}

// Parse parses the entries of an allow-list. The List holds the entries
// that parse; the error (nil when all do) names each one that does not, so
// a caller may refuse the configuration or log and go on with the rest.
func Parse(entries []string) (List, error) {
	var l List
	var errs []error
	for _, e := range entries {
		p, err := ParsePrefix(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l.prefixes = append(l.prefixes, p)
	}
	return l, errors.Join(errs...)
}

// ParsePrefix parses one entry: an absolute http or https URL without
// userinfo, query or fragment, whose path has no dot segments.
func ParsePrefix(entry string) (Prefix, error) {
	u, err := url.Parse(strings.TrimSpace(entry))
	if err != nil {
		return Prefix{}, fmt.Errorf("allow-list entry %q: %w", entry, err)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return Prefix{}, fmt.Errorf("allow-list entry %q: a query or fragment cannot be a prefix", entry)
	}
	p, err := parts(u)
	if err != nil {
		return Prefix{}, fmt.Errorf("allow-list entry %q: %w", entry, err)
	}
	return p, nil
}

// Len is the number of entries.
func (l List) Len() int { return len(l.prefixes) }

// Allows reports whether the URL raw lies under an entry.
func (l List) Allows(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && l.AllowsURL(u)
}

// AllowsURL reports whether u lies under an entry.
func (l List) AllowsURL(u *url.URL) bool {
	if u == nil || len(l.prefixes) == 0 {
		return false
	}
	c, err := parts(u)
	if err != nil {
		return false
	}
	for _, p := range l.prefixes {
		if p.scheme == c.scheme && p.host == c.host && p.port == c.port && under(c.path, p.path) {
			return true
		}
	}
	return false
}

// Check is AllowsURL with a reason: nil when u lies under an entry, else
// an error that says which part failed, for messages and logs.
func (l List) Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	if _, err := parts(u); err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	if !l.AllowsURL(u) {
		return ErrNotAllowed
	}
	return nil
}

// CheckRedirect is an http.Client CheckRedirect that follows at most five
// redirects, each to a URL the list allows; a refused redirect's error
// wraps ErrNotAllowed.
func (l List) CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if !l.AllowsURL(req.URL) {
		return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), ErrNotAllowed)
	}
	return nil
}

// under reports whether path p lies under prefix on a segment boundary:
// below it when prefix ends in '/' ("/v1/" allows "/v1/x", not "/v1"),
// else equal to it or below it ("/v1" allows "/v1" and "/v1/x", not
// "/v1x").
func under(p, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(p, prefix)
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// parts reduces u to what a request to it reaches, or refuses it.
func parts(u *url.URL) (Prefix, error) {
	scheme := strings.ToLower(u.Scheme)
	var defPort string
	switch scheme {
	case "http":
		defPort = "80"
	case "https":
		defPort = "443"
	default:
		return Prefix{}, fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return Prefix{}, errors.New("want scheme://host[:port]/path")
	}
	if u.User != nil {
		return Prefix{}, errors.New("userinfo (user@) is not allowed")
	}
	host, err := canonicalHost(u.Host)
	if err != nil {
		return Prefix{}, err
	}
	port := u.Port()
	if port == "" {
		port = defPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return Prefix{}, fmt.Errorf("port %q: want 1 to 65535", port)
	}
	path, err := cleanPath(u)
	if err != nil {
		return Prefix{}, err
	}
	return Prefix{scheme: scheme, host: host, port: port, path: path}, nil
}

// canonicalHost checks the raw host[:port] of a URL and returns its host:
// an IP literal in canonical form, or an ASCII name lower-cased with one
// trailing dot dropped. Percent-encoding, non-ASCII (write IDNs in their
// xn-- form), IPv6 zones and empty labels are refused.
func canonicalHost(hostport string) (string, error) {
	if strings.ContainsAny(hostport, "%\\@") {
		return "", fmt.Errorf("host %q: percent-encoding, '\\' and '@' are not allowed", hostport)
	}
	h := hostport
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", fmt.Errorf("host %q: unclosed '['", hostport)
		}
		a, err := netip.ParseAddr(h[1:end])
		if err != nil || a.Zone() != "" || !a.Is6() {
			return "", fmt.Errorf("host %q: not an IPv6 address", hostport)
		}
		return a.Unmap().String(), nil
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String(), nil
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", errors.New("empty host")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("host %q: empty or overlong label", hostport)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("host %q: only ASCII letters, digits, '-' and '_' (write an IDN in its xn-- form)", hostport)
			}
		}
	}
	return h, nil
}

// cleanPath is u's decoded path ("/" for an empty one),
// refused when a server could read it as another path: a backslash, an
// encoded '/' or '\', or a dot segment, plain, encoded, double-encoded or
// with ";params".
func cleanPath(u *url.URL) (string, error) {
	raw := u.EscapedPath()
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(u.Path, "\\") {
		return "", fmt.Errorf("path %q: encoded '/' or a '\\' is not allowed", raw)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if isDotSegment(seg) {
			return "", fmt.Errorf("path %q: '.' and '..' segments are not allowed", raw)
		}
	}
	p := or(u.Path, "/")
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("path %q: not absolute", raw)
	}
	return p, nil
}

// isDotSegment reports whether seg reads as "." or ".." to some server:
// as is, decoded once more, or with ";params" cut.
func isDotSegment(seg string) bool {
	for range 3 {
		s, _, _ := strings.Cut(seg, ";")
		if s == "." || s == ".." {
			return true
		}
		dec, err := url.PathUnescape(seg)
		if err != nil || dec == seg {
			return false
		}
		seg = dec
	}
	return true // still encoded after three decodings: refuse
}

// joinHost renders host and port, bracketing IPv6 addresses.
func joinHost(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
