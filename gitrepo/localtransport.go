package gitrepo

import (
	"context"
	"errors"
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// localTransport serves file:// remotes with go-git's in-process server, so
// that no git binary runs. It only fetches.
type localTransport struct{}

var _ transport.Transport = localTransport{}

// NewUploadPackSession opens the repository at the endpoint's path (a
// working copy or a bare repository).
func (localTransport) NewUploadPackSession(ep *transport.Endpoint, _ transport.AuthMethod) (transport.UploadPackSession, error) {
	g, err := git.PlainOpenWithOptions(ep.Path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, transport.ErrRepositoryNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ep.Path, err)
	}
	sess, err := server.NewClient(storerLoader{g.Storer}).NewUploadPackSession(ep, nil)
	if err != nil {
		return nil, err
	}
	return &localSession{UploadPackSession: sess, st: g.Storer}, nil
}

// NewReceivePackSession refuses: agents never push.
func (localTransport) NewReceivePackSession(*transport.Endpoint, transport.AuthMethod) (transport.ReceivePackSession, error) {
	return nil, errors.New("pushing is not supported")
}

// storerLoader hands the server the storer already opened.
type storerLoader struct{ st storer.Storer }

// Load returns the storer whatever the endpoint.
func (l storerLoader) Load(*transport.Endpoint) (storer.Storer, error) { return l.st, nil }

// localSession drops the haves the served repository lacks: go-git's server
// fails on unknown haves where git's ignores them.
type localSession struct {
	transport.UploadPackSession
	st storer.EncodedObjectStorer
}

// UploadPack answers req without the unknown haves.
func (s *localSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	haves := make([]plumbing.Hash, 0, len(req.Haves))
	for _, h := range req.Haves {
		if s.st.HasEncodedObject(h) == nil {
			haves = append(haves, h)
		}
	}
	req.Haves = haves
	return s.UploadPackSession.UploadPack(ctx, req)
}
