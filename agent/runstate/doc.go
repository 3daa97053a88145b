// Package runstate owns what an agent run keeps between requests: a run
// paused for the user's consent or a frontend tool's result (its Record,
// found by its id or by a frontend call it waits for), and the plan state
// the handlers of a run's actions restore. It is the one place that knows
// their keys, encodings (whole numbers come back as ints) and lifetimes in
// the gateway's store, and maps the store's failures to
// STORE_UNAVAILABLE.
//
// It is apart from agent/runner so that the runner, which orchestrates a
// request, links no store: it keeps runs through a Store over the narrow
// KV, which store.Store satisfies, wired in cmd/agentgw (issue 27 item 1).
package runstate
