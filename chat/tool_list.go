package chat

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/agentgw/agentgw/agent/toolspec"
)

const (
	// listDefault and listMax are list_files' default and largest
	// maxResults.
	listDefault, listMax = 200, 10000
)

// listParams are list_files' parameters.
type listParams struct {
	Path       string `json:"path"`
	Pattern    string `json:"pattern"`
	MaxResults *int   `json:"maxResults"`
}

// listResult is list_files' result: slash paths from the workspace root,
// sorted.
type listResult struct {
	Files     []string `json:"files"`
	Truncated bool     `json:"truncated"`
}

// listFiles is list_files: the files under a directory, recursively,
// whose base name matches pattern; truncated when there are more than
// maxResults, which are then the first in path order.
func (r *toolRoot) listFiles(ctx context.Context, raw []byte) (any, *toolspec.ResultError) {
	var p listParams
	if fail := decodeParams(raw, &p); fail != nil {
		return nil, fail
	}
	if _, err := path.Match(p.Pattern, ""); err != nil {
		return nil, invalidParams("pattern %q: %v", p.Pattern, err)
	}
	limit, fail := maxParam("maxResults", p.MaxResults, listDefault, listMax)
	if fail != nil {
		return nil, fail
	}
	name, rel, fail := r.resolveDir(p.Path)
	if fail != nil {
		return nil, fail
	}
	res := listResult{Files: []string{}}
	err := r.walkFiles(ctx, name, rel, func(rel, _ string) bool {
		if ok, _ := path.Match(p.Pattern, path.Base(rel)); p.Pattern != "" && !ok {
			return false
		}
		if len(res.Files) == limit {
			res.Truncated = true
			return true
		}
		res.Files = append(res.Files, rel)
		return false
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, ioFailure(displayPath(rel), err)
	}
	return res, nil
}

// resolveDir resolves a path that must be a directory ("" for the root).
func (r *toolRoot) resolveDir(p string) (name, rel string, fail *toolspec.ResultError) {
	name, rel, fail = r.resolve(p)
	if fail != nil {
		return "", "", fail
	}
	info, fail := r.stat(name, rel)
	if fail != nil {
		return "", "", fail
	}
	if !info.IsDir() {
		return "", "", &toolspec.ResultError{Code: codeNotDir, Message: fmt.Sprintf("%s is not a directory", rel)}
	}
	return name, rel, nil
}

// displayPath names a workspace path in messages: "." for the root.
func displayPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
