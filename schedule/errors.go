package schedule

import (
	"errors"
	"fmt"
)

// ValidationError says what is wrong with a schedule or its spec: which
// field (once, every, cron, timezone, name, id, target, timeout, missed;
// empty for the schedule as a whole), the value, and within a cron
// expression the byte offset of the part that is wrong, so that a caller
// can point at a line and column of a file or answer a 400.
type ValidationError struct {
	// Field is the field, as files and requests name it.
	Field string
	// Value is the field's value as given, when it has one.
	Value string
	// Offset is the byte offset in Value of the part that is wrong; -1
	// when the whole value is.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error is "schedule: <field>: <what is wrong>".
func (e *ValidationError) Error() string {
	if e.Field == "" {
		return "schedule: " + e.Msg
	}
	return fmt.Sprintf("schedule: %s: %s", e.Field, e.Msg)
}

// Errors of the Store and the Scheduler, for errors.Is.
var (
	// ErrNotFound: no schedule, or no run, with that id or name.
	ErrNotFound = errors.New("schedule: not found")
	// ErrExists: another schedule has that name, or that id.
	ErrExists = errors.New("schedule: exists")
	// ErrStatic: the schedule is defined in a file (config or agent); only
	// enabling and disabling it is allowed at run time, the rest is changed
	// in its file.
	ErrStatic = errors.New("schedule: defined in a file")
	// ErrRunning: a run of the schedule is in progress; runs of one
	// schedule do not overlap.
	ErrRunning = errors.New("schedule: a run is in progress")
	// ErrQuota: the owner has as many run-time schedules as it may
	// (CreateLimited's limit).
	ErrQuota = errors.New("schedule: the owner has the most schedules allowed")
	// ErrStopped: the scheduler was stopped.
	ErrStopped = errors.New("schedule: the scheduler is stopped")
)

// DisableError is a Runner's error that stops its schedule for good: the
// run is recorded FAILED with Reason as its error, and, in the same
// transaction, the schedule is disabled with Reason as its
// DisabledReason, shown where it is listed. Enabling it again clears the
// reason (Store.Update). The gateway's Runner returns one when the stored
// key a schedule was made with is revoked (schedule/agentrun).
type DisableError struct {
	// Reason says why, to the schedule's owner: it is the run's error and
	// the schedule's DisabledReason.
	Reason string
}

// Error is the reason.
func (e *DisableError) Error() string { return e.Reason }
