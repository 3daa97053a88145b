package gitrepo

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultPorts are the ports a scheme implies; NormalizeURL drops them.
var defaultPorts = map[string]int{"http": 80, "https": 443, "ssh": 22, "git+ssh": 22, "ssh+git": 22, "git": 9418}

// NormalizeURL reduces a git remote URL to the form allow patterns match:
// host[:port]/path, with the scheme, the user info, the scheme's default port,
// a query or fragment, trailing "/" and a ".git" suffix dropped, the host
// lowercased, percent-escapes of unreserved characters decoded (others
// kept, in upper case), the path cleaned, and a scp-like address
// (git@host:org/repo.git) turned into host/path. The host of a URL with a
// scheme is the one net/url finds: "https://evil.test#@git.example.com/x"
// is evil.test, as for every URL parser, not git.example.com; a user name
// before a scp-like or scheme-less host may only hold user-name characters. A local repository
// (file:///srv/repo.git or /srv/repo.git) normalises to its cleaned absolute
// path (/srv/repo). Normalising a normalised URL gives it back unchanged.
// Errors never repeat the input, which may hold credentials.
func NormalizeURL(raw string) (string, error) {
	return normalize(raw, false)
}

// normalize implements NormalizeURL; pattern mode lets the host hold glob
// characters, so that allow patterns can be written as URLs too.
func normalize(raw string, pattern bool) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("empty URL")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return "", errors.New("URL contains control characters")
		}
	}
	if !utf8.ValidString(s) {
		return "", errors.New("URL is not valid UTF-8")
	}
	if scheme, rest, ok := splitScheme(s); ok {
		if !pattern && scheme != "file" {
			return normalizeParsedURL(scheme, s)
		}
		return normalizeSchemeURL(scheme, rest, pattern)
	}
	if strings.HasPrefix(s, "/") {
		return cleanRepoPath(s), nil
	}
	return normalizeHostPath(s, pattern)
}

// splitScheme splits "scheme://rest"; ok is false when s has no valid scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return "", "", false
	}
	for j, c := range s[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return strings.ToLower(s[:i]), s[i+3:], true
}

// normalizeParsedURL normalises a URL with a network scheme by net/url's
// reading of it: its host and port are u's, its path the raw text net/url
// took the path from (before any "?" or "#", after the authority), so that
// escapes are normalised as in the other forms.
func normalizeParsedURL(scheme, s string) (string, error) {
	switch scheme {
	case "http", "https", "ssh", "git+ssh", "ssh+git", "git":
	default:
		return "", fmt.Errorf("unsupported URL scheme %q", scheme)
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, credentials and all
		}
		return "", fmt.Errorf("malformed URL: %w", err)
	}
	rest := s[len(scheme)+len("://"):]
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	p := ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		p = rest[i:]
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	host, err = checkHost(host, false)
	if err != nil {
		return "", err
	}
	port := 0
	if ps := u.Port(); ps != "" {
		if port, err = parsePort(ps); err != nil {
			return "", err
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", errors.New("invalid port")
	}
	if port == defaultPorts[scheme] {
		port = 0
	}
	if p, err = normalizeEscapes(p); err != nil {
		return "", err
	}
	return joinHostPath(host, port, p), nil
}

// normalizeSchemeURL normalises the part after "scheme://" of a file URL
// or an allow pattern.
func normalizeSchemeURL(scheme, rest string, pattern bool) (string, error) {
	authority, p := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, p = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	switch scheme {
	case "file":
		if authority != "" && !strings.EqualFold(authority, "localhost") {
			return "", errors.New("a file URL must name a local path (file:///path)")
		}
		return cleanRepoPath(p), nil
	case "http", "https":
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
	case "ssh", "git+ssh", "ssh+git", "git":
	default:
		return "", fmt.Errorf("unsupported URL scheme %q", scheme)
	}
	host, port, err := splitHostPort(authority, pattern)
	if err != nil {
		return "", err
	}
	if port == defaultPorts[scheme] {
		port = 0
	}
	return joinHostPath(host, port, p), nil
}

// normalizeHostPath normalises a scp-like address ([user@]host:path) or an
// already normalised one (host[:port][/path]). After the host, digits up to
// the next "/" are a port, anything else is a scp-like path.
func normalizeHostPath(s string, pattern bool) (string, error) {
	head := s
	if i := strings.IndexAny(s, ":/"); i >= 0 {
		head = s[:i]
	}
	if i := strings.LastIndexByte(head, '@'); i >= 0 {
		if !pattern && !isUserName(head[:i]) {
			return "", errors.New("invalid user name before the host")
		}
		s = s[i+1:]
	}
	hostEnd := strings.IndexAny(s, ":/")
	if !pattern && strings.HasPrefix(s, "[") {
		hostEnd = strings.IndexByte(s, ']') + 1
		if hostEnd == 0 {
			return "", errors.New("unterminated IPv6 host")
		}
	}
	if hostEnd < 0 {
		hostEnd = len(s)
	}
	host, after := s[:hostEnd], s[hostEnd:]
	port := 0
	if rest, ok := strings.CutPrefix(after, ":"); ok {
		seg, _, _ := strings.Cut(rest, "/")
		if isDigits(seg) {
			p, err := parsePort(seg)
			if err != nil {
				return "", err
			}
			port, after = p, rest[len(seg):]
		} else {
			after = "/" + rest
		}
	} else if after != "" && after[0] != '/' {
		return "", errors.New("malformed host")
	}
	host, err := checkHost(host, pattern)
	if err != nil {
		return "", err
	}
	if !pattern {
		if after, err = normalizeEscapes(after); err != nil {
			return "", err
		}
	}
	return joinHostPath(host, port, after), nil
}

// isUserName reports whether s is a user name as git and ssh take one
// before "@host": letters, digits, and ._~+- (no "#", "?", "\", ":" or
// "@" that a URL parser would read otherwise).
func isUserName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~+-", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// normalizeEscapes decodes the percent-escapes of unreserved characters
// (letters, digits, -._~) and writes the others' hex digits in upper case
// (RFC 3986 section 6.2.2), so that one path has one spelling.
func normalizeEscapes(p string) (string, error) {
	if !strings.Contains(p, "%") {
		return p, nil
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' {
			b.WriteByte(p[i])
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1:i+3]) {
			return "", errors.New("invalid percent-escape in the path")
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteString(strings.ToUpper(p[i : i+3]))
		}
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// splitHostPort splits an authority without user info into a checked,
// lowercased host and a port (0 when none).
func splitHostPort(authority string, pattern bool) (string, int, error) {
	host, portStr := authority, ""
	if !pattern && strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", 0, errors.New("unterminated IPv6 host")
		}
		host, portStr = authority[:end+1], authority[end+1:]
		if portStr != "" && portStr[0] != ':' {
			return "", 0, errors.New("malformed host")
		}
		portStr = strings.TrimPrefix(portStr, ":")
	} else if i := strings.IndexByte(authority, ':'); i >= 0 {
		host, portStr = authority[:i], authority[i+1:]
	}
	host, err := checkHost(host, pattern)
	if err != nil {
		return "", 0, err
	}
	if portStr == "" {
		return host, 0, nil
	}
	port, err := parsePort(portStr)
	return host, port, err
}

// parsePort parses a TCP port, 1 to 65535.
func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || !isDigits(s) || p < 1 || p > 65535 {
		return 0, errors.New("invalid port")
	}
	return p, nil
}

// checkHost lowercases a host and checks its characters: letters, digits,
// ".", "-" and "_", or a bracketed IPv6 address; in pattern mode also the
// glob characters of path.Match.
func checkHost(host string, pattern bool) (string, error) {
	host = strings.ToLower(host)
	if host == "" {
		return "", errors.New("missing host")
	}
	if !pattern && strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && len(host) > 2 {
		for _, c := range host[1 : len(host)-1] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == ':' || c == '.') {
				return "", fmt.Errorf("invalid character %q in IPv6 host", c)
			}
		}
		return host, nil
	}
	for _, c := range host {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok && !(pattern && strings.ContainsRune(`*?[]^!\`, c)) {
			return "", fmt.Errorf("invalid character %q in host", c)
		}
	}
	return host, nil
}

// joinHostPath renders host[:port] and a cleaned path.
func joinHostPath(host string, port int, p string) string {
	if port != 0 {
		host += ":" + strconv.Itoa(port)
	}
	if p = cleanRepoPath(p); p == "/" {
		return host
	}
	return host + p
}

// cleanRepoPath cleans p into an absolute path without a trailing "/", space
// or ".git" suffix, repeating until nothing changes.
func cleanRepoPath(p string) string {
	for {
		q := strings.TrimRightFunc(strings.TrimSuffix(path.Clean("/"+p), ".git"), unicode.IsSpace)
		if q == p {
			return q
		}
		p = q
	}
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
