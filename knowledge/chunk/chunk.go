// Package chunk splits the files of a knowledge base into the chunks the
// gateway indexes and recalls: code at top-level declarations where the
// language allows, Markdown at headings, other text in line windows. Each
// chunk keeps the seed's metadata (fileName, source, sourceType, startPos,
// endPos).
package chunk

// Source types of a chunk (docs/protocol.md §6, knowledgeBase references).
const (
	TypeCode = "code"
	TypeDoc  = "doc"
)

// Chunk is a piece of a file, as indexed and as recalled.
type Chunk struct {
	// FileName is the file's path within its source, slash-separated.
	FileName string `json:"fileName"`
	// Source names where the file comes from: a repository and ref, or a
	// directory (the knowledge base's source as configured).
	Source string `json:"source"`
	// SourceType is TypeCode or TypeDoc.
	SourceType string `json:"sourceType"`
	// StartLine and EndLine bound the chunk, counting from 1, inclusive.
	StartLine int `json:"startPos"`
	EndLine   int `json:"endPos"`
	// Symbol names what the chunk declares (a function, a type, a class,
	// a heading), "" when it declares nothing.
	Symbol string `json:"symbol,omitempty"`
	// Text is the chunk's text, whole lines.
	Text string `json:"text"`
}
