package chunk

import (
	"path"
	"strings"
)

// Languages Split has a splitter for.
const (
	langOther = iota
	langGo
	langPython
	langJS
	langJava
	langMarkdown
)

// languageOf tells a file's language by its extension.
func languageOf(fileName string) int {
	switch strings.ToLower(path.Ext(fileName)) {
	case ".go":
		return langGo
	case ".py", ".pyi", ".pyw":
		return langPython
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return langJS
	case ".java":
		return langJava
	case ".md", ".markdown", ".mdown", ".mkd", ".mdx":
		return langMarkdown
	}
	return langOther
}

// TypeOf tells the source type of a file by its name: TypeDoc for
// Markdown, plain text and other documentation markup (and extensionless
// README, LICENSE, CHANGELOG and the like), TypeCode for anything else.
func TypeOf(fileName string) string {
	base := strings.ToLower(path.Base(fileName))
	switch path.Ext(base) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mdx", ".txt", ".text", ".rst",
		".adoc", ".asciidoc", ".asc", ".org", ".tex", ".textile", ".pod", ".rdoc", ".wiki":
		return TypeDoc
	case "":
		switch base {
		case "readme", "license", "licence", "copying", "notice", "authors", "contributors",
			"changelog", "changes", "history", "news", "contributing", "todo":
			return TypeDoc
		}
	}
	return TypeCode
}
