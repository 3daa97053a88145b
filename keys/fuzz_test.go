package keys

import (
	"path"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// alphabet is base64url's.
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// FuzzLooksLikeSecret: what passes the shape check is a secret's shape,
// and the check never panics on any credential a client sends.
func FuzzLooksLikeSecret(f *testing.F) {
	f.Add("agw_" + strings.Repeat("A", 43))
	f.Add("agw_")
	f.Add("Bearer x")
	f.Add("agw_" + strings.Repeat("é", 22))
	f.Fuzz(func(t *testing.T, s string) {
		if !LooksLikeSecret(s) {
			return
		}
		if len(s) != 47 || !strings.HasPrefix(s, Prefix) {
			t.Fatalf("%q passed", s)
		}
		if strings.Trim(s[len(Prefix):], alphabet) != "" {
			t.Fatalf("%q passed with a character out of base64url", s)
		}
	})
}

// FuzzParseCreate: a body of POST /keys is a key whose every field is
// acceptable, or a BAD_REQUEST; never a panic.
func FuzzParseCreate(f *testing.F) {
	f.Add(`{"user":"alice","team":"platform","agents":["reviewer","fixer/explain"],"models":["gpt-4o*"]}`)
	f.Add(`{"team":"ops","agents":["*"],"admin":true,"name":"x"}`)
	f.Add(`{"user":"a","agents":["[a"]}`)
	f.Add(`{"user":"a"} {"user":"b"}`)
	f.Add(`{"user":"a","extra":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		k, err := ParseCreate([]byte(body))
		if err != nil {
			if e, ok := err.(*apierr.Error); !ok || e.Code != apierr.CodeBadRequest {
				t.Fatalf("%q: %v, want a BAD_REQUEST", body, err)
			}
			return
		}
		if k.User == "" && k.Team == "" || k.User != "" && !namePattern.MatchString(k.User) || k.Team != "" && !namePattern.MatchString(k.Team) {
			t.Fatalf("%q: accepted %+v", body, k)
		}
		for _, p := range append(append([]string{}, k.Agents...), k.Models...) {
			if _, err := path.Match(p, ""); err != nil || p == "" || len(p) > maxPattern {
				t.Fatalf("%q: accepted the pattern %q", body, p)
			}
		}
	})
}
