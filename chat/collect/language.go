package collect

import (
	"path/filepath"
	"strings"
)

// languageOf returns the language id of a file (VS Code's ids), "plaintext"
// when unknown.
func languageOf(path string) string {
	base := filepath.Base(path)
	switch strings.ToLower(base) {
	case "dockerfile", "containerfile":
		return "dockerfile"
	case "makefile", "gnumakefile":
		return "makefile"
	case "cmakelists.txt":
		return "cmake"
	case "go.mod", "go.sum", "go.work":
		return "go.mod"
	case "gemfile", "rakefile":
		return "ruby"
	}
	switch strings.ToLower(filepath.Ext(base)) {
	case ".go":
		return "go"
	case ".py", ".pyi", ".pyw":
		return "python"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".java":
		return "java"
	case ".kt", ".kts":
		return "kotlin"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp":
		return "cpp"
	case ".cs":
		return "csharp"
	case ".rb":
		return "ruby"
	case ".php":
		return "php"
	case ".sh", ".bash", ".zsh", ".ksh":
		return "shell"
	case ".yaml", ".yml":
		return "yaml"
	case ".json", ".jsonc":
		return "json"
	case ".md", ".markdown":
		return "markdown"
	case ".sql":
		return "sql"
	case ".html", ".htm":
		return "html"
	case ".css":
		return "css"
	}
	return moreLanguages(strings.ToLower(filepath.Ext(base)))
}

// moreLanguages covers the less common extensions.
func moreLanguages(ext string) string {
	switch ext {
	case ".scss":
		return "scss"
	case ".less":
		return "less"
	case ".vue":
		return "vue"
	case ".swift":
		return "swift"
	case ".m", ".mm":
		return "objective-c"
	case ".scala", ".sc":
		return "scala"
	case ".lua":
		return "lua"
	case ".dart":
		return "dart"
	case ".xml", ".xsd", ".xsl", ".svg":
		return "xml"
	case ".toml":
		return "toml"
	case ".proto":
		return "proto"
	case ".r":
		return "r"
	case ".pl", ".pm":
		return "perl"
	case ".ex", ".exs":
		return "elixir"
	case ".erl", ".hrl":
		return "erlang"
	case ".hs":
		return "haskell"
	case ".clj", ".cljs", ".cljc", ".edn":
		return "clojure"
	case ".groovy", ".gradle":
		return "groovy"
	case ".ps1", ".psm1":
		return "powershell"
	case ".bat", ".cmd":
		return "bat"
	case ".tf", ".hcl":
		return "hcl"
	case ".ini", ".cfg":
		return "ini"
	case ".txt":
		return "plaintext"
	}
	return "plaintext"
}
