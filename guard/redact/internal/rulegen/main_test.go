package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestRulesGenerated: rules.json is what the vendored gitleaks.toml of the
// version gitleaks/VERSION names converts to (go generate ./guard/redact).
func TestRulesGenerated(t *testing.T) {
	src, err := os.ReadFile("../../gitleaks/gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	ver, err := os.ReadFile("../../gitleaks/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Convert(src, strings.TrimSpace(string(ver)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../rules.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("rules.json is not what gitleaks/gitleaks.toml converts to: run go generate ./guard/redact")
	}
}
