package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/kb"
)

// Knowledge is what serves /knowledge-bases: the gateway's knowledge bases.
type Knowledge interface {
	List(ctx context.Context) ([]kb.Summary, error)
	Search(ctx context.Context, id string, q index.Query) ([]index.Hit, error)
}

// noKnowledge is the Knowledge of a gateway with no knowledge bases: none
// listed, every id unknown.
type noKnowledge struct{}

// List returns no knowledge bases.
func (noKnowledge) List(context.Context) ([]kb.Summary, error) { return nil, nil }

// Search knows no id.
func (noKnowledge) Search(context.Context, string, index.Query) ([]index.Hit, error) {
	return nil, kb.ErrUnknown
}

// knowledgeSearch is the body of POST /knowledge-bases/{id}/search.
type knowledgeSearch struct {
	Query      string   `json:"query"`
	TopK       int      `json:"topK"`
	Paths      []string `json:"paths"`
	SourceType string   `json:"sourceType"`
}

// listKnowledgeBases serves GET /knowledge-bases.
func (s *Server) listKnowledgeBases(c echo.Context) error {
	l, err := s.cfg.Knowledge.List(c.Request().Context())
	if err != nil {
		return apierr.New(apierr.CodeStoreUnavailable, "the knowledge bases' index cannot be read").Wrap(err)
	}
	if l == nil {
		l = []kb.Summary{} // an empty list, not null
	}
	return c.JSON(http.StatusOK, map[string]any{"knowledgeBases": l})
}

// searchKnowledgeBase serves POST /knowledge-bases/{id}/search: the
// references the query recalls, as an agent would get them.
func (s *Server) searchKnowledgeBase(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	var req knowledgeSearch
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Query == "" {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a search: send {\"query\", \"topK\"?, \"paths\"?, \"sourceType\"?}")
	}
	id := c.Param("id")
	hits, err := s.cfg.Knowledge.Search(c.Request().Context(), id, index.Query{Text: req.Query, TopK: req.TopK, PathGlobs: req.Paths, SourceType: req.SourceType})
	switch {
	case errors.Is(err, kb.ErrUnknown):
		return apierr.Errorf(apierr.CodeNotFound, "no knowledge base %q", id).Suggest("GET /knowledge-bases lists them")
	case errors.Is(err, index.ErrBadQuery):
		return apierr.Errorf(apierr.CodeBadRequest, "%v", err)
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		return apierr.Canceled(err) // the caller left: the search stopped
	case err != nil:
		return apierr.New(apierr.CodeStoreUnavailable, "the knowledge base cannot be searched").Wrap(err)
	}
	refs := make([]any, 0, len(hits))
	for _, h := range hits {
		refs = append(refs, kb.Reference(h))
	}
	return c.JSON(http.StatusOK, map[string]any{"knowledgeBaseId": id, "references": refs})
}
