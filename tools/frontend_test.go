package tools

import "testing"

// TestCouldNotRun: only a result saying the frontend tool was not executed follows its
// fallbackBehavior; a tool that ran and failed does not.
func TestCouldNotRun(t *testing.T) {
	for _, tc := range []struct {
		status, code string
		want         bool
	}{
		{StatusSuccess, "", false},
		{StatusError, "", false},
		{StatusError, "FILE_NOT_FOUND", false},
		{StatusError, CodeToolFailed, false},
		{StatusError, "OUTSIDE_WORKSPACE", false},
		{StatusTimeout, "", true},
		{StatusUnavailable, "", true},
		{StatusNotSupported, "", true},
		{StatusDeclined, "", true},
		{StatusError, CodeUnavailable, true},
		{StatusError, CodeNotSupported, true},
		{StatusError, CodeDeclined, true},
		{StatusError, CodeTimeout, true},
		{StatusError, CodeUnknownTool, true},
	} {
		r := Result{Status: tc.status}
		if tc.code != "" {
			r.Error = &ResultError{Code: tc.code, Message: "m"}
		}
		if got := CouldNotRun(r); got != tc.want {
			t.Errorf("CouldNotRun(%s %s) = %v, want %v", tc.status, tc.code, got, tc.want)
		}
	}
	for _, s := range []string{"SUCCESS", "ERROR", "TIMEOUT", "UNAVAILABLE", "NOT_SUPPORTED", "DECLINED"} {
		if !FrontendStatus(s) {
			t.Errorf("FrontendStatus(%q) = false", s)
		}
	}
	if FrontendStatus("FAILED") || FrontendStatus("") {
		t.Error("FrontendStatus accepts FAILED or an empty status")
	}
}
