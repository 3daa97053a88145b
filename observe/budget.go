package observe

import "context"

// Budget holds the runs no request started (a hand-off's delivery, a
// schedule's run) to the budgets of the identity that created them, as a
// request of theirs would be (package usage's Meter is the gateway's).
// The hand-off hub and the schedule runner take one at construction; nil
// is no budget.
type Budget interface {
	// Reserve takes the estimate of a run of source (SourceHandoff,
	// SourceSchedule) acting as owner, whose input is about size bytes,
	// on every budget that bounds owner, before the run calls the model.
	// The context it returns carries the reservation: the first run
	// watched in it (an Observer's Begin) settles it with its usage at
	// its end, and later runs in it are charged what they use. release
	// gives back a reservation no run took (call it when the run is
	// over, whatever happened). A run over a budget gets the error to
	// record (an *apierr.Error: BUDGET_EXCEEDED, RATE_LIMITED or
	// STORE_UNAVAILABLE) and must not call the model.
	Reserve(ctx context.Context, source, owner, requestID string, size int64) (_ context.Context, release func(), err error)
}
