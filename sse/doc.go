// Package sse writes and reads Server-Sent-Events streams: text chunks in the
// OpenAI chat.completion.chunk shape, named events, keep-alive comments and
// the terminator (docs/protocol.md §3), and a reader for upstream streams.
//
// # AppendString: a plain byte loop
//
// AppendString (jsonstr.go) used to test eight bytes at once (SWAR) for
// anything to escape. Re-measured on 2026-11-29 at afea7d6 against the
// plain byte loop it is now and against encoding/json (an Encoder with
// SetEscapeHTML(false), the same bytes: TestAppendStringReferences),
// BenchmarkAppendStringWays, -count 5, medians, on 2 shared and loaded
// cores (load average 5-10), so rough:
//
//	input                          SWAR     byte loop  encoding/json
//	chunk id (35 B)                41 ns    51 ns      241 ns
//	content delta (100 B)          55 ns    83 ns      420 ns
//	2 KiB of source (prompt)       1.3 µs   5.5 µs     7.6 µs
//	2 KiB of prose                 1.3 µs   3.2 µs     2.3 µs
//	64 KiB of source               41 µs    152 µs     220 µs
//	64 KiB of prose                37 µs    91 µs      99 µs
//
// Per relayed upstream chunk it cost nothing either way (Writer.Chunk
// encodes its id once per stream); per request it saved 2-4 µs on the
// relay benchmark's prompt, about 1% of a stream's CPU. End to end it did
// not move the relay's figures: `go run ./bench -quick -skip idle,latency`
// at 06e495f, three runs with it and three without, alternated, each
// figure relative to the bare proxy of the same run: CPU per 1,000 relayed
// chunks 1.08×, 1.05×, 1.14× the proxy's with it and 1.11×, 1.21×, 1.08×
// without; throughput 0.85×, 1.09×, 1.04× with it and 0.96×, 0.82×, 0.95×
// without, ranges that overlap. So the byte loop stays and SWAR went; the
// price is about 110 µs more for a 64 KiB prompt, which is worth bringing
// it back for only if large prompts come to matter.
//
// # The finish chunk: scanned, not decoded
//
// Every relayed stream ends with the upstream's finish chunk, which
// splitFinish takes apart (its reason goes into the Writer's final chunk).
// It was decoded with encoding/json into a struct with a map for the delta:
// 12 allocations and about 30,100 instructions for a 250-byte chunk
// (BenchmarkSplitFinish under callgrind), more than the rest of the chunk's
// relay. It is now scanned once with internal/jsonscan (scanFinish): 1
// allocation (the reason) and about 9,100 instructions, of which 1,600 are
// HasFinishReason's search. Whatever encoding/json reads in its own ways (a
// key in another case or spelled with escapes or non-ASCII letters, a member
// given twice, a choice or delta that is not an object, invalid JSON) is
// still decoded with encoding/json, and FuzzSplitFinish holds the result to
// the encoding/json reading on every input.
package sse
