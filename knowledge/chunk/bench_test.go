package chunk

import (
	"os"
	"testing"
)

// benchFiles are realistic files to split: this package's own source, the
// repository's README and the larger test inputs.
var benchFiles = []struct{ name, path string }{
	{"go", "split.go"},
	{"markdown", "../../README.md"},
	{"python", "testdata/python/bigclass.py"},
	{"typescript", "testdata/js/bigclass.ts"},
	{"java", "testdata/java/Basic.java"},
	{"text", "testdata/text/notes.txt"},
}

func BenchmarkSplit(b *testing.B) {
	for _, bf := range benchFiles {
		content, err := os.ReadFile(bf.path)
		if err != nil {
			b.Fatal(err)
		}
		name := map[string]string{"go": "a.go", "markdown": "a.md", "python": "a.py", "typescript": "a.ts", "java": "A.java", "text": "a.txt"}[bf.name]
		b.Run(bf.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Split(name, "bench", content, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTokens(b *testing.B) {
	for _, path := range []string{"split.go", "../../README.md"} {
		content, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		text := string(content)
		b.Run(path, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var terms []string
			for b.Loop() {
				terms = AppendTokens(terms[:0], text)
			}
		})
	}
}
