// Package contextvars holds the typed context variables an IDE plugin sends
// with an agent request (docs/protocol.md §6): decoding with errors that name
// the variable and field, re-applying the resolver options a command declares,
// cutting the least valuable context when a prompt is over budget, and the
// client-side collectors that `agentgw chat` uses to behave like a plugin.
package contextvars
