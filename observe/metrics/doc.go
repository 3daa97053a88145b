// Package metrics is the gateway's Prometheus metrics: an observe.Observer
// that counts what each request did (its agent, command, outcome and error
// code, the model calls, tokens, tools, plan steps, git operations,
// hand-offs and pauses), and collectors that read, at scrape time, what
// only the shared database knows (the hand-off queue's depth and age, the
// runs paused in the store). Metrics.Handler serves them in the Prometheus
// text format.
//
// Everything is registered on the Metrics' own prometheus.Registry, never
// on the client library's global one, with the Go runtime and process
// collectors beside.
//
// # Label values are bounded
//
// No label carries a request id, a user name, a path or anything else a
// client makes up freely. What a client may choose (a model named in the
// request, the names of an agent defined by the request itself, an error
// code relayed from a remote agent) is bounded: an agent defined by the
// request is "_request" (its command too); each label keeps the first
// Options.MaxValues distinct values it meets (default 100) and reports
// every later one as "_other"; a value longer than 128 bytes, or not UTF-8,
// is "_other" as well.
//
// # Cost per request
//
// A request reaches its series through caches keyed by the bounded label
// values (series.go), one map lookup each, rather than through
// WithLabelValues, which checks and hashes every value byte by byte at each
// call; a series is still made when first reached, so a scrape shows what
// it showed before. The metrics cost a request one allocation for its run
// and one for the end of each model call: with the access log, the
// default observers cost 5 allocations per request, against 19 before
// (server.BenchmarkObserverCost; bench/README.md, "Observer cost (issue
// 29)").
package metrics
