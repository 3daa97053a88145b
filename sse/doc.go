// Package sse writes and reads Server-Sent-Events streams: text chunks in the
// OpenAI chat.completion.chunk shape, named events, keep-alive comments and
// the terminator (docs/protocol.md §3), and a reader for upstream streams.
package sse
