// Package ruleset is the shape of gitleaks' rule file as package redact
// reads it: the TOML keys gitleaks' default configuration uses, which the
// generator (rulegen) reads and redact's embedded rules.json keeps.
package ruleset

// File is a gitleaks configuration: its global allowlist and its rules.
type File struct {
	// Version is the gitleaks version the rules come from (set by rulegen).
	Version string `toml:"-" json:"version"`
	// Allowlist is the global allowlist: a finding it allows is dropped,
	// whatever its rule.
	Allowlist Allowlist `toml:"allowlist" json:"allowlist"`
	Rules     []Rule    `toml:"rules" json:"rules"`
}

// Rule is one kind of credential.
type Rule struct {
	ID          string `toml:"id" json:"id"`
	Description string `toml:"description" json:"description,omitempty"`
	// Regex finds the credential; SecretGroup is its group that holds the
	// secret (0: the first non-empty group, or the whole match).
	Regex       string `toml:"regex" json:"regex,omitempty"`
	SecretGroup int    `toml:"secretGroup" json:"secretGroup,omitempty"`
	// Entropy, when not 0, is the Shannon entropy a secret must exceed.
	Entropy float64 `toml:"entropy" json:"entropy,omitempty"`
	// Keywords prefilter the rule: its regex runs only on text holding
	// one of them (case-insensitive).
	Keywords []string `toml:"keywords" json:"keywords,omitempty"`
	// Path limits the rule to files whose path it matches.
	Path       string      `toml:"path" json:"path,omitempty"`
	Allowlists []Allowlist `toml:"allowlists" json:"allowlists,omitempty"`
}

// Allowlist drops findings: those whose target (the secret, the whole
// match or its line) a regex matches, or whose secret holds a stop word;
// with Condition "AND", only those that pass each of its checks.
type Allowlist struct {
	Description string   `toml:"description" json:"description,omitempty"`
	Condition   string   `toml:"condition" json:"condition,omitempty"`
	RegexTarget string   `toml:"regexTarget" json:"regexTarget,omitempty"`
	Regexes     []string `toml:"regexes" json:"regexes,omitempty"`
	StopWords   []string `toml:"stopwords" json:"stopwords,omitempty"`
	Paths       []string `toml:"paths" json:"paths,omitempty"`
	Commits     []string `toml:"commits" json:"commits,omitempty"`
}
