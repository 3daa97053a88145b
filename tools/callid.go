package tools

import (
	"strings"

	"github.com/google/uuid"
)

// NewCallID returns a fresh call id in the upstream's style: "call_" and
// 32 hex digits.
func NewCallID() string { return "call_" + strings.ReplaceAll(uuid.NewString(), "-", "") }
