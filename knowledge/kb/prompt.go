package kb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// PromptHeading opens the system message of PromptText.
const PromptHeading = "References from the knowledge bases, best first:"

// PromptText is the system message that places a command's knowledge
// references in its prompt when none of its prompt templates mentions
// knowledgeBase (docs/knowledge.md, "Where the references go"): every reference, the best
// score first (ties in the variable's order), each headed by
// "[knowledgeBaseId] fileName:startPos-endPos (source)" and followed by its
// chunk; "" when there is none. The runner puts it right after the
// command's system templates and renders it again after each budget cut,
// so the references, cut first, leave it first.
func PromptText(kbs []contextvars.KnowledgeBase) string {
	type ref struct {
		kb string
		r  *contextvars.Reference
	}
	var refs []ref
	for i := range kbs {
		for j := range kbs[i].References {
			refs = append(refs, ref{kbs[i].KnowledgeBaseID, &kbs[i].References[j]})
		}
	}
	if len(refs) == 0 {
		return ""
	}
	sort.SliceStable(refs, func(a, b int) bool { return refs[a].r.Score > refs[b].r.Score })
	var b strings.Builder
	b.WriteString(PromptHeading)
	for _, x := range refs {
		m := x.r.Metadata
		fmt.Fprintf(&b, "\n\n[%s] %s", x.kb, m.FileName)
		if m.StartPos != nil && m.EndPos != nil {
			fmt.Fprintf(&b, ":%d-%d", *m.StartPos, *m.EndPos)
		}
		if m.Source != "" && m.Source != m.FileName {
			fmt.Fprintf(&b, " (%s)", m.Source)
		}
		b.WriteString("\n")
		b.WriteString(x.r.Chunk)
	}
	return b.String()
}
