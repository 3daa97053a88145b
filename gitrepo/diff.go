package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/merkletrie"

	"github.com/agentgw/agentgw/internal/runes"
)

const (
	defaultMaxPatchBytes = 64 << 10 // per file, when DiffOptions leaves it 0
	maxTotalPatchBytes   = 1 << 20  // all patches of one Diff together
)

// DiffOptions tunes Diff.
type DiffOptions struct {
	// MergeBase diffs from the merge base of from and to ("from...to"): what
	// the branch to changed since it left from, as a review wants.
	MergeBase bool `json:"mergeBase,omitempty"`
	// MaxPatchBytes caps each file's patch; <= 0 means 64 KiB. All patches
	// together are capped at 1 MiB.
	MaxPatchBytes int `json:"maxPatchBytes,omitempty"`
	// Paths keeps only the files at or under these paths.
	Paths []string `json:"paths,omitempty"`
}

// Diff is the difference between two commits.
type Diff struct {
	// From and To are the commits compared; Base the merge base the diff
	// starts from, with MergeBase.
	From  string     `json:"from"`
	To    string     `json:"to"`
	Base  string     `json:"base,omitempty"`
	Files []FileDiff `json:"files"`
	// Additions and Deletions count changed lines over all files.
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	// Truncated reports that a patch was cut or left out by the caps.
	Truncated bool `json:"truncated"`
}

// FileDiff is one changed file.
type FileDiff struct {
	Path string `json:"path"`
	// OldPath is the path before a rename.
	OldPath string `json:"oldPath,omitempty"`
	// Status is "added", "modified", "deleted" or "renamed".
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary"`
	// Patch is the unified diff, cut at a line end by the caps.
	Patch string `json:"patch"`
	// Truncated reports that Patch was cut or left out.
	Truncated bool `json:"truncated,omitempty"`
}

// Diff compares the commits from and to (any refs Resolve takes), with
// renames detected, files sorted by path.
func (r *Repo) Diff(ctx context.Context, from, to string, o DiffOptions) (*Diff, error) {
	paths, err := cleanPaths(o.Paths)
	if err != nil {
		return nil, r.errorf(err, "diff")
	}
	if o.MaxPatchBytes <= 0 {
		o.MaxPatchBytes = defaultMaxPatchBytes
	}
	var d *Diff
	err = r.read(ctx, func() error {
		dd, base, tc, err := r.diffEnds(ctx, from, to, o.MergeBase)
		if err != nil {
			return err
		}
		files, err := fileDiffs(ctx, base, tc, paths)
		if err != nil {
			return r.errorf(err, "diff %s..%s", from, to)
		}
		dd.addFiles(files, o.MaxPatchBytes, r.patchBudget)
		d = dd
		return nil
	})
	return d, err
}

// diffEnds resolves both ends and the commit the diff starts from.
func (r *Repo) diffEnds(ctx context.Context, from, to string, mergeBase bool) (*Diff, *object.Commit, *object.Commit, error) {
	fc, err := r.commit(ctx, from)
	if err != nil {
		return nil, nil, nil, err
	}
	tc, err := r.commit(ctx, to)
	if err != nil {
		return nil, nil, nil, err
	}
	d := &Diff{From: fc.Hash.String(), To: tc.Hash.String(), Files: []FileDiff{}}
	if !mergeBase {
		return d, fc, tc, nil
	}
	bases, err := fc.MergeBase(tc)
	if err != nil {
		return nil, nil, nil, r.errorf(err, "merge base of %q and %q", from, to)
	}
	if len(bases) == 0 {
		return nil, nil, nil, r.errorf(errors.New("no common ancestor"), "merge base of %q and %q", from, to)
	}
	d.Base = bases[0].Hash.String()
	return d, bases[0], tc, nil
}

// fileDiffs diffs the trees of two commits, keeping the files under paths
// (all when empty).
func fileDiffs(ctx context.Context, from, to *object.Commit, paths []string) ([]FileDiff, error) {
	ft, err := from.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", from.Hash, err)
	}
	tt, err := to.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", to.Hash, err)
	}
	changes, err := object.DiffTreeWithOptions(ctx, ft, tt, object.DefaultDiffTreeOptions)
	if err != nil {
		return nil, err
	}
	var files []FileDiff
	for _, ch := range changes {
		if !underAny(ch.From.Name, paths) && !underAny(ch.To.Name, paths) {
			continue
		}
		fd, err := fileDiff(ctx, ch)
		if err != nil {
			return nil, err
		}
		files = append(files, fd)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// fileDiff describes one change, with its patch and line counts.
func fileDiff(ctx context.Context, ch *object.Change) (FileDiff, error) {
	action, err := ch.Action()
	if err != nil {
		return FileDiff{}, err
	}
	fd := FileDiff{Path: ch.To.Name, Status: "modified"}
	switch {
	case action == merkletrie.Insert:
		fd.Status = "added"
	case action == merkletrie.Delete:
		fd.Path, fd.Status = ch.From.Name, "deleted"
	case ch.From.Name != ch.To.Name:
		fd.OldPath, fd.Status = ch.From.Name, "renamed"
	}
	patch, err := ch.PatchContext(ctx)
	if err != nil {
		return FileDiff{}, fmt.Errorf("diffing %s: %w", fd.Path, err)
	}
	for _, s := range patch.Stats() {
		fd.Additions += s.Addition
		fd.Deletions += s.Deletion
	}
	for _, fp := range patch.FilePatches() {
		fd.Binary = fd.Binary || fp.IsBinary()
	}
	fd.Patch = patch.String()
	return fd, nil
}

// addFiles adds the files to d, capping each patch at perFile bytes and all
// of them at budget bytes.
func (d *Diff) addFiles(files []FileDiff, perFile, budget int) {
	total := 0
	for _, fd := range files {
		if len(fd.Patch) > perFile {
			fd.Patch, fd.Truncated = cutPatch(fd.Patch, perFile), true
		}
		if total+len(fd.Patch) > budget {
			fd.Patch, fd.Truncated = "", true
		}
		total += len(fd.Patch)
		d.Truncated = d.Truncated || fd.Truncated
		d.Additions += fd.Additions
		d.Deletions += fd.Deletions
		d.Files = append(d.Files, fd)
	}
}

// cutPatch cuts a patch to at most n bytes, at a line end when it can.
func cutPatch(p string, n int) string {
	if i := strings.LastIndexByte(p[:n], '\n'); i >= 0 {
		return p[:i+1]
	}
	return runes.TrimPartial(p[:n])
}

// cleanPaths cleans a path filter; a root path means no filter.
func cleanPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		c, err := cleanPath(p)
		if err != nil {
			return nil, err
		}
		if c == "" {
			return nil, nil
		}
		out = append(out, c)
	}
	return out, nil
}

// underAny reports whether name is one of paths or under one; true when
// paths is empty. An empty name (the absent side of a change) is under none.
func underAny(name string, paths []string) bool {
	if len(paths) == 0 {
		return name != ""
	}
	for _, p := range paths {
		if name == p || strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	return false
}
