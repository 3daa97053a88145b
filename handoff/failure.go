package handoff

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// FailureHandlingStrategy says what happens when the receiver cannot
// complete: retry, then escalate, else fall back.
type FailureHandlingStrategy struct {
	// RetryCount is how many times to retry; nil leaves it to the gateway.
	RetryCount *int `json:"retry_count,omitempty"`
	// EscalateTo is the agent (or pool) that gets the task after the retries.
	EscalateTo string `json:"escalate_to,omitempty"`
	// FallbackAction is what to do when there is nobody to escalate to.
	FallbackAction string `json:"fallback_action,omitempty"`
}

// UnmarshalJSON decodes f, accepting retry_count written as any integral
// JSON number (3, 3.0, 3e0), as JSON Schema's "integer" does.
func (f *FailureHandlingStrategy) UnmarshalJSON(raw []byte) error {
	type plain FailureHandlingStrategy
	var aux struct {
		plain
		RetryCount *json.Number `json:"retry_count"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return fmt.Errorf("failure_handling_strategy: %w", err)
	}
	*f = FailureHandlingStrategy(aux.plain)
	if aux.RetryCount != nil {
		n, err := integer(*aux.RetryCount)
		if err != nil {
			return fmt.Errorf("failure_handling_strategy: retry_count: %w", err)
		}
		f.RetryCount = &n
	}
	return nil
}

// integer converts an integral JSON number within ±2^31 to an int.
func integer(n json.Number) (int, error) {
	if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
		return int(i), nil
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
		return 0, fmt.Errorf("%s is not an integer in range", n)
	}
	return int(x), nil
}
