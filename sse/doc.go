// Package sse writes and reads Server-Sent-Events streams: text chunks in the
// OpenAI chat.completion.chunk shape, named events, keep-alive comments and
// the terminator (docs/protocol.md §3), and a reader for upstream streams.
//
// # AppendString's eight-bytes-at-a-time loop
//
// AppendString (jsonstr.go) tests eight bytes at once (SWAR) for anything
// to escape. It was re-measured against the plain byte loop (the same
// function without that block) and against encoding/json (an Encoder with
// SetEscapeHTML(false)), which give the same bytes
// (TestAppendStringReferences): BenchmarkAppendStringWays, measured on
// 2026-11-29 at afea7d6, -count 5, medians, on 2 shared and loaded cores
// (load average 5-10), so the figures are rough:
//
//	input                          SWAR     byte loop  encoding/json
//	chunk id (35 B)                41 ns    51 ns      241 ns
//	content delta (100 B)          55 ns    83 ns      420 ns
//	2 KiB of source (prompt)       1.3 µs   5.5 µs     7.6 µs
//	2 KiB of prose                 1.3 µs   3.2 µs     2.3 µs
//	64 KiB of source               41 µs    152 µs     220 µs
//	64 KiB of prose                37 µs    91 µs      99 µs
//
// Per relayed upstream chunk it costs nothing: Writer.Chunk encodes its id
// once per stream. Per agent text frame it saves about 30 ns, 0.2% of the
// 10-18 µs of CPU the relay spends per chunk (bench/README.md). It is kept
// for the request path: every prompt message is encoded with it
// (llm/request.go, openaiapi/request.go), where it saves 2-4 µs on a 2 KiB
// prompt, a few per cent of the gateway's own 70-100 µs per request
// (BenchmarkGatewayOwn), and 50-110 µs on a 64 KiB one; encoding/json would
// cost up to 6 times SWAR's time besides.
package sse
