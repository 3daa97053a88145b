package redact_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchText is about size bytes of the gateway's own Go source: what an
// IDE's prompt holds (an editor's file, package files).
func benchText(b *testing.B, size int) string {
	b.Helper()
	var sb strings.Builder
	files, _ := filepath.Glob(filepath.Join("..", "..", "llm", "*.go"))
	for sb.Len() < size {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
			if sb.Len() >= size {
				break
			}
		}
	}
	return sb.String()[:size]
}

// BenchmarkFind is the cost of looking for credentials in prompts of
// ordinary code (b.SetBytes: MB/s; ns/op over KiB is the cost per KiB),
// and in a prompt holding the whole secret corpus.
func BenchmarkFind(b *testing.B) {
	r := newRedactor(b)
	for _, size := range []int{1 << 10, 16 << 10, 256 << 10} {
		text := benchText(b, size)
		b.Run("code/"+kib(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.Find(text)
			}
		})
	}
	var sb strings.Builder
	for _, c := range secretCorpus() {
		sb.WriteString(c.text)
	}
	secrets := sb.String()
	b.Run("secrets/"+kib(len(secrets)), func(b *testing.B) {
		b.SetBytes(int64(len(secrets)))
		for b.Loop() {
			r.Redact(secrets)
		}
	})
	for name, text := range benignCorpus(b) {
		if name != "package-lock.json" && name != "base64_fixtures.go" {
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.Find(text)
			}
		})
	}
}

func kib(n int) string { return strconv.Itoa(n>>10) + "KiB" }
