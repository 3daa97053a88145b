// Package tmpl is what templates in agent definitions mean: parsing with
// the restricted function set, the helpers (helpers.go), the work and size
// budget every render spends (budget.go), the fast path that renders the
// common subset without reflection (fast.go), and value templates,
// YAML values of free shape whose strings are templates or references
// (value.go).
//
// # The fast path
//
// fast.go is a second evaluator beside text/template; FuzzFastTemplate
// holds it to text/template's output. It was re-measured against
// text/template on the same templates (BenchmarkExecuteWays: the same
// parsed template with its fast form dropped, over an IDE request's data
// with a 2 KiB file), measured on 2026-11-29 at afea7d6, -count 5, medians,
// on 2 shared and loaded cores (load average 5-10), so the figures are
// rough:
//
//	template                          fast             text/template
//	bench.yaml system                 1.1 µs,  4 allocs  14.3 µs,  27 allocs
//	bench.yaml user                   10.7 µs, 11 allocs 37.1 µs, 113 allocs
//	configs/agents/coder.yaml system  2.1 µs,  4 allocs  10.7 µs,  36 allocs
//	coder.yaml explain                3.6 µs, 10 allocs  44.0 µs, 107 allocs
//	coder.yaml package files (range)  32.8 µs, 13 allocs 74.2 µs, 117 allocs
//
// It is kept: the relay benchmark's agent (bench/agents/bench.yaml) renders
// its two templates in about 12 µs instead of about 51 µs, and text/template
// would also need the request's data built whole (contextvars.Fields.Map),
// which the fast path reads field by field. The 39 µs saved per request
// are about 40-50% of the gateway's own in-process cost of a request
// (BenchmarkGatewayOwn, 70-100 µs) and, spread over the benchmark's 22
// relayed chunks a stream, about 1.8 µs a chunk, 10-15% of the relay's
// 10-18 µs of CPU per chunk (bench/README.md).
//
// End to end, `go run ./bench -quick -skip idle,latency` at 06e495f, three
// runs with the fast path and three with compileFast returning nil,
// alternated (each figure relative to the bare proxy of the same run, so
// that the machine's load cancels out): CPU per 1,000 relayed chunks
// 0.92×, 1.03×, 1.02× the proxy's with it and 1.05×, 1.14×, 1.22× without
// (medians 1.02× and 1.14×); saturation throughput 1.20×, 1.29×, 1.09× the
// proxy's with it and 0.94×, 0.99×, 1.00× without (medians 1.20× and
// 0.99×).
package tmpl
