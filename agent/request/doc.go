// Package request decodes the body of an agent request (docs/protocol.md
// §2) into a Request: the protocol's own fields checked and decoded, the
// context variables decoded where the split of the body finds them, and
// every other field kept verbatim, in key order, for the upstream model.
// The runner runs what it decodes; the server, the OpenAI endpoint,
// hand-offs, schedules and asks build Requests of their own.
package request
