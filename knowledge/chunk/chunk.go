// Package chunk splits the files of a knowledge base into the chunks the
// gateway indexes and recalls: code at top-level declarations where the
// language allows, Markdown at headings, other text in line windows. Each
// chunk keeps the seed's metadata (fileName, source, sourceType, startPos,
// endPos).
//
// # The C-like scanner
//
// JavaScript, TypeScript and Java are read with a small hand-written
// scanner (clike.go) because no library reads them: go/scanner knows only
// Go, and text/scanner, the standard library's tokeniser for C-like text,
// knows neither regular expression literals, template literals with nested
// ${} nor Java text blocks (it reads `…` as a Go raw string). It is not a
// fast path and is not on the relay's path at all (files are split when a
// knowledge base is indexed). Measured on 2026-11-29 at 33b2701
// (BenchmarkScanWays, -count 5, medians, on 2 shared and loaded cores, so
// rough): 44 µs and 391 allocations for testdata/js/bigclass.ts (3.3 KB),
// 25 µs for testdata/java/Basic.java, about 1.7-1.9 times text/scanner's
// 27 µs and 13 µs, which keeps no tokens (before the lexer type, at
// afea7d6 in a more loaded run, BenchmarkSplit's whole split of those files
// took 216 µs and 128 µs).
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
