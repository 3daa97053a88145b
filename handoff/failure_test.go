package handoff

import (
	"encoding/json"
	"testing"
)

func TestRetryCount(t *testing.T) {
	for in, want := range map[string]int{`3`: 3, `3.0`: 3, `1e2`: 100, `-0`: 0} {
		var f FailureHandlingStrategy
		err := json.Unmarshal([]byte(`{"retry_count": `+in+`, "escalate_to": "lead"}`), &f)
		if err != nil || f.RetryCount == nil || *f.RetryCount != want || f.EscalateTo != "lead" {
			t.Errorf("%s: %+v, %v; want %d", in, f, err, want)
		}
	}
	for _, in := range []string{`1.5`, `1e12`, `"3"x`} {
		var f FailureHandlingStrategy
		if err := json.Unmarshal([]byte(`{"retry_count": `+in+`}`), &f); err == nil {
			t.Errorf("%s: decoded as %d", in, *f.RetryCount)
		}
	}
	var f FailureHandlingStrategy
	if err := json.Unmarshal([]byte(`{}`), &f); err != nil || f.RetryCount != nil {
		t.Errorf("no retry_count: %+v, %v", f, err)
	}
}
