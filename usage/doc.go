// Package usage is what requests cost: the tokens each request's model
// calls used, recorded durably per key, user, team, agent and model, and
// the budgets and rate limits per key, user or team that a request must
// fit before it reaches the model.
//
// # Recording
//
// A request's usage is known when it ends: the observe.Watch adds up its
// model calls' tokens (the upstream's usage, or the gateway's estimate,
// marked Estimated) into the Outcome. The Meter's observe.Run takes it
// there and hands a Record to the Recorder, a bounded queue that a
// goroutine of its own writes in batches, off the stream's path (one
// transaction per batch: the records and the budgets' settlements
// together). When the queue is full (the database is down for longer
// than the queue holds) records are dropped, counted and logged; on a
// crash what the queue held is lost (at most a flush interval's worth in
// normal operation). A reservation whose settlement was lost stays
// charged: a budget may be overcounted by a crash, never undercounted.
//
// # Budgets
//
// A budget bounds the tokens or the dollars (priced by the Prices table)
// a key, user or team spends per day or month (UTC), and its requests per
// minute. Before a request reaches the model the Meter reserves its
// estimate on every counter that applies, in one transaction of
// conditional updates (spent + estimate <= limit): on PostgreSQL the row
// lock serializes the replicas' reservations, on SQLite the file's write
// lock; no two requests spend the same headroom. A request that does not
// fit is refused with BUDGET_EXCEEDED (with when the budget resets) or
// RATE_LIMITED (with Retry-After). When the request ends, its counters
// are settled with the real usage (the difference is added, so an
// estimate above the usage gives the rest back).
//
// The runs no request started (a hand-off's delivery, a schedule's run)
// are held to their owner's budgets the same way: the hand-off hub and
// the schedule runner call Meter.Reserve (observe.Budget) before the run,
// and the Meter, one of the runner's observers, settles the reservation
// it finds in the run's context when the run ends.
package usage
