package keys

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
)

// API is the admin API over a Store, in the server's terms (server.Keys):
// bodies in, JSON out, errors in the protocol's shape (apierr). Who may
// call it (admins) is the server's to check.
type API struct {
	Store *Store
}

// JSON is a key as the API answers it; Secret only from Create and Rotate.
type JSON struct {
	ID        string     `json:"id"`
	Hint      string     `json:"hint"`
	Name      string     `json:"name,omitempty"`
	User      string     `json:"user,omitempty"`
	Team      string     `json:"team,omitempty"`
	Agents    []string   `json:"agents"`
	Models    []string   `json:"models"`
	Admin     bool       `json:"admin"`
	Owner     string     `json:"owner"`
	CreatedBy string     `json:"createdBy,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	RotatedAt *time.Time `json:"rotatedAt,omitempty"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
	Secret    string     `json:"secret,omitempty"`
}

// ToJSON is k as the API answers it, with secret when not "".
func ToJSON(k Key, secret string) JSON {
	j := JSON{ID: k.ID, Hint: k.Hint, Name: k.Name, User: k.User, Team: k.Team, Agents: nonNil(k.Agents),
		Models: nonNil(k.Models), Admin: k.Admin, Owner: k.Caller().Owner, CreatedBy: k.CreatedBy, CreatedAt: k.CreatedAt,
		Secret: secret}
	if !k.RotatedAt.IsZero() {
		j.RotatedAt = &k.RotatedAt
	}
	if !k.RevokedAt.IsZero() {
		j.RevokedAt = &k.RevokedAt
	}
	return j
}

// CreateRequest is the body of POST /keys.
type CreateRequest struct {
	Name   string   `json:"name"`
	User   string   `json:"user"`
	Team   string   `json:"team"`
	Agents []string `json:"agents"`
	Models []string `json:"models"`
	Admin  bool     `json:"admin"`
}

// Authenticate is the caller of a request that sent secret: false when
// no live key has it.
func (a API) Authenticate(ctx context.Context, secret string) (access.Caller, bool, error) {
	k, ok, err := a.Store.Lookup(ctx, secret)
	if err != nil {
		return access.Caller{}, false, apierr.New(apierr.CodeStoreUnavailable, "the gateway's keys cannot be read").Wrap(err)
	}
	if !ok {
		return access.Caller{}, false, nil
	}
	return k.Caller(), true, nil
}

// List is every key's JSON, revoked ones included.
func (a API) List(ctx context.Context) ([]json.RawMessage, error) {
	ks, err := a.Store.List(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]json.RawMessage, 0, len(ks))
	for _, k := range ks {
		out = append(out, marshal(ToJSON(k, "")))
	}
	return out, nil
}

// Get is key id's JSON.
func (a API) Get(ctx context.Context, id string) (json.RawMessage, error) {
	k, err := a.Store.Get(ctx, id)
	if err != nil {
		return nil, keyError(id, err)
	}
	return marshal(ToJSON(k, "")), nil
}

// Create makes the key body describes, created by who, and returns its
// JSON with its secret.
func (a API) Create(ctx context.Context, who access.Caller, body []byte) (json.RawMessage, error) {
	k, err := ParseCreate(body)
	if err != nil {
		return nil, err
	}
	k, secret, err := a.Store.Create(ctx, k, who.Owner)
	if err != nil {
		return nil, keyError("", err)
	}
	return marshal(ToJSON(k, secret)), nil
}

// ParseCreate is the key a body of POST /keys describes, checked
// (Key.Validate): a BAD_REQUEST for a body that is not one, has a field
// no key has, or a value a key may not.
func ParseCreate(body []byte) (Key, error) {
	var req CreateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Key{}, apierr.Errorf(apierr.CodeBadRequest, "the body is not a key: %v", err).
			Suggest(`send {"user" or "team", "agents": [...], "models": [...], "admin": false, "name": "..."}`)
	}
	if dec.More() {
		return Key{}, apierr.New(apierr.CodeBadRequest, "the body holds more than one key").Suggest("send one JSON object")
	}
	k := Key{Name: req.Name, User: req.User, Team: req.Team, Agents: req.Agents, Models: req.Models, Admin: req.Admin}
	if err := k.Validate(); err != nil {
		return Key{}, keyError("", err)
	}
	return k, nil
}

// Rotate gives key id a new secret and returns its JSON with it.
func (a API) Rotate(ctx context.Context, id string) (json.RawMessage, error) {
	k, secret, err := a.Store.Rotate(ctx, id)
	if err != nil {
		return nil, keyError(id, err)
	}
	return marshal(ToJSON(k, secret)), nil
}

// Revoke revokes key id and returns its JSON.
func (a API) Revoke(ctx context.Context, id string) (json.RawMessage, error) {
	k, err := a.Store.Revoke(ctx, id)
	if err != nil {
		return nil, keyError(id, err)
	}
	return marshal(ToJSON(k, "")), nil
}

// keyError is the protocol error of a store error about key id.
func keyError(id string, err error) error {
	var ve *ValidationError
	switch {
	case errors.As(err, &ve):
		return apierr.Errorf(apierr.CodeBadRequest, "the key's %s", ve.Error())
	case errors.Is(err, ErrNotFound):
		return apierr.Errorf(apierr.CodeNotFound, "no key %q", id).Suggest("GET /keys lists the keys")
	case errors.Is(err, ErrRevoked):
		return apierr.Errorf(apierr.CodeConflict, "key %q is revoked: a revoked key is not rotated", id).
			Suggest("create a new key (POST /keys)")
	}
	return storeError(err)
}

func storeError(err error) error {
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's keys cannot be read or written").Wrap(err)
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("keys: marshalling %T: %v", v, err)) // plain structs
	}
	return b
}
