package llm

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
)

// redacted replaces a credential in the text of an upstream failure.
const redacted = "[REDACTED]"

// minSecret is the shortest value treated as a credential: shorter ones
// would blank out ordinary words of a message and protect nothing.
const minSecret = 4

// credentialHeader reports whether a canonical header name carries a
// credential: Authorization, Cookie, or a name that says key, token, secret,
// password, session, signature, credential or auth (X-Api-Key, Api-Key,
// X-Auth-Token, ...).
func credentialHeader(key string) bool {
	switch key {
	case "Authorization", "Proxy-Authorization", "Cookie":
		return true
	}
	k := strings.ToLower(key)
	for _, word := range []string{"key", "token", "secret", "passw", "session", "signature", "credential", "auth"} {
		if strings.Contains(k, word) {
			return true
		}
	}
	return false
}

// headerSecrets appends the credentials of h: the value of each credential
// header, the credential after an Authorization scheme ("Bearer <token>"),
// the user:password of Basic and its password, and each cookie's value.
func headerSecrets(out []string, h http.Header) []string {
	for name, values := range h {
		key := textproto.CanonicalMIMEHeaderKey(name)
		if !credentialHeader(key) {
			continue
		}
		for _, v := range values {
			v = strings.TrimSpace(v)
			out = append(out, v)
			switch {
			case key == "Cookie":
				for c := range strings.SplitSeq(v, ";") {
					if _, val, ok := strings.Cut(c, "="); ok {
						out = append(out, strings.TrimSpace(val))
					}
				}
			case strings.Contains(v, " "):
				scheme, cred, _ := strings.Cut(v, " ")
				cred = strings.TrimSpace(cred)
				out = append(out, cred)
				if strings.EqualFold(scheme, "Basic") {
					if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
						out = append(out, string(dec))
						if _, pass, ok := strings.Cut(string(dec), ":"); ok {
							out = append(out, pass)
						}
					}
				}
			}
		}
	}
	return out
}

// redactor removes a fixed set of credentials, in the forms an upstream
// may echo them (as is, JSON-escaped, URL-escaped), from text.
type redactor struct {
	r *strings.Replacer
	// forms are the olds of r, the longest first, for the streaming
	// redaction (NewReader).
	forms [][]byte
}

// newRedactor builds the redactor of secrets; values shorter than minSecret
// are ignored. A nil redactor (no secret) leaves text as it is.
func newRedactor(secrets []string) *redactor {
	var forms []string
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		forms = append(forms, s)
		if q, _ := json.Marshal(s); len(q) > 2 && string(q[1:len(q)-1]) != s {
			forms = append(forms, string(q[1:len(q)-1]))
		}
		for _, e := range []string{url.QueryEscape(s), url.PathEscape(s)} {
			if e != s {
				forms = append(forms, e)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// The longest first: the Replacer tries the olds in argument order, and
	// a whole "Bearer <token>" must go before the token within it.
	slices.SortFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	bs := make([][]byte, 0, len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, redacted)
		bs = append(bs, []byte(f))
	}
	return &redactor{r: strings.NewReplacer(pairs...), forms: bs}
}

// redact returns s without the credentials.
func (r *redactor) redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	return r.r.Replace(s)
}

// cleanError makes err safe to show and log: the credentials the client
// knows of (its key, its configured secrets, those of the plugin's headers
// h) are removed from the message and from the text of the cause, and the
// message is cut to maxMessage. Upstream failures reach callers only
// through it. It runs on failures only.
func (c *Client) cleanError(err error, h http.Header) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	r := c.secrets
	if len(h) > 0 {
		r = newRedactor(headerSecrets(slices.Clone(c.cfgSecrets), h))
	}
	e.Message = truncate(r.redact(e.Message), maxMessage)
	if e.Err != nil {
		if _, done := e.Err.(*redactedError); !done {
			text := e.Err.Error()
			if clean := truncate(r.redact(text), maxMessage); clean != text {
				e.Err = &redactedError{text: clean, err: e.Err}
			}
		}
	}
	return e
}

// redactedError is a cause whose text had credentials removed; it still
// unwraps to the original error for errors.Is and errors.As.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }
