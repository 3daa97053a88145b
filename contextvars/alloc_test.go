package contextvars

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/allocs"
)

// allocFactor is the most Decode may allocate per byte of its input (plus
// allocSlack), stated in docs/agents.md ("Context variables"): the typed values of the shapes that
// are mostly syntax ("[{},{},…]" selections, "[0,0,…]" under an unknown
// name) are what costs most per byte.
const (
	allocFactor = 32
	allocSlack  = 64 << 10
)

// adversarialBodies are contextVariables lists built to make the decoder
// allocate as much as possible per byte.
func adversarialBodies() map[string][]byte {
	rep := func(head, item, sep, tail string, n int) []byte {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(item)
		}
		b.WriteString(tail)
		return []byte(b.String())
	}
	vars := func(n int, item func(i int) string) []byte {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(item(i))
		}
		b.WriteString("]")
		return []byte(b.String())
	}
	return map[string][]byte{
		// The bodies: 4,000 and 50,000 tiny strings.
		"4k tiny strings":  rep(`[{"name":"vcs","value":{"remotes":[`, `"a"`, ",", `]}}]`, 4000),
		"50k tiny strings": rep(`[{"name":"vcs","value":{"remotes":[`, `"a"`, ",", `]}}]`, 50000),
		"tiny prompts":     rep(`[{"name":"globalPrompts","value":[`, `{"role":"s","content":"c"}`, ",", `]}]`, 20000),
		"many variables":   vars(20000, func(i int) string { return fmt.Sprintf(`{"name":"v%d","value":"x"}`, i) }),
		"many fields":      rep(`[{"name":"activeEditor","value":{`, `"x":1`, ",", `}}]`, 50000),
		"empty ranges":     rep(`[{"name":"activeEditor","value":{"selectedRanges":[`, `{}`, ",", `]}}]`, 50000),
		"empty references": rep(`[{"name":"knowledgeBase","value":[{"references":[`, `{}`, ",", `]}]}]`, 50000),
		"unknown numbers":  rep(`[{"name":"custom","value":[`, `1`, ",", `]}]`, 100000),
		"unknown strings":  rep(`[{"name":"custom","value":[`, `""`, ",", `]}]`, 100000),
		"unknown fields":   rep(`[{"name":"custom","value":{`, `"":1`, ",", `}}]`, 50000),
		"deep arrays":      []byte(`[{"name":"custom","value":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}]`),
		"deep skipped":     []byte(`[{"name":"userInfo","value":{"x":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}}]`),
		"huge numbers":     rep(`[{"name":"custom","value":[`, "1"+strings.Repeat("0", 5000)+"e-5000", ",", `]}]`, 100),
		"huge integer":     []byte(`[{"name":"activeEditor","value":{"startLine":` + strings.Repeat("9", 1<<20) + `}}]`),
		"long escapes":     rep(`[{"name":"userInputPrompt","value":"`, `\u00e9\n`, "", `"}]`, 100000),
	}
}

// TestDecodeAllocationBound: whatever the shape of the input, Decode
// allocates at most allocFactor bytes per byte of it (plus allocSlack).
func TestDecodeAllocationBound(t *testing.T) {
	for name, body := range adversarialBodies() {
		t.Run(name, func(t *testing.T) {
			n := allocs.Of(func() { _, _ = Decode(body) })
			limit := uint64(allocFactor*len(body) + allocSlack)
			t.Logf("%d bytes allocated for %d bytes: %.1f per byte", n, len(body), float64(n)/float64(len(body)))
			if n > limit {
				t.Errorf("Decode allocated %d bytes for a %d-byte body (%.0f per byte), more than %d", n, len(body),
					float64(n)/float64(len(body)), limit)
			}
		})
	}
}
