package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgw/agentgw/internal/access"
)

// Prefix starts every key's secret, so that a secret is recognisable (in
// a leaked file, by a secret scanner) and told apart from the config's
// static tokens without reading the store.
const Prefix = "agw_"

// secretBytes is the randomness of a secret: 256 bits.
const secretBytes = 32

// secretLen is a secret's length: Prefix and the base64url (unpadded) of
// secretBytes.
var secretLen = len(Prefix) + base64.RawURLEncoding.EncodedLen(secretBytes)

// hintLen is how much of a secret a listing shows: Prefix and four
// characters of the random part (24 of its 256 bits).
const hintLen = len(Prefix) + 4

// Bounds of a key's fields.
const (
	MaxPatterns = 100
	maxPattern  = 128
	maxName     = 200
)

// Key is a stored key, without its secret.
type Key struct {
	// ID names the key in the admin API; it is no credential.
	ID string
	// Hint is the start of the secret ("agw_Xy3q"), to tell keys apart.
	Hint string
	// Name says what the key is for ("alice's laptop"); optional.
	Name string
	// User and Team are whom the key stands for: one at least.
	User, Team string
	// Agents and Models are its scope (access.Scope).
	Agents, Models []string
	// Admin lets it use the admin APIs and see every owner's objects.
	Admin bool
	// CreatedBy is the identity (access.Caller.Owner) that created it:
	// "operator" for `agentgw keys`.
	CreatedBy string
	CreatedAt time.Time
	// RotatedAt is when its secret last changed; zero when never.
	RotatedAt time.Time
	// RevokedAt is when it was revoked; zero while it is live.
	RevokedAt time.Time
}

// Revoked reports whether k is revoked.
func (k Key) Revoked() bool { return !k.RevokedAt.IsZero() }

// Caller is who a request with k's secret is: its owner is k's user's
// identity when k names a user, else its team's (never the key's own, so
// that rotating a key keeps what it owns).
func (k Key) Caller() access.Caller {
	owner := access.TeamOwner(k.Team)
	if k.User != "" {
		owner = access.MemberOwner(k.User)
	}
	return access.Caller{Owner: owner, Admin: k.Admin, KeyID: k.ID, User: k.User, Team: k.Team,
		Scope: &access.Scope{Agents: k.Agents, Models: k.Models}}
}

// ValidationError is a key's field that is not acceptable.
type ValidationError struct {
	Field string
	Msg   string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Msg }

// namePattern is what a user's or team's name may be made of: plain, and
// short (maxUserName), so that the owner identity it makes is too. (A
// counted repetition, {0,63}, would compile into a program of 64 copies
// held from the process's start.)
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]*$`)

// maxUserName is the longest a user's or team's name may be, in bytes.
const maxUserName = 64

// validUserName reports whether s may be a user's or team's name.
func validUserName(s string) bool { return len(s) <= maxUserName && namePattern.MatchString(s) }

// Validate checks k's fields as Create takes them (its id, secret and
// times are the store's).
func (k *Key) Validate() error {
	if k.User == "" && k.Team == "" {
		return &ValidationError{"user", "a key names a user or a team (or both)"}
	}
	for _, f := range []struct{ field, v string }{{"user", k.User}, {"team", k.Team}} {
		if f.v != "" && !validUserName(f.v) {
			return &ValidationError{f.field, fmt.Sprintf("%q is not a name: 1 to 64 of A-Z a-z 0-9 . _ @ -, starting with a letter or digit", f.v)}
		}
	}
	if len(k.Name) > maxName || !utf8.ValidString(k.Name) || strings.ContainsFunc(k.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return &ValidationError{"name", fmt.Sprintf("at most %d characters of printable UTF-8", maxName)}
	}
	if err := checkPatterns("agents", k.Agents, true); err != nil {
		return err
	}
	return checkPatterns("models", k.Models, false)
}

// checkPatterns checks a scope's patterns: path.Match patterns, for
// agents at most one "/" (agent/command).
func checkPatterns(field string, ps []string, agents bool) error {
	if len(ps) > MaxPatterns {
		return &ValidationError{field, fmt.Sprintf("at most %d patterns", MaxPatterns)}
	}
	for _, p := range ps {
		if p == "" || len(p) > maxPattern || !utf8.ValidString(p) {
			return &ValidationError{field, fmt.Sprintf("a pattern is 1 to %d bytes of UTF-8", maxPattern)}
		}
		if _, err := path.Match(p, ""); err != nil {
			return &ValidationError{field, fmt.Sprintf("%q is not a pattern (path.Match: * ? [a-z])", p)}
		}
		if agents && strings.Count(p, "/") > 1 {
			return &ValidationError{field, fmt.Sprintf("%q: an entry is agent or agent/command", p)}
		}
	}
	return nil
}

// newSecret makes a secret and its digest.
func newSecret() (secret, digest string, err error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("making a key's secret: %w", err)
	}
	secret = Prefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, Digest(secret), nil
}

// Digest is the stored form of a secret: its SHA-256, in hex.
func Digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// LooksLikeSecret reports whether s has a key secret's shape (Prefix and
// 43 base64url characters): anything else is no key, without a read of
// the store.
func LooksLikeSecret(s string) bool {
	if len(s) != secretLen || !strings.HasPrefix(s, Prefix) {
		return false
	}
	for i := len(Prefix); i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Errors of the store.
var (
	// ErrNotFound: no key has the id.
	ErrNotFound = errors.New("no such key")
	// ErrRevoked: the key is revoked and cannot be rotated.
	ErrRevoked = errors.New("the key is revoked")
)
