package llm

import "net/http"

// Redactor removes a fixed set of credentials from text, in the forms a
// server may echo them (as is, JSON-escaped, URL-escaped): the redaction
// the Client applies to upstream failures, for other clients of upstream
// services (the remote agents of package remote). A nil *Redactor leaves
// text as it is. It is safe for concurrent use.
type Redactor struct {
	r *redactor
}

// NewRedactor returns the Redactor of secrets and of the credentials in
// the headers hs: the value of each credential header (Authorization,
// Cookie, and names saying key, token, secret, password, session,
// signature, credential or auth), the credential after an Authorization
// scheme, a Basic user:password and its password, each cookie's value.
// Values shorter than 4 bytes are ignored.
func NewRedactor(secrets []string, hs ...http.Header) *Redactor {
	all := append([]string(nil), secrets...)
	for _, h := range hs {
		all = headerSecrets(all, h)
	}
	return &Redactor{r: newRedactor(all)}
}

// Redact returns s with every credential replaced by "[REDACTED]".
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	return r.r.redact(s)
}
