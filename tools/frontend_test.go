package tools

import (
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// TestCouldNotRun: only a result saying the frontend tool was not executed follows its
// fallbackBehavior; a tool that ran and failed does not.
func TestCouldNotRun(t *testing.T) {
	for _, tc := range []struct {
		status, code string
		want         bool
	}{
		{toolspec.StatusSuccess, "", false},
		{toolspec.StatusError, "", false},
		{toolspec.StatusError, "FILE_NOT_FOUND", false},
		{toolspec.StatusError, toolspec.CodeToolFailed, false},
		{toolspec.StatusError, "OUTSIDE_WORKSPACE", false},
		{toolspec.StatusTimeout, "", true},
		{toolspec.StatusUnavailable, "", true},
		{toolspec.StatusNotSupported, "", true},
		{toolspec.StatusDeclined, "", true},
		{toolspec.StatusError, toolspec.CodeUnavailable, true},
		{toolspec.StatusError, toolspec.CodeNotSupported, true},
		{toolspec.StatusError, toolspec.CodeDeclined, true},
		{toolspec.StatusError, toolspec.CodeTimeout, true},
		{toolspec.StatusError, toolspec.CodeUnknownTool, true},
	} {
		r := toolspec.Result{Status: tc.status}
		if tc.code != "" {
			r.Error = &toolspec.ResultError{Code: tc.code, Message: "m"}
		}
		if got := toolspec.CouldNotRun(r); got != tc.want {
			t.Errorf("CouldNotRun(%s %s) = %v, want %v", tc.status, tc.code, got, tc.want)
		}
	}
	for _, s := range []string{"SUCCESS", "ERROR", "TIMEOUT", "UNAVAILABLE", "NOT_SUPPORTED", "DECLINED"} {
		if !toolspec.FrontendStatus(s) {
			t.Errorf("FrontendStatus(%q) = false", s)
		}
	}
	if toolspec.FrontendStatus("FAILED") || toolspec.FrontendStatus("") {
		t.Error("FrontendStatus accepts FAILED or an empty status")
	}
}
