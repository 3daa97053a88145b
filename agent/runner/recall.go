package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// Recaller recalls references from the knowledge bases the gateway
// indexes (package knowledge), for commands whose knowledgeBase variable
// asks the agent to (recallByAgent): per knowledge base of ids, the topK
// chunks that best answer query, in the protocol's reference shape.
type Recaller interface {
	Recall(ctx context.Context, ids []string, query string, topK int) ([]contextvars.KnowledgeBase, error)
}

// DefaultRecallTopK is how many references a knowledge base gives a run
// when the command's resolverOptions set no topK.
const DefaultRecallTopK = 5

// recallTimeout bounds a recall before the stream.
const recallTimeout = 10 * time.Second

// recall fills the references of the knowledge bases the command's
// knowledgeBase variable asks the agent to recall (recallByAgent: true):
// its knowledgeBaseIds, intersected with those the plugin sent when it
// sent the variable. Their references replace the plugin's; the plugin's
// references of other knowledge bases are kept. The query is the user's
// input and the editor's selection. Its error is for before the stream.
func (run *Run) recall() error {
	for _, v := range run.cmd.vars {
		if v.name != contextvars.NameKnowledgeBase || v.opts.RecallByAgent == nil || !*v.opts.RecallByAgent {
			continue
		}
		if run.cfg.Recall == nil {
			run.logger().Warn("the command asks the agent to recall knowledge-base references, and this gateway has no knowledge bases")
			return nil
		}
		ids := run.recallIDs(v.opts.KnowledgeBaseIDs)
		query := recallQuery(run.req.Context)
		if len(ids) == 0 {
			run.logNothingToRecall(v.opts.KnowledgeBaseIDs)
			return nil
		}
		if strings.TrimSpace(query) == "" {
			run.logger().Info("recallByAgent: nothing recalled: the request has no user input or selection to search for", "knowledge_bases", ids)
			return nil
		}
		topK := DefaultRecallTopK
		if v.opts.TopK != nil {
			topK = *v.opts.TopK
		}
		ctx, cancel := context.WithTimeout(bgctx(), recallTimeout)
		kbs, err := run.cfg.Recall.Recall(ctx, ids, query, topK)
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
		run.putReferences(ids, kbs)
	}
	return nil
}

// logNothingToRecall says why a recallByAgent command recalls nothing:
// it lists no knowledgeBaseIds and the request names none, or the
// request names none of those it lists.
func (run *Run) logNothingToRecall(configured []string) {
	var sent []string
	for _, kb := range run.req.Context.KnowledgeBase {
		sent = append(sent, kb.KnowledgeBaseID)
	}
	why := "the command lists no knowledgeBaseIds and the request's knowledgeBase variable names none"
	if len(configured) > 0 {
		why = "the request's knowledgeBase variable names none of the command's knowledgeBaseIds"
	}
	run.logger().Warn("recallByAgent: nothing recalled: "+why, "knowledgeBaseIds", configured, "sent", sent)
}

// appendReferences places the context's knowledge references as the
// system message cfg.ReferencesPrompt renders, for a command whose
// templates do not place them. Each render after a budget cut renders the
// references left.
func (run *Run) appendReferences(msgs []llm.Message) []llm.Message {
	if run.cfg.ReferencesPrompt == nil || len(run.req.Context.KnowledgeBase) == 0 {
		return msgs
	}
	if s := run.cfg.ReferencesPrompt(run.req.Context.KnowledgeBase); s != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: s})
	}
	return msgs
}

// recallIDs are the knowledge bases to recall: the command's, intersected
// with those the plugin sent when it sent the variable.
func (run *Run) recallIDs(configured []string) []string {
	sent := run.req.Context.KnowledgeBase
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
func (run *Run) putReferences(ids []string, kbs []contextvars.KnowledgeBase) {
	s := run.req.Context
	kept := make([]contextvars.KnowledgeBase, 0, len(s.KnowledgeBase)+len(kbs))
	for _, kb := range s.KnowledgeBase {
		if !slices.Contains(ids, kb.KnowledgeBaseID) {
			kept = append(kept, kb)
		}
	}
	s.KnowledgeBase = append(kept, kbs...)
}
