// Package golden compares what a test produced with a file kept beside the
// test, and rewrites the file when the test runs with -update. Only tests
// import it; its -update flag is the one every package's tests share.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Check compares got with the file at path (relative to the test's package
// directory, like testdata/x.json). With -update it first writes got there,
// creating the directories it needs.
func Check(t testing.TB, path string, got []byte) {
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
