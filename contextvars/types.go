package contextvars

// UserInfo is the value of the userInfo variable: the current user.
type UserInfo struct {
	// ID is the user's id.
	ID string `json:"id"`
	// Name is the user's (English) name.
	Name string `json:"name"`
	// Nickname is the user's display name.
	Nickname string `json:"nickname"`
}

// VCS is the value of the vcs variable: the workspace's version control state.
type VCS struct {
	// Type is the kind of version control, such as "git".
	Type string `json:"type"`
	// BranchName is the current branch.
	BranchName string `json:"branchName"`
	// UpstreamBranchName is the remote branch the current one tracks ("origin/main").
	UpstreamBranchName string `json:"upstreamBranchName"`
	// RemoteURL is the address of the remote repository.
	RemoteURL string `json:"remoteUrl"`
	// Remotes lists the remote repositories' URLs.
	Remotes []string `json:"remotes"`
}

// KnowledgeBase is one element of the knowledgeBase variable.
type KnowledgeBase struct {
	// KnowledgeBaseID is the knowledge base's id.
	KnowledgeBaseID string `json:"knowledgeBaseId"`
	// References are the chunks the client recalled; nil when it recalled none.
	References []Reference `json:"references,omitzero"`
}

// Reference is one recalled chunk of a knowledge base.
type Reference struct {
	// Score is the retrieval score.
	Score float64 `json:"score"`
	// Chunk is the text the embedding was computed from.
	Chunk string `json:"chunk"`
	// Metadata says where the chunk comes from.
	Metadata ReferenceMetadata `json:"metadata"`
}

// ReferenceMetadata says where a Reference's chunk comes from.
type ReferenceMetadata struct {
	// FileName is the document's name, such as "/guides/dev.md".
	FileName string `json:"fileName"`
	// SourceType is "doc" or "code".
	SourceType string `json:"sourceType"`
	// Source is where the file lives: a local path or a repository URL.
	Source string `json:"source"`
	// StartPos is the chunk's first line, when known.
	StartPos *int `json:"startPos,omitempty"`
	// EndPos is the chunk's last line, when known.
	EndPos *int `json:"endPos,omitempty"`
}

// Editor is the value of the activeEditor variable. Lines and columns count
// from 1 (columns in runes; an end column is the position just after the last
// selected character); CursorOffset counts runes from 0.
type Editor struct {
	// FilePath is the file's path.
	FilePath string `json:"filePath"`
	// Language is the content's language id, such as "go" or "java".
	Language string `json:"language"`
	// Content is the file's content.
	Content string `json:"content"`
	// CursorOffset is the cursor's position in runes from the start of Content.
	CursorOffset int `json:"cursorOffset"`
	// StartLine is the selection's first line.
	StartLine int `json:"startLine,omitempty"`
	// StartColumn is the selection's first column.
	StartColumn int `json:"startColumn"`
	// EndLine is the selection's last line.
	EndLine int `json:"endLine,omitempty"`
	// EndColumn is the column just after the selection.
	EndColumn int `json:"endColumn"`
	// SelectedRanges are the selections (several with multiple cursors).
	SelectedRanges []Range `json:"selectedRanges"`
	// VisibleRange is the part of the file shown on screen.
	VisibleRange *Span `json:"visibleRange,omitempty"`
}

// Range is one selected range of an Editor, with the text around it.
type Range struct {
	// Content is the selected text.
	Content string `json:"content"`
	// StartLine is the selection's first line.
	StartLine int `json:"startLine,omitempty"`
	// StartColumn is the selection's first column.
	StartColumn int `json:"startColumn"`
	// EndLine is the selection's last line.
	EndLine int `json:"endLine,omitempty"`
	// EndColumn is the column just after the selection.
	EndColumn int `json:"endColumn"`
	// ContentBeforeSelection is the text before the selection, nil when not collected.
	ContentBeforeSelection *string `json:"contentBeforeSelection,omitempty"`
	// ContentAfterSelection is the text after the selection, nil when not collected.
	ContentAfterSelection *string `json:"contentAfterSelection,omitempty"`
}

// Span is a part of a file with its position, such as the visible range.
type Span struct {
	// Content is the text of the span.
	Content string `json:"content"`
	// StartLine is the span's first line.
	StartLine int `json:"startLine,omitempty"`
	// StartColumn is the span's first column.
	StartColumn int `json:"startColumn"`
	// EndLine is the span's last line.
	EndLine int `json:"endLine,omitempty"`
	// EndColumn is the column just after the span.
	EndColumn int `json:"endColumn"`
}

// Prompt is one element of the globalPrompts variable.
type Prompt struct {
	// Role is the message role, such as "system".
	Role string `json:"role"`
	// Content is the rule's text.
	Content string `json:"content"`
}

// PackageFile is one element of the packageFiles variable.
type PackageFile struct {
	// Filepath is the file's path (relative to the project root when collected by agentgw).
	Filepath string `json:"filepath"`
	// Content is the file's content.
	Content string `json:"content"`
}
