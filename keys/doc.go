// Package keys is the gateway's stored inbound keys: credentials that
// carry an identity (the user or the team they name), a scope (the agents
// and commands they may call, the models they may reach through /v1) and
// an admin flag. Keys are created, listed, rotated and revoked over the
// admin API (/keys, package server through cmd/agentgw's adapter) and
// `agentgw keys …`, and kept in the store's database (SQLite or
// PostgreSQL), in a table of their own (api_keys), shared by the replicas.
//
// A key's secret is "agw_" and 43 characters of base64url: 256 random
// bits. Only its SHA-256 digest is stored (the secret is random, so a slow
// password hash adds nothing); the secret is shown once, by Create and
// Rotate, and never again, logged or answered. A key keeps its id when
// rotated: the old secret stops working at once, the identity (and so
// what its holder owns, access.Caller.Owner) stays.
//
// Every request with a key reads the key's row from the shared database
// (Store.Lookup, one indexed read; on SQLite on the store's read pool,
// Options.ReadDB, so that it never queues behind writers waiting for the
// write lock): nothing is cached, so a key revoked
// or rotated by any replica or by `agentgw keys` (another process on the
// same file) is refused by every replica on its next request. A cache
// invalidated by PostgreSQL's LISTEN/NOTIFY was weighed and left out:
// notifications arrive after the revoking transaction commits, on their
// own schedule, so a request that reaches another replica in between
// would still pass; a cache checked against a version row on every
// request costs the same round trip as the lookup it saves. See
// docs/keys.md for the measured cost.
package keys
