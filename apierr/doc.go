// Package apierr is the gateway's error vocabulary: the one error type that
// reaches a client (Error, rendered as an ERROR_RESPONSE before the stream
// and as a copilot_error frame inside it), its table of codes with their
// HTTP statuses, recoverability and default suggested actions, and the
// clipping of client-provided strings a message repeats. Every layer may
// import it: it imports nothing of the project but internal/runes.
package apierr
