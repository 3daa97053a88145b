package metrics

import (
	"sync"
	"unicode/utf8"
)

// Fixed label values.
const (
	// Other stands for every value of a label beyond its bound.
	Other = "_other"
	// RequestDefined is the agent and command of an agent defined by the
	// request itself.
	RequestDefined = "_request"
)

// maxValueLen is the longest label value kept; longer ones are Other.
const maxValueLen = 128

// limiter bounds the values of one label: the first max distinct values
// are kept, later ones are Other. The empty value is always kept (it is
// Prometheus's "no value").
type limiter struct {
	max  int
	mu   sync.Mutex
	seen map[string]struct{}
}

func newLimiter(max int) *limiter {
	return &limiter{max: max, seen: make(map[string]struct{}, min(max, 16))}
}

// value is v as a label value: v itself, or Other.
func (l *limiter) value(v string) string {
	if v == "" {
		return ""
	}
	if len(v) > maxValueLen || !utf8.ValidString(v) {
		return Other
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[v]; ok {
		return v
	}
	if len(l.seen) >= l.max {
		return Other
	}
	l.seen[v] = struct{}{}
	return v
}
