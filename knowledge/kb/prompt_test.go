package kb

import (
	"testing"

	"github.com/agentgw/agentgw/contextvars"
)

// TestPromptText: the default placement of references, exactly: best
// score first across knowledge bases (ties in order), lines and source
// when known; nothing without references.
func TestPromptText(t *testing.T) {
	s, e := 3, 7
	ref := func(score float64, file, source, chunk string, lines bool) contextvars.Reference {
		r := contextvars.Reference{Score: score, Chunk: chunk, Metadata: contextvars.ReferenceMetadata{FileName: file, Source: source}}
		if lines {
			r.Metadata.StartPos, r.Metadata.EndPos = &s, &e
		}
		return r
	}
	for _, tt := range []struct {
		name string
		kbs  []contextvars.KnowledgeBase
		want string
	}{
		{"none", nil, ""},
		{"bases without references", []contextvars.KnowledgeBase{{KnowledgeBaseID: "a"}, {KnowledgeBaseID: "b", References: []contextvars.Reference{}}}, ""},
		{"best first across bases", []contextvars.KnowledgeBase{
			{KnowledgeBaseID: "docs", References: []contextvars.Reference{ref(0.2, "a.md", "/srv/a.md", "A", false), ref(0.5, "b.md", "b.md", "B", false)}},
			{KnowledgeBaseID: "code", References: []contextvars.Reference{ref(0.9, "x.go", "github.com/o/r/x.go", "X", true), ref(0.5, "y.go", "", "Y", false)}},
		}, PromptHeading + "\n\n[code] x.go:3-7 (github.com/o/r/x.go)\nX\n\n[docs] b.md\nB\n\n[code] y.go\nY\n\n[docs] a.md (/srv/a.md)\nA"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := PromptText(tt.kbs); got != tt.want {
				t.Errorf("PromptText:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
