package apierr

import (
	"fmt"

	"github.com/agentgw/agentgw/internal/runes"
)

// MaxEcho is the most of one client-provided string (a name, an id, a
// value) that a message or log line repeats; longer ones are clipped to
// it, saying how long they were. A client's 900 KB agent name costs it a
// 404, not the gateway a 900 KB answer and log line.
const MaxEcho = 256

// Clip clips s to MaxEcho bytes for a message or a log line.
func Clip(s string) string { return runes.Clip(s, MaxEcho) }

// clipArgs returns args with every string and error whose text is longer
// than MaxEcho clipped (as its text): the arguments of a client error's
// message are where client-provided strings enter it.
func clipArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case error:
			s = fmt.Sprint(v) // as %v would, a nil pointer's panic caught
		default:
			continue
		}
		if len(s) <= MaxEcho {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = Clip(s)
	}
	if out == nil {
		return args
	}
	return out
}
