// Package access is who is asking: the identity that owns the objects a
// caller creates over the API (schedules, hand-offs and their tasks,
// conversations), and whether the caller may see every owner's. Every layer
// may import it; it imports nothing of the project.
//
// Owners are opaque strings: "token:<hash>" for an inbound token (the
// server makes it), "user:<id>" for a user named without inbound auth,
// Anonymous, and Operator for what the operator's files define.
package access

// Operator owns the objects defined in the operator's files (the gateway
// config, agent files): only an admin sees them over the API.
const Operator = "operator"

// Anonymous owns what callers create that are neither authenticated nor
// name a user (contexts.Anonymous is the same string).
const Anonymous = "anonymous"

// Caller is who makes a request.
type Caller struct {
	// Owner is the identity the caller's objects are owned by.
	Owner string
	// Admin may see and change every owner's objects: a token of
	// server.adminTokensEnv, or any caller when inbound auth is off (every
	// caller is then the operator: the gateway listens on loopback only
	// unless told otherwise).
	Admin bool
}

// Owns reports whether c may see and change an object owned by owner.
func (c Caller) Owns(owner string) bool {
	return c.Admin || owner == c.Owner
}

// Authenticated reports whether owner is an inbound token's identity: a
// caller the gateway could tell apart from others, not one that named
// itself.
func Authenticated(owner string) bool {
	return len(owner) > len(tokenPrefix) && owner[:len(tokenPrefix)] == tokenPrefix
}

// tokenPrefix starts the identity of an inbound token.
const tokenPrefix = "token:"

// TokenOwner is the identity of an inbound token, made from a digest of it
// (never the token itself): the caller computes the digest.
func TokenOwner(digest string) string { return tokenPrefix + digest }
