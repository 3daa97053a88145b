package eval

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/generated.json from the go corpus")

// TestGenerated regenerates the generated set from the vendored go corpus
// and compares it byte for byte with testdata/generated.json (-update
// rewrites it): the set is reproducible from the corpus alone.
func TestGenerated(t *testing.T) {
	var files []File
	if *update { // the set may not load before it is rewritten
		var err error
		if files, err = readCorpus(filepath.Join("testdata", "go", "src")); err != nil {
			t.Fatal(err)
		}
	} else {
		files = loadSuite(t).Corpus(CorpusGo)
	}
	qs, err := Generate(files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalQuestions(qs)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "generated.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Generate's output differs from %s (go test -run TestGenerated -update rewrites it)", golden)
	}
	t.Logf("%d generated questions", len(qs))
}
