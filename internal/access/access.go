// Package access is who is asking: the identity that owns the objects a
// caller creates over the API (schedules, hand-offs and their tasks,
// conversations), whether the caller may see every owner's, and, for a
// caller that sent a stored key (package keys), the key, the user or team
// it names and what it may call (Scope). Every layer may import it; it
// imports nothing of the project.
//
// Owners are opaque strings: "token:<hash>" for a static inbound token
// (the server makes it), "member:<user>" and "team:<team>" for a stored
// key's user or team (MemberOwner, TeamOwner), "user:<id>" for a user
// named without inbound auth, Anonymous, and Operator for what the
// operator's files define.
package access

import (
	"context"
	"path"
	"strings"
)

// Operator owns the objects defined in the operator's files (the gateway
// config, agent files): only an admin sees them over the API.
const Operator = "operator"

// Anonymous owns what callers create that are neither authenticated nor
// name a user (contexts.Anonymous is the same string).
const Anonymous = "anonymous"

// Caller is who makes a request.
type Caller struct {
	// Owner is the identity the caller's objects are owned by. For a
	// stored key it is its user's (MemberOwner) when it names one, else
	// its team's (TeamOwner): never the key's, so that rotating a key
	// keeps what its holder owns.
	Owner string
	// Admin may see and change every owner's objects and use the admin
	// APIs (/keys): a token of server.adminTokensEnv, a stored key with
	// its admin flag, or any caller when inbound auth is off (every
	// caller is then the operator: the gateway listens on loopback only
	// unless told otherwise).
	Admin bool
	// KeyID is the id of the stored key the caller sent (keys.Key.ID,
	// never its secret); "" for a static token or without inbound auth.
	KeyID string
	// User and Team are the user and the team the stored key names (one
	// of them at least); "" for a static token or without inbound auth.
	User string
	Team string
	// Scope is what the caller may call; nil is everything (a static
	// token, or inbound auth off).
	Scope *Scope
}

// Scope is what a stored key may call.
type Scope struct {
	// Agents are the agents and commands the key may call, on the agent
	// endpoints and as models of /v1: "agent" is every command of the
	// agent, "agent/command" one of them; both are path.Match patterns
	// ("*" is every agent). None admits no agent.
	Agents []string
	// Models are the upstream models the key may reach through /v1 (the
	// models that are no agent), as path.Match patterns ("gpt-4o*",
	// "*"). None admits no model.
	Models []string
}

// Owns reports whether c may see and change an object owned by owner.
func (c Caller) Owns(owner string) bool {
	return c.Admin || owner == c.Owner
}

// MayCall reports whether c may call command of agent ("" is the agent
// itself, before its command is known: true when any entry names it).
func (c Caller) MayCall(agent, command string) bool {
	if c.Scope == nil {
		return true
	}
	for _, p := range c.Scope.Agents {
		pa, pc, hasCmd := strings.Cut(p, "/")
		if ok, _ := path.Match(pa, agent); !ok {
			continue
		}
		if !hasCmd || command == "" {
			return true
		}
		if ok, _ := path.Match(pc, command); ok {
			return true
		}
	}
	return false
}

// MayCallAll reports whether c may call every command of agent: an
// entry names the agent with no command, or with the command "*". It is
// what a route whose command is not known here needs (a remote agent's
// hand-off, an agent's tool).
func (c Caller) MayCallAll(agent string) bool {
	if c.Scope == nil {
		return true
	}
	for _, p := range c.Scope.Agents {
		pa, pc, hasCmd := strings.Cut(p, "/")
		if ok, _ := path.Match(pa, agent); ok && (!hasCmd || pc == "*") {
			return true
		}
	}
	return false
}

// MayUseModel reports whether c may reach the upstream model through /v1.
func (c Caller) MayUseModel(model string) bool {
	if c.Scope == nil {
		return true
	}
	for _, p := range c.Scope.Models {
		if ok, _ := path.Match(p, model); ok {
			return true
		}
	}
	return false
}

// Authenticated reports whether owner is an inbound credential's
// identity (a static token's, a stored key's user or team): a caller the
// gateway could tell apart from others, not one that named itself.
func Authenticated(owner string) bool {
	for _, p := range [...]string{tokenPrefix, memberPrefix, teamPrefix} {
		if len(owner) > len(p) && owner[:len(p)] == p {
			return true
		}
	}
	return false
}

// The prefixes of the authenticated identities.
const (
	tokenPrefix  = "token:"
	memberPrefix = "member:"
	teamPrefix   = "team:"
)

// TokenOwner is the identity of an inbound token, made from a digest of it
// (never the token itself): the caller computes the digest.
func TokenOwner(digest string) string { return tokenPrefix + digest }

// MemberOwner is the identity of a stored key's user: every key naming the
// user owns the same objects.
func MemberOwner(user string) string { return memberPrefix + user }

// TeamOwner is the identity of a stored key that names a team and no user:
// every such key of the team owns the same objects.
func TeamOwner(team string) string { return teamPrefix + team }

// callerKey is the context key of the request's Caller.
type callerKey struct{}

// NewContext returns ctx carrying the caller of its request: the server
// puts it there once a request with a stored key is authenticated, for the
// handlers beyond it (openaiapi's model check, usage recording).
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// FromContext is the caller NewContext put in ctx; false when none was: a
// request without a stored key (inbound auth off, a static token, whose
// requests cost nothing more than before keys), or a run no request
// started.
func FromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
