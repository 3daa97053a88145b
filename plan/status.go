package plan

// Status is the lifecycle state of one step, named as in the seed protocol (section 5.4).
type Status string

// The step statuses. A step starts PENDING, is RUNNING while its kind executes, and ends in one of the
// terminal statuses COMPLETED, FAILED, SKIPPED or TIMEOUT.
const (
	Pending   Status = "PENDING"
	Running   Status = "RUNNING"
	Completed Status = "COMPLETED"
	Failed    Status = "FAILED"
	Skipped   Status = "SKIPPED"
	Timeout   Status = "TIMEOUT"
)

// Terminal reports whether s is a final status: COMPLETED, FAILED, SKIPPED or TIMEOUT.
func (s Status) Terminal() bool {
	switch s {
	case Completed, Failed, Skipped, Timeout:
		return true
	}
	return false
}

// failed reports whether s is an unsuccessful end that onError governs (FAILED or TIMEOUT).
func (s Status) failed() bool { return s == Failed || s == Timeout }
