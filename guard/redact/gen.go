package redact

// rules.json is gitleaks' default rule set (gitleaks/gitleaks.toml, MIT,
// gitleaks/LICENSE) converted to JSON; see the package doc for updating it.
//go:generate go run ./internal/rulegen -in gitleaks/gitleaks.toml -version gitleaks/VERSION -out rules.json
