package gitrepo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

const (
	remotePrefix = "refs/remotes/origin/"
	remoteHEAD   = plumbing.ReferenceName(remotePrefix + "HEAD")
)

// updateRefs mirrors the remote's branches as refs/remotes/origin/*, its tags
// as refs/tags/* and its HEAD as refs/remotes/origin/HEAD, and deletes the
// local ones the remote no longer has. Names that are not valid ref names are
// skipped, whatever the remote sends.
func updateRefs(st storer.ReferenceStorer, remote memory.ReferenceStorage) error {
	keep := map[plumbing.ReferenceName]bool{}
	for name, ref := range remote {
		local, ok := localName(name)
		if !ok || ref.Type() != plumbing.HashReference {
			continue
		}
		keep[local] = true
		if err := st.SetReference(plumbing.NewHashReference(local, ref.Hash())); err != nil {
			return fmt.Errorf("updating %s: %w", local, err)
		}
	}
	if head := remoteHeadRef(remote); head != nil {
		keep[remoteHEAD] = true
		if err := st.SetReference(head); err != nil {
			return fmt.Errorf("updating %s: %w", remoteHEAD, err)
		}
	}
	return prune(st, keep)
}

// localName maps a remote branch or tag to its local name.
func localName(name plumbing.ReferenceName) (plumbing.ReferenceName, bool) {
	var local plumbing.ReferenceName
	switch {
	case name.IsBranch():
		local = plumbing.ReferenceName(remotePrefix + strings.TrimPrefix(name.String(), "refs/heads/"))
	case name.IsTag():
		local = name
	default:
		return "", false
	}
	if local == remoteHEAD || local.Validate() != nil || !local.IsSafe() {
		return "", false
	}
	return local, true
}

// remoteHeadRef is refs/remotes/origin/HEAD pointing at the branch the
// remote's HEAD names, else at a branch at the same commit (main, then
// master, then the first by name), else at the commit; nil without a HEAD.
func remoteHeadRef(remote memory.ReferenceStorage) *plumbing.Reference {
	head := remote[plumbing.HEAD]
	if head == nil {
		return nil
	}
	if head.Type() == plumbing.SymbolicReference {
		if local, ok := localName(head.Target()); ok && head.Target().IsBranch() && remote[head.Target()] != nil {
			return plumbing.NewSymbolicReference(remoteHEAD, local)
		}
		return nil
	}
	var same []string
	for name, ref := range remote {
		if name.IsBranch() && ref.Type() == plumbing.HashReference && ref.Hash() == head.Hash() {
			same = append(same, name.Short())
		}
	}
	sort.Slice(same, func(i, j int) bool {
		ri, rj := branchRank(same[i]), branchRank(same[j])
		return ri < rj || ri == rj && same[i] < same[j]
	})
	for _, b := range same {
		if local, ok := localName(plumbing.NewBranchReferenceName(b)); ok {
			return plumbing.NewSymbolicReference(remoteHEAD, local)
		}
	}
	return plumbing.NewHashReference(remoteHEAD, head.Hash())
}

// branchRank orders the usual default branches first.
func branchRank(b string) int {
	switch b {
	case "main":
		return 0
	case "master":
		return 1
	}
	return 2
}

// prune deletes the remote-tracking refs and tags not in keep.
func prune(st storer.ReferenceStorer, keep map[plumbing.ReferenceName]bool) error {
	iter, err := st.IterReferences()
	if err != nil {
		return fmt.Errorf("listing local refs: %w", err)
	}
	var stale []plumbing.ReferenceName
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name()
		if (strings.HasPrefix(name.String(), remotePrefix) || name.IsTag()) && !keep[name] {
			stale = append(stale, name)
		}
		return nil
	})
	iter.Close()
	if err != nil {
		return fmt.Errorf("listing local refs: %w", err)
	}
	for _, name := range stale {
		if err := st.RemoveReference(name); err != nil {
			return fmt.Errorf("deleting %s: %w", name, err)
		}
	}
	return nil
}
