package gitrepo

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/memory"
)

// transportFor picks the go-git transport of an endpoint. file:// uses the
// in-process server (go-git's own file transport runs git-upload-pack).
func transportFor(ep *transport.Endpoint) (transport.Transport, error) {
	switch ep.Protocol {
	case "http", "https":
		return githttp.DefaultClient, nil
	case "ssh":
		return gitssh.DefaultClient, nil
	case "file":
		return localTransport{}, nil
	}
	return nil, fmt.Errorf("unsupported protocol %q (use https, http, ssh or file)", ep.Protocol)
}

// fetch brings st up to date with e's remote: it asks for every branch and
// tag whose object st lacks, downloads the pack to a temporary file without
// holding mu, then, holding mu, stores the pack and makes the remote's
// branches refs/remotes/origin/*, its tags refs/tags/* and its HEAD
// refs/remotes/origin/HEAD, deleting those the remote no longer has.
func (m *Manager) fetch(ctx context.Context, e *entry, st storage.Storer, mu *sync.Mutex) (err error) {
	auth, err := authMethod(e.cfg.Auth, e.ep, m.getenv)
	if err != nil {
		return err
	}
	tr, err := transportFor(e.ep)
	if err != nil {
		return err
	}
	sess, err := tr.NewUploadPackSession(e.ep, auth)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() {
		if cerr := sess.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing the session: %w", cerr)
		}
	}()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return fmt.Errorf("listing the remote's refs: %w", err)
	}
	remote, err := ar.AllReferences()
	if err != nil {
		return fmt.Errorf("reading the remote's refs: %w", err)
	}
	mu.Lock()
	wants, haves, err := negotiate(st, remote)
	mu.Unlock()
	if err != nil {
		return err
	}
	if len(wants) > 0 {
		req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
		if ar.Capabilities.Supports(capability.NoProgress) {
			if err := req.Capabilities.Set(capability.NoProgress); err != nil {
				return fmt.Errorf("building the request: %w", err)
			}
		}
		req.Wants, req.Haves = wants, haves
		if err := m.download(ctx, sess, req, st, mu); err != nil {
			return err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range wants {
		if err := st.HasEncodedObject(h); err != nil {
			return fmt.Errorf("the remote did not send object %s", h)
		}
	}
	return updateRefs(st, remote)
}

// negotiate lists the objects to ask for (remote branch and tag tips st
// lacks) and those st already has (those tips it has, and its own
// remote-tracking refs and tags), each once.
func negotiate(st storage.Storer, remote memory.ReferenceStorage) (wants, haves []plumbing.Hash, err error) {
	seen := map[plumbing.Hash]bool{}
	add := func(h plumbing.Hash) {
		if seen[h] {
			return
		}
		seen[h] = true
		if st.HasEncodedObject(h) == nil {
			haves = append(haves, h)
		} else {
			wants = append(wants, h)
		}
	}
	for _, ref := range remote {
		if ref.Type() == plumbing.HashReference && (ref.Name().IsBranch() || ref.Name().IsTag()) {
			add(ref.Hash())
		}
	}
	iter, err := st.IterReferences()
	if err != nil {
		return nil, nil, fmt.Errorf("listing local refs: %w", err)
	}
	defer iter.Close()
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && !seen[ref.Hash()] && st.HasEncodedObject(ref.Hash()) == nil {
			seen[ref.Hash()] = true
			haves = append(haves, ref.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing local refs: %w", err)
	}
	return wants, haves, nil
}

// download fetches the pack into a temporary file, then stores it in st
// holding mu, so that readers wait only for the local part.
func (m *Manager) download(ctx context.Context, sess transport.UploadPackSession, req *packp.UploadPackRequest,
	st storage.Storer, mu *sync.Mutex) (err error) {
	resp, err := sess.UploadPack(ctx, req)
	if err != nil {
		return fmt.Errorf("requesting the pack: %w", err)
	}
	defer resp.Close()
	tmp, err := os.CreateTemp(m.cacheDir, ".pack-")
	if err != nil {
		return fmt.Errorf("creating a temporary pack file: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := io.Copy(tmp, demux(req.Capabilities, resp)); err != nil {
		return fmt.Errorf("downloading the pack: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding the pack: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if err := packfile.UpdateObjectStorage(st, tmp); err != nil {
		return fmt.Errorf("storing the pack: %w", err)
	}
	return nil
}

// demux strips the side-band framing the request asked for, if any.
func demux(caps *capability.List, r io.Reader) io.Reader {
	switch {
	case caps.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, r)
	case caps.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, r)
	}
	return r
}
