package store

import (
	"net/url"
	"strings"
)

// IsPostgresURL reports whether s names a PostgreSQL database
// (postgres:// or postgresql://).
func IsPostgresURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql"))
}

// RedactURL is rawURL with its password, in the user information or a
// password parameter, replaced by "xxxxx": what may be logged. A string
// that does not parse as a URL with a scheme (a key=value connection
// string too) is replaced whole, since where its password is cannot be
// told.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return "(a URL that does not parse)"
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "password") {
			q.Set(k, "xxxxx")
			u.RawQuery = q.Encode()
		}
	}
	return u.Redacted()
}
