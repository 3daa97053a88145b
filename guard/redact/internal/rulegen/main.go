// Command rulegen converts gitleaks' default rule set (gitleaks/gitleaks.toml,
// vendored from the gitleaks module of the version gitleaks/VERSION names)
// to rules.json, the form package redact embeds, so that the gateway's
// binary carries no TOML parser. Run it with go generate ./guard/redact.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentgw/agentgw/guard/redact/internal/ruleset"
)

func main() {
	in := flag.String("in", "gitleaks/gitleaks.toml", "gitleaks' rule file")
	version := flag.String("version", "gitleaks/VERSION", "file naming the gitleaks version the rule file comes from")
	out := flag.String("out", "rules.json", "where to write the rules")
	flag.Parse()
	if err := run(*in, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "rulegen:", err)
		os.Exit(1)
	}
}

func run(in, versionFile, out string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("reading the rules: %w", err)
	}
	ver, err := os.ReadFile(versionFile)
	if err != nil {
		return fmt.Errorf("reading the version: %w", err)
	}
	data, err := Convert(src, strings.TrimSpace(string(ver)))
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

// Convert returns the JSON form of gitleaks' TOML rule file src.
func Convert(src []byte, version string) ([]byte, error) {
	var f ruleset.File
	if _, err := toml.Decode(string(src), &f); err != nil {
		return nil, fmt.Errorf("decoding the gitleaks rules: %w", err)
	}
	f.Version = version
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encoding the rules: %w", err)
	}
	return append(data, '\n'), nil
}
