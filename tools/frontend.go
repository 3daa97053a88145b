package tools

// Statuses a frontend tool's result may carry, besides SUCCESS, ERROR and TIMEOUT, to say that the IDE
// could not execute the tool at all (a protocol extension; the same as status ERROR with the same
// error code).
const (
	// StatusUnavailable: the IDE does not have the tool, or cannot run it now.
	StatusUnavailable = "UNAVAILABLE"
	// StatusNotSupported: the IDE does not support the tool (or its parameters).
	StatusNotSupported = "NOT_SUPPORTED"
	// StatusDeclined: the user did not let the tool run.
	StatusDeclined = "DECLINED"
)

// CodeNotSupported: the IDE does not support the frontend tool (or its parameters); nothing ran.
const CodeNotSupported = "NOT_SUPPORTED"

// FrontendStatus reports whether s is a status a frontend tool's result may carry: SUCCESS, ERROR,
// TIMEOUT, UNAVAILABLE, NOT_SUPPORTED or DECLINED.
func FrontendStatus(s string) bool {
	switch s {
	case StatusSuccess, StatusError, StatusTimeout, StatusUnavailable, StatusNotSupported, StatusDeclined:
		return true
	}
	return false
}

// CouldNotRun reports whether a frontend tool's result says the tool could not be executed (seed 000
// section 4.5.3: unavailable, not supported, declined, timed out), the case its fallbackBehavior governs:
// status TIMEOUT, UNAVAILABLE, NOT_SUPPORTED or DECLINED, or status ERROR with error code UNAVAILABLE,
// NOT_SUPPORTED, DECLINED, TIMEOUT or UNKNOWN_TOOL. Any other ERROR is a tool that ran and failed: its
// error goes to the model, as a backend tool's does.
func CouldNotRun(r Result) bool {
	switch r.Status {
	case StatusSuccess:
		return false
	case StatusTimeout, StatusUnavailable, StatusNotSupported, StatusDeclined:
		return true
	}
	if r.Error == nil {
		return false
	}
	switch r.Error.Code {
	case CodeUnavailable, CodeNotSupported, CodeDeclined, CodeTimeout, CodeUnknownTool:
		return true
	}
	return false
}
