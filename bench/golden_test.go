package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// The bench is a module of its own and cannot import the main module's
// internal/golden; this is the same check, with the same -update flag.
var update = flag.Bool("update", false, "rewrite the golden files")

// checkGolden compares got with the file at path (relative to the package
// directory, like testdata/x.md). With -update it first writes got there.
func checkGolden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (go test -update writes it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it; review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
