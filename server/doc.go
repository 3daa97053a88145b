// Package server is the HTTP face of the gateway: an echo app with the agent
// endpoint, the agent listing, health, and the middleware every request goes
// through (request id, access log, recovery, body limit, auth, rate limit).
// Handlers decode requests and hand them to the agent runner; errors before
// the stream are rendered here, in the protocol's ERROR_RESPONSE shape.
package server
