// Package jsonlog is the gateway's JSON log handler: slog's JSONHandler,
// byte for byte, with a direct path for the records the gateway writes on
// every request (the access log line): attributes of the basic kinds
// (strings, integers, floats, booleans, durations, inline groups) are
// appended to the line as they are, where slog's handler formats each
// float through encoding/json (reflection and an allocation per float).
//
// It owns nothing else: any record with another kind of attribute, and
// every handler derived with WithAttrs or WithGroup, is slog's own. It
// lives apart from cmd/agentgw so that its equivalence with slog's
// handler is tested on its own (jsonlog_test.go) and the server's access
// log benchmark can use it (issue 29: the observer's cost per request).
package jsonlog
