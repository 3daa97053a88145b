// Package recallstage is the request stage of knowledge bases (package
// stage): for a command whose knowledgeBase variable asks the agent to
// recall (recallByAgent: true), it recalls the references of the knowledge
// bases the command lists before the prompt is built, in place of those
// the plugin sent. cmd/agentgw registers it over knowledge/kb.Manager.
package recallstage

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
)

// Recaller recalls references from the knowledge bases the gateway
// indexes (knowledge/kb.Manager), for commands whose knowledgeBase variable
// asks the agent to (recallByAgent): per knowledge base of ids, the topK
// chunks that best answer query, in the protocol's reference shape.
type Recaller interface {
	Recall(ctx context.Context, ids []string, query string, topK int) ([]contextvars.KnowledgeBase, error)
}

// DefaultTopK is how many references a knowledge base gives a run when
// the command's resolverOptions set no topK.
const DefaultTopK = 5

// recallTimeout bounds a recall before the stream.
const recallTimeout = 10 * time.Second

// Stage is the request stage that recalls knowledge-base references.
type Stage struct{ rec Recaller }

var _ stage.Stage = Stage{}

// New returns the stage recalling from rec; nil (the gateway has no
// knowledge bases) recalls nothing and says so in the request's log.
func New(rec Recaller) Stage { return Stage{rec: rec} }

// Name implements stage.Stage.
func (Stage) Name() string { return "recall" }

// Prepare implements stage.Stage: it fills the references of the
// knowledge bases the command's knowledgeBase variable asks the agent to
// recall (recallByAgent: true): its knowledgeBaseIds, intersected with
// those the plugin sent when it sent the variable. Their references
// replace the plugin's; the plugin's references of other knowledge bases
// are kept. The query is the user's input and the editor's selection. Its
// error is for before the stream.
func (s Stage) Prepare(ctx context.Context, p stage.Prepared) error {
	opts, ok := p.Variable(contextvars.NameKnowledgeBase)
	if !ok || opts.RecallByAgent == nil || !*opts.RecallByAgent {
		return nil
	}
	if s.rec == nil {
		p.Logger().Warn("the command asks the agent to recall knowledge-base references, and this gateway has no knowledge bases")
		return nil
	}
	set := p.Context()
	ids := recallIDs(set, opts.KnowledgeBaseIDs)
	query := recallQuery(set)
	if len(ids) == 0 {
		logNothingToRecall(p.Logger(), set, opts.KnowledgeBaseIDs)
		return nil
	}
	if strings.TrimSpace(query) == "" {
		p.Logger().Info("recallByAgent: nothing recalled: the request has no user input or selection to search for", "knowledge_bases", ids)
		return nil
	}
	topK := DefaultTopK
	if opts.TopK != nil {
		topK = *opts.TopK
	}
	ctx, cancel := context.WithTimeout(ctx, recallTimeout)
	kbs, err := s.rec.Recall(ctx, ids, query, topK)
	cancel()
	if err != nil {
		var e *apierr.Error
		if ae, ok := err.(*apierr.Error); ok {
			e = ae
		} else {
			e = apierr.New(apierr.CodeStoreUnavailable, "the knowledge bases could not be searched").Wrap(err)
		}
		return e
	}
	putReferences(set, ids, kbs)
	return nil
}

// logNothingToRecall says why a recallByAgent command recalls nothing:
// it lists no knowledgeBaseIds and the request names none, or the
// request names none of those it lists.
func logNothingToRecall(log *slog.Logger, set *contextvars.Set, configured []string) {
	var sent []string
	for _, kb := range set.KnowledgeBase {
		sent = append(sent, kb.KnowledgeBaseID)
	}
	why := "the command lists no knowledgeBaseIds and the request's knowledgeBase variable names none"
	if len(configured) > 0 {
		why = "the request's knowledgeBase variable names none of the command's knowledgeBaseIds"
	}
	log.Warn("recallByAgent: nothing recalled: "+why, "knowledgeBaseIds", configured, "sent", sent)
}

// recallIDs are the knowledge bases to recall: the command's, intersected
// with those the plugin sent when it sent the variable.
func recallIDs(set *contextvars.Set, configured []string) []string {
	sent := set.KnowledgeBase
	if sent == nil {
		return configured
	}
	var out []string
	for _, kb := range sent {
		if (len(configured) == 0 || slices.Contains(configured, kb.KnowledgeBaseID)) && !slices.Contains(out, kb.KnowledgeBaseID) {
			out = append(out, kb.KnowledgeBaseID)
		}
	}
	return out
}

// recallQuery is what a recall searches for: the user's input, then the
// selected text.
func recallQuery(s *contextvars.Set) string {
	parts := []string{s.UserInputPrompt}
	if e := s.ActiveEditor; e != nil {
		for _, r := range e.SelectedRanges {
			parts = append(parts, r.Content)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// putReferences puts the recalled knowledge bases in the context, in
// place of the plugin's entries of the same ids.
func putReferences(s *contextvars.Set, ids []string, kbs []contextvars.KnowledgeBase) {
	kept := make([]contextvars.KnowledgeBase, 0, len(s.KnowledgeBase)+len(kbs))
	for _, kb := range s.KnowledgeBase {
		if !slices.Contains(ids, kb.KnowledgeBaseID) {
			kept = append(kept, kb)
		}
	}
	s.KnowledgeBase = append(kept, kbs...)
}
