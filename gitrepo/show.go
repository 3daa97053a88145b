package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentgw/agentgw/internal/runes"
)

const (
	defaultMaxBytes = 1 << 20 // Show's limit when maxBytes <= 0
	binarySniff     = 8 << 10 // the bytes searched for a NUL
)

// File is a file's content at a commit.
type File struct {
	Path string `json:"path"`
	// Ref is the ref as given; Hash the commit it resolved to.
	Ref  string `json:"ref"`
	Hash string `json:"hash"`
	// Size is the file's whole size in bytes.
	Size int64 `json:"size"`
	// Content is the text, at most maxBytes of it (cut at a character
	// boundary); "" for a binary file.
	Content string `json:"content"`
	// Binary reports a NUL byte in the first 8 KiB.
	Binary bool `json:"binary"`
	// Truncated reports that Content holds less than the whole text.
	Truncated bool `json:"truncated"`
}

// Show reads file at ref, at most maxBytes of it (<= 0 means 1 MiB). A
// symlink's content is its target. An unknown ref or file wraps ErrNotFound;
// a directory or submodule is an error.
func (r *Repo) Show(ctx context.Context, ref, file string, maxBytes int) (*File, error) {
	p, err := cleanPath(file)
	if err == nil && p == "" {
		err = errors.New("a file path is required")
	}
	if err != nil {
		return nil, r.errorf(err, "show")
	}
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	var f *File
	err = r.read(ctx, func() error {
		c, err := r.commit(ctx, ref)
		if err != nil {
			return err
		}
		e, err := r.fileEntry(c, p, ref)
		if err != nil {
			return err
		}
		blob, err := r.git.BlobObject(e.Hash)
		if err != nil {
			return r.errorf(err, "reading %q at %q", p, ref)
		}
		f = &File{Path: p, Ref: ref, Hash: c.Hash.String(), Size: blob.Size}
		if err := readBlob(blob, maxBytes, f); err != nil {
			return r.errorf(err, "reading %q at %q", p, ref)
		}
		return nil
	})
	return f, err
}

// readBlob fills f's Content, Binary and Truncated from the blob.
func readBlob(b *object.Blob, maxBytes int, f *File) error {
	rd, err := b.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	buf, err := io.ReadAll(io.LimitReader(rd, int64(max(maxBytes, binarySniff))))
	if err != nil {
		return fmt.Errorf("reading the blob: %w", err)
	}
	if bytes.IndexByte(buf[:min(len(buf), binarySniff)], 0) >= 0 {
		f.Binary = true
		return nil
	}
	if len(buf) > maxBytes {
		buf = buf[:maxBytes]
	}
	if int64(len(buf)) < f.Size {
		f.Truncated = true
		buf = runes.TrimPartial(buf)
	}
	f.Content = string(buf)
	return nil
}
