// Package redact finds credentials in text with gitleaks' default rule set
// and replaces each secret with a placeholder, "[REDACTED:<rule id>]":
// what the gateway does to every prompt before it leaves for the model
// (package guard).
//
// The rules are gitleaks' own (github.com/zricethezav/gitleaks/v8,
// config/gitleaks.toml, MIT: gitleaks/LICENSE), vendored at the version
// gitleaks/VERSION names and converted to rules.json at generate time, so
// that the binary links neither gitleaks nor a TOML parser. They apply as
// gitleaks applies them: a rule's regex runs only on a text holding one of
// its keywords (case-insensitive), its secret is its secretGroup (else its
// first non-empty group), a secret at or under the rule's entropy
// threshold is no finding, and the rule's allowlists and the global one
// (regexes on the secret, the match or its line; stop words) drop
// findings. What gitleaks does and this package does not: the 5 rules
// limited to file paths are left out (a prompt has no path), encoded
// segments (base64 of a secret) are not decoded, and "gitleaks:allow"
// comments are not honoured (a prompt's author is not the secret's
// owner).
//
// # Updating the rules
//
//	go mod download -json github.com/zricethezav/gitleaks/v8@vX.Y.Z   # prints Dir
//	cp <Dir>/config/gitleaks.toml <Dir>/LICENSE guard/redact/gitleaks/
//	echo vX.Y.Z > guard/redact/gitleaks/VERSION
//	go generate ./guard/redact
//	go test ./guard/redact    # the corpus tests say what changed
//
// TestRulesGenerated fails when rules.json is not what the vendored TOML
// file converts to.
package redact
