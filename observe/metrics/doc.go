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
package metrics
