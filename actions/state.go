package actions

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrStateInvalid is wrapped by every error of Signer.Verify and
// Signer.VerifyFeedback: the state is forged, tampered with, expired,
// foreign or malformed (STATE_INVALID, docs/protocol.md §4).
var ErrStateInvalid = errors.New("action state is invalid")

const (
	// MaxStateSize is the largest signed state, in bytes, that Sign makes
	// and Verify reads. Large continuation data does not belong in a state.
	MaxStateSize = 4096
	// DefaultStateTTL is how long a state is valid when NewSigner gets no ttl.
	DefaultStateTTL = 24 * time.Hour

	stateVersion = "v1"
	secretSize   = 32
	nonceSize    = 12
)

// b64 is unpadded base64url that refuses non-canonical trailing bits, so
// that each value has exactly one encoding.
var b64 = base64.RawURLEncoding.Strict()

// Claims is what a signed state says: who emitted the action, so that its
// feedback routes back to the same agent, command and step on any replica.
type Claims struct {
	// Agent is the agent that emitted the action.
	Agent string `json:"a"`
	// Command is the command that emitted the action.
	Command string `json:"c"`
	// Step is the step of the command, if any.
	Step string `json:"s,omitempty"`
	// Kind is the action's kind, KindConfirm or KindTree.
	Kind string `json:"k"`
	// TreeID is the tree's id for a tree action.
	TreeID string `json:"t,omitempty"`
	// Run is a continuation id for paused runs.
	Run string `json:"r,omitempty"`
	// Data holds small values only: Sign refuses a state over MaxStateSize.
	Data map[string]string `json:"d,omitempty"`
	// IssuedAt is when Sign signed the state, in Unix seconds.
	IssuedAt int64 `json:"iat"`
	// Expires is when the state stops verifying, in Unix seconds.
	Expires int64 `json:"exp"`
	// Nonce makes every state unique, even for equal claims.
	Nonce string `json:"n"`
}

// Signer signs and verifies action states with HMAC-SHA256. Every replica
// configured with the same secret verifies the states of the others. A
// Signer is immutable and safe for concurrent use. Make it with NewSigner:
// the zero Signer refuses to sign and to verify.
//
// A state is "v1.<base64url(claims JSON)>.<base64url(MAC)>", the MAC
// covering "v1.<base64url(claims JSON)>".
type Signer struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewSigner returns a Signer with a copy of secret, or, when secret is
// empty, 32 random bytes that only this Signer knows (states then do not
// survive a restart and other replicas refuse them). States expire ttl after
// they are signed; ttl <= 0 means DefaultStateTTL.
func NewSigner(secret []byte, ttl time.Duration) *Signer {
	if len(secret) == 0 {
		secret = make([]byte, secretSize)
		_, _ = rand.Read(secret) // never fails; it crashes the program instead
	} else {
		secret = bytes.Clone(secret)
	}
	if ttl <= 0 {
		ttl = DefaultStateTTL
	}
	return &Signer{secret: secret, ttl: ttl, now: time.Now}
}

// WithClock returns a copy of s that reads the time from now (time.Now when
// nil), for tests.
func (s *Signer) WithClock(now func() time.Time) *Signer {
	if now == nil {
		now = time.Now
	}
	c := *s
	c.now = now
	return &c
}

// Sign fills c's IssuedAt, Expires and Nonce and returns the signed state.
// It refuses a state over MaxStateSize bytes.
func (s *Signer) Sign(c Claims) (string, error) {
	if len(s.secret) == 0 {
		return "", errors.New("signing action state: the Signer has no secret; make it with NewSigner")
	}
	now := s.now()
	c.IssuedAt = now.Unix()
	c.Expires = now.Add(s.ttl).Unix()
	nonce := make([]byte, nonceSize)
	_, _ = rand.Read(nonce)
	c.Nonce = b64.EncodeToString(nonce)
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("signing action state: %w", err)
	}
	size := len(stateVersion) + 1 + b64.EncodedLen(len(payload)) + 1 + b64.EncodedLen(sha256.Size)
	if size > MaxStateSize {
		return "", fmt.Errorf("signing action state: it would be %d bytes, over the limit of %d; keep large data out of the state", size, MaxStateSize)
	}
	tok := make([]byte, 0, size)
	tok = append(tok, stateVersion+"."...)
	tok = b64.AppendEncode(tok, payload)
	mac := s.mac(tok)
	tok = append(tok, '.')
	tok = b64.AppendEncode(tok, mac)
	return string(tok), nil
}

// mac is the HMAC-SHA256 of msg under s's secret.
func (s *Signer) mac(msg []byte) []byte {
	h := hmac.New(sha256.New, s.secret)
	h.Write(msg)
	return h.Sum(nil)
}

// Verify checks a state made by Sign with the same secret and returns its
// claims. Every failure wraps ErrStateInvalid and says why: too large,
// malformed, unknown version, bad signature or expired.
func (s *Signer) Verify(token string) (*Claims, error) {
	if len(s.secret) == 0 {
		return nil, invalid("the Signer has no secret; make it with NewSigner")
	}
	if len(token) > MaxStateSize {
		return nil, invalid("too large: %d bytes, over the limit of %d", len(token), MaxStateSize)
	}
	version, payload, mac, err := split(token)
	if err != nil {
		return nil, err
	}
	if version != stateVersion {
		if len(version) > 16 {
			version = version[:16] + "..."
		}
		return nil, invalid("unknown version %q", version)
	}
	var sum [sha256.Size]byte
	if len(mac) != b64.EncodedLen(len(sum)) {
		return nil, invalid("malformed: the signature is %d characters, want %d", len(mac), b64.EncodedLen(len(sum)))
	}
	if n, err := b64.Decode(sum[:], []byte(mac)); err != nil || n != len(sum) {
		return nil, invalid("malformed: the signature is not base64url")
	}
	if !hmac.Equal(sum[:], s.mac([]byte(token[:len(version)+1+len(payload)]))) {
		return nil, invalid("bad signature")
	}
	raw, err := b64.DecodeString(payload)
	if err != nil {
		return nil, invalid("malformed: the claims are not base64url")
	}
	var c Claims
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, invalid("malformed: the claims are not JSON")
	}
	if now := s.now(); !now.Before(time.Unix(c.Expires, 0)) {
		return nil, invalid("expired at %s", time.Unix(c.Expires, 0).UTC().Format(time.RFC3339))
	}
	return &c, nil
}

// split cuts a token into its three parts after checking its alphabet.
func split(token string) (version, payload, mac string, err error) {
	if token == "" {
		return "", "", "", invalid("malformed: empty")
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		ok := c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			return "", "", "", invalid("malformed: unexpected byte at offset %d", i)
		}
	}
	if n := strings.Count(token, "."); n != 2 {
		return "", "", "", invalid("malformed: %d dot-separated parts, want 3", n+1)
	}
	version, rest, _ := strings.Cut(token, ".")
	payload, mac, _ = strings.Cut(rest, ".")
	return version, payload, mac, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrStateInvalid, fmt.Sprintf(format, args...))
}
