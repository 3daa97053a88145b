package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/handoff/hub"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/schedule"
	"github.com/agentgw/agentgw/schedule/agentrun"
	"github.com/agentgw/agentgw/server"
)

// The adapters below serve the server's consumer interfaces with the
// gateway's parts, in the server's own types: the server links none of
// the parts (their queue, scheduler, index, git library, database
// drivers). What the server only passes on to its client is handed to it
// as the JSON the part's own types marshal to, so the API's answers are
// the parts' JSON byte for byte.

// handoffAPI serves server.Handoffs with the hand-off hub.
type handoffAPI struct{ h *hub.Hub }

var _ server.Handoffs = handoffAPI{}

// Submit queues caller's message (hub.Hub.Submit): its status as JSON.
func (a handoffAPI) Submit(ctx context.Context, caller access.Caller, raw []byte) (json.RawMessage, bool, error) {
	st, fresh, err := a.h.Submit(ctx, caller, raw)
	if err != nil {
		return nil, false, err
	}
	j, err := marshalAPI("hand-off status", st)
	return j, fresh, err
}

// Get is a message's status as JSON (hub.Hub.Get).
func (a handoffAPI) Get(ctx context.Context, caller access.Caller, id string) (json.RawMessage, error) {
	st, err := a.h.Get(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	return marshalAPI("hand-off status", st)
}

// Task is a task's messages as JSON (hub.Hub.Task).
func (a handoffAPI) Task(ctx context.Context, caller access.Caller, taskID string) (json.RawMessage, error) {
	t, err := a.h.Task(ctx, caller, taskID)
	if err != nil {
		return nil, err
	}
	return marshalAPI("task status", t)
}

// scheduleAPI serves server.Schedules with the schedules' API
// (agentrun.API).
type scheduleAPI struct{ api *agentrun.API }

var _ server.Schedules = scheduleAPI{}

// List is the schedules who sees, each as JSON.
func (a scheduleAPI) List(ctx context.Context, who access.Caller) ([]json.RawMessage, error) {
	l, err := a.api.List(ctx, who)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(l))
	for _, sc := range l {
		j, err := marshalAPI("schedule", sc)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// Get is schedule id as JSON.
func (a scheduleAPI) Get(ctx context.Context, who access.Caller, id string) (json.RawMessage, error) {
	return scheduleJSON(a.api.Get(ctx, who, id))
}

// Create makes the schedule body defines; it is returned as JSON.
func (a scheduleAPI) Create(ctx context.Context, who access.Caller, body []byte) (json.RawMessage, error) {
	return scheduleJSON(a.api.Create(ctx, who, body))
}

// Patch changes schedule id; it is returned as JSON.
func (a scheduleAPI) Patch(ctx context.Context, who access.Caller, id string, body []byte) (json.RawMessage, error) {
	return scheduleJSON(a.api.Patch(ctx, who, id, body))
}

// Delete deletes schedule id.
func (a scheduleAPI) Delete(ctx context.Context, who access.Caller, id string) error {
	return a.api.Delete(ctx, who, id)
}

// RunNow starts a run of schedule id; the run is returned as JSON.
func (a scheduleAPI) RunNow(ctx context.Context, who access.Caller, id string) (json.RawMessage, error) {
	r, err := a.api.RunNow(ctx, who, id)
	if err != nil {
		return nil, err
	}
	return marshalAPI("schedule run", r)
}

// scheduleJSON is sc as JSON, or err.
func scheduleJSON(sc schedule.Schedule, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	return marshalAPI("schedule", sc)
}

// marshalAPI is v as the API answers it; what is named what for the error.
func marshalAPI(what string, v any) (json.RawMessage, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s: %w", what, err)
	}
	return j, nil
}

// knowledgeAPI serves server.Knowledge with the knowledge bases' manager.
type knowledgeAPI struct{ m *kb.Manager }

var _ server.Knowledge = knowledgeAPI{}

// newKnowledgeAPI is the knowledge bases as the server serves them; nil
// without any (the server then has none).
func newKnowledgeAPI(m *kb.Manager) server.Knowledge {
	if m == nil {
		return nil
	}
	return knowledgeAPI{m: m}
}

// List summarizes every knowledge base.
func (a knowledgeAPI) List(ctx context.Context) ([]server.KnowledgeBase, error) {
	l, err := a.m.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]server.KnowledgeBase, 0, len(l))
	for _, s := range l {
		srcs := make([]server.KnowledgeSource, 0, len(s.Sources))
		for _, src := range s.Sources {
			srcs = append(srcs, server.KnowledgeSource(src))
		}
		if s.Sources == nil {
			srcs = nil // null as before, not []
		}
		out = append(out, server.KnowledgeBase{ID: s.ID, Name: s.Name, Sources: srcs, Files: s.Files, Chunks: s.Chunks,
			LastCommit: s.LastCommit, Updated: s.Updated, Hybrid: s.Hybrid})
	}
	return out, nil
}

// Search searches knowledge base id: its hits as references
// (kb.Reference). kb.ErrUnknown is server.ErrUnknownKnowledgeBase,
// index.ErrBadQuery server.ErrBadSearch, their messages kept.
func (a knowledgeAPI) Search(ctx context.Context, id string, q server.SearchQuery) ([]contextvars.Reference, error) {
	hits, err := a.m.Search(ctx, id, index.Query{Text: q.Text, TopK: q.TopK, PathGlobs: q.PathGlobs, SourceType: q.SourceType})
	switch {
	case errors.Is(err, kb.ErrUnknown):
		return nil, markedError{err: err, mark: server.ErrUnknownKnowledgeBase}
	case errors.Is(err, index.ErrBadQuery):
		return nil, markedError{err: err, mark: server.ErrBadSearch}
	case err != nil:
		return nil, err
	}
	refs := make([]contextvars.Reference, 0, len(hits))
	for _, h := range hits {
		refs = append(refs, kb.Reference(h))
	}
	return refs, nil
}

// markedError is err, also matching mark (errors.Is), with err's message.
type markedError struct{ err, mark error }

func (e markedError) Error() string        { return e.err.Error() }
func (e markedError) Unwrap() error        { return e.err }
func (e markedError) Is(target error) bool { return target == e.mark }
