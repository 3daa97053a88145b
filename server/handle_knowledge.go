package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
)

// Knowledge is what serves /knowledge-bases: the gateway's knowledge bases.
// It speaks in the server's own types, so that server links no index or
// git library.
type Knowledge interface {
	// List summarizes every knowledge base.
	List(ctx context.Context) ([]KnowledgeBase, error)
	// Search searches knowledge base id: the references q recalls, best
	// first. An id it does not know is an error that is
	// ErrUnknownKnowledgeBase; a query it cannot run, ErrBadSearch (its
	// message is the client's answer).
	Search(ctx context.Context, id string, q SearchQuery) ([]contextvars.Reference, error)
}

// Knowledge's sentinel errors, which its implementations' errors wrap.
var (
	// ErrUnknownKnowledgeBase: no knowledge base has the id searched.
	ErrUnknownKnowledgeBase = errors.New("no such knowledge base")
	// ErrBadSearch: the search cannot be run as asked (a bad glob, source
	// type…); the error's message says why, to the client.
	ErrBadSearch = errors.New("bad knowledge query")
)

// KnowledgeBase is a knowledge base as GET /knowledge-bases lists it.
type KnowledgeBase struct {
	ID         string            `json:"id"`
	Name       string            `json:"name,omitempty"`
	Sources    []KnowledgeSource `json:"sources"`
	Files      int               `json:"files"`
	Chunks     int               `json:"chunks"`
	LastCommit string            `json:"lastIndexedCommit,omitempty"`
	Updated    time.Time         `json:"updatedAt,omitzero"`
	Hybrid     bool              `json:"hybrid"`
}

// KnowledgeSource is where a knowledge base's files come from: a git
// repository at a ref, or a directory, and the paths kept.
type KnowledgeSource struct {
	Repo  string   `json:"repo,omitempty"`
	Ref   string   `json:"ref,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// SearchQuery is a search of one knowledge base, as POST
// /knowledge-bases/{id}/search asks it.
type SearchQuery struct {
	// Text is the query.
	Text string
	// TopK is the most references returned (0: the index's default).
	TopK int
	// PathGlobs keep the chunks of files matching any of them.
	PathGlobs []string
	// SourceType keeps only chunks of that type ("code", "doc"); "" keeps
	// both.
	SourceType string
}

// noKnowledge is the Knowledge of a gateway with no knowledge bases: none
// listed, every id unknown.
type noKnowledge struct{}

// List returns no knowledge bases.
func (noKnowledge) List(context.Context) ([]KnowledgeBase, error) { return nil, nil }

// Search knows no id.
func (noKnowledge) Search(context.Context, string, SearchQuery) ([]contextvars.Reference, error) {
	return nil, ErrUnknownKnowledgeBase
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
		l = []KnowledgeBase{} // an empty list, not null
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
	refs, err := s.cfg.Knowledge.Search(c.Request().Context(), id, SearchQuery{Text: req.Query, TopK: req.TopK, PathGlobs: req.Paths, SourceType: req.SourceType})
	switch {
	case errors.Is(err, ErrUnknownKnowledgeBase):
		return apierr.Errorf(apierr.CodeNotFound, "no knowledge base %q", id).Suggest("GET /knowledge-bases lists them")
	case errors.Is(err, ErrBadSearch):
		return apierr.Errorf(apierr.CodeBadRequest, "%v", err)
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		return apierr.Canceled(err) // the caller left: the search stopped
	case err != nil:
		return apierr.New(apierr.CodeStoreUnavailable, "the knowledge base cannot be searched").Wrap(err)
	}
	if refs == nil {
		refs = []contextvars.Reference{} // an empty list, not null
	}
	return c.JSON(http.StatusOK, map[string]any{"knowledgeBaseId": id, "references": refs})
}
