package queue

import "errors"

// Refusal is a Handler's error for a message that must never run: before
// running anything, the handler found that the message may not run at all
// (the hub's: the stored key that sent it was revoked). The message is
// DEAD at once, its Code the refusal's and its Error the refusal's
// (Code + ": " + Message); it is not retried, escalated nor run by its
// fallback, whatever its RetryCount, EscalateTo and FallbackAction say, and
// its run is not counted as a failure. A Fallback that returns one leaves
// the message DEAD with the refusal's Code. Wrapped, it is found
// (errors.As).
type Refusal struct {
	// Code is the message's Code: an error code of the gateway's protocol
	// (FORBIDDEN).
	Code string
	// Message says why, to the message's owner.
	Message string
}

// Error is Code + ": " + Message, as the gateway's protocol errors read.
func (r *Refusal) Error() string { return r.Code + ": " + r.Message }

// Unavailable wraps err, a Handler's error that says it could not tell
// whether the message may run: what it reads first (the hub's: the keys'
// store) did not answer. That is not the message's failure. The message
// is QUEUED again, its Failures unchanged and its Error saying why, and
// its job is run again as when the queue's own database fails: River's
// retry policy (about 1 s, 16 s, 81 s, … after each such error, on the
// job's spare attempts). It is neither dropped nor counted against its
// RetryCount. Unavailable(nil) is nil.
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	return &unavailableError{err: err}
}

// unavailableError is Unavailable's error.
type unavailableError struct{ err error }

func (u *unavailableError) Error() string { return u.err.Error() }
func (u *unavailableError) Unwrap() error { return u.err }

// IsUnavailable reports whether err is (or wraps) an Unavailable error.
func IsUnavailable(err error) bool {
	var u *unavailableError
	return errors.As(err, &u)
}
