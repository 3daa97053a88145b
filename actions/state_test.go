package actions

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// fakeClock is a settable clock for Signer.WithClock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestSigner(ttl time.Duration) (*Signer, *fakeClock) {
	clock := &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	return NewSigner(testSecret, ttl).WithClock(clock.now), clock
}

func TestSignVerifyRoundTrip(t *testing.T) {
	s, clock := newTestSigner(time.Hour)
	in := Claims{Agent: "happy", Command: "default", Step: "2", Kind: KindTree, TreeID: "files", Run: "r1",
		Data: map[string]string{"page": "2"}}
	tok, err := s.Sign(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, "v1.") || strings.Count(tok, ".") != 2 {
		t.Fatalf("token %q is not v1.<payload>.<mac>", tok)
	}
	got, err := s.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.IssuedAt = clock.t.Unix()
	want.Expires = clock.t.Add(time.Hour).Unix()
	want.Nonce = got.Nonce
	if len(got.Nonce) != 16 || !reflect.DeepEqual(*got, want) {
		t.Errorf("Verify = %+v, want %+v", *got, want)
	}
	// Another replica with the same secret verifies; the nonce makes
	// equal claims sign differently.
	other := NewSigner(testSecret, 0).WithClock(clock.now)
	if _, err := other.Verify(tok); err != nil {
		t.Errorf("replica: %v", err)
	}
	if tok2, _ := s.Sign(in); tok2 == tok {
		t.Error("two signatures of the same claims are equal")
	}
	// The secret is copied.
	secret := append([]byte(nil), testSecret...)
	s2 := NewSigner(secret, time.Hour).WithClock(clock.now)
	secret[0] ^= 1
	if _, err := s2.Verify(tok); err != nil {
		t.Errorf("changing the caller's slice changed the signer: %v", err)
	}
}

// tamper returns tok with its payload replaced by the JSON of c.
func tamper(tok string, c map[string]any) string {
	parts := strings.Split(tok, ".")
	b, _ := json.Marshal(c)
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

func TestVerifyRefuses(t *testing.T) {
	s, clock := newTestSigner(time.Hour)
	tok, err := s.Sign(Claims{Agent: "happy", Command: "default", Kind: KindConfirm})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	flipLast := func(p string) string {
		c := p[len(p)-1]
		r := byte('A')
		if c == 'A' {
			r = 'Q'
		}
		return p[:len(p)-1] + string(r)
	}
	otherSigner := NewSigner([]byte("another secret"), time.Hour).WithClock(clock.now)
	forged, _ := otherSigner.Sign(Claims{Agent: "happy", Command: "default", Kind: KindConfirm})
	tests := []struct {
		name   string
		signer *Signer
		token  string
		reason string
	}{
		{"tampered payload", s, tamper(tok, map[string]any{"a": "admin", "c": "default", "k": "confirm", "exp": 1 << 40}), "bad signature"},
		{"tampered mac", s, parts[0] + "." + parts[1] + "." + flipLast(parts[2]), "bad signature"},
		{"mac with spare bits set", s, parts[0] + "." + parts[1] + "." + parts[2][:42] + string(parts[2][42]+1), "malformed: the signature is not base64url"},
		{"other secret", s, forged, "bad signature"},
		{"random secret per signer", NewSigner(nil, 0).WithClock(clock.now), tok, "bad signature"},
		{"truncated", s, tok[:len(tok)-5], "malformed"},
		{"truncated to two parts", s, parts[0] + "." + parts[1], "malformed: 2 dot-separated parts"},
		{"empty", s, "", "malformed: empty"},
		{"extra part", s, tok + ".x", "malformed: 4 dot-separated parts"},
		{"bad alphabet", s, tok[:10] + "+" + tok[11:], "malformed: unexpected byte at offset 10"},
		{"newline", s, tok + "\n", "malformed: unexpected byte"},
		{"wrong version", s, "v2" + tok[2:], `unknown version "v2"`},
		{"oversize", s, strings.Repeat("a", MaxStateSize+1), "too large: 4097 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.signer.Verify(tt.token)
			if err == nil {
				t.Fatalf("Verify = %+v, want an error", c)
			}
			if !errors.Is(err, ErrStateInvalid) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q: want ErrStateInvalid with %q", err, tt.reason)
			}
		})
	}
	t.Run("expired", func(t *testing.T) {
		clock.t = clock.t.Add(time.Hour - time.Second)
		if _, err := s.Verify(tok); err != nil {
			t.Fatalf("a second before expiry: %v", err)
		}
		clock.t = clock.t.Add(time.Second)
		_, err := s.Verify(tok)
		if !errors.Is(err, ErrStateInvalid) || err.Error() != "action state is invalid: expired at 2025-03-01T13:00:00Z" {
			t.Errorf("at expiry: %v", err)
		}
	})
}

func TestSignOversize(t *testing.T) {
	s, _ := newTestSigner(0)
	_, err := s.Sign(Claims{Agent: "a", Kind: KindConfirm, Data: map[string]string{"big": strings.Repeat("x", 3000)}})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 4096") {
		t.Fatalf("Sign = %v, want a size error", err)
	}
	tok, err := s.Sign(Claims{Agent: "a", Kind: KindConfirm, Data: map[string]string{"ok": strings.Repeat("x", 2000)}})
	if err != nil || len(tok) > MaxStateSize {
		t.Fatalf("Sign of a state under the limit: %d bytes, %v", len(tok), err)
	}
}

func TestDefaultTTL(t *testing.T) {
	s, clock := newTestSigner(-time.Second)
	tok, _ := s.Sign(Claims{Kind: KindConfirm})
	c, err := s.Verify(tok)
	if err != nil || c.Expires-c.IssuedAt != int64(DefaultStateTTL/time.Second) {
		t.Fatalf("Verify = %+v, %v; want a %v ttl", c, err, DefaultStateTTL)
	}
	clock.t = clock.t.Add(DefaultStateTTL)
	if _, err := s.Verify(tok); !errors.Is(err, ErrStateInvalid) {
		t.Errorf("after the default ttl: %v", err)
	}
}

func TestSignActionVerifyFeedback(t *testing.T) {
	s, _ := newTestSigner(time.Hour)
	tree := &Action{Kind: KindTree, State: `{"x":1}`, StateIsJSON: true, Tree: &Tree{TreeID: "files"}}
	if err := s.SignAction(tree, Claims{Agent: "happy", Command: "browse", TreeID: "spoofed", Kind: "spoofed"}); err != nil {
		t.Fatal(err)
	}
	if tree.StateIsJSON || !strings.HasPrefix(tree.State, "v1.") {
		t.Fatalf("state not replaced: %+v", tree)
	}
	confirm := &Action{Kind: KindConfirm, Confirm: &Confirm{Title: "x"}}
	if err := s.SignAction(confirm, Claims{Agent: "happy", Command: "ask", TreeID: "stale"}); err != nil {
		t.Fatal(err)
	}
	quoted := func(tok string) json.RawMessage { b, _ := json.Marshal(tok); return b }
	c, err := s.VerifyFeedback(&Feedback{Action: KindTree, State: quoted(tree.State), TreeID: "files"})
	if err != nil || c.Command != "browse" || c.Kind != KindTree || c.TreeID != "files" {
		t.Fatalf("VerifyFeedback = %+v, %v", c, err)
	}
	if c, err := s.VerifyFeedback(&Feedback{Action: KindConfirm, State: quoted(confirm.State)}); err != nil || c.TreeID != "" {
		t.Fatalf("VerifyFeedback(confirm) = %+v, %v", c, err)
	}
	refused := []struct {
		name string
		f    Feedback
		want string
	}{
		{"not a string", Feedback{Action: KindConfirm, State: json.RawMessage(`{}`)}, "the state is not a string"},
		{"other kind", Feedback{Action: KindConfirm, State: quoted(tree.State)}, `issued for a "tree" action`},
		{"other tree", Feedback{Action: KindTree, State: quoted(tree.State), TreeID: "other"}, `issued for tree "files"`},
		{"forged", Feedback{Action: KindConfirm, State: quoted("v1.e30.AAAA")}, "malformed"},
	}
	for _, tt := range refused {
		if _, err := s.VerifyFeedback(&tt.f); !errors.Is(err, ErrStateInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrStateInvalid with %q", tt.name, err, tt.want)
		}
	}
	if err := s.SignAction(nil, Claims{}); err == nil {
		t.Error("SignAction(nil) succeeded")
	}
}

func TestZeroSignerRefuses(t *testing.T) {
	var zero Signer
	if tok, err := zero.Sign(Claims{Kind: KindConfirm}); err == nil {
		t.Errorf("zero Signer signed %q", tok)
	}
	s, _ := newTestSigner(time.Hour)
	tok, _ := s.Sign(Claims{Kind: KindConfirm})
	if _, err := zero.Verify(tok); !errors.Is(err, ErrStateInvalid) {
		t.Errorf("zero Signer Verify = %v", err)
	}
	real := NewSigner(testSecret, time.Hour).WithClock(nil)
	if tok, err := real.Sign(Claims{Kind: KindConfirm}); err != nil {
		t.Errorf("WithClock(nil) Sign: %v", err)
	} else if _, err := real.Verify(tok); err != nil {
		t.Errorf("WithClock(nil) Verify: %v", err)
	}
}
