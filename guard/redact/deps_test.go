package redact_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the redactor links the standard library and its embedded
// rules' shape only: neither gitleaks (viper and friends) nor the TOML
// parser the generator converts its rule file with.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/guard/redact", deptest.Module+"/guard/redact/internal/ruleset")
}
